package statrun

import (
	"bytes"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/pmc-tools/pmc/internal/host"
	"github.com/pmc-tools/pmc/internal/listing"
	"github.com/pmc-tools/pmc/internal/metrics"
	"github.com/pmc-tools/pmc/internal/outfile"
	"github.com/pmc-tools/pmc/internal/result"
	"github.com/pmc-tools/pmc/internal/statreport"
)

// listMetrics writes the metrics `pmc stat -M` accepts here, grouped.
func listMetrics(w io.Writer, p *MetricPlan) error {
	arch := metrics.ArchOn(p.facts)
	if arch == "" {
		arch = "generic (perf's event names)"
	}
	fmt.Fprintf(w, "Metrics for %s, architecture %s; use -M NAME or -M GROUP:\n\n", p.facts.CPUModel(), arch)
	return p.Set.List(w)
}

// openReport opens the --report file before counting (nil when there is none), so that a
// report that cannot be written stops pmc before the workload runs.
func openReport(path string) (*outfile.File, error) {
	if path == "" {
		return nil, nil
	}
	f, err := outfile.Create(path, outfile.Replace)
	if err != nil {
		return nil, fmt.Errorf("--report: %w", err)
	}
	return f, nil
}

// writeReport writes the --report file (file is --metrics-file) from whatever the run
// measured (an interrupted workload still has its counts up to the signal).
func writeReport(out *outfile.File, file string, res *result.Stat, p *MetricPlan) error {
	if out == nil {
		return nil
	}
	var b bytes.Buffer
	withCPI := *res
	withCPI.Metrics = p.reportMetrics(res)
	err := statreport.Write(&b, statreport.Report{Machine: reportMachine(p.facts), Result: &withCPI, Set: p.Set,
		Planned: p.planned, Notes: append(append([]string(nil), p.Warnings...), p.Notes...), Events: rawEventNames(p.facts, res), Tip: togetherTip(res, p, file)})
	if err == nil {
		_, err = out.Write(b.Bytes())
	}
	if err != nil {
		out.Abort()
		return fmt.Errorf("--report: %w", err)
	}
	if err := out.Close(); err != nil {
		return fmt.Errorf("--report: %w", err)
	}
	return nil
}

// reportMachine is the header of the report file.
func reportMachine(m *host.Machine) statreport.Machine {
	return statreport.Machine{Host: m.Hostname, Kernel: m.Kernel, Date: m.Date, Processors: m.Processors,
		CPU: m.CPUModel(), PMU: m.PMULine()}
}

// rawEventNames names the raw codes (r07, r0B...) of res from the event table of the CPU, so
// a report reads "r07: EXEC_INSTR ..." instead of a bare number. Nil when there is no table.
func rawEventNames(m *host.Machine, res *result.Stat) map[string]string {
	var out map[string]string
	for _, s := range res.Summary {
		code, ok := listing.RawCode(s.Event) // r07, r0x7
		if !ok || !strings.HasPrefix(s.Event, "r") {
			continue
		}
		if n := m.RawEventName(code); n != "" {
			if out == nil {
				out = map[string]string{}
			}
			out[s.Event] = n
		}
	}
	return out
}

// togetherTip suggests -M for metrics computed from operands measured apart: pmc then plans
// groups in which numerator and denominator are counted at the same time. Metrics the planner
// already placed (and could not fit) get no tip.
func togetherTip(res *result.Stat, p *MetricPlan, file string) string {
	var apart []string
	for _, m := range res.Metrics {
		if p.planned != "" && slices.Contains(p.Names, m.Name) {
			continue
		}
		if m.Valid && !m.Together && !slices.Contains(apart, m.Name) {
			apart = append(apart, m.Name)
		}
	}
	if len(apart) == 0 {
		return ""
	}
	cmd := strings.Join(res.Command, " ")
	if cmd == "" {
		cmd = "COMMAND"
	}
	opt := ""
	if file != "" {
		opt = "--metrics-file " + file + " "
	}
	return fmt.Sprintf("let pmc group the operands so they are counted together: pmc stat %s-M %s -- %s",
		opt, strings.Join(apart, ","), cmd)
}
