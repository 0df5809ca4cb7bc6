package record

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"

	"github.com/pmc-tools/pmc/internal/events"
	"github.com/pmc-tools/pmc/internal/host"
	"github.com/pmc-tools/pmc/internal/launch"
	"github.com/pmc-tools/pmc/internal/outfile"
	"github.com/pmc-tools/pmc/internal/profile"
	"github.com/pmc-tools/pmc/internal/symbol"
	"github.com/pmc-tools/pmc/internal/unix"
)

// Env is what pmc record reads and writes beyond its plan.
type Env struct {
	Machine        *host.Machine
	Stdout, Stderr io.Writer
	// Workload holds the standard streams a launched command inherits (stdin, stdout,
	// stderr).
	Workload [3]*os.File
	Cmdline  []string // the CMDLINE feature: how pmc was run
	Environ  []string // the launched command's environment
	Symbols  Symbols
	// Warn says warnings about the symbols --embed-symbols could not find.
	Warn func([]string)
}

// Symbols is what --embed-symbols takes from the report side (package driver), which the
// engine does not import: the running kernel's symbols, the tables' additions (machine code
// for annotate) and the warnings about the DSOs left without symbols.
type Symbols struct {
	Kernel   func() (*symbol.Table, error)
	Keep     func(*profile.Profile, []*symbol.Table) []*symbol.Table
	Warnings func(p *profile.Profile, kernelErr error) []string
}

// Main is pmc record: it resolves the plan on the machine, opens the outputs before anything
// runs (a path that cannot be written fails first), records until the workload's end, -p's
// targets' or Ctrl-C, writes the summary and --embed-symbols' archive. It returns pmc's exit
// status (the workload's; 126/127 for a command that could not run; 1 when err says what
// failed), 0 with a nil error.
func Main(ctx context.Context, p *Plan, env Env) (int, error) {
	if ctx == nil {
		ctx = context.Background()
	}
	req, err := p.Request(env)
	if err != nil {
		return execStatus(err), err
	}
	out, archive, err := p.open(env.Stdout)
	if err != nil {
		return 1, err
	}
	abort := func() {
		out.Abort()
		if archive != nil {
			archive.Abort()
		}
	}
	// Ctrl-C from here on ends the recording rather than pmc: the counters may be open
	// before the signal comes.
	sigCtx, stopSignals := signal.NotifyContext(ctx, os.Interrupt, unix.SIGTERM, unix.SIGHUP)
	defer stopSignals()
	s, err := Start(req, Kernel{Machine: env.Machine}, out)
	if err != nil {
		abort()
		return execStatus(err), err
	}
	defer s.Close()
	for _, n := range s.Notes() {
		if p.Quiet {
			break
		}
		fmt.Fprintln(env.Stderr, "pmc record: "+n)
	}
	res, err := s.Run(sigCtx)
	if cerr := out.Close(); err == nil && cerr != nil {
		err = cerr
	}
	if err != nil {
		if archive != nil {
			archive.Abort()
		}
		return 1, fmt.Errorf("recording to %s: %w", p.Output, err)
	}
	summary := res.Summary
	if p.Quiet {
		summary = res.Losses
	}
	status := summary(env.Stderr, p.Output)
	if archive != nil && res.WriteErr == nil {
		if err := env.embed(p.Output, archive); err != nil {
			return 1, err
		}
	} else if archive != nil {
		archive.Abort()
	}
	return status, nil
}

// Request is the engine's Request for p: the events resolved on env's machine (with
// cpu-clock to fall back to for the default event) and the command's path. For -o -
// (perf's pipe format on standard output) the workload's standard output goes to its
// standard error, as perf sends it, so that it cannot mix with the records.
func (p *Plan) Request(env Env) (*Request, error) {
	req := &Request{Mode: p.Mode, Command: p.Command, PIDs: p.PIDs, CPUs: p.CPUs, Period: p.Period,
		Freq: p.Freq, Callchain: p.Callchain, UserStack: p.UserStack, Compression: p.Compress, Cmdline: env.Cmdline, Env: env.Environ,
		Stdin: env.Workload[0], Stdout: env.Workload[1], Stderr: env.Workload[2]}
	var err error
	if req.Events, err = ResolveEvents(env.Machine, p.Spec, p.Mode); err != nil {
		return nil, err
	}
	if p.Defaulted {
		req.Fallback, _ = ResolveEvents(env.Machine, "cpu-clock", p.Mode)
	}
	if p.Mode != Attach && len(p.Command) > 0 {
		if req.Path, err = launch.LookPath(p.Command[0]); err != nil {
			return nil, err
		}
	}
	if p.Output == "-" {
		req.Pipe = true
		req.Stdout = req.Stderr
	}
	return req, nil
}

// ResolveEvents resolves an event list on m for sampling in mode: a launched command's
// counters are enabled at its exec, and every counter follows the tasks' children.
func ResolveEvents(m *host.Machine, spec string, mode Mode) ([]Event, error) {
	groups, err := m.Resolve(spec, events.Options{EnableOnExec: mode == Launch})
	if err != nil {
		return nil, err
	}
	var out []Event
	for _, g := range groups {
		for _, ev := range g.Events {
			out = append(out, Event{Name: ev.Name, Attr: ev.Attr})
		}
	}
	return out, nil
}

// open opens the recording's output and, with --embed-symbols, its archive. outfile keeps an
// existing recording as FILE.old once the new one is complete, and an abort removes only
// what pmc created.
func (p *Plan) open(stdout io.Writer) (Output, *outfile.File, error) {
	out, err := OpenOutput(p.Output, stdout)
	if err != nil || !p.Embed {
		return out, nil, err
	}
	archive, err := outfile.Create(symbol.ArchivePath(p.Output), outfile.Replace)
	if err != nil {
		out.Abort()
		return nil, nil, err
	}
	return out, archive, nil
}

// execStatus keeps a command's not-found/not-executable status (127/126); any other
// failure is 1.
func execStatus(err error) int {
	var ee *launch.ExecError
	if errors.As(err, &ee) {
		return ee.ExitCode()
	}
	return 1
}

// embed writes FILE.pmcsym (--embed-symbols): the symbol tables of the DSOs that got
// samples, so pmc report names them where the binaries are missing or changed.
func (env Env) embed(perfData string, out *outfile.File) error {
	res := symbol.NewResolver(os.DirFS("/"))
	var kernelErr error
	res.LoadKernel = func() (*symbol.Table, error) {
		t, err := env.Symbols.Kernel()
		kernelErr = err
		return t, err
	}
	p, n, err := Embed(perfData, out, res, env.Symbols.Keep)
	if err != nil {
		out.Abort()
		return fmt.Errorf("writing %s: %w", out.Name(), err)
	}
	env.Warn(env.Symbols.Warnings(p, kernelErr))
	if err := out.Close(); err != nil {
		return fmt.Errorf("writing %s: %w", out.Name(), err)
	}
	fmt.Fprintf(env.Stderr, "[ pmc record: symbols of %d objects in %s ]\n", n, out.Name())
	return nil
}
