package script

import (
	"errors"
	"fmt"
	"strings"

	"github.com/pmc-tools/pmc/internal/perfdata"
)

// Field is one of perf script's output fields (-F).
type Field uint32

// The fields pmc script prints, and those it knows by name but cannot print (trace and the
// memory-access fields: perf prints them by default when a raw event or a tracepoint
// recorded them).
const (
	Comm Field = 1 << iota
	TID
	PID
	Time
	CPU
	Event
	IP
	Sym
	SymOff
	DSO
	Period
	Trace
	Addr
	DataSrc
	Weight
	PhysAddr
	BPFOutput

	printable = Comm | TID | PID | Time | CPU | Event | IP | Sym | SymOff | DSO | Period
)

// fieldNames are the -F names, in perf's order.
var fieldNames = []struct {
	name string
	f    Field
}{
	{"comm", Comm}, {"tid", TID}, {"pid", PID}, {"time", Time}, {"cpu", CPU}, {"event", Event},
	{"trace", Trace}, {"ip", IP}, {"sym", Sym}, {"dso", DSO}, {"addr", Addr}, {"symoff", SymOff},
	{"period", Period}, {"data_src", DataSrc}, {"weight", Weight}, {"bpf-output", BPFOutput},
	{"phys_addr", PhysAddr},
}

// FieldNames lists the fields pmc script prints, for help texts.
func FieldNames() []string {
	var out []string
	for _, n := range fieldNames {
		if n.f&printable != 0 {
			out = append(out, n.name)
		}
	}
	return out
}

func (f Field) String() string {
	var names []string
	for _, n := range fieldNames {
		if f&n.f != 0 {
			names = append(names, n.name)
		}
	}
	return strings.Join(names, ",")
}

// kind is perf script's output type of an event: its perf_event_attr type, or other for a
// PMU of its own (a dynamic type).
type kind int

const (
	kindHW kind = iota
	kindSW
	kindTrace
	kindHWCache
	kindRaw
	kindBreak
	kindOther
	nKinds
)

var kindNames = [nKinds]string{"hardware", "software", "tracepoint", "hardware-cache", "raw", "breakpoint", "other"}

func kindOf(a perfdata.Attr) kind {
	if a.Type < uint32(kindOther) {
		return kind(a.Type)
	}
	return kindOther
}

// kindPrefix is the kind -F's prefix names (perf's; "synth" names perf's synthesized
// events, which no file pmc reads has: nKinds).
func kindPrefix(p string) (kind, bool) {
	switch p {
	case "hw":
		return kindHW, true
	case "sw":
		return kindSW, true
	case "trace":
		return kindTrace, true
	case "raw":
		return kindRaw, true
	case "break":
		return kindBreak, true
	case "synth":
		return nKinds, true
	}
	return 0, false
}

const basic = Comm | TID | CPU | Time | Event | IP | Sym | SymOff | DSO | Period

// defaults are perf script 6.1's default fields per kind, and the fields that a kind never
// prints.
var defaults = [nKinds]struct{ fields, invalid Field }{
	kindHW:      {basic, Trace | BPFOutput},
	kindSW:      {basic | BPFOutput, Trace},
	kindTrace:   {Comm | TID | CPU | Time | Event | Trace, 0},
	kindHWCache: {basic, Trace | BPFOutput},
	kindRaw:     {basic | Addr | DataSrc | Weight | PhysAddr, Trace | BPFOutput},
	kindBreak:   {basic, Trace | BPFOutput},
	kindOther:   {basic, Trace | BPFOutput},
}

// Selection is what -F chose for each kind of event.
type Selection struct {
	kinds [nKinds]selected
}

type selected struct {
	fields Field
	named  Field // fields the user asked for by name: an error when not recorded
}

// Parse reads perf script's -F argument ("" for the defaults): FIELD,... replaces every
// kind's fields, +FIELD,... and -FIELD,... add to or remove from the defaults, and a prefix
// (hw:, sw:, trace:, raw:, break:) does the same for one kind of event only.
func Parse(spec string) (*Selection, error) {
	s := &Selection{}
	for k := range s.kinds {
		s.kinds[k].fields = defaults[k].fields
	}
	if spec == "" {
		return s, nil
	}
	target := kind(-1)
	list := spec
	if prefix, rest, ok := strings.Cut(spec, ":"); ok {
		k, known := kindPrefix(prefix)
		if !known {
			return nil, fmt.Errorf("-F %s: unknown event type %q: use hw, sw, trace, raw or break", spec, prefix)
		}
		target, list = k, rest
		if k == nKinds {
			return s, nil // no event of the file is synthesized
		}
	}
	const (
		unset = iota
		replace
		change
	)
	mode := unset
	for _, tok := range strings.Split(list, ",") {
		if tok == "" {
			continue
		}
		add := true
		switch tok[0] {
		case '+', '-':
			if mode == replace {
				return nil, fmt.Errorf("-F %s: fields to add (+) or remove (-) cannot be mixed with fields that replace the defaults", spec)
			}
			mode, add, tok = change, tok[0] == '+', tok[1:]
		default:
			if mode == change {
				return nil, fmt.Errorf("-F %s: fields to add (+) or remove (-) cannot be mixed with fields that replace the defaults", spec)
			}
			if mode == unset {
				s.clear(target)
			}
			mode = replace
		}
		f, err := fieldNamed(tok)
		if err != nil {
			return nil, fmt.Errorf("-F %s: %w", spec, err)
		}
		for k := range s.kinds {
			if target >= 0 && kind(k) != target {
				continue
			}
			sel := &s.kinds[k]
			if defaults[k].invalid&f != 0 {
				if target >= 0 {
					return nil, fmt.Errorf("-F %s: %s is not a field of %s events", spec, tok, kindNames[k])
				}
				continue // perf warns and ignores it for this kind
			}
			if add {
				sel.fields |= f
				sel.named |= f
			} else {
				sel.fields &^= f
				sel.named &^= f
			}
		}
	}
	if target < 0 && mode == replace {
		none := true
		for _, sel := range s.kinds {
			none = none && sel.fields == 0
		}
		if none {
			return nil, fmt.Errorf("-F %s: no field left to print for any event", spec)
		}
	}
	if mode == unset {
		if target < 0 {
			return nil, errors.New("-F: no field named: choose from " + strings.Join(FieldNames(), ","))
		}
		s.clear(target) // "sw:": print nothing of software events
	}
	return s, nil
}

// clear empties the fields of kind k, or of every kind when k < 0.
func (s *Selection) clear(k kind) {
	for i := range s.kinds {
		if k < 0 || kind(i) == k {
			s.kinds[i] = selected{}
		}
	}
}

func fieldNamed(name string) (Field, error) {
	for _, n := range fieldNames {
		if n.name == name {
			return n.f, nil
		}
	}
	return 0, fmt.Errorf("unknown field %q: choose from %s", name, strings.Join(FieldNames(), ","))
}

// recorded are the sample_type bits each field needs. The period is not among them: a
// sample without one has its event's (perf record -c), as perf prints it.
var recorded = []struct {
	f    Field
	bits uint64
	name string
}{
	{IP, perfdata.SampleIP, "IP"},
	{TID | PID, perfdata.SampleTID, "TID"},
	{Time, perfdata.SampleTime, "TIME"},
	{CPU, perfdata.SampleCPU, "CPU"},
}

// optional are the fields perf prints by default only when the sample recorded them
// (PERF_SAMPLE_ADDR, _WEIGHT, _DATA_SRC, _PHYS_ADDR; weight also as WEIGHT_STRUCT).
var optional = []struct {
	f    Field
	bits uint64
}{
	{Addr, perfdata.SampleAddr},
	{Weight, 1<<14 | 1<<24},
	{DataSrc, 1 << 15},
	{PhysAddr, 1 << 19},
}

// resolve is perf script's check of the selection against the file's events: per kind, the
// first event of that kind decides; a default field it did not record is dropped, one named
// with -F is an error.
func (s *Selection) resolve(events []perfdata.Event, names []string) ([nKinds]Field, error) {
	var out [nKinds]Field
	var seen [nKinds]bool
	for k := range out {
		out[k] = s.kinds[k].fields
	}
	for i, ev := range events {
		k := kindOf(ev.Attr)
		if seen[k] {
			continue
		}
		seen[k] = true
		sel := s.kinds[k]
		if out[k] == 0 {
			continue
		}
		st := ev.Attr.SampleType
		for _, r := range recorded {
			if out[k]&r.f == 0 || st&r.bits != 0 {
				continue
			}
			if sel.named&r.f != 0 {
				return out, fmt.Errorf("samples of %s do not record %s: cannot print %s (leave it out of -F)", names[i], r.name, (sel.named & r.f).String())
			}
			out[k] &^= r.f
		}
		for _, o := range optional {
			if st&o.bits == 0 {
				out[k] &^= o.f // perf's raw-event defaults, dropped when not recorded
			}
		}
		if out[k]&SymOff != 0 && out[k]&Sym == 0 {
			return out, fmt.Errorf("-F: symoff needs sym")
		}
		// BPF output is printed only for bpf-output events (software config 10).
		if !(k == kindSW && ev.Attr.Config == 10) {
			out[k] &^= BPFOutput
		}
		if extra := out[k] &^ printable; extra != 0 {
			return out, fmt.Errorf("%s: pmc script cannot print %s yet: choose the fields with -F (%s)", names[i], extra, strings.Join(FieldNames(), ","))
		}
	}
	return out, nil
}
