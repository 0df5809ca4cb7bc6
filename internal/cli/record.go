package cli

import (
	"os"

	"github.com/spf13/cobra"

	"github.com/pmc-tools/pmc/internal/driver"
	"github.com/pmc-tools/pmc/internal/profile"
	"github.com/pmc-tools/pmc/internal/record"
	"github.com/pmc-tools/pmc/internal/symbol"
)

func newRecordCmd(e *env) *cobra.Command {
	o := &record.Options{}
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
			fl := cmd.Flags()
			o.Command, o.PeriodSet, o.FreqSet = args, fl.Changed("count"), fl.Changed("freq")
			o.CompressSet = fl.Changed("compression-level")
			p, err := o.Plan()
			if err != nil {
				return usageErr(err)
			}
			m := e.machine()
			return exitWith(record.Main(cmd.Context(), p, record.Env{Machine: m, Stdout: e.stdout, Stderr: e.stderr,
				Workload: e.workload, Cmdline: append([]string{"pmc"}, os.Args[1:]...), Environ: os.Environ(),
				Warn: warner(e, "record"), Symbols: record.Symbols{
					Kernel: func() (*symbol.Table, error) { return driver.RunningKernel(m) },
					Keep: func(p *profile.Profile, tables []*symbol.Table) []*symbol.Table {
						return driver.KeepCode(p, tables, "/")
					},
					Warnings: driver.SymbolWarnings}}))
		},
	}
	fl := cmd.Flags()
	fl.SetInterspersed(false)
	fl.StringArrayVarP(&o.Events, "event", "e", nil, "events to sample (comma-separated, repeatable); default cycles")
	fl.Uint64VarP(&o.Period, "count", "c", 0, "sample every N events")
	fl.IntVarP(&o.Freq, "freq", "F", 0, "sample at this many samples per second (default 4000)")
	fl.BoolVarP(&o.Callchain, "call-graph-fp", "g", false, "record call chains (frame pointers)")
	fl.StringVar(&o.CallGraph, "call-graph", "", "record call chains: fp (frame pointers, as -g) or dwarf[,SIZE] (user registers and SIZE bytes of user stack per sample, default 8192, unwound by pmc report)")
	fl.StringVarP(&o.PIDs, "pid", "p", "", "sample these processes (comma-separated) until they exit or Ctrl-C")
	fl.BoolVarP(&o.AllCPUs, "all-cpus", "a", false, "sample every CPU")
	fl.StringVarP(&o.CPUs, "cpu", "C", "", "sample these CPUs only (e.g. 0-3,6)")
	fl.StringVarP(&o.Output, "output", "o", "perf.data", "the file to write")
	fl.IntVarP(&o.Compress, "compression-level", "z", 0, "write the records zstd-compressed, as perf record -z (perf reads them): level 1 (fastest, a bare -z) to 22; pmc's encoder compresses levels above 3 as 3")
	fl.Lookup("compression-level").NoOptDefVal = "1"
	fl.BoolVarP(&o.Quiet, "quiet", "q", false, "say nothing but what was lost or failed (no summary line, no notes on fallbacks)")
	fl.BoolVar(&o.OffCPU, "off-cpu", false, "refused: off-CPU time needs BPF, which pmc does not have (perf's BUILD_BPF_SKEL=1 build records it)")
	fl.BoolVar(&o.Embed, "embed-symbols", false, "also write FILE.pmcsym: the symbols of the sampled binaries and kernel, so pmc report names them on another machine or after a rebuild")
	return cmd
}

// exitWith turns an engine's exit status and error into cobra's: 0 is success, any other
// status is pmc's (with err's message when there is one).
func exitWith(status int, err error) error {
	if status == 0 {
		return nil
	}
	return &exitError{code: status, err: err}
}
