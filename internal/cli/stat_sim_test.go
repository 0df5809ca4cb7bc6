package cli

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pmc-tools/pmc/internal/result"
	"github.com/pmc-tools/pmc/internal/sim"
	"github.com/pmc-tools/pmc/internal/testenv"
)

// simGeometry: at size 200 a column of B spans 200 lines (12.5 KiB), so an 8 KiB 4-way D1
// shows the seed's relation (as 500x500 on a 32 KiB L1) at a fraction of the run time.
const simGeometry = "I1=32768,8,64;D1=8192,4,64;LL=33554432,16,64"

var simEvents = map[string]string{ // pmc's event: cachegrind's counters
	"instructions": "Ir", "L1-dcache-loads": "Dr", "L1-dcache-load-misses": "D1mr",
	"L1-dcache-stores": "Dw", "L1-dcache-store-misses": "D1mw", "L1-icache-load-misses": "I1mr",
	"branches": "Bc+Bi", "branch-misses": "Bcm+Bim", "LLC-load-misses": "ILmr+DLmr", "LLC-store-misses": "DLmw",
}

func needValgrind(t *testing.T) {
	t.Helper()
	testenv.Tool(t, "valgrind")
}

// simStat runs pmc stat --sim --json on matmul-novec with order and returns the counts.
func simStat(t *testing.T, order string) (map[string]float64, *result.Stat) {
	t.Helper()
	var evs []string
	for e := range simEvents {
		evs = append(evs, e)
	}
	args := []string{"stat", "--sim", "--sim-cache", simGeometry, "--json", "-e", strings.Join(evs, ",") + ",cycles,dTLB-load-misses",
		"--", workload(t, "matmul-novec"), "--order", order, "--size", "200"}
	_, out, code := runPMC(args...) // pmc stat writes its results to stderr, as perf does
	if code != 0 {
		t.Fatalf("exit %d: %s", code, out)
	}
	var r result.Stat
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	counts := map[string]float64{}
	for _, s := range r.Summary {
		if s.Status == result.Counted {
			counts[s.Event] = s.Mean
		}
	}
	return counts, &r
}

// cachegrindDirect runs valgrind itself with the same geometry and reads its summary.
func cachegrindDirect(t *testing.T, order string) map[string]uint64 {
	t.Helper()
	g, err := sim.ParseGeometry(simGeometry, sim.Geometry{})
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "cg.out")
	args := sim.Cachegrind{Geometry: g}.Args(out, []string{workload(t, "matmul-novec"), "--order", order, "--size", "200"})
	// The workload's streams are /dev/null, as pmc's test runs give it (stdio buffers by them).
	if err := exec.Command("valgrind", args...).Run(); err != nil {
		t.Fatalf("valgrind: %v", err)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	m, err := sim.ParseOutput(data)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestStatSimMatchesCachegrind: pmc stat --sim's counts are cachegrind's own summary for the
// same run, the naive (ijk) matmul misses L1D on most loads of B and the interchanged (ikj)
// order rarely, and what cachegrind cannot simulate is <not supported> with the reason.
func TestStatSimMatchesCachegrind(t *testing.T) {
	needValgrind(t)
	ratio := map[string]float64{}
	for _, order := range []string{"ijk", "ikj"} {
		got, r := simStat(t, order)
		want := cachegrindDirect(t, order)
		if r.Backend != sim.BackendName || !r.Simulated() {
			t.Errorf("backend %q", r.Backend)
		}
		for ev, counters := range simEvents {
			var w uint64
			for _, c := range strings.Split(counters, "+") {
				w += want[c]
			}
			if got[ev] != float64(w) {
				t.Errorf("%s %s: pmc %v, cachegrind %s = %d", order, ev, got[ev], counters, w)
			}
		}
		for _, s := range r.Summary {
			if (s.Event == "cycles" || s.Event == "dTLB-load-misses") && (s.Status != result.NotSupported || !strings.Contains(s.Error, "simulates no")) {
				t.Errorf("%s: %s %q", s.Event, s.Status, s.Error)
			}
		}
		ratio[order] = got["L1-dcache-load-misses"] / got["L1-dcache-loads"]
		t.Logf("%s: instructions %.0f, L1D loads %.0f, misses %.0f (%.2f%%)", order, got["instructions"],
			got["L1-dcache-loads"], got["L1-dcache-load-misses"], 100*ratio[order])
	}
	if ratio["ijk"] < 0.4 || ratio["ikj"] > 0.1 || ratio["ijk"] < 10*ratio["ikj"] {
		t.Errorf("L1D miss ratios ijk %.3f, ikj %.3f: want the naive order >= 40%% and >= 10x the interchanged", ratio["ijk"], ratio["ikj"])
	}
}

// TestStatSimErrors: bad --sim use fails in one line naming the fix.
func TestStatSimErrors(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"stat", "--sim=gem5", "--", "true"}, "the simulator is cachegrind"},
		{[]string{"stat", "--sim-cache", "D1=1,1,1", "--", "true"}, "--sim-cache needs --sim"},
		{[]string{"stat", "--sim", "--sim-cache", "D1=8192", "--", "true"}, "LEVEL=SIZE,WAYS,LINE"},
		{[]string{"stat", "--sim", "-a", "--duration", "1s"}, "cannot be simulated"},
	} {
		_, errOut, code := runPMC(c.args...)
		if code == 0 || !strings.Contains(errOut, c.want) || strings.Count(strings.TrimSpace(errOut), "\n") > 0 {
			t.Errorf("%v: exit %d, %q; want %q", c.args, code, errOut, c.want)
		}
	}
	t.Setenv("PATH", t.TempDir())
	if _, errOut, code := runPMC("stat", "--sim", "--", "/bin/true"); code == 0 || !strings.Contains(errOut, "apt-get install valgrind") {
		t.Errorf("without valgrind: exit %d, %q", code, errOut)
	}
}

// TestStatSimMissingCommand: a command that cannot be found exits 127 (126 not executable)
// under --sim as without it; it exited 1 with valgrind's own message.
func TestStatSimMissingCommand(t *testing.T) {
	if _, errs, code := runPMC("stat", "--sim", "--", "no-such-command-pmc"); code != 127 || !strings.Contains(errs, "command not found") {
		t.Errorf("exit %d\n%s", code, errs)
	}
	if _, errs, code := runPMC("stat", "--sim", "--", "/etc/passwd"); code != 126 {
		t.Errorf("not executable: exit %d\n%s", code, errs)
	}
}

// TestStatSimSignalExit: a workload killed by a signal under --sim exits 128+N of its own
// signal and JSON says so, as without --sim (it exited 137, read as SIGKILL or the OOM
// killer, beside the signal's description).
func TestStatSimSignalExit(t *testing.T) {
	testenv.Tool(t, "valgrind")
	for _, c := range []struct {
		sig  string
		code int
	}{{"SEGV", 139}, {"ABRT", 134}} {
		for _, sim := range [][]string{nil, {"--sim"}} {
			ev := "task-clock"
			if sim != nil {
				ev = "instructions"
			}
			args := append(append([]string{"stat"}, sim...), "--json", "-e", ev, "--", "sh", "-c", "kill -"+c.sig+" $$")
			_, errs, code := runPMC(args...)
			var r result.Stat
			if err := json.Unmarshal([]byte(errs[:strings.LastIndex(errs, "}")+1]), &r); err != nil {
				t.Fatalf("%v: %v\n%s", args, err, errs)
			}
			if code != c.code || r.ExitStatus != c.code || len(r.Runs) != 1 || r.Runs[0].ExitStatus != c.code || r.Runs[0].Signal != "SIG"+c.sig {
				t.Errorf("%v: exit %d, JSON exit_status %d, run %+v; want %d and SIG%s", args, code, r.ExitStatus, r.Runs, c.code, c.sig)
			}
		}
	}
}
