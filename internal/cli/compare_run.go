package cli

import (
	"context"
	"errors"
	"fmt"

	"github.com/pmc-tools/pmc/internal/compare"
	"github.com/pmc-tools/pmc/internal/comparerun"
	"github.com/pmc-tools/pmc/internal/host"
	"github.com/pmc-tools/pmc/internal/result"
	"github.com/pmc-tools/pmc/internal/stat"
	"github.com/pmc-tools/pmc/internal/statrun"
)

// measureCompare runs the commands and returns their comparison (not yet built). failed
// says which commands had runs that failed (the comparison is still written).
func measureCompare(ctx context.Context, e *env, f *compareFlags, args []string) (*compare.Comparison, error, error) {
	s := &f.stat
	if err := f.checkRuns(len(args)); err != nil {
		return nil, nil, usageErr(err)
	}
	if s.Metric.FakeMachine == "" && len(f.fakes) > 0 {
		s.Fake = f.fakes[0] // resolve on the empty machine, as pmc stat --fake does
	}
	argvs, err := comparerun.Argvs(args, f.shell, f.names)
	if err != nil {
		return nil, nil, usageErr(err)
	}
	facts, on, err := statrun.Machines(e.statEnv(), s)
	if err != nil {
		return nil, nil, usageErr(err)
	}
	plan, err := statrun.NewMetricPlan(&s.Metric, facts, on, e.statEnv().Read)
	if err != nil {
		return nil, nil, usageErr(err)
	}
	if s.Sim != "" && len(s.Events) == 0 && len(plan.Names) == 0 {
		s.Events = []string{statrun.SimDefaultEvents}
	}
	if s.SimCache != "" && s.Sim == "" {
		return nil, nil, usageErr(errors.New("--sim-cache needs --sim"))
	}
	spec, err := statrun.ChooseEvents(s, stat.Launch, plan)
	if err != nil {
		return nil, nil, usageErr(err)
	}
	evs, err := statrun.ResolveOn(on, spec, stat.Launch, true)
	if err != nil {
		return nil, nil, usageErr(err)
	}
	if err := plan.CheckPinned(evs); err != nil {
		return nil, nil, usageErr(err)
	}
	plan.Notes = plan.Mark(evs)
	backends := make([]stat.Backend, len(args))
	for i := range args {
		backends[i] = stat.Kernel{Machine: e.machine()}
		if s.Sim != "" {
			b, err := statrun.SimBackend(e.machine(), s)
			if err != nil {
				return nil, nil, usageErr(err)
			}
			backends[i] = b
		}
		if len(f.fakes) > 0 {
			data, err := readInput(f.fakes[i], nil, statrun.LimitFake, "--fake")
			if err != nil {
				return nil, nil, usageErr(err)
			}
			fs, err := stat.ParseFakeSpec(data)
			if err != nil {
				return nil, nil, usageErr(fmt.Errorf("--fake %s: %w", f.fakes[i], err))
			}
			backends[i] = stat.Fake{Spec: fs}
		}
	}
	c := &compare.Comparison{Source: "measured", Interleaved: !f.noInterleave, Warmup: s.Warmup, TimeoutSec: f.timeout.Seconds()}
	for i := range args {
		c.Commands = append(c.Commands, compare.Command{Label: f.label(i), Command: argvs[i], Backend: backends[i].Name()})
	}
	c.Notes = append(append(c.Notes, plan.Warnings...), plan.Notes...)

	o := comparerun.Options{Backends: backends, Events: evs, Runs: s.Repeat, Duration: s.Duration, Warmup: s.Warmup,
		Timeout: f.timeout, NoInterleave: f.noInterleave, Metrics: plan.Interval, Machine: identity(facts),
		Hint: func(res *result.Stat) string { return statrun.NoPMUHint(e.statEnv(), res) }, Progress: e.stderr}
	if f.showOutput {
		o.Stdio = e.workload
	}
	failed, err := comparerun.Measure(ctx, c, o)
	if err != nil {
		return nil, nil, &exitError{code: statrun.ExitStatusFor(err), err: err}
	}
	return c, failed, nil
}

// readSaved reads saved results (comparerun.ReadSaved). Metrics are computed per run from
// the counts, with the metric flags, as for measured runs (the machine's facts are not
// known: the generic definitions apply).
func readSaved(e *env, f *compareFlags, args []string) (*compare.Comparison, error) {
	s := &f.stat
	if s.Changed("timeout") {
		return nil, usageErr(errors.New("--timeout limits the runs of commands: saved results are compared as they are"))
	}
	if s.Changed("event") || s.Changed("runs") || s.Changed("warmup") || s.Changed("duration") || s.Changed("shell") || len(f.fakes) > 0 {
		return nil, usageErr(errors.New("-e, -r, --warmup, --duration and --shell are for running commands: saved results are compared as they are (-M computes metrics from their counts)"))
	}
	empty := host.Empty()
	facts := empty
	if s.Metric.FakeMachine != "" {
		var err error
		if facts, _, err = statrun.Machines(e.statEnv(), s); err != nil {
			return nil, usageErr(err)
		}
	}
	plan, err := statrun.NewMetricPlan(&s.Metric, facts, empty, e.statEnv().Read)
	if err != nil {
		return nil, usageErr(err)
	}
	c, err := comparerun.ReadSaved(args, comparerun.SavedOptions{Names: f.names, Region: f.region, Metrics: plan.Interval,
		Read: func(path string) ([]byte, error) { return readInput(path, nil, limitResult, "pmc compare") }})
	if err != nil {
		return nil, usageErr(err)
	}
	return c, nil
}
