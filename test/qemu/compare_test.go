package qemu

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/pmc-tools/pmc/internal/cli"
)

// compareBatch (issue 24) measures in each guest what pmc show and pmc compare are checked
// on: a pmc.h file of instructions:u, cycles:u and task-clock, a raw event by its code, and
// a pmc stat result of the same events, kept for a comparison across the two CPUs.
func compareBatch(g Guest) []Cmd {
	loop := "/bin/loop " + loopArg(100000)
	return []Cmd{
		{"cmp-self-run", "/bin/selfmeasure --n 1000 --events instructions:u,cycles:u,task-clock --json /tmp/cmp-self.json"},
		{"cmp-self-show", "/bin/pmc show /tmp/cmp-self.json"},
		{"cmp-self", "cat /tmp/cmp-self.json"},
		{"cmp-raw", "/bin/pmc stat -e r08:u,cycles:u -- " + loop},
		{"cmp-stat-run", "/bin/pmc stat --json -o /tmp/cmp-stat.json -e instructions:u,cycles:u,task-clock -- " + loop},
		{"cmp-stat", "cat /tmp/cmp-stat.json"},
	}
}

// TestShowSelfIPC: pmc show of a real pmc.h file prints each region's IPC, exactly 1.00 for
// user-space counts under -icount shift=0, as pmc stat prints it for the same counts.
func TestShowSelfIPC(t *testing.T) {
	for _, g := range Guests {
		t.Run(g.Name, func(t *testing.T) {
			needPMC(t, g)
			ok(t, g, "cmp-self-run")
			out := ok(t, g, "cmp-self-show")
			for _, region := range []string{"main", "loop"} {
				re := regexp.MustCompile(`(?s)region ` + region + ` .*?instructions:u +# +1\.00  insn per cycle`)
				if !re.MatchString(out) {
					t.Errorf("region %s: no IPC of 1.00:\n%s", region, out)
				}
			}
		})
	}
}

// TestRawEventName: a raw event prints with the name the CPU's table gives its code.
func TestRawEventName(t *testing.T) {
	for _, g := range Guests {
		t.Run(g.Name, func(t *testing.T) {
			needPMC(t, g)
			if out := ok(t, g, "cmp-raw"); !strings.Contains(out, "r08:u (INST_RETIRED)") {
				t.Errorf("r08:u without its name:\n%s", out)
			}
		})
	}
}

// TestCompareAcrossCPUs: saved results of the Cortex-A7 and the Cortex-A57 differ in CPU
// and in what cycles counts (0xff, the A7's cycle counter, against 0x11), not in
// instructions (r8 on both) nor task-clock; a guest's pmc.h file and pmc stat result are
// one machine, and compare as a region against the whole program only when asked.
func TestCompareAcrossCPUs(t *testing.T) {
	dir := t.TempDir()
	save := func(g Guest, name string) string {
		needPMC(t, g)
		if s := section(t, g, name+"-run"); s.Status != 0 {
			t.Fatalf("%s %s: exit %d\n%s", g.Name, name, s.Status, s.Output)
		}
		p := filepath.Join(dir, g.Name+"-"+name+".json")
		if err := os.WriteFile(p, []byte(ok(t, g, name)), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	pmc := func(args ...string) (string, int) {
		var out, errb bytes.Buffer
		code := cli.Run(args, &out, &errb)
		return out.String() + errb.String(), code
	}
	var a7, a57 string
	for _, g := range Guests {
		stat, self := save(g, "cmp-stat"), save(g, "cmp-self")
		switch g.Name {
		case "armv7":
			a7 = stat
		case "arm64":
			a57 = stat
		}
		out, code := pmc("compare", "--region", "loop", self, stat)
		if code != 0 || strings.Contains(out, " differs") || !strings.Contains(out, "region loop (3 calls)") {
			t.Errorf("%s: pmc.h file against pmc stat: exit %d\n%s", g.Name, code, out)
		}
	}
	out, code := pmc("compare", a7, a57)
	if code != 0 || !strings.Contains(out, "CPU differs") || !strings.Contains(out, "encoding of cycles:u differs") ||
		strings.Contains(out, "encoding of instructions:u") || strings.Contains(out, "encoding of task-clock") {
		t.Errorf("A7 against A57: exit %d\n%s", code, out)
	}
	t.Logf("A7 against A57:\n%s", out)
}
