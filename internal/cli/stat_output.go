package cli

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/pmc-tools/pmc/internal/result"

	"github.com/pmc-tools/pmc/internal/launch"
	"github.com/pmc-tools/pmc/internal/outfile"
	"github.com/pmc-tools/pmc/internal/perfevent"
	"github.com/pmc-tools/pmc/internal/stat"
	"github.com/pmc-tools/pmc/internal/statfmt"
)

// statOutput writes `pmc stat` results in the chosen format, to stderr or to -o FILE.
// Intervals stream to stderr as they come; with -o they are kept and written at the end,
// in one write (package outfile: a regular file is replaced atomically, a device or FIFO
// written, a symlink written through), so a file is never left half-written.
type statOutput struct {
	e    *env
	f    *statFlags
	file *outfile.File // -o FILE, opened before counting; nil: stderr
	live io.Writer     // where intervals stream (nil when buffered for -o)
	buf  bytes.Buffer
	head *result.Stat // what interval rows need to know before the run ends
	plan *metricPlan
	n    int     // intervals written
	last float64 // time of the previous interval
}

// newStatOutput opens -o FILE at once, so that an output that cannot be written stops pmc
// before the workload runs.
func newStatOutput(e *env, f *statFlags, req *stat.Request, plan *metricPlan) (*statOutput, error) {
	o := &statOutput{e: e, f: f, plan: plan, head: &result.Stat{Schema: result.SchemaVersion,
		Command: req.Command, Mode: string(req.Mode), PIDs: req.PIDs, CPUs: req.CPUs,
		Scaled: !req.NoScale, Repeat: req.Repeat}}
	if f.output == "" {
		o.live = e.stderr
		return o, nil
	}
	mode := outfile.Replace
	if f.appendOut {
		mode = outfile.Append
	}
	file, err := outfile.Create(f.output, mode)
	if err != nil {
		return nil, fmt.Errorf("-o: %w", err)
	}
	o.file, o.live = file, &o.buf
	return o, nil
}

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

func (o *statOutput) interval(iv result.Interval) {
	if o.f.json {
		return // intervals are part of the JSON document
	}
	ms := o.plan.interval(iv.Counts, iv.TimeSec-o.last)
	o.last = iv.TimeSec
	if o.f.csv || o.f.sep != "" {
		opt := o.csvOptions()
		opt.Metrics = ms
		statfmt.CSVInterval(o.live, o.head, iv, o.n == 0, opt)
	} else {
		// perf repeats the column header every 25 intervals
		statfmt.TextInterval(o.live, o.head, iv, o.n%25 == 0, statfmt.TextOptions{Metrics: ms})
	}
	o.n++
}

func (o *statOutput) final(res *result.Stat) error {
	w := io.Writer(o.e.stderr)
	if o.file != nil {
		w = &o.buf
	}
	var err error
	switch {
	case o.f.metric.only:
		err = writeMetricOnly(w, o.f, res)
	case o.f.json:
		err = statfmt.JSON(w, res)
	case res.Intervals != nil:
		// interval mode printed its rows already; perf prints no summary table after them
	case o.f.csv || o.f.sep != "":
		err = statfmt.CSV(w, res, o.csvOptions())
	default:
		err = statfmt.Text(w, res, statfmt.TextOptions{})
	}
	if err != nil {
		o.abort()
		return err
	}
	if o.file == nil {
		return nil
	}
	if _, err := o.file.Write(o.buf.Bytes()); err != nil {
		o.file.Abort()
		return err
	}
	return o.file.Close()
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
// hardware PMU, and what can be counted instead.
func noPMUHint(w io.Writer, res *result.Stat) {
	if res.Backend != (stat.Kernel{}).Name() {
		return // the fake backend's verdicts say nothing about this machine
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
	if hw == 0 || unsupported < hw || machine().Core != nil {
		return
	}
	fmt.Fprintln(w, "pmc: hardware events are <not supported> here: this machine exposes no hardware PMU "+
		"(no cpu PMU in /sys/bus/event_source/devices, common in VMs); software events work: "+
		"-e task-clock,page-faults,context-switches,cpu-migrations")
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
