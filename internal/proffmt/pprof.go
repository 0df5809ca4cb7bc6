package proffmt

import (
	"io"
	"strings"

	"github.com/google/pprof/profile"
	pmcprof "github.com/pmc-tools/pmc/internal/profile"
)

// Pprof writes event ev of p as a gzipped profile.proto: sample types "samples/count" and
// the event's period (nanoseconds for the clock events, else events/count), one Location per
// distinct address with its function and line, one Mapping per DSO, the command as a label.
func Pprof(w io.Writer, p *pmcprof.Profile, ev int) error {
	name := p.Events[ev].Name
	unit := "count"
	if base, _, _ := strings.Cut(name, ":"); base == "cpu-clock" || base == "task-clock" {
		unit = "nanoseconds"
	}
	if name == "" {
		name = "events"
	}
	out := &profile.Profile{
		SampleType:        []*profile.ValueType{{Type: "samples", Unit: "count"}, {Type: name, Unit: unit}},
		DefaultSampleType: name,
		PeriodType:        &profile.ValueType{Type: name, Unit: unit},
	}
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
	for i := range p.Samples {
		s := &p.Samples[i]
		if s.Event != ev {
			continue
		}
		ps := &profile.Sample{Value: []int64{1, int64(s.Period)},
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
