package metrics

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
)

// LoadFile reads user metric definitions (--metrics-file). The format is "json" (or "" to
// mean json): an array of objects with the fields of Def:
//
//	[{"name": "l1d_mpki_u", "expr": "1000 * L1-dcache-load-misses:u / instructions:u",
//	  "unit": "PTI", "description": "user-space L1D misses per thousand instructions",
//	  "group": "mine,cache", "event": "L1-dcache-load-misses:u", "max": 0, "issue": ""}]
//
// Unknown fields are errors (a misspelt "expresion" must not pass silently). Each definition
// is checked on its own (name, syntax, functions); references to other metrics and cycles
// are checked when the definitions are added to a Set with Set.Merge or NewSet. YAML is not
// supported: JSON needs no extra dependency and a YAML subset parser is not worth its bugs.
func LoadFile(data []byte, format string) ([]Def, error) {
	switch strings.ToLower(format) {
	case "", "json":
	case "yaml", "yml":
		return nil, errors.New("metrics: YAML metrics files are not supported; write the definitions as a JSON array")
	default:
		return nil, fmt.Errorf("metrics: unknown metrics file format %q; use json", format)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var defs []Def
	if err := dec.Decode(&defs); err != nil {
		return nil, fmt.Errorf("metrics: file %s: %w", where(data, err), err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("metrics: file: unexpected data after the JSON array")
	}
	seen := map[string]bool{}
	for i, d := range defs {
		if err := checkDef(d); err != nil {
			return nil, fmt.Errorf("%w (entry %d)", err, i+1)
		}
		if seen[d.Name] {
			return nil, &Error{Metric: d.Name, Msg: fmt.Sprintf("defined twice (entry %d)", i+1), Err: ErrSyntax}
		}
		seen[d.Name] = true
		if _, err := Parse(d.Expr); err != nil {
			var pe *Error
			if errors.As(err, &pe) {
				pe.Metric = d.Name
			}
			return nil, err
		}
	}
	return defs, nil
}

// where turns a JSON decoder error into "line L, column C" when it carries an offset.
func where(data []byte, err error) string {
	var off int64 = -1
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		off = se.Offset
	case errors.As(err, &te):
		off = te.Offset
	}
	if off < 0 || off > int64(len(data)) {
		return "is not a JSON array of metric definitions"
	}
	line := 1 + bytes.Count(data[:off], []byte("\n"))
	col := off - int64(bytes.LastIndexByte(data[:off], '\n'))
	return fmt.Sprintf("line %d, column %d", line, col)
}
