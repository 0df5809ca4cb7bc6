package cli

import (
	"io"
	"os"
	"os/signal"

	"github.com/pmc-tools/pmc/internal/outfile"
	"github.com/pmc-tools/pmc/internal/record"
	"github.com/pmc-tools/pmc/internal/unix"
)

// recordOutput is where a recording goes (pmc record's, pmc stat record's): a file (kept or
// removed as a whole by outfile, an older one kept as FILE.old), or standard output for -.
type recordOutput interface {
	io.Writer
	Close() error
	Abort()
}

// openRecording opens path for a recording: - is standard output, where a reader that goes
// away makes a write error (a broken pipe) rather than a signal that kills pmc with its
// workload's recording unfinished.
func openRecording(e *env, path string) (recordOutput, error) {
	if path != "-" {
		return outfile.Create(path, outfile.Rotate)
	}
	return &pipeOutput{Writer: e.stdout, sigpipe: sigpipe()}, nil
}

// open opens the recording's output. For -o - (perf's pipe format on standard output) the
// workload's standard output goes to its standard error, as perf sends it, so that it
// cannot mix with the records.
func (p *recordPlan) open(e *env, req *record.Request) (recordOutput, error) {
	if p.output == "-" {
		req.Pipe = true
		req.Stdout = req.Stderr
	}
	return openRecording(e, p.output)
}

// sigpipe turns SIGPIPE into EPIPE for pmc's own writes; the returned func undoes it.
func sigpipe() func() {
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, unix.SIGPIPE)
	return func() { signal.Stop(ch) }
}

// pipeOutput is standard output: nothing to rename or remove.
type pipeOutput struct {
	io.Writer
	sigpipe func()
}

func (o *pipeOutput) Close() error { o.sigpipe(); return nil }
func (o *pipeOutput) Abort()       { o.sigpipe() }
