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
		return fmt.Errorf("report: encode json: %w", err)
	}
	data = append(data, '\n')
	_, err = w.Write(data)
	return err
}
