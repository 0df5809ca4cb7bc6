package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"time"

	"github.com/pmc-tools/pmc/internal/result"

	"github.com/pmc-tools/pmc/internal/doctor"
	"github.com/pmc-tools/pmc/internal/launch"
	"github.com/pmc-tools/pmc/internal/outfile"
	"github.com/pmc-tools/pmc/internal/perfevent"
	"github.com/pmc-tools/pmc/internal/stat"
	"github.com/pmc-tools/pmc/internal/statfmt"
)

// statOutput writes `pmc stat` results in the chosen format, to stderr or to -o FILE
// (opened before counting with package outfile). Intervals are written as they are read:
// to stderr, or to the file itself (synced, so `tail -f` follows them), and none is kept
// in memory. Without -I the whole result is written at the end in one piece, so a regular
// file is replaced atomically and never left half-written.
type statOutput struct {
	e    *env
	f    *statFlags
	file *outfile.File // -o FILE; nil: stderr
	live io.Writer     // where intervals go as they come
	head *result.Stat  // what interval rows need to know before the run ends
	plan *metricPlan
	n    int     // intervals written
	last float64 // time of the previous interval
}

// newStatOutput opens -o FILE at once, so that an output that cannot be written stops pmc
// before the workload runs. Text and perf-form CSV files start with perf's "# started on"
// line.
func newStatOutput(e *env, f *statFlags, req *stat.Request, plan *metricPlan) (*statOutput, error) {
	o := &statOutput{e: e, f: f, plan: plan, head: &result.Stat{Schema: result.SchemaVersion,
		Command: req.Command, Mode: string(req.Mode), PIDs: req.PIDs, Threads: req.Threads, CPUs: req.CPUs,
		Scaled: !req.NoScale, Repeat: req.Repeat}}
	if f.output == "" {
		o.live = e.stderr
		return o, nil
	}
	mode := outfile.Replace
	switch {
	case f.appendOut:
		mode = outfile.Append
	case f.intervalMS > 0:
		mode = outfile.Stream
	}
	file, err := outfile.Create(f.output, mode)
	if err != nil {
		return nil, fmt.Errorf("-o: %w", err)
	}
	o.file, o.live = file, file
	if !f.json && !f.csv && !f.perf.json {
		if _, err := io.WriteString(file, statfmt.StartedLine(time.Now())); err != nil {
			file.Abort()
			return nil, fmt.Errorf("-o: %w", err)
		}
	}
	return o, nil
}

// machineStderr reports whether stderr carries machine-readable output (JSON or CSV without
// -o): then pmc's own hints stay out of it (JSON has them in "notes").
func (o *statOutput) machineStderr() bool {
	return o.file == nil && (o.f.json || o.f.perf.json || o.f.csv || o.f.sep != "")
}

// keepRuns says whether every run must stay in memory: the JSON forms list them, --table
// prints them and the report gives the metrics' spread over them.
func (o *statOutput) keepRuns() bool { return o.f.json || o.f.table || o.f.metric.report != "" }

// abort gives up the -o file (nothing was measured): an existing file is left as it was.
func (o *statOutput) abort() {
	if o.file != nil {
		o.file.Abort()
	}
}

func (o *statOutput) csvOptions() statfmt.CSVOptions {
	sep := ','
	if o.f.sep != "" {
		sep = []rune(o.f.sep)[0]
	}
	return statfmt.CSVOptions{Sep: sep, Header: o.f.csv}
}

// interval writes one -I interval as soon as it is read: a text or CSV row block, or a JSON
// line (schema pmc.stat.interval/v1).
func (o *statOutput) interval(iv result.Interval) {
	ms := o.plan.interval(iv.Counts, iv.TimeSec-o.last)
	o.last = iv.TimeSec
	switch {
	case o.f.json:
		statfmt.JSONInterval(o.live, iv, ms)
	case o.f.perf.json:
		statfmt.PerfJSONInterval(o.live, o.head, iv, ms)
	case o.f.csv || o.f.sep != "":
		opt := o.csvOptions()
		opt.Metrics = ms
		statfmt.CSVInterval(o.live, o.head, iv, o.n == 0, opt)
	default:
		// perf repeats the column header every 25 intervals
		opt := o.textOptions()
		opt.Metrics = ms
		statfmt.TextInterval(o.live, o.head, iv, o.n%25 == 0, opt)
	}
	if o.file != nil {
		o.file.Sync()
	}
	o.n++
}

// final writes the result and finishes the file. A JSON document is indented, or one line
// when it is appended to a file (JSON Lines) or ends an -I stream of JSON lines.
func (o *statOutput) final(res *result.Stat) error {
	w := o.live
	var err error
	switch {
	case o.f.metric.only:
		err = writeMetricOnly(w, o.f, res)
	case o.f.json && (o.f.appendOut || o.f.intervalMS > 0):
		err = statfmt.JSONLine(w, res)
	case o.f.json:
		err = statfmt.JSON(w, res)
	case o.f.intervalMS > 0 && !o.f.perf.summary:
		// interval mode printed its rows already; perf prints no summary table after them
	case o.f.perf.json:
		err = statfmt.PerfJSON(w, res)
	case o.f.intervalMS > 0 && (o.f.csv || o.f.sep != ""):
		err = statfmt.CSVSummary(w, res, o.csvOptions(), !o.f.perf.noCSVSummary)
	case o.f.csv || o.f.sep != "":
		err = statfmt.CSV(w, res, o.csvOptions())
	default:
		err = statfmt.Text(w, res, o.textOptions())
	}
	if err != nil {
		o.abort()
		return err
	}
	if o.file == nil {
		return nil
	}
	return o.file.Close()
}

// rescue prints the result to stderr as text when the output file could not be written at
// the end (a full disk, a device gone): the counts are not lost.
func (o *statOutput) rescue(res *result.Stat) {
	if o.file == nil || o.f.intervalMS > 0 {
		return
	}
	fmt.Fprintf(o.e.stderr, "pmc: the counts that could not be written to %s:\n", o.f.output)
	statfmt.Text(o.e.stderr, res, o.textOptions())
}

// textOptions groups digits with -B: the locale's separator where pmc knows it, else ','
// (perf groups only under a locale that has one; its users ask -B for the grouping).
func (o *statOutput) textOptions() statfmt.TextOptions {
	if !o.f.bigNum || o.f.perf.noBigNum {
		return statfmt.TextOptions{Table: o.f.table, NoMerge: o.f.perf.noMerge}
	}
	sep := statfmt.ThousandsFromEnv(os.Getenv)
	if sep == 0 {
		sep = ','
	}
	return statfmt.TextOptions{Thousands: sep, Table: o.f.table, NoMerge: o.f.perf.noMerge}
}

// printAttrs writes each event's perf_event_attr in pmc's stable text form (-v, --dry-run).
func printAttrs(w io.Writer, evs []stat.Event) {
	for _, ev := range evs {
		role := ""
		if ev.Leader {
			role = ", leader"
		}
		fmt.Fprintf(w, "event %q (group %d%s)", ev.Name, ev.Group, role)
		if ev.Resolved != "" {
			fmt.Fprintf(w, " resolves to %s", ev.Resolved)
		}
		fmt.Fprintf(w, "\n%s", ev.Attr.String())
	}
}

// noPMUHint explains, once, why every hardware event is <not supported> on a machine with no
// hardware PMU, and what can be counted instead ("" when it does not apply).
func noPMUHint(e *env, res *result.Stat) string {
	if res.Backend != (stat.Kernel{}).Name() {
		return "" // the fake backend's verdicts say nothing about this machine
	}
	var hw, unsupported int
	for _, s := range res.Summary {
		switch s.Encoding.Type {
		case perfevent.TypeHardware, perfevent.TypeHWCache, perfevent.TypeRaw:
			hw++
			if s.Status == result.NotSupported {
				unsupported++
			}
		}
	}
	if hw == 0 || unsupported < hw || e.machine().Core != nil {
		return ""
	}
	return "hardware events are <not supported> here: this machine exposes no hardware PMU (" +
		doctor.NoPMUCause(e.machine(), e.platform()) + "; `pmc doctor` says how to fix it); software events work: " +
		"-e task-clock,page-faults,context-switches,cpu-migrations, and pmc stat --sim simulates caches and branches"
}

// exitStatusFor maps a measurement failure to pmc's exit status: 127/126 for a command that
// cannot be found or run (shell convention), 1 otherwise.
func exitStatusFor(err error) int {
	var le *launch.ExecError
	if errors.As(err, &le) {
		return le.ExitCode()
	}
	return 1
}

// shellHook runs a --pre/--post command with sh -c on the workload's stdio, as perf runs
// them with system(3); nil when none was given.
func shellHook(e *env, flag, command string) func() error {
	if command == "" {
		return nil
	}
	return func() error {
		c := exec.Command("/bin/sh", "-c", command)
		c.Stdin, c.Stdout, c.Stderr = e.workload[0], e.workload[1], e.workload[2]
		if err := c.Run(); err != nil {
			return fmt.Errorf("%s %q: %v", flag, command, err)
		}
		return nil
	}
}
