package qemu

import (
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// annotateN is the loop length of the annotate test: 2N user instructions, 200 samples at
// one per 100000 cycles (-icount shift=0: a cycle per instruction).
const annotateN = 10000000

// annotateBatch (issue 11): pmc record with the cycle counter, pmc annotate of the loop's
// function, and the 2D-array workflow (record the column walk, then the row walk, diff).
func annotateBatch(g Guest) []Cmd {
	rec := "/bin/pmc record -e cycles:u -c 100000 -o "
	return []Cmd{
		{"annotate-record", rec + "/tmp/loop.data -- /bin/loop " + loopArg(annotateN)},
		{"annotate-loop", "/bin/pmc annotate -i /tmp/loop.data --stdio wl_spin"},
		{"annotate-col", rec + "/tmp/col.data -- /bin/array2d --order col --rows 4096 --cols 64"},
		{"annotate-row", rec + "/tmp/row.data -- /bin/array2d --order row --rows 4096 --cols 64"},
		{"annotate-diff", "/bin/pmc diff /tmp/col.data /tmp/row.data"},
	}
}

var annotatedInst = regexp.MustCompile(`(?m)^[ >]\s*([0-9.]+) :\s+[0-9a-f]+:\s+(\S+)`)

// TestAnnotateLoop: the loop's two instructions (subs and the branch back) hold ~100% of
// wl_spin's samples; the rest of the function (guard, return) next to nothing.
func TestAnnotateLoop(t *testing.T) {
	for _, g := range Guests {
		t.Run(g.Name, func(t *testing.T) {
			needPMC(t, g)
			if s := section(t, g, "annotate-record"); s.Status != 0 {
				t.Fatalf("pmc record exited %d:\n%s", s.Status, s.Output)
			}
			out := ok(t, g, "annotate-loop")
			t.Logf("%s pmc annotate wl_spin:\n%s", g.Name, out)
			branch := map[string]string{"arm64": "b.ne", "armv7": "bne"}[g.Name]
			var loop float64
			n := 0
			for _, m := range annotatedInst.FindAllStringSubmatch(out, -1) {
				n++
				p, _ := strconv.ParseFloat(m[1], 64)
				if m[2] == "subs" || m[2] == branch {
					loop += p
				}
			}
			if n < 3 || loop < 99 {
				t.Errorf("%s: subs and %s hold %.2f%% of %d instructions, want >= 99%%", g.Name, branch, loop, n)
			}
		})
	}
}

// TestDiffArray2D: the column and row walks recorded in the guest line up function by
// function in pmc diff. QEMU models no caches (a cycle per instruction), so the shift the
// Armv8 seed shows on hardware is absent here: the test checks the rows, and the log
// quotes the table.
func TestDiffArray2D(t *testing.T) {
	for _, g := range Guests {
		t.Run(g.Name, func(t *testing.T) {
			needPMC(t, g)
			for _, r := range []string{"annotate-col", "annotate-row"} {
				if s := section(t, g, r); s.Status != 0 {
					t.Fatalf("%s exited %d:\n%s", r, s.Status, s.Output)
				}
			}
			out := ok(t, g, "annotate-diff")
			t.Logf("%s pmc diff col row:\n%s", g.Name, out)
			if !strings.Contains(out, "# Main programs (array2d) matched by symbol name") {
				t.Errorf("%s: header does not say how rows were matched", g.Name)
			}
			// array2d keeps assign and squares as functions (noinline), as in the seed: each has
			// a row with a baseline in both files, and with main (the checksum loop) they hold
			// nearly all the user cycles (the rest is libc's start-up).
			total := 0.0
			for _, fn := range []string{"assign", "squares", "main"} {
				m := regexp.MustCompile(`(?m)^ +([0-9.]+)% +([-+][0-9.]+%)? +array2d +\[\.\] ` + fn + `$`).FindStringSubmatch(out)
				if m == nil {
					t.Errorf("%s: no array2d %s row with a baseline", g.Name, fn)
					continue
				}
				p, _ := strconv.ParseFloat(m[1], 64)
				total += p
				if fn != "main" && p < 10 {
					t.Errorf("%s: %s holds %.2f%% of the column walk's cycles: the split is gone", g.Name, fn, p)
				}
			}
			if total < 90 {
				t.Errorf("%s: assign, squares and main hold %.2f%% of the column walk's cycles, want >= 90%%", g.Name, total)
			}
		})
	}
}
