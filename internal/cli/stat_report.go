package cli

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/pmc-tools/pmc/internal/events"
	"github.com/pmc-tools/pmc/internal/host"
	"github.com/pmc-tools/pmc/internal/metrics"
	"github.com/pmc-tools/pmc/internal/result"
	"github.com/pmc-tools/pmc/internal/statfmt"

	"github.com/pmc-tools/pmc/internal/outfile"
	"github.com/pmc-tools/pmc/internal/stat"
	"github.com/pmc-tools/pmc/internal/statreport"
)

// requested says whether any metric or the report was asked for.
func (m *metricFlags) requested() bool {
	return len(m.metrics) > 0 || len(m.groups) > 0 || m.report != "" || m.file != ""
}

// check rejects metric flag combinations pmc cannot honour.
func (m *metricFlags) check(f *statFlags) error {
	switch {
	case m.only && f.intervalMS > 0:
		return errors.New("--metric-only cannot be combined with -I yet: drop one of them")
	case m.only && f.dryRun:
		return errors.New("--metric-only prints results, --dry-run counts nothing: drop one of them")
	case m.report != "" && f.dryRun:
		return errors.New("--report writes results, --dry-run counts nothing: drop one of them")
	case m.report != "" && m.report == f.output:
		return fmt.Errorf("--report %s and -o %s name the same file: choose another report file", m.report, f.output)
	}
	return nil
}

// listMetrics writes the metrics `pmc stat -M` accepts here, grouped.
func listMetrics(w io.Writer, p *metricPlan) error {
	arch := metrics.ArchOn(p.facts)
	if arch == "" {
		arch = "generic (perf's event names)"
	}
	fmt.Fprintf(w, "Metrics for %s, architecture %s; use -M NAME or -M GROUP:\n\n", p.facts.CPUModel(), arch)
	return p.set.List(w)
}

// chooseEvents decides what to count: the user's -e plus the groups of requested metrics
// whose operands -e lacks; the metrics' plan alone without -e; a default set per CPU family
// for --report without either; perf's default list otherwise.
func chooseEvents(f *statFlags, mode stat.Mode, p *metricPlan) (string, error) {
	userSpec := strings.Join(f.events, ",")
	var user []stat.Event
	if userSpec != "" {
		evs, err := resolveOn(p.on, userSpec, mode, !f.noInherit)
		if err != nil {
			return "", err
		}
		user = evs
	} else if len(p.names) == 0 && f.metric.report != "" {
		if err := p.reportDefaults(); err != nil {
			return "", err
		}
	}
	// A misspelt event in a metric is reported in the metric, not in the planned -e list.
	err := p.set.CheckEvents(p.names, func(ev string) error {
		_, err := resolveOn(p.on, ev, mode, !f.noInherit)
		return err
	})
	if err != nil {
		return "", fmt.Errorf("-M: %w", err)
	}
	spec, err := p.events(userSpec, user)
	if err != nil {
		return "", err
	}
	if p.userN = len(user); p.planned != "" {
		if evs, err := resolveOn(p.on, p.planned, mode, !f.noInherit); err == nil {
			p.plannedN = len(evs)
		}
	}
	if spec == "" && !f.null {
		spec = events.DefaultEventsFor(p.on.PMUs, mode == stat.System)
	}
	if d := events.Detailed(f.detailed); d != "" {
		spec += "," + d // perf appends them to -e too
	}
	return spec, nil
}

// printPlan says, with -v or --dry-run, how the metrics' events were grouped.
func printPlan(w io.Writer, p *metricPlan) {
	if p.planned == "" {
		return
	}
	fmt.Fprintf(w, "metrics %s planned for %s as: -e %s\n", strings.Join(p.names, ","), p.facts.PMULine(), p.planned)
}

// writeMetricOnly prints only the metrics, in the format the flags chose.
func writeMetricOnly(w io.Writer, f *statFlags, res *result.Stat) error {
	switch {
	case f.json:
		return statfmt.MetricOnlyJSON(w, res)
	case f.csv || f.sep != "":
		sep := ','
		if f.sep != "" {
			sep = []rune(f.sep)[0]
		}
		return statfmt.MetricOnlyCSV(w, res, sep, f.csv)
	}
	return statfmt.MetricOnlyText(w, res)
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
func writeReport(out *outfile.File, file string, res *result.Stat, p *metricPlan) error {
	if out == nil {
		return nil
	}
	var b bytes.Buffer
	withCPI := *res
	withCPI.Metrics = p.reportMetrics(res)
	err := statreport.Write(&b, statreport.Report{Machine: reportMachine(p.facts), Result: &withCPI, Set: p.set,
		Planned: p.planned, Notes: append(append([]string(nil), p.warnings...), p.notes...), Events: rawEventNames(p.facts, res), Tip: togetherTip(res, p, file)})
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
		code, ok := rawCode(s.Event) // explain.go: r07, r0x7
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
func togetherTip(res *result.Stat, p *metricPlan, file string) string {
	var apart []string
	for _, m := range res.Metrics {
		if p.planned != "" && slices.Contains(p.names, m.Name) {
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
