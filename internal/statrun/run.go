package statrun

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"time"

	"github.com/pmc-tools/pmc/internal/doctor"
	"github.com/pmc-tools/pmc/internal/host"
	"github.com/pmc-tools/pmc/internal/launch"
	"github.com/pmc-tools/pmc/internal/outfile"
	"github.com/pmc-tools/pmc/internal/perfevent"
	"github.com/pmc-tools/pmc/internal/pmu"
	"github.com/pmc-tools/pmc/internal/result"
	"github.com/pmc-tools/pmc/internal/stat"
	"github.com/pmc-tools/pmc/internal/unix"
)

// Machines picks the machines of a pmc stat run: the one its events resolve on, and the
// one whose facts (CPU, counters, built-in metrics, the report's header) apply. Normally both
// are this machine. The fake backend and --fake-machine resolve on an empty machine, with the
// facts of --fake-machine FILE or none, so that their output is the same on every host.
func Machines(e *Env, f *Flags) (facts, on *host.Machine, err error) {
	if f.Fake != "" || f.Metric.FakeMachine != "" || f.Sim != "" {
		on = host.Empty() // not this machine's sysfs: the recorded or scripted one has none
	} else {
		on = e.Machine()
	}
	facts = on
	if f.Sim != "" && f.Fake == "" {
		facts = e.Machine() // the simulated CPU is this one (its caches, its metrics)
	}
	if f.Metric.FakeMachine != "" {
		data, err := e.Read(f.Metric.FakeMachine, LimitFacts, "--fake-machine")
		if err != nil {
			return nil, nil, err
		}
		if facts, err = host.Load(data); err != nil {
			return nil, nil, fmt.Errorf("--fake-machine %s: %w", filepath.Base(f.Metric.FakeMachine), err)
		}
	}
	return facts, on, nil
}

// Run is pmc stat: the flags checked, the metrics planned, the events chosen and resolved,
// the outputs opened, the counting done and its results written. Its error is an *ExitError
// carrying pmc's exit status, or a plain error (status 1).
func Run(ctx context.Context, e *Env, f *Flags, args []string) error {
	facts, on, err := Machines(e, f)
	if err != nil {
		return usageErr(err)
	}
	if f.Metric.List && f.CPUs != "" {
		// --list-metrics --cpu NAME: the metrics of that CPU model (-C's long name is --cpu)
		if facts, err = facts.Browse(f.CPUs); err != nil {
			return usageErr(err)
		}
		on = facts
	}
	plan, err := NewMetricPlan(&f.Metric, facts, on, e.Read)
	if err != nil {
		return usageErr(err)
	}
	if f.Metric.List {
		return listMetrics(e.Stdout, plan)
	}
	req, err := prepare(e, f, args, plan, facts, on)
	if err != nil {
		return usageErr(err)
	}
	if f.Verbose || f.DryRun {
		printPlan(e.Stderr, plan)
		printAttrs(e.Stderr, req.Events)
		if f.DryRun {
			return nil
		}
	}
	backend, err := newBackend(e, f)
	if err != nil {
		return usageErr(err)
	}
	if ctx == nil {
		ctx = context.Background()
	}
	if req.Mode != stat.Launch {
		// Attach and system-wide counting stop at Ctrl-C; in launch mode the workload gets the
		// signal (forwarded by the launcher) and its end stops the count.
		var stop context.CancelFunc
		ctx, stop = signal.NotifyContext(ctx, os.Interrupt, unix.SIGTERM, unix.SIGHUP, unix.SIGQUIT)
		defer stop()
	}
	o, err := openOutputs(e, f, req, plan)
	if err != nil {
		return err
	}
	started := time.Now()
	res, runErr := stat.Measure(ctx, backend, req, stat.Options{OnInterval: o.out.Interval, KeepRuns: o.out.keepRuns(),
		Pre: shellHook(e, "--pre", f.Pre), Post: shellHook(e, "--post", f.Post)})
	if res == nil || len(res.Runs) == 0 {
		o.abort()
	} else {
		if err := finish(e, f, req, plan, facts, started, res, runErr, o); err != nil {
			return err
		}
	}
	if runErr != nil {
		return &ExitError{Code: ExitStatusFor(runErr), Err: runErr}
	}
	if len(res.Runs) > 0 && res.Runs[len(res.Runs)-1].Stopped {
		return nil // pmc ended the workload itself (--duration, --interval-count): perf exits 0
	}
	if res.ExitStatus != 0 {
		return &ExitError{Code: res.ExitStatus}
	}
	return nil
}

// prepare checks the flags into a request placed on the machine, chooses its events (the
// plan's warnings said first) and resolves them.
func prepare(e *Env, f *Flags, args []string, plan *MetricPlan, facts, on *host.Machine) (*stat.Request, error) {
	req, err := f.request(e, args)
	if err != nil {
		return nil, err
	}
	if err := f.Metric.check(f); err != nil {
		return nil, err
	}
	if err := place(f, req, facts, on); err != nil {
		return nil, err
	}
	if f.Sim != "" && len(f.Events) == 0 && len(plan.Names) == 0 {
		f.Events = []string{SimDefaultEvents}
	}
	if f.SimCache != "" && f.Sim == "" {
		return nil, fmt.Errorf("--sim-cache needs --sim")
	}
	spec, err := ChooseEvents(f, req.Mode, plan)
	if err != nil {
		return nil, err
	}
	machineStderr := f.Output == "" && (f.JSON || f.Perf.JSON || f.CSV || f.Sep != "")
	for _, w := range plan.Warnings {
		if !machineStderr {
			fmt.Fprintf(e.Stderr, "pmc: %s\n", w)
		}
	}
	if !f.Null {
		evs, err := resolveDelayed(on, spec, req.Mode, !f.NoInherit, req.Delay > 0)
		if err != nil {
			return nil, err
		}
		if err := plan.CheckPinned(evs); err != nil {
			return nil, err
		}
		req.Events = evs
		plan.Notes = plan.Mark(req.Events)
	}
	return req, nil
}

// place puts the request on the machine: -G's cgroup under its mount, -a's online CPUs,
// -C's checked online, the --per-X sums from the CPUs' topology.
func place(f *Flags, req *stat.Request, facts, on *host.Machine) error {
	if req.Cgroup != "" && !filepath.IsAbs(req.Cgroup) {
		mount, err := on.Cgroup2Mount()
		if err != nil {
			return fmt.Errorf("-G %s: %w", req.Cgroup, err)
		}
		req.Cgroup = filepath.Join(mount, req.Cgroup)
	}
	if req.Mode == stat.System && len(req.CPUs) == 0 {
		req.CPUs = on.PMUs.Online // -a: every online CPU, named in the result
	}
	if err := onlineOnly(req, on); err != nil {
		return err
	}
	if f.PerThread && f.Metric.requested() {
		return errors.New("--per-thread prints counts only: drop -M/--report")
	}
	if by, _ := f.aggregation(); by != "" {
		topo, err := facts.Topology(req.CPUs)
		if err == nil {
			req.Aggregation, err = host.Aggregate(by, topo, req.CPUs)
		}
		if err != nil {
			return fmt.Errorf("--per-%s: %w", by, err)
		}
	}
	return nil
}

// newBackend is what counts: the kernel (whatever machine the events resolved on), the fake
// backend scripted by --fake, or --sim's cachegrind.
func newBackend(e *Env, f *Flags) (stat.Backend, error) {
	var backend stat.Backend = stat.Kernel{Machine: e.Machine()} // counting happens here, whatever the events resolved on
	if f.Fake != "" {
		data, err := e.Read(f.Fake, LimitFake, "--fake")
		if err != nil {
			return nil, err
		}
		spec, err := stat.ParseFakeSpec(data)
		if err != nil {
			return nil, err
		}
		backend = stat.Fake{Spec: spec}
	}
	if f.Sim != "" {
		if f.Fake != "" {
			return nil, errors.New("--sim and --fake are different backends: choose one")
		}
		b, err := SimBackend(e.Machine(), f)
		if err != nil {
			return nil, err
		}
		backend = b
	}
	return backend, nil
}

// finish completes a run that measured something: notes, metrics and the machine's stamp,
// then the outputs written (the counts on stderr when the file failed) and the report.
func finish(e *Env, f *Flags, req *stat.Request, plan *MetricPlan, facts *host.Machine, started time.Time,
	res *result.Stat, runErr error, o *outputs) error {
	res.Notes = append(append(append([]string(nil), plan.Warnings...), plan.Notes...), res.Notes...)
	if last := res.Runs[len(res.Runs)-1]; last.Abandoned {
		res.Notes = append(res.Notes, fmt.Sprintf("the workload did not end on %s: pmc stopped waiting after %v and it still runs; the counts are those up to then",
			last.Signal, launch.Grace))
	}
	if hint := NoPMUHint(e, res); hint != "" {
		res.Notes = append(res.Notes, hint)
	}
	if !req.PerThread { // the metrics know rows by event and CPU, not by thread
		res.Metrics = plan.Result(res)
		plan.spread(res)
	}
	if f.Fake != "" {
		started = time.Time{} // scripted counts: no date, the same output on every run
		if f.Metric.FakeMachine != "" {
			started = facts.Date
		}
	}
	e.Stamp(res, facts, started)
	writeErr := errors.Join(o.out.final(res), o.rec.finish(res, req.Events))
	if writeErr != nil {
		o.out.rescue(res)
		if o.report != nil {
			o.report.Abort()
		}
	} else {
		writeErr = writeReport(o.report, f.Metric.File, res, plan)
		if writeErr == nil && o.report != nil {
			res.Notes = append(res.Notes, "report written to "+f.Metric.Report)
		}
	}
	if !o.out.machineStderr() {
		for _, n := range res.Notes[len(plan.Warnings):] { // the plan's were printed before counting
			fmt.Fprintf(e.Stderr, "pmc: %s\n", n)
		}
	}
	if writeErr != nil && runErr == nil {
		// The workload's status is kept; a run that succeeded still reports the failure.
		code := res.ExitStatus
		if code == 0 {
			code = 1
		}
		return &ExitError{Code: code, Err: writeErr}
	}
	return nil
}

// outputs are a run's files, opened before counting so that one that cannot be written stops
// pmc before the workload runs: the counts' (-o or stderr), --report's, stat record's.
type outputs struct {
	out    *statOutput
	report *outfile.File
	rec    *statRecording
}

func openOutputs(e *Env, f *Flags, req *stat.Request, plan *MetricPlan) (*outputs, error) {
	out, err := newStatOutput(e, f, req, plan)
	if err != nil {
		return nil, usageErr(err)
	}
	reportFile, err := openReport(f.Metric.Report)
	if err != nil {
		out.abort()
		return nil, usageErr(err)
	}
	rec, err := openStatRecording(e, f, req)
	if err != nil {
		out.abort()
		return nil, err
	}
	return &outputs{out: out, report: reportFile, rec: rec}, nil
}

// abort gives up every output: nothing was measured.
func (o *outputs) abort() {
	o.out.abort()
	o.rec.abort()
	if o.report != nil {
		o.report.Abort()
	}
}

// onlineOnly refuses -C CPUs that are not online: perf prints <not supported> for them, pmc
// counted the others and labelled the result with all (-C 0-99 on a 2-CPU machine).
func onlineOnly(req *stat.Request, m *host.Machine) error {
	if req.Mode != stat.System || len(m.PMUs.Online) == 0 {
		return nil
	}
	online := map[int]bool{}
	for _, c := range m.PMUs.Online {
		online[c] = true
	}
	var missing []int
	for _, c := range req.CPUs {
		if !online[c] {
			missing = append(missing, c)
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("-C: CPU %s not online here (online: %s)", pmu.FormatCPUList(missing), pmu.FormatCPUList(m.PMUs.Online))
	}
	return nil
}

// NoPMUHint explains, once, why every hardware event is <not supported> on a machine with no
// hardware PMU, and what can be counted instead ("" when it does not apply).
func NoPMUHint(e *Env, res *result.Stat) string {
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
	if hw == 0 || unsupported < hw || e.Machine().Core != nil {
		return ""
	}
	return "hardware events are <not supported> here: this machine exposes no hardware PMU (" +
		doctor.NoPMUCause(e.Machine(), e.Platform()) + "; `pmc doctor` says how to fix it); software events work: " +
		"-e task-clock,page-faults,context-switches,cpu-migrations, and pmc stat --sim simulates caches and branches"
}

// ExitStatusFor maps a measurement failure to pmc's exit status: 127/126 for a command that
// cannot be found or run (shell convention), 1 otherwise.
func ExitStatusFor(err error) int {
	var le *launch.ExecError
	if errors.As(err, &le) {
		return le.ExitCode()
	}
	return 1
}

// shellHook runs a --pre/--post command with sh -c on the workload's stdio, as perf runs
// them with system(3); nil when none was given.
func shellHook(e *Env, flag, command string) func() error {
	if command == "" {
		return nil
	}
	return func() error {
		c := exec.Command("/bin/sh", "-c", command)
		c.Stdin, c.Stdout, c.Stderr = e.Workload[0], e.Workload[1], e.Workload[2]
		if err := c.Run(); err != nil {
			return fmt.Errorf("%s %q: %v", flag, command, err)
		}
		return nil
	}
}
