package proffmt

import (
	"fmt"
	"io"
	"strings"

	"github.com/google/pprof/profile"
	pmcprof "github.com/pmc-tools/pmc/internal/profile"
)

// Pprof writes p as a gzipped profile.proto: sample types "samples/count" and then each
// sampled event's period (nanoseconds for the clock events, else events/count; a sample
// has its period under its own event's type, 0 under the others), one Location per
// distinct address with its function and line, one Mapping per DSO (the executable's
// first), the command as a label. go tool pprof -sample_index=NAME shows one event.
func Pprof(w io.Writer, p *pmcprof.Profile) error {
	events := p.SampledEvents()
	if len(events) == 0 {
		events = p.Events[:1]
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
	mapping := func(d *pmcprof.DSO, addr uint64) *profile.Mapping {
		m, ok := maps[d]
		if !ok {
			m = &profile.Mapping{ID: uint64(len(out.Mapping) + 1), File: d.Name, BuildID: d.BuildID, Start: addr, Limit: addr + 1,
				HasFunctions: true}
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
	location := func(l *pmcprof.Location) *profile.Location {
		pl, ok := locs[l]
		if !ok {
			pl = &profile.Location{ID: uint64(len(out.Location) + 1), Address: l.Addr, Mapping: mapping(l.DSO, l.Addr)}
			fn := function(l.Sym)
			if l.File != "" && fn.Filename == "" {
				fn.Filename = l.File
			}
			pl.Line = []profile.Line{{Function: fn, Line: int64(l.Line)}}
			locs[l] = pl
			out.Location = append(out.Location, pl)
		}
		return pl
	}
	mainMapping(p, mapping)
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
		return err
	}
	return out.Write(w)
}

// mainMapping gives the executable the first Mapping, which pprof takes for the main
// binary: the executable of the process with the most samples (not ld.so, which can get
// the first sample).
func mainMapping(p *pmcprof.Profile, mapping func(*pmcprof.DSO, uint64) *profile.Mapping) {
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
				mapping(exe, l.Addr)
				return
			}
		}
	}
}
