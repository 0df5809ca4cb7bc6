package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/pmc-tools/pmc/internal/driver"
	"github.com/pmc-tools/pmc/internal/symbol"
	"github.com/pmc-tools/pmc/internal/top"
	"github.com/pmc-tools/pmc/internal/unix"
)

// topFlags are the raw flag values of `pmc top`.
type topFlags struct {
	event      string
	freq       uint64
	delay      float64
	pids       string
	cgroup     string
	sort       string
	comms      []string
	callchain  bool
	stdio      bool
	entries    int
	iterations int
}

func newTopCmd(e *env) *cobra.Command {
	f := &topFlags{}
	cmd := &cobra.Command{
		Use:   "top [options]",
		Short: "show live where the machine (or -p PIDs, or a cgroup) spends an event, like perf top",
		Long: `Sample every CPU (or the processes of -p, or the tasks of a cgroup) and show the hottest
functions, refreshed every -d seconds: each row's share of the samples, its command, shared
object and symbol ([k] kernel, [.] user). Rows age as perf top's do (their period times 7/8
at each refresh), so what stopped running fades out and memory stays bounded. Samples
cycles, or cpu-clock where there is no hardware PMU (said once).
Keys: q quit, j/k or the arrows select a row, Enter (or g) shows the selected row's call
chains (with -g), space pauses. --stdio prints a snapshot every interval instead
(scripts, logs, no terminal needed).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error { return runTop(e, f) },
	}
	fl := cmd.Flags()
	fl.StringVarP(&f.event, "event", "e", "", "the event to sample: "+strings.Join(top.EventNames(), ", ")+" (default cycles, or cpu-clock without a PMU)")
	fl.Uint64VarP(&f.freq, "freq", "F", 4000, "samples per second per CPU")
	fl.Float64VarP(&f.delay, "delay", "d", 2, "seconds between refreshes")
	fl.StringVarP(&f.pids, "pid", "p", "", "sample these processes only (comma-separated), with the threads and children they start")
	fl.StringVarP(&f.cgroup, "cgroup", "G", "", "sample the tasks of this cgroup (v2 directory, e.g. /sys/fs/cgroup/system.slice)")
	fl.StringVarP(&f.sort, "sort", "s", strings.Join(top.DefaultSort(), ","), "rows by these keys: "+strings.Join(top.SortKeys(), ","))
	fl.StringSliceVar(&f.comms, "comm", nil, "show only these commands (comma-separated)")
	fl.BoolVarP(&f.callchain, "call-graph", "g", false, "record call chains: Enter shows the selected row's (--stdio: every row's)")
	fl.BoolVar(&f.stdio, "stdio", false, "print a snapshot every interval instead of the full-screen view")
	fl.IntVarP(&f.entries, "entries", "E", 0, "rows shown (default: what fits the terminal; 40 with --stdio)")
	fl.IntVarP(&f.iterations, "iterations", "n", 0, "stop after this many refreshes (default: until q or Ctrl-C)")
	return cmd
}

func runTop(e *env, f *topFlags) error {
	if f.delay <= 0 || f.delay > 3600 {
		return usageErr(fmt.Errorf("-d %g: give seconds between refreshes, more than 0", f.delay))
	}
	if f.freq == 0 {
		return usageErr(errors.New("-F 0: give samples per second, e.g. -F 4000"))
	}
	if f.pids != "" && f.cgroup != "" {
		return usageErr(errors.New("-p and --cgroup: choose one"))
	}
	var pids []int
	for _, p := range strings.Split(f.pids, ",") {
		if p = strings.TrimSpace(p); p == "" {
			continue
		}
		n, err := strconv.Atoi(p)
		if err != nil || n <= 0 {
			return usageErr(fmt.Errorf("-p %s: %q is not a process id", f.pids, p))
		}
		pids = append(pids, n)
	}
	var keys []string
	for _, k := range strings.Split(f.sort, ",") {
		if k = strings.TrimSpace(k); k != "" {
			keys = append(keys, k)
		}
	}
	m := e.machine()
	kernel, kerr := driver.RunningKernel(m)
	res := symbol.NewResolver(os.DirFS("/"))
	res.NoLines = true // rows name functions: no DWARF line tables to read
	model, err := top.NewModel(top.Options{Sort: keys, Comms: f.comms, Callchain: f.callchain}, res, kernel)
	if err != nil {
		return usageErr(err)
	}
	if !f.stdio && !isTerminal(os.Stdin) {
		return usageErr(errors.New("the full-screen view needs a terminal on stdin: use --stdio"))
	}
	src, err := top.Open(top.SourceOptions{Target: top.Target{Pids: pids, Cgroup: f.cgroup}, Freq: f.freq,
		Callchain: f.callchain, Machine: m, Event: f.event})
	if err != nil {
		return fmt.Errorf("sampling: %w", err)
	}
	defer src.Close()
	for _, n := range src.Notes {
		warnf(e.stderr, "pmc top: %s", n)
	}
	if kerr != nil {
		warnf(e.stderr, "pmc top: kernel samples show addresses: %v", kerr)
	}
	target := fmt.Sprintf("all, %d CPUs", src.CPUs)
	switch {
	case len(pids) > 0:
		target = "pid " + f.pids
	case f.cgroup != "":
		target = "cgroup " + f.cgroup
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, unix.SIGTERM, unix.SIGHUP)
	defer stop()
	return top.Run(ctx, src, model, top.UIOptions{Delay: time.Duration(f.delay * float64(time.Second)), Stdio: f.stdio,
		Out: e.stdout, In: os.Stdin, Keys: keys, Rows: f.entries, Target: target, Freq: f.freq, Count: f.iterations})
}
