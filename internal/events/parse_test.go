package events

import (
	"errors"
	"os"
	"reflect"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/pmc-tools/pmc/internal/pmu"
)

func TestParseStructure(t *testing.T) {
	in := "cycles, {instructions:u,cpu/event=0x3c,inv,name=x/k}:k,sched:sched_switch:u,4:0x1a,msr/tsc/:u"
	got, err := Parse(in)
	if err != nil {
		t.Fatal(err)
	}
	want := []GroupSpec{
		{Events: []EventSpec{{Kind: KindName, Name: "cycles", Text: "cycles", Pos: 0}}, Pos: 0},
		{Braced: true, Modifiers: "k", Pos: 8, Events: []EventSpec{
			{Kind: KindName, Name: "instructions", Modifiers: "u", Text: "instructions:u", Pos: 9},
			{Kind: KindPMU, Name: "cpu", Modifiers: "k", Text: "cpu/event=0x3c,inv,name=x/k", Pos: 24, Terms: []Term{
				{Key: "event", Value: "0x3c", HasValue: true, Pos: 28},
				{Key: "inv", Pos: 39},
				{Key: "name", Value: "x", HasValue: true, Pos: 43},
			}},
		}},
		{Events: []EventSpec{{Kind: KindTracepoint, Name: "sched", Event: "sched_switch", Modifiers: "u",
			Text: "sched:sched_switch:u", Pos: 55}}, Pos: 55},
		{Events: []EventSpec{{Kind: KindNumeric, Type: 4, Config: 0x1a, Name: "4", Text: "4:0x1a", Pos: 76}}, Pos: 76},
		{Events: []EventSpec{{Kind: KindPMU, Name: "msr", Modifiers: "u", Text: "msr/tsc/:u", Pos: 83,
			Terms: []Term{{Key: "tsc", Pos: 87}}}}, Pos: 83},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Parse(%q) =\n%+v\nwant\n%+v", in, got, want)
	}
	if s := FormatSpecs(got); s != "cycles,{instructions:u,cpu/event=0x3c,inv,name=x/k}:k,sched:sched_switch:u,4:0x1a,msr/tsc/u" {
		t.Errorf("FormatSpecs = %q", s)
	}
}

func TestParseErrors(t *testing.T) {
	cases := []struct {
		in  string
		col int
		msg string
	}{
		{"", 1, "empty event list"},
		{"   ", 1, "empty event list"},
		{",", 1, "want an event name"},
		{"cycles,", 8, "want an event name"},
		{"cycles,,instructions", 8, "want an event name"},
		{"{cycles", 8, "want ',' or '}'"},
		{"{cycles}}", 9, "unexpected '}'"},
		{"{{cycles}}", 2, "nested"},
		{"{}", 2, "want an event name"},
		{"{cycles}:", 10, "want group modifiers"},
		{"{cycles}:uu", 10, "'u' repeated"},
		{"cpu/event=/", 11, "want a value"},
		{"cpu/event=1", 12, "want ',' or '/'"},
		{"cpu/event=1,/", 13, "empty term"},
		{"cpu/=1/", 5, "want a term"},
		{"cpu/event=1/:", 14, "want modifiers"},
		{"cpu/event=1/x", 13, "unknown modifier 'x'"},
		{"cycles:uu", 8, "'u' repeated"},
		{"cycles:pppp", 8, "at most 3 'p'"},
		{"cycles:S", 8, "'S' is not supported"},
		{"cycles:", 8, "want a name after ':'"},
		{"a:b:c:d", 6, "too many ':'"},
		{"sched:sched_switch:x", 20, "unknown modifier 'x'"},
		{"cycles$", 7, "unexpected character"},
		{"task clock", 6, "unexpected \"clock\""},
		{"cycles}", 7, "unexpected '}'"},
		{"4294967296:1", 1, "does not fit in 32 bits"},
		{"cyc\xffles", 4, "unexpected character"},
	}
	for _, c := range cases {
		_, err := Parse(c.in)
		var se *SyntaxError
		if !errors.As(err, &se) || !errors.Is(err, ErrSyntax) {
			t.Errorf("Parse(%q) err = %v, want a SyntaxError", c.in, err)
			continue
		}
		if se.Pos+1 != c.col || !strings.Contains(se.Msg, c.msg) || strings.Contains(err.Error(), "\n") {
			t.Errorf("Parse(%q) = %q at column %d, want %q at column %d", c.in, se.Msg, se.Pos+1, c.msg, c.col)
		}
	}
}

// equalSpecs compares parsed lists ignoring positions and the written text.
func equalSpecs(a, b []GroupSpec) bool {
	strip := func(gs []GroupSpec) []GroupSpec {
		out := make([]GroupSpec, len(gs))
		for i, g := range gs {
			g.Pos = 0
			evs := make([]EventSpec, len(g.Events))
			for j, e := range g.Events {
				e.Pos, e.Text = 0, ""
				terms := make([]Term, len(e.Terms))
				for k, tm := range e.Terms {
					tm.Pos = 0
					terms[k] = tm
				}
				e.Terms = terms
				if e.Kind == KindNumeric {
					e.Name = "" // written as decimal or hex; the numbers are what count
				}
				evs[j] = e
			}
			g.Events = evs
			out[i] = g
		}
		return out
	}
	return reflect.DeepEqual(strip(a), strip(b))
}

var fuzzSys = func() *pmu.System {
	s, err := pmu.Discover(os.DirFS("../pmu/testdata/sysfs/x86_64-intel-skylake"))
	if err != nil {
		panic(err)
	}
	return s
}()

var fuzzTP = fstest.MapFS{"kernel/tracing/events/sched/sched_switch/id": {Data: []byte("372\n")}}

// FuzzParse checks that Parse never panics, that what it accepts renders to text it parses back
// to the same specs, and that Resolve of anything parsed returns events or an error, never a
// panic.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"cycles", "cycles:u,instructions:k", "{cycles,instructions}:u",
		"cpu/event=0x3c,umask=1,inv,name=x/k", "sched:sched_switch:u", "L1-dcache-load-misses",
		"r1a2b:ppp", "4:0x1a", "msr/tsc/:u", "cpu/cpu-cycles,cmask=3/", "power/energy-pkg/",
		"{task-clock:G,page-faults}:uD", "cycles-ct", "a:b:c", "cpu//"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		specs, err := Parse(s)
		if err != nil {
			if err.Error() == "" || !errors.Is(err, ErrSyntax) {
				t.Fatalf("Parse(%q): bad error %v", s, err)
			}
			return
		}
		text := FormatSpecs(specs)
		back, err := Parse(text)
		if err != nil {
			t.Fatalf("Parse(%q) ok but its String %q fails: %v", s, text, err)
		}
		if !equalSpecs(specs, back) {
			t.Fatalf("round trip %q -> %q changed the specs:\n%+v\n%+v", s, text, specs, back)
		}
		if FormatSpecs(back) != text {
			t.Fatalf("String not stable: %q -> %q", text, FormatSpecs(back))
		}
		groups, err := Resolve(specs, fuzzSys, fuzzTP, Options{Tables: fakeTables})
		if err != nil {
			if err.Error() == "" || strings.Contains(err.Error(), "\n") {
				t.Fatalf("Resolve(%q): bad error %q", s, err)
			}
			return
		}
		n := 0
		for _, g := range groups {
			n += len(g.Events)
		}
		if n == 0 {
			t.Fatalf("Resolve(%q) returned no events and no error", s)
		}
	})
}
