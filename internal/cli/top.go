package cli

import (
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/pmc-tools/pmc/internal/driver"
	"github.com/pmc-tools/pmc/internal/symbol"
	"github.com/pmc-tools/pmc/internal/top"
)

func newTopCmd(e *env) *cobra.Command {
	f := &top.Flags{}
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
		RunE: func(cmd *cobra.Command, args []string) error {
			m := e.machine()
			return top.Main(f, top.Env{Machine: m, Out: e.stdout, In: os.Stdin,
				Kernel: func() (*symbol.Table, error) { return driver.RunningKernel(m) },
				Warnf:  func(format string, args ...any) { warnf(e.stderr, format, args...) }})
		},
	}
	fl := cmd.Flags()
	fl.StringVarP(&f.Event, "event", "e", "", "the event to sample: "+strings.Join(top.EventNames(), ", ")+" (default cycles, or cpu-clock without a PMU)")
	fl.Uint64VarP(&f.Freq, "freq", "F", 4000, "samples per second per CPU")
	fl.Float64VarP(&f.Delay, "delay", "d", 2, "seconds between refreshes")
	fl.StringVarP(&f.Pids, "pid", "p", "", "sample these processes only (comma-separated), with the threads and children they start")
	fl.StringVarP(&f.Cgroup, "cgroup", "G", "", "sample the tasks of this cgroup (v2 directory, e.g. /sys/fs/cgroup/system.slice)")
	fl.StringVarP(&f.Sort, "sort", "s", strings.Join(top.DefaultSort(), ","), "rows by these keys: "+strings.Join(top.SortKeys(), ","))
	fl.StringSliceVar(&f.Comms, "comm", nil, "show only these commands (comma-separated)")
	fl.BoolVarP(&f.Callchain, "call-graph", "g", false, "record call chains: Enter shows the selected row's (--stdio: every row's)")
	fl.BoolVar(&f.Stdio, "stdio", false, "print a snapshot every interval instead of the full-screen view")
	fl.IntVarP(&f.Entries, "entries", "E", 0, "rows shown (default: what fits the terminal; 40 with --stdio)")
	fl.IntVarP(&f.Iterations, "iterations", "n", 0, "stop after this many refreshes (default: until q or Ctrl-C)")
	return cmd
}
