package cli

import (
	"github.com/spf13/cobra"

	"github.com/pmc-tools/pmc/internal/doctor"
	"github.com/pmc-tools/pmc/internal/mem"
	"github.com/pmc-tools/pmc/internal/stat"
)

func newMemCmd(e *env) *cobra.Command {
	f := &mem.Flags{}
	d := mem.Default()
	cmd := &cobra.Command{
		Use:   "mem [options]",
		Short: "probe the memory hierarchy: latency per working-set size by pointer chasing",
		Long: `Chase a linked list with one node per 64-byte line, linked in one random cycle that
defeats the prefetchers, over a sweep of working-set sizes. For each size: the latency per hop
in ns (the fastest of several timed blocks) and in cycles (counted with the hardware cycles
event, or calibrated from the core clock when there is no PMU, and then labelled so), and
single hops timed one per traversal, shown as histograms. Then the tiers (L1, L2, L3, DRAM,
TLB reach) and the sizes where latency steps up, compared with the cache sizes in sysfs.
Single hops are timed with the hardware cycle counter read from user space where the kernel
allows it (x86 RDPMC; arm64 with kernel.perf_user_access=1), else with the TSC (x86) or the
monotonic clock; the output says which and why. Progress goes to stderr when it is a terminal.
Text goes to stdout; --json writes the schema pmc.mem/v1 (docs/json-schema.md), which
pmc show prints as text again.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			m := e.machine()
			return mem.Main(f, mem.Env{Machine: m, Stdout: e.stdout, Stderr: e.stderr, Terminal: stderrIsTerminal(e.stderr),
				Resolve:    func(spec string) ([]mem.EventSpec, error) { return memEvents(resolveOn(m, spec, stat.Attach, false)) },
				NoPMUCause: func() string { return doctor.NoPMUCause(m, e.platform()) }})
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.Min, "min", mem.SizeFlag(d.Min), "smallest working set (bytes, or with K, M, G)")
	fl.StringVar(&f.Max, "max", mem.SizeFlag(d.Max), "largest working set (bytes, or with K, M, G)")
	fl.IntVar(&f.StepsPerOctave, "steps-per-octave", d.StepsPerOctave, "sizes per doubling (2: sqrt(2) apart)")
	fl.IntVar(&f.Hops, "hops", d.Hops, "timed hops per size (bounds the run time)")
	fl.IntVar(&f.Blocks, "blocks", d.Blocks, "split the timed hops into this many blocks and keep the fastest")
	fl.IntVar(&f.Passes, "passes", d.Passes, "sweep all sizes this many times, sharing out the blocks (robust to busy moments)")
	fl.IntVar(&f.Samples, "samples", d.Samples, "single-hop latency samples per size")
	fl.StringVar(&f.Order, "order", string(d.Order), "random (defeats prefetchers) or sequential")
	fl.StringArrayVarP(&f.Events, "event", "e", nil, "also count these events per size (per hop), e.g. -e L1-dcache-load-misses,dTLB-load-misses")
	fl.StringArrayVar(&f.Events, "events", nil, "same as -e")
	fl.MarkHidden("events")
	fl.BoolVar(&f.JSON, "json", false, "write JSON (schema pmc.mem/v1) instead of text")
	fl.StringVarP(&f.Output, "output", "o", "", "write the output to FILE instead of stdout")
	fl.StringVar(&f.Histograms, "histograms", "tiers", "latency histograms to print: tiers (one size per tier), all, none")
	fl.StringVar(&f.Pages, "pages", d.Pages, "pages of the list: default (the system's THP setting), 4k (base pages: MADV_NOHUGEPAGE, provokes TLB misses), thp (transparent huge pages: MADV_HUGEPAGE)")
	fl.StringVar(&f.SamplesFile, "samples-file", "", "write every single-hop sample to FILE, one per line: latency (as in the histograms) and the list size in bytes (the seed's samples.dat)")
	return cmd
}

// memEvents are the events of one -e spec as mem counts them.
func memEvents(evs []stat.Event, err error) ([]mem.EventSpec, error) {
	var out []mem.EventSpec
	for _, ev := range evs {
		out = append(out, mem.EventSpec{Name: ev.Name, Attr: ev.Attr})
	}
	return out, err
}

// stderrIsTerminal reports whether w is a terminal (tests replace it).
var stderrIsTerminal = isTerminal
