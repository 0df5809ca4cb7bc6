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

	"github.com/pmc-tools/pmc/internal/driver"
	"github.com/pmc-tools/pmc/internal/host"
	"github.com/pmc-tools/pmc/internal/launch"
	"github.com/pmc-tools/pmc/internal/outfile"
	"github.com/pmc-tools/pmc/internal/pmu"
	"github.com/pmc-tools/pmc/internal/profile"
	"github.com/pmc-tools/pmc/internal/record"
	"github.com/pmc-tools/pmc/internal/stat"
	"github.com/pmc-tools/pmc/internal/symbol"
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
	compress  int
	offCPU    bool
	quiet     bool
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
hardware PMU pmc samples cpu-clock instead, and where the kernel refuses kernel-mode
sampling (perf_event_paranoid 2) user space only, and says so. An existing recording is
kept as FILE.old once the new one is complete (a symlink is moved itself, as perf does); a
failed recording leaves FILE as it was. Lost samples, throttling and a full disk are
reported; the workload runs on and what was written stays readable. -z writes the records
zstd-compressed as perf record -z does (PERF_RECORD_COMPRESSED, which perf and pmc read):
long recordings on a board's SD card take several times less room.`,
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
	fl.StringVar(&f.cgMode, "call-graph", "", "record call chains: fp (frame pointers, as -g) or dwarf[,SIZE] (user registers and SIZE bytes of user stack per sample, default 8192, unwound by pmc report)")
	fl.StringVarP(&f.pids, "pid", "p", "", "sample these processes (comma-separated) until they exit or Ctrl-C")
	fl.BoolVarP(&f.allCPUs, "all-cpus", "a", false, "sample every CPU")
	fl.StringVarP(&f.cpus, "cpu", "C", "", "sample these CPUs only (e.g. 0-3,6)")
	fl.StringVarP(&f.output, "output", "o", "perf.data", "the file to write")
	fl.IntVarP(&f.compress, "compression-level", "z", 0, "write the records zstd-compressed, as perf record -z (perf reads them): level 1 (fastest, a bare -z) to 22; pmc's encoder compresses levels above 3 as 3")
	fl.Lookup("compression-level").NoOptDefVal = "1"
	fl.BoolVarP(&f.quiet, "quiet", "q", false, "say nothing but what was lost or failed (no summary line, no notes on fallbacks)")
	fl.BoolVar(&f.offCPU, "off-cpu", false, "refused: off-CPU time needs BPF, which pmc does not have (perf's BUILD_BPF_SKEL=1 build records it)")
	fl.BoolVar(&f.embed, "embed-symbols", false, "also write FILE.pmcsym: the symbols of the sampled binaries and kernel, so pmc report names them on another machine or after a rebuild")
	return cmd
}

// recordPlan is a validated `pmc record` invocation.
type recordPlan struct {
	mode      record.Mode
	command   []string
	pids      []int
	cpus      []int // explicit -C list
	spec      string
	defaulted bool // no -e: cycles, or cpu-clock without a PMU
	period    uint64
	freq      uint64
	callchain bool
	userStack uint32 // --call-graph dwarf's stack copy
	output    string
	embed     bool
	compress  int // zstd level; 0: none
}

func (f *recordFlags) plan(args []string) (*recordPlan, error) {
	p := &recordPlan{command: args, spec: strings.Join(f.events, ","), output: f.output, callchain: f.callGraph, embed: f.embed}
	if p.spec == "" {
		p.spec, p.defaulted = "cycles", true
	}
	switch {
	case f.offCPU:
		return nil, errors.New("--off-cpu samples where tasks sleep with BPF programs, and pmc has no BPF " +
			"(perf needs its BUILD_BPF_SKEL=1 build for it): record it with such a perf")
	case f.changed("count") && f.changed("freq"):
		return nil, errors.New("-c and -F both set the sampling rate: choose one")
	case f.changed("count") && f.period == 0:
		return nil, errors.New("-c 0: give a positive period, e.g. -c 100000")
	case f.changed("freq") && f.freq <= 0:
		return nil, fmt.Errorf("-F %d: give a positive frequency, e.g. -F 999", f.freq)
	case f.output == "":
		return nil, errors.New("-o: name a file")
	case f.changed("compression-level") && (f.compress < 1 || f.compress > 22):
		return nil, fmt.Errorf("--compression-level=%d: give a zstd level from 1 (fastest) to 22 (-z alone is 1)", f.compress)
	case f.output == "-" && f.embed:
		return nil, errors.New("--embed-symbols writes FILE.pmcsym beside the recording: give -o a file, not -")
	}
	p.compress = f.compress
	if f.cgMode != "" {
		size, err := parseCallGraphMode(f.cgMode)
		if err != nil {
			return nil, err
		}
		p.callchain, p.userStack = size == 0, size
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
		p.mode = record.Attach
	case f.allCPUs || f.cpus != "":
		p.mode = record.System
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
		p.mode = record.Launch
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
	req, err := p.request(e, m)
	if err != nil {
		return err
	}
	// Both outputs are opened before anything runs: a path that cannot be written fails
	// first. outfile keeps an existing recording as FILE.old once the new one is complete,
	// and an abort removes only what pmc created. -o - is perf's pipe format on stdout.
	out, err := p.open(e, req)
	if err != nil {
		return err
	}
	var archive *outfile.File
	if p.embed {
		if archive, err = outfile.Create(symbol.ArchivePath(p.output), outfile.Replace); err != nil {
			out.Abort()
			return err
		}
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
	s, err := record.Start(req, record.Kernel{Machine: m}, out)
	if err != nil {
		abort()
		return execErr(err)
	}
	defer s.Close()
	for _, n := range s.Notes() {
		if f.quiet {
			break
		}
		fmt.Fprintln(e.stderr, "pmc record: "+n)
	}
	res, err := s.Run(sigCtx)
	if cerr := out.Close(); err == nil && cerr != nil {
		err = cerr
	}
	if err != nil {
		if archive != nil {
			archive.Abort()
		}
		return fmt.Errorf("recording to %s: %w", p.output, err)
	}
	summary := res.Summary
	if f.quiet {
		summary = res.Losses
	}
	status := summary(e.stderr, p.output)
	if archive != nil && res.WriteErr == nil {
		if err := embedSymbols(e, m, p.output, archive); err != nil {
			return err
		}
	} else if archive != nil {
		archive.Abort()
	}
	if status != 0 {
		return &exitError{code: status}
	}
	return nil
}

// request is the engine's Request: the events resolved on m (with cpu-clock to fall back
// to for the default event) and the command's path.
func (p *recordPlan) request(e *env, m *host.Machine) (*record.Request, error) {
	req := &record.Request{Mode: p.mode, Command: p.command, PIDs: p.pids, CPUs: p.cpus, Period: p.period,
		Freq: p.freq, Callchain: p.callchain, UserStack: p.userStack, Compression: p.compress, Cmdline: append([]string{"pmc"}, os.Args[1:]...), Env: os.Environ(),
		Stdin: e.workload[0], Stdout: e.workload[1], Stderr: e.workload[2]}
	var err error
	if req.Events, err = recordEvents(m, p.spec, p.mode); err != nil {
		return nil, usageErr(err)
	}
	if p.defaulted {
		req.Fallback, _ = recordEvents(m, "cpu-clock", p.mode)
	}
	if p.mode != record.Attach && len(p.command) > 0 {
		if req.Path, err = launch.LookPath(p.command[0]); err != nil {
			return nil, execErr(err)
		}
	}
	return req, nil
}

// recordEvents resolves an event list for pmc record.
func recordEvents(m *host.Machine, spec string, mode record.Mode) ([]record.Event, error) {
	sm := map[record.Mode]stat.Mode{record.Launch: stat.Launch, record.Attach: stat.Attach, record.System: stat.System}[mode]
	evs, err := resolveOn(m, spec, sm, true)
	if err != nil {
		return nil, err
	}
	out := make([]record.Event, len(evs))
	for i, ev := range evs {
		out[i] = record.Event{Name: ev.Name, Attr: ev.Attr}
	}
	return out, nil
}

// execErr keeps a command's not-found/not-executable status (127/126).
func execErr(err error) error {
	var ee *launch.ExecError
	if errors.As(err, &ee) {
		return &exitError{code: ee.ExitCode(), err: err}
	}
	return err
}

// embedSymbols writes FILE.pmcsym (--embed-symbols): the symbol tables of the DSOs that got
// samples, so pmc report names them where the binaries are missing or changed.
func embedSymbols(e *env, m *host.Machine, perfData string, out *outfile.File) error {
	res := symbol.NewResolver(os.DirFS("/"))
	var kernelErr error
	res.LoadKernel = func() (*symbol.Table, error) {
		t, err := driver.RunningKernel(m)
		kernelErr = err
		return t, err
	}
	keep := func(p *profile.Profile, tables []*symbol.Table) []*symbol.Table {
		return driver.KeepCode(p, tables, "/")
	}
	p, n, err := record.Embed(perfData, out, res, keep)
	if err != nil {
		out.Abort()
		return fmt.Errorf("writing %s: %w", out.Name(), err)
	}
	warn(e, "record", driver.SymbolWarnings(p, kernelErr))
	if err := out.Close(); err != nil {
		return fmt.Errorf("writing %s: %w", out.Name(), err)
	}
	fmt.Fprintf(e.stderr, "[ pmc record: symbols of %d objects in %s ]\n", n, out.Name())
	return nil
}
