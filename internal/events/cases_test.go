package events

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pmc-tools/pmc/internal/golden"

	"github.com/pmc-tools/pmc/internal/pmu"
)

// attrCase is one line of testdata/cases.txt.
type attrCase struct {
	name, machine, flags, events string
}

func (c attrCase) eventList() string {
	if c.events == "-" {
		return ""
	}
	return c.events
}

// perfCommand is the command line record.sh runs for the case.
func (c attrCase) perfCommand() string {
	s := "perf stat -vv"
	if c.flags != "-" {
		s += " " + c.flags
	}
	if c.events != "-" {
		s += " -e " + c.events
	}
	return s + " true"
}

// options maps perf stat flags to Options; launch mode (perf stat CMD) enables on exec.
func (c attrCase) options(t *testing.T) Options {
	o := Options{EnableOnExec: true, Tables: fakeTables}
	for _, f := range strings.Fields(c.flags) {
		switch f {
		case "-":
		case "--no-inherit":
			o.NoInherit = true
		case "-a":
			o.EnableOnExec = false
		case "--all-user":
			o.AllUser = true
		case "--all-kernel":
			o.AllKernel = true
		default:
			t.Fatalf("case %s: unknown flag %q", c.name, f)
		}
	}
	return o
}

func loadCases(t *testing.T) []attrCase {
	f, err := os.Open("testdata/cases.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var cases []attrCase
	seen := map[string]bool{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		parts := strings.Split(line, "|")
		if len(parts) != 4 {
			t.Fatalf("cases.txt: bad line %q", line)
		}
		c := attrCase{strings.TrimSpace(parts[0]), strings.TrimSpace(parts[1]),
			strings.TrimSpace(parts[2]), strings.TrimSpace(parts[3])}
		if seen[c.name] {
			t.Fatalf("cases.txt: duplicate case %s", c.name)
		}
		seen[c.name] = true
		cases = append(cases, c)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return cases
}

// snapshot returns the sysfs snapshot of machine as a System and its directory (which also
// holds the tracepoint ids).
func snapshot(t *testing.T, machine string) (*pmu.System, string) {
	t.Helper()
	dir := filepath.Join("..", "pmu", "testdata", "sysfs", machine)
	sys, err := pmu.Discover(os.DirFS(dir))
	if err != nil {
		t.Fatalf("snapshot %s: %v", machine, err)
	}
	return sys, dir
}

// resolveCase parses and resolves a case against its snapshot.
func resolveCase(t *testing.T, c attrCase) []Group {
	t.Helper()
	sys, dir := snapshot(t, c.machine)
	list := c.eventList()
	if list == "" {
		list = DefaultEventsFor(sys, false)
	}
	specs, err := Parse(list)
	if err != nil {
		t.Fatalf("Parse(%q): %v", list, err)
	}
	groups, err := Resolve(specs, sys, os.DirFS(dir), c.options(t))
	if err != nil {
		t.Fatalf("Resolve(%q): %v", list, err)
	}
	return groups
}

func renderGroups(c attrCase, groups []Group) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s on %s, flags %s\n", c.events, c.machine, c.flags)
	for gi, g := range groups {
		for ei, e := range g.Events {
			fmt.Fprintf(&b, "group %d event %d %q pmu=%s resolved=%s unit=%q scale=%g\n",
				gi, ei, e.Name, e.PMU, e.Resolved, e.Unit, e.Scale)
			b.WriteString(e.Attr.String())
		}
	}
	return b.String()
}

// TestGoldenAttrs renders every case of testdata/cases.txt and compares it with
// testdata/attr/<case>.golden (go test -update rewrites them).
func TestGoldenAttrs(t *testing.T) {
	cases := loadCases(t)
	if len(cases) < 45 {
		t.Fatalf("only %d cases", len(cases))
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := renderGroups(c, resolveCase(t, c))
			path := filepath.Join("testdata", "attr", c.name+".golden")
			golden.Check(t, path, []byte(got))
		})
	}
}

// tableStub is a Tables with a few Intel and ARM catalog names, matched ignoring case.
type tableStub map[string]struct {
	pmu    string
	config uint64
}

func (s tableStub) Lookup(name string) (string, uint64, bool) {
	e, ok := s[strings.ToLower(name)]
	return e.pmu, e.config, ok
}

func (s tableStub) Names() []string {
	var n []string
	for k := range s {
		n = append(n, k)
	}
	return n
}

var fakeTables = tableStub{
	"inst_retired.any":              {"cpu", 0xc0},
	"cpu_clk_unhalted.thread":       {"cpu", 0x3c},
	"br_misp_retired.all_branches":  {"cpu", 0xc5},
	"inst_retired":                  {"armv8_pmuv3_0", 0x08},
	"br_mis_pred_retired":           {"armv8_pmuv3_0", 0x22},
	"l1d_cache_lmiss_rd":            {"", 0x39},
	"mem_load_retired.l3_miss_test": {"cpu", 0x20d1},
}
