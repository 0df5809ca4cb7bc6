package driver

import (
	"errors"
	"fmt"
	"io"

	"github.com/pmc-tools/pmc/internal/profdiff"
	"github.com/pmc-tools/pmc/internal/profile"
	"github.com/pmc-tools/pmc/internal/symbol"
)

// DiffOptions say which files pmc diff compares and how.
type DiffOptions struct {
	Load  Options  // where symbols come from; Path is set per file
	Paths []string // the baseline first
	Event string   // the compared event; "" the baseline's first with samples
	// CallGraph is -g's value and Explicit says it was given: children (inclusive) shares
	// are compared when every file has call chains, unless -g=false; -g refuses a file
	// without them.
	CallGraph, Explicit bool
}

// Diff loads every file and aggregates the compared event by dso,sym (and, when every file
// has call chains and o asks for them, with children). Warnings are each file's, prefixed
// with its name.
func Diff(o DiffOptions) ([]profdiff.File, []string, error) {
	var files []profdiff.File
	var warnings []string
	event := o.Event
	children := true
	shared := &symbol.Shared{} // the files name the same libraries: each is read once
	for _, path := range o.Paths {
		lo := o.Load
		lo.Path, lo.Shared = path, shared
		lo.IPOnly = o.Explicit && !o.CallGraph // -g=false: no children, no callers to resolve
		r, err := Load(lo)
		if err != nil {
			return nil, warnings, err
		}
		for _, w := range r.Warnings {
			warnings = append(warnings, path+": "+w)
		}
		p := r.Profile
		ev, err := PickEvent(p, event)
		if err != nil {
			return nil, warnings, fmt.Errorf("%s: %v", path, err)
		}
		event = p.Events[ev].Name
		self, err := profile.Aggregate(p, ev, profile.Options{Sort: []string{"dso", "sym"}})
		if err != nil {
			return nil, warnings, err
		}
		df := profdiff.File{Name: path, Self: self}
		if r.HasChains && !lo.IPOnly {
			if df.Children, err = profile.Aggregate(p, ev, profile.Options{Sort: []string{"dso", "sym"}, Children: true}); err != nil {
				return nil, warnings, err
			}
		} else if o.CallGraph && o.Explicit {
			return nil, warnings, fmt.Errorf("%s has no call chains: record it with -g (or leave -g out)", path)
		}
		children = children && r.HasChains
		files = append(files, df)
	}
	if !children || (o.Explicit && !o.CallGraph) {
		for i := range files {
			files[i].Children = nil
		}
	}
	return files, warnings, nil
}

// DiffReport is pmc diff: the files compared, how, and where the table goes.
type DiffReport struct {
	DiffOptions
	Sort    string // --sort: how rows are matched (profdiff.ParseMatch)
	Compute string // --compute: the change column (profdiff.ParseCompute)
	JSON    bool   // pmc.diff/v1 instead of text
	Output  string // the file to write ("": Stdout)
	Stdout  io.Writer
	Warn    func(warnings []string) // told each file's symbol warnings
}

// WriteDiff compares the files (none: perf.data.old against perf.data, as perf diff) and
// writes the table. The output file is opened before the files are read.
func WriteDiff(o DiffReport) error {
	match, err := profdiff.ParseMatch(o.Sort)
	if err != nil {
		return err
	}
	comp, err := profdiff.ParseCompute(o.Compute)
	if err != nil {
		return err
	}
	switch len(o.Paths) {
	case 0:
		o.Paths = []string{"perf.data.old", "perf.data"}
	case 1:
		return errors.New("give the baseline and at least one new file (or none: perf.data.old vs perf.data)")
	}
	return writeTo(o.Output, o.Stdout, func(w io.Writer) error {
		files, warnings, err := Diff(o.DiffOptions)
		o.Warn(warnings)
		if err != nil {
			return err
		}
		d := profdiff.Build(files, match, comp)
		if o.JSON {
			return d.WriteJSON(w)
		}
		return d.WriteText(w)
	})
}
