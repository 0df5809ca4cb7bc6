package driver

import (
	"fmt"

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
