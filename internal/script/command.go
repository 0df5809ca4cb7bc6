package script

import (
	"io"

	"github.com/pmc-tools/pmc/internal/outfile"
	"github.com/pmc-tools/pmc/internal/perfdata"
	"github.com/pmc-tools/pmc/internal/profile"
)

// Flags are pmc script's options as its command line gives them (the input file and where
// symbols come from aside: the caller's load reads those).
type Flags struct {
	Fields      string // -F, as Parse reads it
	NoCallchain bool
	Nanoseconds bool
	Output      string // "": stdout
}

// Main is pmc script: it writes every sample load returns, as perf script does, to the
// Output file or stdout. The fields are checked and the file opened before load reads
// anything, so a mistake fails at once; the file is kept only when it is complete.
func Main(f Flags, stdout io.Writer, load func() (*profile.Profile, []perfdata.Event, error)) error {
	sel, err := Parse(f.Fields)
	if err != nil {
		return err
	}
	out := stdout
	var of *outfile.File
	if f.Output != "" {
		if of, err = outfile.Create(f.Output, outfile.Replace); err != nil {
			return err
		}
		defer of.Abort()
		out = of
	}
	p, events, err := load()
	if err != nil {
		return err
	}
	if err := Write(out, p, events, Options{Fields: sel, NoCallchain: f.NoCallchain, Nanoseconds: f.Nanoseconds}); err != nil {
		return err
	}
	if of != nil {
		return of.Close()
	}
	return nil
}
