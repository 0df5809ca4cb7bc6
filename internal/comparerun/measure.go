package comparerun

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
	"github.com/pmc-tools/pmc/internal/result"
	"github.com/pmc-tools/pmc/internal/stat"
	"github.com/pmc-tools/pmc/internal/unix"
)

// Options say how Measure runs the commands of a comparison.
type Options struct {
	Backends     []stat.Backend // one per command
	Events       []stat.Event   // resolved, counted in every run
	Runs         int            // measured rounds (ignored with Duration)
	Duration     time.Duration  // instead of Runs: rounds until this much time has passed (at least 2)
	Warmup       int            // uncounted runs of each command first
	Timeout      time.Duration  // a run still going after this long ends and fails; 0: none
	NoInterleave bool           // each command's runs in one block instead of A B A B ...
	// Stdio are the streams the commands inherit; nil ones are /dev/null.
	Stdio [3]*os.File
	// Progress shows a progress bar when it is a terminal (pmc's stderr); nil for none.
	Progress io.Writer
	// Metrics computes a run's metrics over its counts lasting sec seconds.
	Metrics func(counts []result.Count, sec float64) []result.Metric
	// Machine is where the commands run, as saved results name it.
	Machine *result.Machine
	// Hint explains a result's counts once in the notes (no hardware PMU), "" when none.
	Hint func(res *result.Stat) string
}

// isTerminal reports whether w is a terminal (colour, a progress bar).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && unix.IsTerminal(int(f.Fd()))
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

// Measure runs the commands of c (labelled, with their argument vectors) and adds their
// runs; ctx cancelled (Ctrl-C) ends the run in progress and the comparison, marked
// interrupted. failed says which commands had runs that failed (the comparison is still
// written); err is a command that could not be run at all (errors.As finds launch's
// ExecError).
func Measure(ctx context.Context, c *compare.Comparison, o Options) (failed, err error) {
	if o.Stdio[0] == nil || o.Stdio[1] == nil || o.Stdio[2] == nil {
		null, err := os.OpenFile(os.DevNull, os.O_RDWR, 0)
		if err != nil {
			return nil, err
		}
		defer null.Close()
		for i := range o.Stdio {
			if o.Stdio[i] == nil {
				o.Stdio[i] = null
			}
		}
	}
	if !isTerminal(o.Progress) {
		o.Progress = nil
	}
	backends := make([]stat.Backend, len(o.Backends))
	for i, b := range o.Backends {
		backends[i] = &runCounter{Backend: b}
		if h, ok := b.(stat.Holder); ok {
			defer h.Hold(o.Events)()
		}
	}
	m := &measurer{ctx: ctx, o: &o, c: c, backends: backends}
	if err := m.all(); err != nil {
		return nil, err
	}
	c.Interrupted = ctx.Err() != nil
	return failures(c), nil
}

// failures says which commands of c had runs that failed or timed out; nil when none.
func failures(c *compare.Comparison) error {
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
		return errors.New(strings.Join(failed, "; "))
	}
	return nil
}

// measurer runs the commands in turn and collects their runs.
type measurer struct {
	ctx      context.Context // cancelled by Ctrl-C: the run in progress ends, no other starts
	o        *Options
	c        *compare.Comparison
	backends []stat.Backend
	done     int
	total    int
}

// all runs the warm-ups, then the measured rounds: interleaved (A B A B ...) or in blocks.
func (m *measurer) all() error {
	n, s := len(m.c.Commands), m.o
	rounds := s.Runs
	if s.Duration > 0 {
		rounds = 0 // until the time has passed
	}
	m.total = n * (s.Warmup + rounds)
	defer m.clearProgress()
	for w := 0; w < s.Warmup; w++ {
		for i := 0; i < n; i++ {
			if err := m.once(i, -1); err != nil || m.ctx.Err() != nil {
				return err
			}
		}
	}
	if s.NoInterleave && s.Duration == 0 {
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
		if rounds == 0 && r >= 2 && time.Since(start) >= s.Duration {
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
	req := &stat.Request{Events: m.o.Events, Mode: stat.Launch, Command: cmd.Command, Repeat: 1,
		Stdin: m.o.Stdio[0], Stdout: m.o.Stdio[1], Stderr: m.o.Stdio[2]}
	ctx, cancel := m.ctx, context.CancelFunc(func() {})
	if m.o.Timeout > 0 {
		ctx, cancel = context.WithTimeout(m.ctx, m.o.Timeout)
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
		return fmt.Errorf("command %s (%s): %w", cmd.Label, strings.Join(cmd.Command, " "), err)
	}
	m.done++
	if index < 0 || len(res.Runs) == 0 {
		return nil
	}
	m.note(res)
	if cmd.Machine == nil && m.o.Machine != nil {
		id := *m.o.Machine
		cmd.Machine = &id
	}
	if cmd.Simulation == nil {
		cmd.Simulation = simulationOf(res.Backend, res.Notes)
	}
	// Only a run the signal or the time limit ended is cut short; one that ended on its own
	// just before is whole.
	ended := res.Runs[0].Stopped || res.Runs[0].Signal != "" || res.Runs[0].ExitStatus != 0
	run := toRun(res.Runs[0], m.o.Metrics)
	run.Index = index
	run.Interrupted, run.TimedOut = interrupted && ended, timedOut && ended
	if run.Failed() {
		cmd.Failed++
	}
	cmd.Runs = append(cmd.Runs, run)
	return nil
}

// note adds the notes of res, and its hint, that the comparison does not have yet.
func (m *measurer) note(res *result.Stat) {
	for _, n := range res.Notes {
		if !slices.Contains(m.c.Notes, n) {
			m.c.Notes = append(m.c.Notes, n)
		}
	}
	if m.o.Hint == nil {
		return
	}
	if hint := m.o.Hint(res); hint != "" && !slices.Contains(m.c.Notes, hint) {
		m.c.Notes = append(m.c.Notes, hint)
	}
}

// toRun is a run with its metrics, computed over its own counts as pmc stat computes them
// over an interval.
func toRun(r result.Run, metrics func([]result.Count, float64) []result.Metric) compare.Run {
	run := compare.Run{Index: r.Index, ExitStatus: r.ExitStatus, Signal: r.Signal, ElapsedSec: r.ElapsedSec,
		UserSec: r.UserSec, SysSec: r.SysSec, MaxRSSKB: r.MaxRSSKB, Counts: r.Counts}
	if metrics != nil {
		run.Metrics = metrics(r.Counts, r.ElapsedSec)
	}
	return run
}

// showProgress draws a progress bar on a terminal.
func (m *measurer) showProgress(label string) {
	if m.o.Progress == nil {
		return
	}
	const width = 30
	if m.total == 0 { // --duration: no end known
		fmt.Fprintf(m.o.Progress, "\r\x1b[K%d runs, now %s", m.done, label)
		return
	}
	filled := width * m.done / m.total
	fmt.Fprintf(m.o.Progress, "\r\x1b[K[%s%s] %d/%d %s", strings.Repeat("#", filled), strings.Repeat(".", width-filled), m.done, m.total, label)
}

func (m *measurer) clearProgress() {
	if m.o.Progress != nil {
		fmt.Fprint(m.o.Progress, "\r\x1b[K")
	}
}
