package statfmt

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/pmc-tools/pmc/internal/result"
)

// JSON writes r as indented JSON with a trailing newline. The document is the Result
// itself (docs/json-schema.md); an empty Schema is filled with result.SchemaVersion so every
// document says which schema it follows.
func JSON(w io.Writer, r *result.Stat) error {
	out := *r
	if out.Schema == "" {
		out.Schema = result.SchemaVersion
	}
	data, err := json.MarshalIndent(&out, "", "  ")
	if err != nil {
		return fmt.Errorf("encoding json: %w", err)
	}
	data = append(data, '\n')
	_, err = w.Write(data)
	return err
}

// JSONLine writes r as one line of compact JSON: a document of a JSON Lines stream (pmc stat
// --json --append, and the last line of --json -I).
func JSONLine(w io.Writer, r *result.Stat) error {
	out := *r
	if out.Schema == "" {
		out.Schema = result.SchemaVersion
	}
	return writeLine(w, &out)
}

// JSONInterval writes one -I interval as a line of compact JSON (schema pmc.stat.interval/v1),
// as soon as it is read; the run's pmc.stat/v1 document follows as the last line.
func JSONInterval(w io.Writer, iv result.Interval, metrics []result.Metric) error {
	return writeLine(w, result.IntervalLine{Schema: result.IntervalSchema, Interval: iv, Metrics: metrics})
}

func writeLine(w io.Writer, v any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("encoding json: %w", err)
	}
	_, err = w.Write(append(data, '\n'))
	return err
}
