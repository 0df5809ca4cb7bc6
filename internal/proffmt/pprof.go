package proffmt

import (
	"fmt"
	"io"
	"strings"

	"github.com/google/pprof/profile"
	pmcprof "github.com/pmc-tools/pmc/internal/profile"
)

// Pprof writes p as a gzipped profile.proto: PprofProfile's conversion of every sampled
// event. go tool pprof -sample_index=NAME shows one event.
func Pprof(w io.Writer, p *pmcprof.Profile) error {
	out, err := PprofProfile(p, PprofOptions{})
	if err != nil {
		return err
	}
	return out.Write(w)
}

// PprofOptions choose what PprofProfile converts.
type PprofOptions struct {
	// Events are the events given a sample type each, after "samples/count" (the first is
	// the default sample type); nil: every sampled event in the profile's order (the first
	// is the one perf report shows first), or the first event when none has samples.
	Events []int
	// DSOAddresses gives every Location its address in its DSO's own space (ELF virtual
	// addresses, the addresses pmc annotate and objdump print) instead of the process
	// address, and each Mapping the DSO's whole extent, so that a tool reading the binary
	// needs no relocation, every process's samples of one binary land on the same
	// instructions, and profiles of one binary merge (pprof merges mappings by build-id or
	// file and size).
	DSOAddresses bool
}

// PprofProfile converts p into a pprof profile: sample types "samples/count" and then each
// chosen event's period (nanoseconds for the clock events, else events/count; a sample has
// its period under its own event's type and 0 under the others), one Location per distinct
// address with its function and line, one Mapping per DSO (the executable's first), the
// command as a label and pid, tid and cpu as numeric labels.
func PprofProfile(p *pmcprof.Profile, o PprofOptions) (*profile.Profile, error) {
	var events []*pmcprof.Event
	for _, ev := range o.Events {
		events = append(events, p.Events[ev])
	}
	if o.Events == nil {
		events = p.SampledEvents()
		if len(events) == 0 {
			events = p.Events[:1]
		}
	}
	if len(events) == 0 {
		return nil, fmt.Errorf("the profile has no events")
	}
	out := &profile.Profile{SampleType: []*profile.ValueType{{Type: "samples", Unit: "count"}}}
	column := map[int]int{} // event index -> value index
	seen := map[string]int{}
	for _, e := range events {
		name := e.Name
		unit := "count"
		if base, _, _ := strings.Cut(name, ":"); base == "cpu-clock" || base == "task-clock" {
			unit = "nanoseconds"
		}
		if name == "" {
			name = "events"
		}
		if seen[name]++; seen[name] > 1 {
			name = fmt.Sprintf("%s#%d", name, seen[name]) // sample types are chosen by name
		}
		column[e.Index] = len(out.SampleType)
		out.SampleType = append(out.SampleType, &profile.ValueType{Type: name, Unit: unit})
	}
	out.DefaultSampleType = out.SampleType[1].Type
	out.PeriodType = &profile.ValueType{Type: out.SampleType[1].Type, Unit: out.SampleType[1].Unit}
	maps := map[*pmcprof.DSO]*profile.Mapping{}
	funcs := map[*pmcprof.Symbol]*profile.Function{}
	locs := map[*pmcprof.Location]*profile.Location{}
	address := func(l *pmcprof.Location) uint64 {
		if o.DSOAddresses {
			return l.Rel
		}
		return l.Addr
	}
	mapping := func(d *pmcprof.DSO, addr uint64) *profile.Mapping {
		m, ok := maps[d]
		if !ok {
			m = &profile.Mapping{ID: uint64(len(out.Mapping) + 1), File: d.Name, BuildID: d.BuildID, Start: addr, Limit: addr + 1,
				HasFunctions: true}
			if o.DSOAddresses {
				m.Start, m.Limit = extent(d, addr)
			}
			if d.Table != nil && d.Table.Lines != nil {
				m.HasFilenames, m.HasLineNumbers = true, true
			}
			maps[d] = m
			out.Mapping = append(out.Mapping, m)
		}
		m.Start, m.Limit = min(m.Start, addr), max(m.Limit, addr+1)
		return m
	}
	function := func(s *pmcprof.Symbol) *profile.Function {
		f, ok := funcs[s]
		if !ok {
			f = &profile.Function{ID: uint64(len(out.Function) + 1), Name: s.Name, SystemName: s.Raw, Filename: s.File, StartLine: int64(s.Line)}
			funcs[s] = f
			out.Function = append(out.Function, f)
		}
		return f
	}
	type dsoAddr struct {
		d   *pmcprof.DSO
		rel uint64
	}
	byRel := map[dsoAddr]*profile.Location{} // with DSOAddresses: one Location per address of a DSO
	location := func(l *pmcprof.Location) *profile.Location {
		pl, ok := locs[l]
		if !ok && o.DSOAddresses {
			pl, ok = byRel[dsoAddr{l.DSO, l.Rel}]
			locs[l] = pl
		}
		if !ok {
			pl = &profile.Location{ID: uint64(len(out.Location) + 1), Address: address(l), Mapping: mapping(l.DSO, address(l))}
			fn := function(l.Sym)
			if l.File != "" && fn.Filename == "" {
				fn.Filename = l.File
			}
			pl.Line = []profile.Line{{Function: fn, Line: int64(l.Line)}}
			locs[l] = pl
			byRel[dsoAddr{l.DSO, l.Rel}] = pl
			out.Location = append(out.Location, pl)
		}
		return pl
	}
	mainMapping(p, func(l *pmcprof.Location) { mapping(l.DSO, address(l)) })
	for i := range p.Samples {
		s := &p.Samples[i]
		col, ok := column[s.Event]
		if !ok {
			continue
		}
		values := make([]int64, len(out.SampleType))
		values[0], values[col] = 1, int64(s.Period)
		ps := &profile.Sample{Value: values,
			Label:    map[string][]string{"comm": {s.Thread.Comm}},
			NumLabel: map[string][]int64{"pid": {int64(s.Thread.Pid)}, "tid": {int64(s.Thread.Tid)}, "cpu": {int64(s.CPU)}}}
		for _, l := range s.Stack {
			ps.Location = append(ps.Location, location(l))
		}
		out.Sample = append(out.Sample, ps)
	}
	if err := out.CheckValid(); err != nil {
		return nil, err
	}
	return out, nil
}

// extent is the address range of d's own space: its loadable segments when its table has
// them (the same for every recording of one binary), else the one address addr.
func extent(d *pmcprof.DSO, addr uint64) (start, limit uint64) {
	start, limit = addr, addr+1
	if d.Table == nil || len(d.Table.Segments) == 0 {
		return start, limit
	}
	start, limit = ^uint64(0), 0
	for _, s := range d.Table.Segments {
		start, limit = min(start, s.Vaddr), max(limit, s.Vaddr+s.Memsz)
	}
	return start, limit
}

// mainMapping gives the executable the first Mapping, which pprof takes for the main
// binary: the executable of the process with the most samples (not ld.so, which can get
// the first sample). mapping makes the Mapping of a location's DSO.
func mainMapping(p *pmcprof.Profile, mapping func(*pmcprof.Location)) {
	count := map[int]int{}
	best := -1
	for i := range p.Samples {
		pid := p.Samples[i].Thread.Pid
		count[pid]++
		if best < 0 || count[pid] > count[best] {
			best = pid
		}
	}
	exe := p.Exec[best]
	if exe == nil {
		return
	}
	for i := range p.Samples {
		for _, l := range p.Samples[i].Stack {
			if l.DSO == exe {
				mapping(l)
				return
			}
		}
	}
}
