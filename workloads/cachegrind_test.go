package workloads_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/pmc-tools/pmc/internal/sim"
)

// cachegrind runs a workload under valgrind's cache simulator and returns the summary counts
// by event name (Ir, Dr, D1mr, ...). The geometry is always given: auto-detection is wrong on
// the development VMs (platform notes, section 6).
func cachegrind(t *testing.T, d1 string, name string, args ...string) map[string]uint64 {
	t.Helper()
	outFile := filepath.Join(t.TempDir(), "cachegrind.out")
	full := append([]string{"--tool=cachegrind", "--cache-sim=yes",
		"--I1=32768,8,64", "--D1=" + d1, "--LL=33554432,16,64",
		"--cachegrind-out-file=" + outFile, bin(t, name)}, args...)
	cmd := exec.Command("valgrind", full...)
	cmd.Env = fixedEnv
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("cachegrind %s %v: %v\n%s", name, args, err, out)
	}
	data, err := os.ReadFile(outFile)
	if err != nil {
		t.Fatal(err)
	}
	counts, err := sim.ParseOutput(data)
	if err != nil {
		t.Fatalf("cachegrind %s: %v", name, err)
	}
	return counts
}

// TestMatmulCachegrind reproduces the seed: the naive (ijk) order misses the L1 data cache on
// almost every access to B, the interchanged (ikj) order about once per 16 floats, for about
// the same number of instructions. At size 200 a column of B spans 200 lines (12.5 KiB), so the
// simulated D1 is 8 KiB, 4-way: the same relation as 500x500 (31 KiB of lines) on a 32 KiB L1,
// at 1/15 of the run time.
func TestMatmulCachegrind(t *testing.T) {
	needValgrind(t)
	naive := cachegrind(t, "8192,4,64", "matmul-novec", "--order", "ijk", "--size", "200")
	inter := cachegrind(t, "8192,4,64", "matmul-novec", "--order", "ikj", "--size", "200")
	t.Logf("naive: Ir %d Dr %d D1mr %d; interchange: Ir %d Dr %d D1mr %d",
		naive["Ir"], naive["Dr"], naive["D1mr"], inter["Ir"], inter["Dr"], inter["D1mr"])
	// B is read n^3 = 8M times: naive misses on nearly all of them.
	if n3 := uint64(200 * 200 * 200); naive["D1mr"] < n3 {
		t.Errorf("naive D1mr %d < n^3 = %d: the column walk should miss on every B access", naive["D1mr"], n3)
	}
	if naive["D1mr"] < 10*inter["D1mr"] {
		t.Errorf("D1 read misses naive %d vs interchange %d: want naive >= 10x", naive["D1mr"], inter["D1mr"])
	}
	ratio := float64(naive["Ir"]) / float64(inter["Ir"])
	if ratio < 0.7 || ratio > 1.3 {
		t.Errorf("instructions naive %d vs interchange %d: ratio %.2f, want within 30%%", naive["Ir"], inter["Ir"], ratio)
	}
}

func TestParseCachegrind(t *testing.T) {
	good := []byte("desc: I1 cache: 32768 B, 64 B, 8-way associative\ncmd: x\nevents: Ir D1mr\nfl=a.c\nsummary: 10 2\n")
	m, err := sim.ParseOutput(good)
	if err != nil || m["Ir"] != 10 || m["D1mr"] != 2 {
		t.Fatalf("parseCachegrind = %v, %v", m, err)
	}
	for _, bad := range []string{"", "events: Ir D1mr\nsummary: 10\n", "events: Ir\nsummary: x\n"} {
		if _, err := sim.ParseOutput([]byte(bad)); err == nil {
			t.Errorf("sim.ParseOutput(%q): no error", bad)
		}
	}
}

// FuzzParseCachegrind: any input either fails or yields one value per named event.
func FuzzParseCachegrind(f *testing.F) {
	f.Add([]byte("events: Ir D1mr\nsummary: 10 2\n"))
	f.Add([]byte("desc: x\nevents: Ir I1mr ILmr Dr D1mr DLmr Dw D1mw DLmw\nfl=m.c\nfn=main\n3 1 0 0 0 0 0 0 0 0\nsummary: 57284281 576 576 16087320 505593 181 121940 7648 7640\n"))
	f.Add([]byte("events:\nsummary:\n"))
	f.Add([]byte("events: Ir\nsummary: 18446744073709551616\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := sim.ParseOutput(data)
		if err != nil {
			return
		}
		if len(m) == 0 {
			t.Fatalf("no error and no events for %q", data)
		}
	})
}
