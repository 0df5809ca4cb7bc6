package driver

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"

	"github.com/pmc-tools/pmc/internal/perfdata"
	"github.com/pmc-tools/pmc/internal/profile"
	"github.com/pmc-tools/pmc/internal/profile/fromperf"
	"github.com/pmc-tools/pmc/internal/symbol"
)

// Machine is what the driver reads of the machine it runs on: the running kernel's build-id
// and symbols (*host.Machine is one).
type Machine interface {
	KernelBuildID() (string, error)
	KallsymsText() (string, error)
}

// Options say which recording to load and where its symbols come from.
type Options struct {
	Path     string // the perf.data file ("-": Stdin, in perf's pipe format)
	Stdin    io.Reader
	Symfs    string // binaries are looked up under this directory ("" or "/": this machine's)
	Kallsyms string // kernel symbols from this kallsyms file (perf's --kallsyms)
	Vmlinux  string // kernel symbols from this kernel image (perf's --vmlinux)
	// Machine is the machine the report runs on, asked for only when the running kernel's
	// build-id or symbols are needed; nil: none (kernel symbols from files and the archive).
	Machine func() Machine
	// Lines reads DWARF line tables with the symbols (srcline, pprof and JSON reports).
	Lines bool
	// IP only: samples keep their sampled address alone, their call chains are neither
	// resolved nor kept (annotate needs no callers).
	IPOnly bool
	// Aggregate, told what the file holds, gives the Aggregator the samples stream into as
	// they are read (nil, or a nil Aggregator: none, the profile keeps them); Keep keeps
	// them in the profile too.
	Aggregate func(in Input) (*profile.Aggregator, error)
	Keep      bool
	// Shared, when set, shares the tables of DSOs with build-ids between loads (the files
	// of one diff).
	Shared *symbol.Shared
}

// Input is what a recording holds that changes perf report's default view.
type Input struct {
	Chains   bool // call chains
	Branches bool // branch stacks
	Pipe     bool // perf's pipe format
}

// Result is a loaded recording.
type Result struct {
	Profile   *profile.Profile
	HasChains bool // some event of the file samples call chains
	// Events are the file's events (attributes and names), Profile.Events[i] is Events[i]
	// (once the records are read: a pipe's come with them): what a sample's event recorded
	// with it (perf script's fields).
	Events []perfdata.Event
	// Warnings say what could not be symbolized and why, once each, for the user.
	Warnings []string
	res      *symbol.Resolver
}

// Load reads the recording o.Path into a profile, its addresses resolved on this machine
// (binaries, kernel) and from the archive beside the file. Problems with symbols are
// Warnings; problems with the file are the error.
func Load(o Options) (*Result, error) {
	pf, err := open(o)
	if err != nil {
		return nil, FileError(o.Path, err)
	}
	defer pf.Close()
	r := &Result{}
	for _, w := range pf.Features.Skipped {
		r.Warnings = append(r.Warnings, o.Path+": "+w)
	}
	in := Input{Pipe: pf.Pipe}
	for _, ev := range pf.Events {
		in.Chains = in.Chains || ev.Attr.SampleType&perfdata.SampleCallchain != 0
		// perf's branch view is for branch stacks (-b), not LBR call stacks (--call-graph lbr).
		in.Branches = in.Branches || ev.Attr.SampleType&perfdata.SampleBranchStack != 0 && !fromperf.CallStackBranches(ev.Attr)
	}
	r.HasChains = in.Chains
	var agg *profile.Aggregator
	if o.Aggregate != nil {
		if agg, err = o.Aggregate(in); err != nil {
			return nil, err
		}
	}
	r.res = symbol.NewResolver(symfs(o.Symfs))
	r.res.NoLines = !o.Lines
	r.res.Shared = o.Shared
	a, err := symbol.OpenArchiveFile(symbol.ArchivePath(o.Path))
	if err != nil {
		r.Warnings = append(r.Warnings, fmt.Sprintf("%v (ignored)", err))
	}
	r.res.Archive = a
	k := newKernel(o, a, recordedKernel(pf))
	defer k.wait() // no load outlives Load
	r.res.KernelTable = k.table
	if mayNeedKernel(pf) {
		k.prefetch()
	}
	b := profile.NewBuilder(r.res)
	if agg != nil {
		b.Stream(agg, o.Keep)
	}
	if o.IPOnly {
		b.IgnoreCallchains()
	}
	if err := fromperf.Feed(pf, b); err != nil {
		return nil, FileError(o.Path, err)
	}
	r.Profile = b.Profile()
	r.Events = pf.Events // a pipe's are known once its records are read
	r.Warnings = append(r.Warnings, SymbolWarnings(r.Profile, nil)...)
	r.Warnings = append(r.Warnings, r.Profile.Notes...)
	return r, nil
}

// open opens the recording: "-" is standard input, in perf's pipe format.
func open(o Options) (*perfdata.File, error) {
	if o.Path == "-" && o.Stdin != nil {
		return perfdata.NewPipe(o.Stdin)
	}
	return perfdata.Open(o.Path)
}

// symfs is the filesystem binaries are read from.
func symfs(dir string) fs.FS {
	if dir == "" {
		dir = "/"
	}
	return os.DirFS(dir)
}

// FileError words a problem with the recording itself.
func FileError(path string, err error) error {
	switch {
	case errors.Is(err, os.ErrNotExist):
		return fmt.Errorf("%s: no such file: record one with pmc record -- COMMAND (or name it with -i FILE)", path)
	case errors.Is(err, perfdata.ErrUnsupported):
		return fmt.Errorf("%s: %v", path, err)
	}
	var fe *perfdata.FormatError
	if errors.As(err, &fe) {
		return fmt.Errorf("%s: not a readable perf.data file (%v): record it again", path, err)
	}
	return fmt.Errorf("%s: %w", path, err)
}

// SymbolWarnings say once per DSO that got samples why it has no symbols; kernelErr, when
// not nil, is why the kernel has none (else its DSO's own error).
func SymbolWarnings(p *profile.Profile, kernelErr error) []string {
	var out []string
	for _, d := range p.Sampled {
		if d.Table != nil || d.Name == profile.Unknown || strings.HasPrefix(d.Name, "[") && !d.Kernel {
			continue
		}
		switch {
		case d.Kernel && (kernelErr != nil || d.Err != nil):
			why := kernelErr
			if why == nil {
				why = d.Err
			}
			out = append(out, fmt.Sprintf("kernel samples show addresses: %v", why))
		case d.Kernel:
			out = append(out, fmt.Sprintf("no symbols for %s: its samples show addresses", d.Name))
		default:
			out = append(out, fmt.Sprintf("no symbols for %s (%v): its samples show addresses; pmc record --embed-symbols keeps them", d.Name, d.Err))
		}
	}
	return out
}
