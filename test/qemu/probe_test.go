package qemu

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/pmc-tools/pmc/internal/golden"
)

// probeLine is one line of the probe's output.
type probeLine struct {
	N, Body          uint64
	Ev               []uint64
	Enabled, Running uint64
}

func parseProbe(out string) ([]probeLine, error) {
	var ls []probeLine
	for _, line := range strings.Split(out, "\n") {
		f := strings.Fields(line)
		if len(f) == 0 || f[0] != "probe" {
			continue
		}
		var p probeLine
		for _, kv := range f[1:] {
			k, v, ok := strings.Cut(kv, "=")
			if !ok {
				return nil, fmt.Errorf("probe: bad field %q", kv)
			}
			n, err := strconv.ParseUint(v, 10, 64)
			if err != nil {
				return nil, fmt.Errorf("probe: bad field %q: %w", kv, err)
			}
			switch {
			case k == "n":
				p.N = n
			case k == "body":
				p.Body = n
			case k == "enabled":
				p.Enabled = n
			case k == "running":
				p.Running = n
			case strings.HasPrefix(k, "ev"):
				p.Ev = append(p.Ev, n)
			}
		}
		ls = append(ls, p)
	}
	if len(ls) == 0 {
		return nil, fmt.Errorf("probe: no result lines in %q", out)
	}
	return ls, nil
}

// checkExact asserts count(N) - count(0) == body*N for event index ev, exactly.
func checkExact(t *testing.T, g Guest, what string, ls []probeLine, ev int) {
	t.Helper()
	base := ls[0]
	for _, l := range ls {
		if l.Running != l.Enabled {
			t.Errorf("%s %s n=%d: running %d != enabled %d (the group must not multiplex)", g.Name, what, l.N, l.Running, l.Enabled)
		}
		got := int64(l.Ev[ev]) - int64(base.Ev[ev])
		want := int64(l.Body * l.N)
		if l.Body == 0 || got != want {
			t.Errorf("%s %s ev%d n=%d: count(n)-count(0) = %d-%d = %d, want exactly %d*%d = %d",
				g.Name, what, ev, l.N, l.Ev[ev], base.Ev[ev], got, l.Body, l.N, want)
		}
	}
}

// TestProbeExact: the emulated PMU counts a loop of known length exactly, and under
// -icount shift=0 the cycle counter equals the instruction counter.
func TestProbeExact(t *testing.T) {
	for _, g := range Guests {
		t.Run(g.Name, func(t *testing.T) {
			ls, err := parseProbe(ok(t, g, "probe"))
			if err != nil {
				t.Fatal(err)
			}
			for _, l := range ls {
				t.Logf("%s n=%-8d instructions=%-9d cycles=%-9d diff(instructions)=%d", g.Name, l.N, l.Ev[0], l.Ev[1], l.Ev[0]-ls[0].Ev[0])
				if l.Ev[0] != l.Ev[1] {
					t.Errorf("%s n=%d: cycles %d != instructions %d under icount shift=0", g.Name, l.N, l.Ev[1], l.Ev[0])
				}
			}
			if len(ls) != len(probeNs) {
				t.Fatalf("%d probe lines, want %d", len(ls), len(probeNs))
			}
			checkExact(t, g, "instructions", ls, 0)
			checkExact(t, g, "cycles", ls, 1)
			if ls[0].Ev[0] == 0 || ls[0].Ev[0] > 32 {
				t.Errorf("%s: overhead of the measured region is %d instructions, want 1..32 (the assembly between the two system calls)", g.Name, ls[0].Ev[0])
			}
		})
	}
}

// TestProbeRaw: raw architectural codes count the same as the generic events.
func TestProbeRaw(t *testing.T) {
	for _, g := range Guests {
		t.Run(g.Name, func(t *testing.T) {
			gen, err := parseProbe(ok(t, g, "probe"))
			if err != nil {
				t.Fatal(err)
			}
			names := []string{"probe-raw"}
			if g.Name == "armv7" {
				names = append(names, "probe-raw-ff")
			}
			for _, name := range names {
				raw, err := parseProbe(ok(t, g, name))
				if err != nil {
					t.Fatal(err)
				}
				checkExact(t, g, name, raw, 0)
				checkExact(t, g, name, raw, 1)
				for i := range raw {
					if i < len(gen) && (raw[i].Ev[0] != gen[i].Ev[0] || raw[i].Ev[1] != gen[i].Ev[1]) {
						t.Errorf("%s %s n=%d: raw (%d, %d) != generic (%d, %d)", g.Name, name, raw[i].N,
							raw[i].Ev[0], raw[i].Ev[1], gen[i].Ev[0], gen[i].Ev[1])
					}
				}
			}
		})
	}
}

// TestGuestPMU: the guest kernel found the expected PMU driver; with -update the guests'
// PMU sysfs files are saved as test data for sysfs parsers (read them with ParseSnapshot).
func TestGuestPMU(t *testing.T) {
	for _, g := range Guests {
		t.Run(g.Name, func(t *testing.T) {
			out := ok(t, g, "snapshot")
			snap, err := ParseSnapshot([]byte(out))
			if err != nil {
				t.Fatal(err)
			}
			if golden.Updating() { // rewrite testdata/snapshot-<guest>.txt from the guests' sysfs
				if err := os.WriteFile(filepath.Join("testdata", "snapshot-"+g.Name+".txt"), []byte(out), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			typ, found := snap["sys/bus/event_source/devices/"+g.PMU+"/type"]
			if !found {
				t.Fatalf("%s: no PMU %s in the guest's sysfs", g.Name, g.PMU)
			}
			t.Logf("%s: PMU %s type %s", g.Name, g.PMU, strings.TrimSpace(string(typ.Data)))
		})
	}
}

// TestExtra prints the outputs of the PMC_QEMU_EXTRA commands (exploration, no assertions
// beyond the command having finished).
func TestExtra(t *testing.T) {
	cmds := extraCmds()
	if len(cmds) == 0 {
		t.Skip("PMC_QEMU_EXTRA names no file of extra guest commands")
	}
	for _, g := range Guests {
		for _, c := range cmds {
			s := section(t, g, c.Name)
			t.Logf("%s $ %s  (exit %d)\n%s", g.Name, c.Line, s.Status, s.Output)
		}
	}
}

// parseLaunch reads "<name> inherit=B ev0=V/E/R ..." lines of clauncher and probe -x.
func parseLaunch(out string) (vals, enabled, running []uint64, err error) {
	for _, line := range strings.Split(out, "\n") {
		f := strings.Fields(line)
		if len(f) < 3 || !strings.HasPrefix(f[1], "inherit=") {
			continue
		}
		for _, kv := range f[2:] {
			_, v, _ := strings.Cut(kv, "=")
			var a, b, c uint64
			if _, err := fmt.Sscanf(v, "%d/%d/%d", &a, &b, &c); err != nil {
				return nil, nil, nil, fmt.Errorf("bad field %q: %w", kv, err)
			}
			vals, enabled, running = append(vals, a), append(enabled, b), append(running, c)
		}
		return vals, enabled, running, nil
	}
	return nil, nil, nil, fmt.Errorf("no launch line in %q", out)
}

// TestLaunchInherit: with counters inherited and multiplexed, the kernel reports the same
// time_enabled for every event of a launched command, and the scaled estimates agree within
// 0.5%, when the launcher attaches them to a single-threaded child (C, as perf does) or to a
// Go shim that has said it is ready. (Without that handshake, threads the Go runtime starts
// after the counters were opened inherit them, and some time_enabled come out short by whole
// 4 ms rotation intervals: measured up to 10%. That is what TestPMCMultiplex/*/mux catches.)
func TestLaunchInherit(t *testing.T) {
	for _, g := range Guests {
		for _, name := range []string{"clauncher-mux", "probe-launch-mux"} {
			t.Run(g.Name+"/"+name, func(t *testing.T) {
				vals, en, run, err := parseLaunch(ok(t, g, name))
				if err != nil {
					t.Fatal(err)
				}
				if len(vals) != 8 {
					t.Fatalf("%d events, want 8", len(vals))
				}
				var sum float64
				sc := make([]float64, len(vals))
				for i := range vals {
					if run[i] == 0 || run[i] >= en[i] {
						t.Errorf("%s ev%d: running %d of %d: 8 events on %d counters must multiplex", g.Name, i, run[i], en[i], g.Counters)
						continue
					}
					sc[i] = float64(vals[i]) * float64(en[i]) / float64(run[i])
					sum += sc[i]
				}
				mean := sum / float64(len(vals))
				for i := range vals {
					t.Logf("%s %s ev%d value=%d enabled=%d running=%d scaled=%.0f (%+.3f%% of the mean)", g.Name, name, i, vals[i], en[i], run[i], sc[i], 100*(sc[i]-mean)/mean)
					if en[i] != en[0] {
						t.Errorf("%s %s ev%d: time_enabled %d != ev0's %d", g.Name, name, i, en[i], en[0])
					}
					if math.Abs(sc[i]-mean) > 0.005*mean {
						t.Errorf("%s %s ev%d: scaled %.0f is more than 0.5%% from the mean %.0f", g.Name, name, i, sc[i], mean)
					}
				}
			})
		}
	}
}
