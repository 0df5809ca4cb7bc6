package result

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// IntervalSchema names the JSON line of one -I interval (pmc stat --json -I writes one per
// interval, as it is read, then the run's pmc.stat/v1 document as the last line).
const IntervalSchema = "pmc.stat.interval/v1"

// IntervalLine is one -I interval as a JSON line: the interval's deltas and the metrics
// computed over them.
type IntervalLine struct {
	Schema string `json:"schema"`
	Interval
	Metrics []Metric `json:"metrics,omitempty"`
}

// Decode reads pmc.stat/v1 JSON (and include/pmc.h's pmc.self/v1): one indented document, or a JSON Lines stream (documents
// appended with --append, -I interval lines before their document). Each document is passed
// to each with its intervals attached and its raw bytes (for fields outside this model, such
// as include/pmc.h's regions). Unknown fields are ignored, as the schema's compatibility
// rules require; a value of another schema, or none, is an error.
func Decode(r io.Reader, each func(doc *Stat, raw json.RawMessage) error) error {
	dec := json.NewDecoder(r)
	var pending []Interval
	n := 0
	for {
		var raw json.RawMessage
		err := dec.Decode(&raw)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return fmt.Errorf("not pmc JSON: %w", err)
		}
		var head struct {
			Schema string `json:"schema"`
		}
		if raw = bytes.TrimSpace(raw); len(raw) == 0 || raw[0] != '{' {
			return errors.New("not pmc JSON: want a JSON object with a schema")
		}
		if err := json.Unmarshal(raw, &head); err != nil {
			return fmt.Errorf("not pmc JSON: %w", err)
		}
		switch head.Schema {
		case IntervalSchema:
			var line IntervalLine
			if err := json.Unmarshal(raw, &line); err != nil {
				return fmt.Errorf("interval line: %w", err)
			}
			pending = append(pending, line.Interval)
		case SchemaVersion, SelfSchema:
			var doc Stat
			if err := json.Unmarshal(raw, &doc); err != nil {
				return fmt.Errorf("%s document: %w", SchemaVersion, err)
			}
			if len(doc.Intervals) == 0 {
				doc.Intervals = pending
			}
			pending = nil
			n++
			if err := each(&doc, raw); err != nil {
				return err
			}
		default:
			return fmt.Errorf("schema %q: want %s (pmc stat --json) or %s (include/pmc.h)", head.Schema, SchemaVersion, SelfSchema)
		}
	}
	switch {
	case n == 0 && len(pending) > 0:
		return fmt.Errorf("%d interval lines without their %s document (the run did not finish)", len(pending), SchemaVersion)
	case n == 0:
		return errors.New("no pmc.stat/v1 document")
	}
	return nil
}
