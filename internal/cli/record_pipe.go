package cli

import "github.com/pmc-tools/pmc/internal/record"

// recordOutput is where pmc stat record's recording goes (record.Output).
type recordOutput = record.Output

// openRecording opens path for pmc stat record's recording (- is e's standard output).
func openRecording(e *env, path string) (recordOutput, error) {
	return record.OpenOutput(path, e.stdout)
}
