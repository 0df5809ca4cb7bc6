package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/signal"

	"github.com/spf13/cobra"

	"github.com/pmc-tools/pmc/internal/doctor"
	"github.com/pmc-tools/pmc/internal/host"
	"github.com/pmc-tools/pmc/internal/mem"
	"github.com/pmc-tools/pmc/internal/outfile"
	"github.com/pmc-tools/pmc/internal/perfevent"
	"github.com/pmc-tools/pmc/internal/stat"
	"github.com/pmc-tools/pmc/internal/unix"
)

type memFlags struct {
	min, max   string
	steps      int
	hops       int
	blocks     int
	passes     int
	samples    int
	order      string
	events     []string
	json       bool
	output     string
	histograms string
	pages      string
	samplesOut string
}

func newMemCmd(e *env) *cobra.Command {
	f := &memFlags{}
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
		RunE: func(cmd *cobra.Command, args []string) error { return runMem(e, f) },
	}
	fl := cmd.Flags()
	fl.StringVar(&f.min, "min", memSizeFlag(d.Min), "smallest working set (bytes, or with K, M, G)")
	fl.StringVar(&f.max, "max", memSizeFlag(d.Max), "largest working set (bytes, or with K, M, G)")
	fl.IntVar(&f.steps, "steps-per-octave", d.StepsPerOctave, "sizes per doubling (2: sqrt(2) apart)")
	fl.IntVar(&f.hops, "hops", d.Hops, "timed hops per size (bounds the run time)")
	fl.IntVar(&f.blocks, "blocks", d.Blocks, "split the timed hops into this many blocks and keep the fastest")
	fl.IntVar(&f.passes, "passes", d.Passes, "sweep all sizes this many times, sharing out the blocks (robust to busy moments)")
	fl.IntVar(&f.samples, "samples", d.Samples, "single-hop latency samples per size")
	fl.StringVar(&f.order, "order", string(d.Order), "random (defeats prefetchers) or sequential")
	fl.StringArrayVarP(&f.events, "event", "e", nil, "also count these events per size (per hop), e.g. -e L1-dcache-load-misses,dTLB-load-misses")
	fl.StringArrayVar(&f.events, "events", nil, "same as -e")
	fl.MarkHidden("events")
	fl.BoolVar(&f.json, "json", false, "write JSON (schema pmc.mem/v1) instead of text")
	fl.StringVarP(&f.output, "output", "o", "", "write the output to FILE instead of stdout")
	fl.StringVar(&f.histograms, "histograms", "tiers", "latency histograms to print: tiers (one size per tier), all, none")
	fl.StringVar(&f.pages, "pages", d.Pages, "pages of the list: default (the system's THP setting), 4k (base pages: MADV_NOHUGEPAGE, provokes TLB misses), thp (transparent huge pages: MADV_HUGEPAGE)")
	fl.StringVar(&f.samplesOut, "samples-file", "", "write every single-hop sample to FILE, one per line: latency (as in the histograms) and the list size in bytes (the seed's samples.dat)")
	return cmd
}

// memSizeFlag writes a flag default the way ParseSize reads it ("4K", "256M").
func memSizeFlag(b int64) string {
	switch {
	case b%(1<<30) == 0:
		return fmt.Sprintf("%dG", b>>30)
	case b%(1<<20) == 0:
		return fmt.Sprintf("%dM", b>>20)
	case b%(1<<10) == 0:
		return fmt.Sprintf("%dK", b>>10)
	}
	return fmt.Sprint(b)
}

func (f *memFlags) config(on *host.Machine) (mem.Config, error) {
	c := mem.Default()
	var err error
	if c.Min, err = mem.ParseSize(f.min); err != nil {
		return c, fmt.Errorf("--min: %w", err)
	}
	if c.Max, err = mem.ParseSize(f.max); err != nil {
		return c, fmt.Errorf("--max: %w", err)
	}
	if c.Order, err = mem.ParseOrder(f.order); err != nil {
		return c, err
	}
	if c.Pages, err = mem.ParsePages(f.pages); err != nil {
		return c, err
	}
	switch f.histograms {
	case "tiers", "all", "none":
	default:
		return c, fmt.Errorf("--histograms %q: want tiers, all or none", f.histograms)
	}
	c.StepsPerOctave, c.Hops, c.Blocks, c.Passes, c.Samples = f.steps, f.hops, f.blocks, f.passes, f.samples
	for _, spec := range f.events {
		evs, err := resolveOn(on, spec, stat.Attach, false)
		if err != nil {
			return c, err
		}
		for _, ev := range evs {
			c.Events = append(c.Events, mem.EventSpec{Name: ev.Name, Attr: ev.Attr})
		}
	}
	return c, c.Validate()
}

func runMem(e *env, f *memFlags) error {
	m := e.machine()
	c, err := f.config(m)
	if err != nil {
		return err
	}
	need := c.MemoryNeeded()
	if avail, err := m.MemAvailable(); err == nil && need > avail {
		return fmt.Errorf("--max %s needs about %s of memory and %s is available: lower --max",
			mem.FormatSize(c.Max), mem.FormatSize(need), mem.FormatSize(avail))
	}
	if left, ok := m.AddressSpaceLeft(); ok && need > left {
		return fmt.Errorf("--max %s needs about %s of address space and the limit (ulimit -v) leaves %s: lower --max or raise ulimit -v",
			mem.FormatSize(c.Max), mem.FormatSize(need), mem.FormatSize(max(left, 0)))
	}
	caches, err := mem.ReadCaches(m.Sys, 0)
	if err != nil {
		caches = nil // named in the output: tiers are then not matched to caches
	}
	c.PerfUserAccess, c.PerfUserAccessKnown = m.PerfUserAccess()
	c.THPMode = m.THPMode()
	c.AnonHuge = m.AnonHugeBytes
	var file, samplesFile *outfile.File // opened before the sweep so a bad path fails at once
	if f.output != "" {
		if file, err = outfile.Create(f.output, outfile.Replace); err != nil {
			return fmt.Errorf("-o: %w", err)
		}
		defer file.Abort() // after Close it does nothing
	}
	if f.samplesOut != "" {
		if samplesFile, err = outfile.Create(f.samplesOut, outfile.Replace); err != nil {
			return fmt.Errorf("--samples-file: %w", err)
		}
		defer samplesFile.Abort()
	}
	prog := newMemProgress(e.stderr)
	defer prog.clear()
	c.Tick = prog.tick
	var out bytes.Buffer
	w := io.Writer(e.stdout)
	if file != nil || f.json {
		w = &out
	}
	if !f.json {
		c.Start = func(r *mem.Result) { mem.WriteHeader(w, r) }
		c.Progress = func(p mem.Point) {
			if w == e.stdout {
				prog.clear() // the row goes where the progress line may be
			}
			mem.WriteRow(w, p)
		}
	}
	// Ctrl-C, SIGTERM, SIGHUP and SIGQUIT end the sweep after the current size, and what was
	// measured is written as usual.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, unix.SIGTERM, unix.SIGHUP, unix.SIGQUIT)
	defer stop()
	c.Stop = func() bool { return ctx.Err() != nil }
	res, err := mem.Run(c, caches)
	prog.clear()
	if err != nil {
		return err
	}
	if hint := memNoPMUHint(m, e.platform, c); hint != "" {
		res.Notes = append(res.Notes, hint)
		if !f.json {
			fmt.Fprintf(e.stderr, "pmc mem: %s\n", hint)
		}
	}
	if samplesFile != nil {
		if err := mem.WriteSamples(samplesFile, res); err != nil {
			return fmt.Errorf("--samples-file: %w", err)
		}
		if err := samplesFile.Close(); err != nil {
			return fmt.Errorf("--samples-file: %w", err)
		}
	}
	if f.json {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		if err := enc.Encode(res); err != nil {
			return err
		}
	} else {
		mem.WriteSummary(w, res, f.histograms)
	}
	if file != nil {
		if _, err := file.Write(out.Bytes()); err != nil {
			return err
		}
		return file.Close()
	}
	if w == &out {
		_, err = e.stdout.Write(out.Bytes())
	}
	return err
}

// memNoPMUHint names, once, why the hardware events of -e cannot be counted here and where
// the fix is ("" when there is a PMU or no hardware event was asked for).
func memNoPMUHint(m *host.Machine, platform func() *host.Platform, c mem.Config) string {
	if m.Core != nil {
		return ""
	}
	for _, ev := range c.Events {
		switch ev.Attr.Type {
		case perfevent.TypeHardware, perfevent.TypeHWCache, perfevent.TypeRaw:
			return "hardware events are <not supported> here: " + doctor.NoPMUCause(m, platform()) + "; `pmc doctor` says how to fix it"
		}
	}
	return ""
}

// stderrIsTerminal reports whether w is a terminal (tests replace it).
var stderrIsTerminal = func(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && unix.IsTerminal(int(f.Fd()))
}

// memProgress shows where a long sweep is, on one line of stderr rewritten in place, only
// when stderr is a terminal: never in a file, a pipe, or the JSON and text on stdout.
type memProgress struct {
	w     io.Writer
	shown bool
}

func newMemProgress(stderr io.Writer) *memProgress {
	if !stderrIsTerminal(stderr) {
		return &memProgress{}
	}
	return &memProgress{w: stderr}
}

func (p *memProgress) tick(pass, passes, k, sizes int, size int64) {
	if p.w == nil {
		return
	}
	fmt.Fprintf(p.w, "\rpmc mem: pass %d/%d, size %d/%d (%s)\x1b[K", pass+1, passes, k+1, sizes, mem.FormatSize(size))
	p.shown = true
}

// clear erases the progress line (before a row, and at the end).
func (p *memProgress) clear() {
	if p.w != nil && p.shown {
		fmt.Fprint(p.w, "\r\x1b[K")
		p.shown = false
	}
}
