package cli

import (
	"encoding/json"
	"errors"
	"io"
	"sync"

	"github.com/pmc-tools/pmc/internal/host"
	"github.com/pmc-tools/pmc/internal/mem"
	"github.com/pmc-tools/pmc/internal/result"
	"github.com/pmc-tools/pmc/internal/statrun"

	"github.com/spf13/cobra"

	"github.com/pmc-tools/pmc/internal/statfmt"
)

// showFlags are the options of `pmc show`.
type showFlags struct {
	statfmt.ShowOptions // --json, --csv, -x
	histograms          string
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
	fl.StringVarP(&f.Sep, "field-separator", "x", "", "CSV with this separator, perf's columns (RFC 4180 quoting)")
	fl.BoolVar(&f.CSV, "csv", false, "RFC 4180 CSV with a header row")
	fl.BoolVar(&f.JSON, "json", false, "the JSON again, normalised (summary filled in)")
	fl.StringVar(&f.histograms, "histograms", "tiers", "pmc.mem/v1 files: latency histograms to print: tiers, all, none")
	return cmd
}

// savedMetrics computes the metrics of an include/pmc.h region as pmc stat would over its
// counts (IPC, CPUs utilized, rates): the default metrics, on a machine known only by what
// the file says. The plan is made once, when a region needs it.
func savedMetrics() func(*result.Stat) ([]result.Metric, error) {
	plan := sync.OnceValues(func() (*statrun.MetricPlan, error) {
		return statrun.NewMetricPlan(&statrun.MetricFlags{}, host.Empty(), host.Empty(), nil)
	})
	return func(r *result.Stat) ([]result.Metric, error) {
		p, err := plan()
		if err != nil {
			return nil, err
		}
		return p.Result(r), nil
	}
}

func showResult(w io.Writer, data []byte, f *showFlags) error {
	if f.CSV && f.Sep != "" || f.JSON && (f.CSV || f.Sep != "") {
		return usageErr(errors.New("choose one output: --csv, -x SEP or --json"))
	}
	var head struct {
		Schema string `json:"schema"`
	}
	if json.Unmarshal(data, &head) == nil && head.Schema == mem.SchemaVersion {
		if f.CSV || f.Sep != "" {
			return usageErr(errors.New("a pmc.mem/v1 file prints as text or --json, not CSV"))
		}
		return mem.Show(w, data, f.JSON, f.histograms)
	}
	opt := f.ShowOptions
	opt.Metrics = savedMetrics()
	return statfmt.Show(w, data, opt)
}
