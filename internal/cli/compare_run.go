package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/pmc-tools/pmc/internal/compare"
	"github.com/pmc-tools/pmc/internal/host"
	"github.com/pmc-tools/pmc/internal/result"
	"github.com/pmc-tools/pmc/internal/stat"
)

// splitWords splits a command into words without a shell: blanks separate words, single
// quotes keep everything literal, double quotes and backslashes work as in sh.
func splitWords(s string) ([]string, error) {
	var words []string
	var cur strings.Builder
	inWord := false
	var quote rune
	escaped := false
	for _, r := range s {
		switch {
		case escaped:
			cur.WriteRune(r)
			escaped = false
		case quote == '\'':
			if r == '\'' {
				quote = 0
			} else {
				cur.WriteRune(r)
			}
		case r == '\\':
			escaped, inWord = true, true
		case quote == '"':
			if r == '"' {
				quote = 0
			} else {
				cur.WriteRune(r)
			}
		case r == '\'' || r == '"':
			quote, inWord = r, true
		case r == ' ' || r == '\t' || r == '\n':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		default:
			cur.WriteRune(r)
			inWord = true
		}
	}
	switch {
	case quote != 0:
		return nil, fmt.Errorf("%q: the %c quote is not closed", s, quote)
	case escaped:
		return nil, fmt.Errorf("%q: ends with a backslash", s)
	}
	if inWord {
		words = append(words, cur.String())
	}
	if len(words) == 0 {
		return nil, errors.New("an empty command: give each command as one argument, e.g. 'sleep 1'")
	}
	return words, nil
}

// runCounter hands each run of one command its own number, so that the fake backend's
// scripted runs go in turn whatever the order of the commands.
type runCounter struct {
	stat.Backend
	n int
}

func (r *runCounter) Begin(ctx context.Context, req *stat.Request, _ int) (stat.Session, error) {
	r.n++
	return r.Backend.Begin(ctx, req, r.n-1)
}

// measureCompare runs the commands and returns their comparison (not yet built). failed
// says which commands had runs that failed (the comparison is still written).
func measureCompare(ctx context.Context, e *env, f *compareFlags, args []string) (*compare.Comparison, error, error) {
	s := &f.stat
	switch {
	case s.repeat < 1:
		return nil, nil, usageErr(fmt.Errorf("-r %d: give at least 1 run (2 or more for a confidence interval)", s.repeat))
	case s.warmup < 0:
		return nil, nil, usageErr(fmt.Errorf("--warmup %d: must be 0 or more", s.warmup))
	case s.changed("duration") && s.duration <= 0:
		return nil, nil, usageErr(fmt.Errorf("--duration %v: give a positive time, e.g. --duration 10s", s.duration))
	case s.changed("runs") && s.changed("duration"):
		return nil, nil, usageErr(errors.New("-r and --duration both say how long: choose one"))
	case len(f.fakes) > 0 && len(f.fakes) != len(args):
		return nil, nil, usageErr(fmt.Errorf("--fake: %d scripts for %d commands: give one per command", len(f.fakes), len(args)))
	}
	if s.metric.fakeMachine == "" && len(f.fakes) > 0 {
		s.fake = f.fakes[0] // resolve on the empty machine, as pmc stat --fake does
	}
	argvs := make([][]string, len(args))
	for i, a := range args {
		var err error
		if f.shell {
			argvs[i] = []string{"sh", "-c", a}
		} else if argvs[i], err = splitWords(a); err != nil {
			return nil, nil, usageErr(fmt.Errorf("command %s: %w", f.label(i), err))
		}
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
	backends := make([]stat.Backend, len(args))
	for i := range args {
		backends[i] = &runCounter{Backend: stat.Kernel{Machine: e.machine()}}
		if s.sim != "" {
			b, err := simBackend(e.machine(), s)
			if err != nil {
				return nil, nil, usageErr(err)
			}
			backends[i] = &runCounter{Backend: b}
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
			backends[i] = &runCounter{Backend: stat.Fake{Spec: fs}}
		}
	}
	null, err := os.OpenFile(os.DevNull, os.O_RDWR, 0)
	if err != nil {
		return nil, nil, err
	}
	defer null.Close()
	stdio := [3]*os.File{null, null, null}
	if f.showOutput {
		stdio = e.workload
	}
	c := &compare.Comparison{Source: "measured", Interleaved: !f.noInterleave, Warmup: s.warmup, TimeoutSec: f.timeout.Seconds()}
	for i := range args {
		c.Commands = append(c.Commands, compare.Command{Label: f.label(i), Command: argvs[i], Backend: backends[i].Name()})
	}
	for _, w := range plan.warnings {
		c.Notes = append(c.Notes, w)
	}

	m := &measurer{ctx: ctx, e: e, f: f, c: c, evs: evs, plan: plan, facts: facts, stdio: stdio, backends: backends}
	if isTerminal(e.stderr) {
		m.progress = e.stderr
	}
	if err := m.all(); err != nil {
		return nil, nil, err
	}
	c.Interrupted = ctx.Err() != nil
	var failed []string
	for _, cmd := range c.Commands {
		timedOut := 0
		for _, r := range cmd.Runs {
			if r.TimedOut {
				timedOut++
			}
		}
		switch {
		case cmd.Failed == 0:
		case timedOut == cmd.Failed:
			failed = append(failed, fmt.Sprintf("%s timed out in %d of %d runs", cmd.Label, cmd.Failed, len(cmd.Runs)))
		case timedOut > 0:
			failed = append(failed, fmt.Sprintf("%s failed in %d of %d runs (%d timed out)", cmd.Label, cmd.Failed, len(cmd.Runs), timedOut))
		default:
			failed = append(failed, fmt.Sprintf("%s failed in %d of %d runs", cmd.Label, cmd.Failed, len(cmd.Runs)))
		}
	}
	if len(failed) > 0 {
		return c, errors.New(strings.Join(failed, "; ")), nil
	}
	return c, nil, nil
}

// measurer runs the commands in turn and collects their runs.
type measurer struct {
	ctx      context.Context // cancelled by Ctrl-C: the run in progress ends, no other starts
	e        *env
	f        *compareFlags
	c        *compare.Comparison
	evs      []stat.Event
	plan     *metricPlan
	facts    *host.Machine
	stdio    [3]*os.File
	backends []stat.Backend
	progress io.Writer // a terminal, or nil
	done     int
	total    int
}

// all runs the warm-ups, then the measured rounds: interleaved (A B A B ...) or in blocks.
func (m *measurer) all() error {
	n, s := len(m.c.Commands), &m.f.stat
	rounds := s.repeat
	if s.duration > 0 {
		rounds = 0 // until the time has passed
	}
	m.total = n * (s.warmup + rounds)
	defer m.clearProgress()
	for w := 0; w < s.warmup; w++ {
		for i := 0; i < n; i++ {
			if err := m.once(i, -1); err != nil || m.ctx.Err() != nil {
				return err
			}
		}
	}
	if m.f.noInterleave && s.duration == 0 {
		for i := 0; i < n; i++ {
			for r := 0; r < rounds; r++ {
				if err := m.once(i, r); err != nil || m.ctx.Err() != nil {
					return err
				}
			}
		}
		return nil
	}
	start := time.Now()
	for r := 0; rounds == 0 || r < rounds; r++ {
		if rounds == 0 && r >= 2 && time.Since(start) >= s.duration {
			break
		}
		for i := 0; i < n; i++ {
			if err := m.once(i, r); err != nil || m.ctx.Err() != nil {
				return err
			}
		}
	}
	return nil
}

// once runs command i once: a warm-up (index -1) or measured run number index.
func (m *measurer) once(i, index int) error {
	cmd := &m.c.Commands[i]
	m.showProgress(cmd.Label)
	req := &stat.Request{Events: m.evs, Mode: stat.Launch, Command: cmd.Command, Repeat: 1,
		Stdin: m.stdio[0], Stdout: m.stdio[1], Stderr: m.stdio[2]}
	ctx, cancel := m.ctx, context.CancelFunc(func() {})
	if m.f.timeout > 0 {
		ctx, cancel = context.WithTimeout(m.ctx, m.f.timeout)
	}
	started := time.Now()
	res, err := stat.Measure(ctx, m.backends[i], req, stat.Options{KeepRuns: true})
	cancel()
	interrupted := m.ctx.Err() != nil
	timedOut := !interrupted && errors.Is(ctx.Err(), context.DeadlineExceeded)
	if err != nil && (interrupted || timedOut) {
		// The backend could not finish the run it was made to end (a simulator killed
		// before writing its results): a run without counts.
		res, err = &result.Stat{Runs: []result.Run{{ElapsedSec: time.Since(started).Seconds(), ExitStatus: 128 + 9, Signal: "SIGKILL"}}}, nil
	}
	if err != nil {
		return &exitError{code: exitStatusFor(err), err: fmt.Errorf("command %s (%s): %w", cmd.Label, strings.Join(cmd.Command, " "), err)}
	}
	m.done++
	if index < 0 || len(res.Runs) == 0 {
		return nil
	}
	for _, n := range res.Notes {
		if !slices.Contains(m.c.Notes, n) {
			m.c.Notes = append(m.c.Notes, n)
		}
	}
	if hint := noPMUHint(m.e, res); hint != "" && !slices.Contains(m.c.Notes, hint) {
		m.c.Notes = append(m.c.Notes, hint)
	}
	if cmd.Machine == nil {
		cmd.Machine = identity(m.facts)
	}
	if cmd.Simulation == nil {
		cmd.Simulation = simulationOf(res.Backend, res.Notes)
	}
	// Only a run the signal or the time limit ended is cut short; one that ended on its own
	// just before is whole.
	ended := res.Runs[0].Stopped || res.Runs[0].Signal != "" || res.Runs[0].ExitStatus != 0
	run := toCompareRun(res.Runs[0], m.plan)
	run.Index = index
	run.Interrupted, run.TimedOut = interrupted && ended, timedOut && ended
	if run.Failed() {
		cmd.Failed++
	}
	cmd.Runs = append(cmd.Runs, run)
	return nil
}

// toCompareRun is a run with its metrics, computed over its own counts as pmc stat computes
// them over an interval.
func toCompareRun(r result.Run, plan *metricPlan) compare.Run {
	return compare.Run{Index: r.Index, ExitStatus: r.ExitStatus, Signal: r.Signal, ElapsedSec: r.ElapsedSec,
		UserSec: r.UserSec, SysSec: r.SysSec, MaxRSSKB: r.MaxRSSKB, Counts: r.Counts,
		Metrics: plan.interval(r.Counts, r.ElapsedSec)}
}

// showProgress draws a progress bar on a terminal.
func (m *measurer) showProgress(label string) {
	if m.progress == nil {
		return
	}
	const width = 30
	if m.total == 0 { // --duration: no end known
		fmt.Fprintf(m.progress, "\r\x1b[K%d runs, now %s", m.done, label)
		return
	}
	filled := width * m.done / m.total
	fmt.Fprintf(m.progress, "\r\x1b[K[%s%s] %d/%d %s", strings.Repeat("#", filled), strings.Repeat(".", width-filled), m.done, m.total, label)
}

func (m *measurer) clearProgress() {
	if m.progress != nil {
		fmt.Fprint(m.progress, "\r\x1b[K")
	}
}
