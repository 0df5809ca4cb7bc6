package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/pmc-tools/pmc/internal/launch"
	"github.com/pmc-tools/pmc/internal/outfile"
	"github.com/pmc-tools/pmc/internal/perfevent"
	"github.com/pmc-tools/pmc/internal/pmu"
	"github.com/pmc-tools/pmc/internal/stat"
	"github.com/pmc-tools/pmc/internal/unix"
)

// recordFlags are the raw flag values of `pmc record`.
type recordFlags struct {
	events    []string
	period    uint64
	freq      int
	callGraph bool
	cgMode    string
	pids      string
	allCPUs   bool
	cpus      string
	output    string
	embed     bool
	changed   func(string) bool
}

const defaultRecordFreq = 4000

func newRecordCmd(e *env) *cobra.Command {
	f := &recordFlags{}
	cmd := &cobra.Command{
		Use:   "record [options] [--] COMMAND [ARGS...]",
		Short: "sample where a command spends its events and write perf.data (perf report reads it)",
		Long: `Sample a command (or -p PIDs, or every CPU with -a/-C) like perf record and write
perf.data that perf report and perf script read. The default is cycles at 4000 Hz; without a
hardware PMU pmc samples cpu-clock instead and says so. An existing output file is renamed
FILE.old. Lost samples are counted and reported.`,
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			f.changed = cmd.Flags().Changed
			return runRecord(cmd.Context(), e, f, args)
		},
	}
	fl := cmd.Flags()
	fl.SetInterspersed(false)
	fl.StringArrayVarP(&f.events, "event", "e", nil, "events to sample (comma-separated, repeatable); default cycles")
	fl.Uint64VarP(&f.period, "count", "c", 0, "sample every N events")
	fl.IntVarP(&f.freq, "freq", "F", 0, "sample at this many samples per second (default 4000)")
	fl.BoolVarP(&f.callGraph, "call-graph-fp", "g", false, "record call chains (frame pointers)")
	fl.StringVar(&f.cgMode, "call-graph", "", "call chain mode: fp")
	fl.StringVarP(&f.pids, "pid", "p", "", "sample these processes (comma-separated) until they exit or Ctrl-C")
	fl.BoolVarP(&f.allCPUs, "all-cpus", "a", false, "sample every CPU")
	fl.StringVarP(&f.cpus, "cpu", "C", "", "sample these CPUs only (e.g. 0-3,6)")
	fl.StringVarP(&f.output, "output", "o", "perf.data", "the file to write")
	fl.BoolVar(&f.embed, "embed-symbols", false, "also write FILE.pmcsym: the symbols of the sampled binaries and kernel, so pmc report names them on another machine or after a rebuild")
	return cmd
}

// recordPlan is a validated `pmc record` invocation.
type recordPlan struct {
	mode      stat.Mode
	command   []string
	pids      []int
	cpus      []int // explicit -C list
	spec      string
	defaulted bool // no -e: cycles, or cpu-clock without a PMU
	period    uint64
	freq      uint64
	callchain bool
	output    string
	embed     bool
}

func (f *recordFlags) plan(args []string) (*recordPlan, error) {
	p := &recordPlan{command: args, spec: strings.Join(f.events, ","), output: f.output, callchain: f.callGraph, embed: f.embed}
	if p.spec == "" {
		p.spec, p.defaulted = "cycles", true
	}
	switch {
	case f.changed("count") && f.changed("freq"):
		return nil, errors.New("-c and -F both set the sampling rate: choose one")
	case f.changed("count") && f.period == 0:
		return nil, errors.New("-c 0: give a positive period, e.g. -c 100000")
	case f.changed("freq") && f.freq <= 0:
		return nil, fmt.Errorf("-F %d: give a positive frequency, e.g. -F 999", f.freq)
	case f.output == "":
		return nil, errors.New("-o: name a file")
	}
	if f.cgMode != "" {
		if mode, _, _ := strings.Cut(f.cgMode, ","); mode != "fp" {
			return nil, fmt.Errorf("--call-graph %s: only fp (frame pointers) is supported", f.cgMode)
		}
		p.callchain = true
	}
	p.freq = defaultRecordFreq
	if f.changed("freq") {
		p.freq = uint64(f.freq)
	}
	if f.changed("count") {
		p.period, p.freq = f.period, 0
	}
	switch {
	case f.pids != "":
		if f.allCPUs || f.cpus != "" {
			return nil, errors.New("-p and -a/-C are different modes: choose one")
		}
		if len(args) > 0 {
			return nil, fmt.Errorf("-p samples existing processes: drop the command %q", args[0])
		}
		for _, s := range strings.Split(f.pids, ",") {
			pid, err := strconv.Atoi(strings.TrimSpace(s))
			if err != nil || pid <= 0 {
				return nil, fmt.Errorf("-p %q: %q is not a process id", f.pids, s)
			}
			p.pids = append(p.pids, pid)
		}
		p.mode = stat.Attach
	case f.allCPUs || f.cpus != "":
		p.mode = stat.System
		if f.cpus != "" {
			cpus, err := pmu.ParseCPUList(f.cpus)
			if err != nil {
				return nil, fmt.Errorf("-C: %w", err)
			}
			if len(cpus) == 0 {
				return nil, fmt.Errorf("-C %q: name at least one CPU, e.g. -C 0", f.cpus)
			}
			p.cpus = cpus
		}
	default:
		if len(args) == 0 {
			return nil, errors.New("no command to sample: pmc record [-e EVENT] -- COMMAND [ARGS...] (or -p PID, or -a)")
		}
		p.mode = stat.Launch
	}
	return p, nil
}

func runRecord(ctx context.Context, e *env, f *recordFlags, args []string) error {
	p, err := f.plan(args)
	if err != nil {
		return usageErr(err)
	}
	if ctx == nil {
		ctx = context.Background()
	}
	m := e.machine()
	evs, err := resolveOn(m, p.spec, p.mode, true)
	if err != nil {
		return usageErr(err)
	}
	var path string
	if p.mode != stat.Attach && len(p.command) > 0 {
		if path, err = launch.LookPath(p.command[0]); err != nil {
			return execErr(err)
		}
	}
	cpus := p.cpus
	if len(cpus) == 0 {
		cpus = m.PMUs.Online
	}
	if len(cpus) == 0 {
		return errors.New("no online CPU found in /sys/devices/system/cpu/online")
	}
	// Ctrl-C from here on ends the recording rather than pmc: the counters may be open
	// before the signal comes.
	sigCtx, stopSignals := signal.NotifyContext(ctx, os.Interrupt, unix.SIGTERM, unix.SIGHUP)
	defer stopSignals()
	s := &recorder{plan: p, machine: m, cpus: cpus, stderr: e.stderr}
	defer s.close()
	if err := s.prepareOutput(); err != nil {
		return err
	}
	if p.mode == stat.Attach {
		if err := s.watchAttached(); err != nil {
			s.abort()
			return err
		}
	}
	if len(p.command) > 0 {
		s.child, err = launch.Start(launch.Cmd{Path: path, Args: p.command, Env: os.Environ(),
			Stdin: e.workload[0], Stdout: e.workload[1], Stderr: e.workload[2]})
		if err != nil {
			return execErr(fmt.Errorf("starting %q: %w", p.command[0], err))
		}
	}
	if err := s.open(evs); err != nil {
		if p.defaulted && errors.Is(err, perfevent.ErrNotSupported) {
			fmt.Fprintln(e.stderr, "pmc record: no hardware PMU here (cycles not supported): sampling cpu-clock instead")
			s.closeCounters()
			if evs, err = resolveOn(m, "cpu-clock", p.mode, true); err == nil {
				err = s.open(evs)
			}
		}
		if err != nil {
			s.abort()
			return err
		}
	}
	status, err := s.run(ctx, sigCtx)
	if err != nil {
		s.abort()
		return err
	}
	if err := s.finish(); err != nil {
		return err
	}
	if s.archive != nil {
		a := s.archive
		s.archive = nil
		if err := embedSymbols(e, p.output, a); err != nil {
			return err
		}
	}
	if status != 0 {
		return &exitError{code: status}
	}
	return nil
}

// execErr keeps a command's not-found/not-executable status (127/126).
func execErr(err error) error {
	var ee *launch.ExecError
	if errors.As(err, &ee) {
		return &exitError{code: ee.ExitCode(), err: err}
	}
	return err
}

// prepareOutput opens the output: outfile keeps an existing recording as FILE.old once the
// new one is complete, as perf does, and an abort removes only what pmc created.
func (s *recorder) prepareOutput() error {
	name := s.plan.output
	out, err := outfile.Create(name, outfile.Rotate)
	if err != nil {
		return err
	}
	if _, err := out.Seek(0, 1); err != nil {
		out.Abort()
		return fmt.Errorf("%s: perf.data needs a seekable file (not a pipe or a terminal): name a regular file", name)
	}
	s.out = out
	if s.plan.embed {
		if s.archive, err = openArchiveOutput(name); err != nil {
			return err
		}
	}
	return nil
}
