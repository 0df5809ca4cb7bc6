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
)

// measureCompare runs the commands and returns their comparison (not yet built). failed
// says which commands had runs that failed (the comparison is still written).
func measureCompare(ctx context.Context, e *env, f *compareFlags, args []string) (*compare.Comparison, error, error) {
	s := &f.stat
	if err := f.checkRuns(len(args)); err != nil {
		return nil, nil, usageErr(err)
	}
	if s.metric.fakeMachine == "" && len(f.fakes) > 0 {
		s.fake = f.fakes[0] // resolve on the empty machine, as pmc stat --fake does
	}
	argvs, err := comparerun.Argvs(args, f.shell, f.names)
	if err != nil {
		return nil, nil, usageErr(err)
	}
	facts, on, err := statMachines(e, s)
	if err != nil {
		return nil, nil, usageErr(err)
	}
	plan, err := newMetricPlan(&s.metric, facts, on)
	if err != nil {
		return nil, nil, usageErr(err)
	}
	if s.sim != "" && len(s.events) == 0 && len(plan.names) == 0 {
		s.events = []string{simDefaultEvents}
	}
	if s.simCache != "" && s.sim == "" {
		return nil, nil, usageErr(errors.New("--sim-cache needs --sim"))
	}
	spec, err := chooseEvents(s, stat.Launch, plan)
	if err != nil {
		return nil, nil, usageErr(err)
	}
	evs, err := resolveOn(on, spec, stat.Launch, true)
	if err != nil {
		return nil, nil, usageErr(err)
	}
	if err := plan.checkPinned(evs); err != nil {
		return nil, nil, usageErr(err)
	}
	plan.notes = plan.mark(evs)
	backends := make([]stat.Backend, len(args))
	for i := range args {
		backends[i] = stat.Kernel{Machine: e.machine()}
		if s.sim != "" {
			b, err := simBackend(e.machine(), s)
			if err != nil {
				return nil, nil, usageErr(err)
			}
			backends[i] = b
		}
		if len(f.fakes) > 0 {
			data, err := readInput(f.fakes[i], nil, limitFake, "--fake")
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
	c := &compare.Comparison{Source: "measured", Interleaved: !f.noInterleave, Warmup: s.warmup, TimeoutSec: f.timeout.Seconds()}
	for i := range args {
		c.Commands = append(c.Commands, compare.Command{Label: f.label(i), Command: argvs[i], Backend: backends[i].Name()})
	}
	c.Notes = append(append(c.Notes, plan.warnings...), plan.notes...)

	o := comparerun.Options{Backends: backends, Events: evs, Runs: s.repeat, Duration: s.duration, Warmup: s.warmup,
		Timeout: f.timeout, NoInterleave: f.noInterleave, Metrics: plan.interval, Machine: identity(facts),
		Hint: func(res *result.Stat) string { return noPMUHint(e, res) }, Progress: e.stderr}
	if f.showOutput {
		o.Stdio = e.workload
	}
	failed, err := comparerun.Measure(ctx, c, o)
	if err != nil {
		return nil, nil, &exitError{code: exitStatusFor(err), err: err}
	}
	return c, failed, nil
}

// readSaved reads saved results (comparerun.ReadSaved). Metrics are computed per run from
// the counts, with the metric flags, as for measured runs (the machine's facts are not
// known: the generic definitions apply).
func readSaved(e *env, f *compareFlags, args []string) (*compare.Comparison, error) {
	s := &f.stat
	if s.changed("timeout") {
		return nil, usageErr(errors.New("--timeout limits the runs of commands: saved results are compared as they are"))
	}
	if s.changed("event") || s.changed("runs") || s.changed("warmup") || s.changed("duration") || s.changed("shell") || len(f.fakes) > 0 {
		return nil, usageErr(errors.New("-e, -r, --warmup, --duration and --shell are for running commands: saved results are compared as they are (-M computes metrics from their counts)"))
	}
	empty := host.Empty()
	facts := empty
	if s.metric.fakeMachine != "" {
		var err error
		if facts, _, err = statMachines(e, s); err != nil {
			return nil, usageErr(err)
		}
	}
	plan, err := newMetricPlan(&s.metric, facts, empty)
	if err != nil {
		return nil, usageErr(err)
	}
	c, err := comparerun.ReadSaved(args, comparerun.SavedOptions{Names: f.names, Region: f.region, Metrics: plan.interval,
		Read: func(path string) ([]byte, error) { return readInput(path, nil, limitResult, "pmc compare") }})
	if err != nil {
		return nil, usageErr(err)
	}
	return c, nil
}
