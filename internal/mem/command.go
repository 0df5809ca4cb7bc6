package mem

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/signal"

	"github.com/pmc-tools/pmc/internal/host"
	"github.com/pmc-tools/pmc/internal/outfile"
	"github.com/pmc-tools/pmc/internal/perfevent"
	"github.com/pmc-tools/pmc/internal/unix"
)

// Flags are pmc mem's options as its command line gives them.
type Flags struct {
	Min, Max                                      string // sizes as ParseSize reads them
	StepsPerOctave, Hops, Blocks, Passes, Samples int
	Order, Pages                                  string
	Histograms                                    string // tiers, all or none
	Events                                        []string
	JSON                                          bool
	Output, SamplesFile                           string // "": stdout, and no samples file
}

// Env is what Main needs from its caller.
type Env struct {
	Machine        *host.Machine
	Stdout, Stderr io.Writer
	Terminal       bool // stderr is a terminal: progress is shown there
	// Resolve turns one -e spec into the events it names.
	Resolve func(spec string) ([]EventSpec, error)
	// NoPMUCause says why hardware events cannot be counted here (asked only then).
	NoPMUCause func() string
}

// SizeFlag writes a flag default the way ParseSize reads it ("4K", "256M").
func SizeFlag(b int64) string {
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

// Config parses f; its errors name the flag to fix.
func (f *Flags) Config(resolve func(spec string) ([]EventSpec, error)) (Config, error) {
	c := Default()
	var err error
	if c.Min, err = ParseSize(f.Min); err != nil {
		return c, fmt.Errorf("--min: %w", err)
	}
	if c.Max, err = ParseSize(f.Max); err != nil {
		return c, fmt.Errorf("--max: %w", err)
	}
	if c.Order, err = ParseOrder(f.Order); err != nil {
		return c, err
	}
	if c.Pages, err = ParsePages(f.Pages); err != nil {
		return c, err
	}
	switch f.Histograms {
	case "tiers", "all", "none":
	default:
		return c, fmt.Errorf("--histograms %q: want tiers, all or none", f.Histograms)
	}
	c.StepsPerOctave, c.Hops, c.Blocks, c.Passes, c.Samples = f.StepsPerOctave, f.Hops, f.Blocks, f.Passes, f.Samples
	for _, spec := range f.Events {
		evs, err := resolve(spec)
		if err != nil {
			return c, err
		}
		c.Events = append(c.Events, evs...)
	}
	return c, c.Validate()
}

// Main is pmc mem: it checks that the sweep fits the machine, runs it and writes the text
// (row by row as it goes) or the JSON, and the samples file. Ctrl-C, SIGTERM, SIGHUP and
// SIGQUIT end the sweep after the current size, and what was measured is written as usual.
func Main(f *Flags, env Env) error {
	m := env.Machine
	c, err := f.Config(env.Resolve)
	if err != nil {
		return err
	}
	if err := machineHolds(m, c); err != nil {
		return err
	}
	caches, err := ReadCaches(m.Sys, 0)
	if err != nil {
		caches = nil // named in the output: tiers are then not matched to caches
	}
	c.PerfUserAccess, c.PerfUserAccessKnown = m.PerfUserAccess()
	c.THPMode = m.THPMode()
	c.AnonHuge = m.AnonHugeBytes
	var file, samplesFile *outfile.File // opened before the sweep so a bad path fails at once
	if f.Output != "" {
		if file, err = outfile.Create(f.Output, outfile.Replace); err != nil {
			return fmt.Errorf("-o: %w", err)
		}
		defer file.Abort() // after Close it does nothing
	}
	if f.SamplesFile != "" {
		if samplesFile, err = outfile.Create(f.SamplesFile, outfile.Replace); err != nil {
			return fmt.Errorf("--samples-file: %w", err)
		}
		defer samplesFile.Abort()
	}
	var out bytes.Buffer
	w := io.Writer(env.Stdout)
	if file != nil || f.JSON {
		w = &out
	}
	// Signals end the sweep, not pmc mem: what was measured is still written.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, unix.SIGTERM, unix.SIGHUP, unix.SIGQUIT)
	defer stop()
	c.Stop = func() bool { return ctx.Err() != nil }
	res, err := sweep(c, caches, f.JSON, w, env)
	if err != nil {
		return err
	}
	if hint := noPMUHint(m, env.NoPMUCause, c); hint != "" {
		res.Notes = append(res.Notes, hint)
		if !f.JSON {
			fmt.Fprintf(env.Stderr, "pmc mem: %s\n", hint)
		}
	}
	if samplesFile != nil {
		if err := WriteSamples(samplesFile, res); err != nil {
			return fmt.Errorf("--samples-file: %w", err)
		}
		if err := samplesFile.Close(); err != nil {
			return fmt.Errorf("--samples-file: %w", err)
		}
	}
	if f.JSON {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		if err := enc.Encode(res); err != nil {
			return err
		}
	} else {
		WriteSummary(w, res, f.Histograms)
	}
	if file != nil {
		if _, err := file.Write(out.Bytes()); err != nil {
			return err
		}
		return file.Close()
	}
	if w == &out {
		_, err = env.Stdout.Write(out.Bytes())
	}
	return err
}

// machineHolds says when the sweep needs more memory or address space than m has.
func machineHolds(m *host.Machine, c Config) error {
	need := c.MemoryNeeded()
	if avail, err := m.MemAvailable(); err == nil && need > avail {
		return fmt.Errorf("--max %s needs about %s of memory and %s is available: lower --max",
			FormatSize(c.Max), FormatSize(need), FormatSize(avail))
	}
	if left, ok := m.AddressSpaceLeft(); ok && need > left {
		return fmt.Errorf("--max %s needs about %s of address space and the limit (ulimit -v) leaves %s: lower --max or raise ulimit -v",
			FormatSize(c.Max), FormatSize(need), FormatSize(max(left, 0)))
	}
	return nil
}

// sweep runs c with the progress line on a terminal's stderr and, unless asJSON, the header
// and each row written to w as they are measured.
func sweep(c Config, caches []Cache, asJSON bool, w io.Writer, env Env) (*Result, error) {
	prog := newProgress(env.Stderr, env.Terminal)
	defer prog.clear()
	c.Tick = prog.tick
	if !asJSON {
		c.Start = func(r *Result) { WriteHeader(w, r) }
		c.Progress = func(p Point) {
			if w == env.Stdout {
				prog.clear() // the row goes where the progress line may be
			}
			WriteRow(w, p)
		}
	}
	res, err := Run(c, caches)
	prog.clear()
	return res, err
}

// noPMUHint names, once, why the hardware events of -e cannot be counted here and where
// the fix is ("" when there is a PMU or no hardware event was asked for).
func noPMUHint(m *host.Machine, cause func() string, c Config) string {
	if m.Core != nil {
		return ""
	}
	for _, ev := range c.Events {
		switch ev.Attr.Type {
		case perfevent.TypeHardware, perfevent.TypeHWCache, perfevent.TypeRaw:
			return "hardware events are <not supported> here: " + cause() + "; `pmc doctor` says how to fix it"
		}
	}
	return ""
}

// progress shows where a long sweep is, on one line of stderr rewritten in place, only
// when stderr is a terminal: never in a file, a pipe, or the JSON and text on stdout.
type progress struct {
	w     io.Writer
	shown bool
}

func newProgress(stderr io.Writer, terminal bool) *progress {
	if !terminal {
		return &progress{}
	}
	return &progress{w: stderr}
}

func (p *progress) tick(pass, passes, k, sizes int, size int64) {
	if p.w == nil {
		return
	}
	fmt.Fprintf(p.w, "\rpmc mem: pass %d/%d, size %d/%d (%s)\x1b[K", pass+1, passes, k+1, sizes, FormatSize(size))
	p.shown = true
}

// clear erases the progress line (before a row, and at the end).
func (p *progress) clear() {
	if p.w != nil && p.shown {
		fmt.Fprint(p.w, "\r\x1b[K")
		p.shown = false
	}
}
