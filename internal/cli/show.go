package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/pmc-tools/pmc/internal/host"
	"github.com/pmc-tools/pmc/internal/mem"
	"github.com/pmc-tools/pmc/internal/result"

	"github.com/spf13/cobra"

	"github.com/pmc-tools/pmc/internal/statfmt"
)

// showFlags are the options of `pmc show`.
type showFlags struct {
	sep        string
	csv        bool
	json       bool
	histograms string
}

func newShowCmd(e *env) *cobra.Command {
	f := &showFlags{}
	cmd := &cobra.Command{
		Use:   "show [--csv | -x SEP | --json] FILE",
		Short: "print a saved result (pmc stat --json, include/pmc.h's JSON, pmc mem --json) as the command did",
		Long: `Print a pmc.stat/v1 JSON file the way pmc stat prints its results. A file written by
include/pmc.h (self-measured regions) prints one table per region, in the order the
regions were first entered. A pmc.mem/v1 file (pmc mem --json) prints the text pmc mem
printed. "-" reads standard input.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			data, err := readInput(args[0], cmd.InOrStdin(), limitResult, "pmc show")
			if err != nil {
				return usageErr(err)
			}
			return showResult(e.stdout, data, f)
		},
	}
	fl := cmd.Flags()
	fl.StringVarP(&f.sep, "field-separator", "x", "", "CSV with this separator, perf's columns (RFC 4180 quoting)")
	fl.BoolVar(&f.csv, "csv", false, "RFC 4180 CSV with a header row")
	fl.BoolVar(&f.json, "json", false, "the JSON again, normalised (summary filled in)")
	fl.StringVar(&f.histograms, "histograms", "tiers", "pmc.mem/v1 files: latency histograms to print: tiers, all, none")
	return cmd
}

// savedResult is a Result file with the fields include/pmc.h adds: its runs are regions.
// Fields this reader does not know (a newer pmc.h's per-thread ones) are ignored.
type savedResult struct {
	result.Stat
	Regions []savedRegion `json:"regions"`
}

// savedRegion is one named region of an include/pmc.h file.
type savedRegion struct {
	Name   string `json:"name"`
	Run    int    `json:"run"`
	Calls  int    `json:"calls"`
	Parent string `json:"parent"`
}

// regionStat is the region reg of an include/pmc.h file as a result of its own: its one run,
// its time, and the metrics pmc stat would compute over its counts (IPC, CPUs utilized,
// rates: plan's defaults on a machine known only by the counts).
func (s *savedResult) regionStat(reg savedRegion, plan *metricPlan) (*result.Stat, error) {
	if reg.Run < 0 || reg.Run >= len(s.Runs) {
		return nil, fmt.Errorf("region %q names run %d of %d", result.Printable(reg.Name), reg.Run, len(s.Runs))
	}
	r := s.Stat
	r.Schema = result.SchemaVersion // one region alone is an ordinary result of one run
	r.Command = []string{fmt.Sprintf("region %s (%d calls)", result.Printable(reg.Name), reg.Calls)}
	r.Runs = []result.Run{s.Runs[reg.Run]}
	r.Repeat, r.Completed, r.Summary, r.Intervals = 1, 1, nil, nil
	r.ElapsedSec, r.ElapsedStd, r.ExitStatus = r.Runs[0].ElapsedSec, 0, 0
	result.Summarize(&r)
	r.Metrics = plan.result(&r)
	return &r, nil
}

// savedPlan is the metric plan of saved results: the default metrics, on a machine known
// only by what the file says.
func savedPlan() (*metricPlan, error) {
	return newMetricPlan(&metricFlags{}, host.Empty(), host.Empty())
}

func showResult(w io.Writer, data []byte, f *showFlags) error {
	if f.csv && f.sep != "" || f.json && (f.csv || f.sep != "") {
		return usageErr(errors.New("choose one output: --csv, -x SEP or --json"))
	}
	var head struct {
		Schema string `json:"schema"`
	}
	if json.Unmarshal(data, &head) == nil && head.Schema == mem.SchemaVersion {
		return showMem(w, data, f)
	}
	var docs []savedResult
	err := result.Decode(bytes.NewReader(data), func(doc *result.Stat, raw json.RawMessage) error {
		saved := savedResult{Stat: *doc}
		if err := json.Unmarshal(raw, &saved); err != nil {
			return err
		}
		saved.Stat.Intervals = doc.Intervals
		docs = append(docs, saved)
		return nil
	})
	if err != nil {
		return usageErr(fmt.Errorf("not a pmc result file: %w", err))
	}
	for _, saved := range docs {
		if err := showOne(w, saved, f); err != nil {
			return err
		}
	}
	return nil
}

// showOne prints one saved result (each region of an include/pmc.h file as its own table).
func showOne(w io.Writer, saved savedResult, f *showFlags) error {
	if len(saved.Runs) == 0 {
		return usageErr(errors.New("the file holds no runs"))
	}
	if err := saved.Validate(); err != nil {
		return usageErr(err)
	}
	saved.Sanitize()
	results := []*result.Stat{&saved.Stat}
	var regions []string // the region of each result, for CSV
	if len(saved.Regions) > 0 {
		results = results[:0]
		plan, err := savedPlan()
		if err != nil {
			return err
		}
		for _, reg := range saved.Regions {
			r, err := saved.regionStat(reg, plan)
			if err != nil {
				return usageErr(err)
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
		case f.json:
			err = statfmt.JSON(w, r)
		case f.csv || f.sep != "":
			sep := ','
			if f.sep != "" {
				sep = []rune(f.sep)[0]
			}
			opt := statfmt.CSVOptions{Sep: sep, Header: f.csv, NoHeader: i > 0}
			if regions != nil {
				opt.Region = &regions[i] // one CSV, a region column: rows keep their region
			}
			err = statfmt.CSV(w, r, opt)
		default:
			err = statfmt.Text(w, r, statfmt.TextOptions{})
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// showMem prints a pmc.mem/v1 document as pmc mem printed it (or its JSON again).
func showMem(w io.Writer, data []byte, f *showFlags) error {
	if f.csv || f.sep != "" {
		return usageErr(errors.New("a pmc.mem/v1 file prints as text or --json, not CSV"))
	}
	switch f.histograms {
	case "tiers", "all", "none":
	default:
		return usageErr(fmt.Errorf("--histograms %q: want tiers, all or none", f.histograms))
	}
	var r mem.Result
	if err := json.Unmarshal(data, &r); err != nil {
		return usageErr(fmt.Errorf("not a pmc.mem/v1 file: %w", err))
	}
	if len(r.Points) == 0 {
		return usageErr(errors.New("the pmc.mem/v1 file holds no points"))
	}
	if f.json {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(&r)
	}
	mem.WriteText(w, &r, f.histograms)
	return nil
}
