package statfmt

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/pmc-tools/pmc/internal/result"
)

// ShowOptions say how Show prints saved results.
type ShowOptions struct {
	JSON bool   // the JSON again, normalised (summary filled in)
	CSV  bool   // RFC 4180 CSV with a header row
	Sep  string // CSV with this separator, perf's columns (-x); "" for none
	// Metrics computes the metrics of an include/pmc.h region, a result of its own.
	Metrics func(r *result.Stat) ([]result.Metric, error)
}

// Show prints the pmc.stat/v1 documents of data (pmc stat --json, include/pmc.h's files) as
// pmc stat printed them: text, CSV or JSON. The regions of an include/pmc.h file print as
// one table each, in the order they were first entered (in CSV, one table with a region
// column). Names from the file are sanitized before they reach the terminal.
func Show(w io.Writer, data []byte, o ShowOptions) error {
	var docs []result.Saved
	err := result.Decode(bytes.NewReader(data), func(doc *result.Stat, raw json.RawMessage) error {
		saved := result.Saved{Stat: *doc}
		if err := json.Unmarshal(raw, &saved); err != nil {
			return err
		}
		saved.Stat.Intervals = doc.Intervals
		docs = append(docs, saved)
		return nil
	})
	if err != nil {
		return fmt.Errorf("not a pmc result file: %w", err)
	}
	for _, saved := range docs {
		if err := showOne(w, saved, &o); err != nil {
			return err
		}
	}
	return nil
}

// showOne prints one saved result (each region of an include/pmc.h file as its own table).
func showOne(w io.Writer, saved result.Saved, o *ShowOptions) error {
	if len(saved.Runs) == 0 {
		return errors.New("the file holds no runs")
	}
	if err := saved.Validate(); err != nil {
		return err
	}
	saved.Sanitize()
	results := []*result.Stat{&saved.Stat}
	var regions []string // the region of each result, for CSV
	if len(saved.Regions) > 0 {
		results = results[:0]
		for _, reg := range saved.Regions {
			r, err := saved.RegionStat(reg)
			if err != nil {
				return err
			}
			if o.Metrics != nil {
				if r.Metrics, err = o.Metrics(r); err != nil {
					return err
				}
			}
			results = append(results, r)
			regions = append(regions, result.Printable(reg.Name))
		}
	}
	for i, r := range results {
		if len(r.Summary) == 0 {
			result.Summarize(r)
		}
		var err error
		switch {
		case o.JSON:
			err = JSON(w, r)
		case o.CSV || o.Sep != "":
			sep := ','
			if o.Sep != "" {
				sep = []rune(o.Sep)[0]
			}
			opt := CSVOptions{Sep: sep, Header: o.CSV, NoHeader: i > 0}
			if regions != nil {
				opt.Region = &regions[i] // one CSV, a region column: rows keep their region
			}
			err = CSV(w, r, opt)
		default:
			err = Text(w, r, TextOptions{})
		}
		if err != nil {
			return err
		}
	}
	return nil
}
