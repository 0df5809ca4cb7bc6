package workloads_test

// Tests of the built-in C workloads (src/*.c). They build the host binaries with make (gcc
// needed), check every program's output line against values computed here in Go, check that
// bad arguments give one-line errors and exit status 2, and use valgrind as an exact,
// simulated PMU: callgrind's Ir proves loop's count(N)-count(0) == 2N, cachegrind's D1 misses
// reproduce the seed's naive-vs-interchange matmul result.

import (
	"bytes"
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/pmc-tools/pmc/internal/testenv"
)

// bin returns the path of a host workload binary (testenv builds them outside the tree).
func bin(t *testing.T, name string) string {
	t.Helper()
	return testenv.Workload(t, name)
}

// fixedEnv is the environment of every measured run: libc start-up cost depends on it.
var fixedEnv = []string{"PATH=/usr/bin:/bin", "LC_ALL=C"}

func run(t *testing.T, name string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	cmd := exec.Command(bin(t, name), args...)
	cmd.Env = fixedEnv
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &ee):
		code = ee.ExitCode()
	default:
		t.Fatalf("%s %v: %v", name, args, err)
	}
	return o.String(), e.String(), code
}

func mustRun(t *testing.T, name string, args ...string) string {
	t.Helper()
	out, errOut, code := run(t, name, args...)
	if code != 0 {
		t.Fatalf("%s %v: exit %d: %s", name, args, code, errOut)
	}
	return out
}

// matmulChecksum is sum over i,j of (A*B)[i][j] with matmul.c's integer-valued elements.
func matmulChecksum(n int) uint64 {
	var sum uint64
	for k := 0; k < n; k++ {
		var colA, rowB uint64
		for i := 0; i < n; i++ {
			colA += uint64((i + k) % 4)
			rowB += uint64((k*3 + i) % 4)
		}
		sum += colA * rowB
	}
	return sum
}

func array2dChecksum(rows, cols uint64) uint64 {
	var sum uint64
	for i := uint64(0); i < rows; i++ {
		for j := uint64(0); j < cols; j++ {
			sum += (i + j) * (i + j)
		}
	}
	return sum
}

// chaseEnd replays chase.c: its xorshift64* generator, Sattolo's shuffle and the hops.
// It also checks that the random list is one cycle through every line.
func chaseEnd(t *testing.T, lines, hops uint64, random bool) uint64 {
	next := make([]uint64, lines)
	for k := range next {
		next[k] = (uint64(k) + 1) % lines
	}
	if random {
		perm := make([]uint64, lines)
		for i := range perm {
			perm[i] = uint64(i)
		}
		seed := uint64(0x9E3779B97F4A7C15)
		for i := lines - 1; i > 0; i-- {
			x := seed
			x ^= x >> 12
			x ^= x << 25
			x ^= x >> 27
			seed = x
			j := (x * 0x2545F4914F6CDD1D) % i
			perm[i], perm[j] = perm[j], perm[i]
		}
		copy(next, perm)
	}
	seen, p := uint64(0), uint64(0)
	for {
		p = next[p]
		seen++
		if p == 0 {
			break
		}
		if seen > lines {
			t.Fatalf("chase list of %d lines is not one cycle", lines)
		}
	}
	if seen != lines {
		t.Fatalf("chase cycle has %d of %d lines", seen, lines)
	}
	p = 0
	for h := uint64(0); h < hops; h++ {
		p = next[p]
	}
	return p
}

func TestOutputs(t *testing.T) {
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"loop", []string{"0"}, "loop n=0 per_iter=2 isa=x86-64"},
		{"loop", []string{"0001234"}, "loop n=1234 per_iter=2 isa=x86-64"},
		{"loop", []string{"4000000"}, "loop n=4000000 per_iter=2 isa=x86-64"},
		{"matmul", []string{"--size", "50"}, fmt.Sprintf("matmul order=ijk size=50 checksum=%d", matmulChecksum(50))},
		{"matmul-novec", []string{"--order", "ikj", "--size=50"}, fmt.Sprintf("matmul order=ikj size=50 checksum=%d", matmulChecksum(50))},
		{"matmul", []string{"--order", "ikj", "--size", "123"}, fmt.Sprintf("matmul order=ikj size=123 checksum=%d", matmulChecksum(123))},
		{"array2d", []string{"--rows", "1000", "--cols", "64"}, fmt.Sprintf("array2d order=row rows=1000 cols=64 checksum=%d", array2dChecksum(1000, 64))},
		{"array2d", []string{"--order", "col", "--rows", "333", "--cols", "7"}, fmt.Sprintf("array2d order=col rows=333 cols=7 checksum=%d", array2dChecksum(333, 7))},
		{"chase", []string{"--size", "4096", "--hops", "1001"}, fmt.Sprintf("chase order=random size=4096 lines=64 hops=1001 end=%d", chaseEnd(t, 64, 1001, true))},
		{"chase", []string{"--size", "100000", "--hops", "77777"}, fmt.Sprintf("chase order=random size=99968 lines=1562 hops=77777 end=%d", chaseEnd(t, 1562, 77777, true))},
		{"chase", []string{"--size", "4096", "--order", "sequential", "--hops", "1001"}, fmt.Sprintf("chase order=sequential size=4096 lines=64 hops=1001 end=%d", chaseEnd(t, 64, 1001, false))},
		{"forkthreads", []string{"--procs", "2", "--threads", "3", "--work", "1000"}, "forkthreads procs=2 threads=3 work=1000 pids=3 tids=12 units=12 spin_insns=24000"},
		{"forkthreads", []string{"--procs", "0", "--threads", "0", "--work", "0"}, "forkthreads procs=0 threads=0 work=0 pids=1 tids=1 units=1 spin_insns=0"},
		{"phases", []string{"--pairs", "3", "--spin", "1000", "--calls", "10"}, "phases pairs=3 spin=1000 calls=10 mode=sys spin_insns=6000"},
		{"phases", []string{"--mode", "walk", "--walk", "64", "--pairs", "2", "--seed", "9"}, "phases pairs=2 spin=1000000 calls=2000 mode=walk spin_insns=4000000"},
	}
	for _, c := range cases {
		got := strings.TrimSuffix(mustRun(t, c.name, c.args...), "\n")
		if got != c.want {
			t.Errorf("%s %s:\n got %q\nwant %q", c.name, strings.Join(c.args, " "), got, c.want)
		}
	}
}

func TestBadArguments(t *testing.T) {
	cases := []struct {
		name string
		args []string
		want string // a fragment of the one-line error
	}{
		{"loop", nil, "usage: loop N"},
		{"loop", []string{"1", "2"}, "usage: loop N"},
		{"loop", []string{""}, "1 to 10 digits"},
		{"loop", []string{"12a"}, "1 to 10 digits"},
		{"loop", []string{"-1"}, "1 to 10 digits"},
		{"loop", []string{"12345678901"}, "1 to 10 digits"},
		{"loop", []string{"4000000001"}, "maximum is 4000000000"},
		{"matmul", []string{"--size", "0"}, "--size 0: out of range, use 1..2048"},
		{"matmul", []string{"--size", "3000"}, "out of range"},
		{"matmul", []string{"--size"}, "--size needs a value"},
		{"matmul", []string{"--order", "jik"}, "use one of ijk|ikj"},
		{"matmul", []string{"--nope"}, "unknown argument --nope"},
		{"array2d", []string{"--rows", "x"}, "not a decimal number"},
		{"array2d", []string{"--rows", "1000000", "--cols", "1000"}, "larger than 256 MiB"},
		{"chase", nil, "--size is required"},
		{"chase", []string{"--size", "64"}, "out of range"},
		{"chase", []string{"--size", "4096", "--hops", "0"}, "out of range"},
		{"chase", []string{"--size", "4096", "--order", "strided"}, "random|sequential"},
		{"forkthreads", []string{"--procs", "65"}, "out of range"},
		{"forkthreads", []string{"--procs", "64", "--threads", "64", "--work", "1000000000"}, "lower --work"},
		{"phases", []string{"--pairs", "0"}, "out of range"},
		{"phases", []string{"--mode", "idle"}, "sys|walk"},
		{"phases", []string{"--seed-file", "/nonexistent/dir/seed"}, "cannot open"},
		{"phases", []string{"--pairs", "100000", "--spin", "1000000"}, "too long"},
	}
	for _, c := range cases {
		out, errOut, code := run(t, c.name, c.args...)
		if code != 2 || out != "" {
			t.Errorf("%s %q: exit %d, stdout %q; want exit 2 and no output", c.name, c.args, code, out)
		}
		if strings.Count(errOut, "\n") != 1 || !strings.Contains(errOut, c.want) {
			t.Errorf("%s %q: stderr %q; want one line containing %q", c.name, c.args, errOut, c.want)
		}
	}
}

func needValgrind(t *testing.T) {
	t.Helper()
	testenv.Tool(t, "valgrind") // the exact-count checks need it
}

var callgrindIr = regexp.MustCompile(`Collected : (\d+)`)

// irOf runs a workload under callgrind and returns its exact user-space instruction count.
func irOf(t *testing.T, name string, args ...string) uint64 {
	t.Helper()
	// Run as ./NAME from its directory: argv[0]'s length moves the argument strings, whose
	// alignment changes libc start-up by a few instructions (see loop.c), so it is the same
	// wherever the binaries were built.
	path := bin(t, name)
	full := append([]string{"--tool=callgrind", "--callgrind-out-file=/dev/null", "./" + filepath.Base(path)}, args...)
	cmd := exec.Command("valgrind", full...)
	cmd.Dir = filepath.Dir(path)
	cmd.Env = fixedEnv
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("callgrind %s %v: %v\n%s", name, args, err, out)
	}
	m := callgrindIr.FindSubmatch(out)
	if m == nil {
		t.Fatalf("callgrind %s %v: no `Collected :` line in\n%s", name, args, out)
	}
	v, err := strconv.ParseUint(string(m[1]), 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// TestLoopExact: callgrind counts every user-space instruction exactly, so the whole-process
// difference between loop N and loop 0 must be exactly 2N, including for arguments of
// different lengths (the parse and the print cost the same for every N).
func TestLoopExact(t *testing.T) {
	needValgrind(t)
	// Unpadded arguments of different lengths (exact on x86-64 static), then the portable form:
	// N zero-padded to 10 digits, so argv's layout is the same for every N (see loop.c).
	for _, set := range [][]string{
		{"0", "1", "7", "0000000005", "1000", "123456", "2500000"},
		{"0000000000", "0000000001", "0000001000", "0000123456", "0002500000"},
	} {
		base := irOf(t, "loop", set[0])
		for _, n := range set[1:] {
			v, err := strconv.ParseUint(n, 10, 64) // decimal: leading zeros are not octal
			if err != nil {
				t.Fatal(err)
			}
			got := irOf(t, "loop", n)
			if got-base != 2*v {
				t.Errorf("loop %s: Ir %d - Ir(loop %s) %d = %d, want exactly 2*N = %d", n, got, set[0], base, got-base, 2*v)
			}
		}
		// The same binary under callgrind twice gives the same count: the basis of the check.
		if again := irOf(t, "loop", set[0]); again != base {
			t.Errorf("loop %s: Ir %d then %d, callgrind not repeatable here", set[0], base, again)
		}
	}
}

// TestPhasesSameInstructions: phases executes the same user-space instructions whatever the
// layout of its phases (the truth of test/qemu's bound test is one run of it): callgrind's
// Ir is equal for explicit seeds, for --seed-file runs (a new file and an incremented one,
// the same arguments), and for the walk mode's seeds.
func TestPhasesSameInstructions(t *testing.T) {
	needValgrind(t)
	args := []string{"--pairs", "10", "--spin", "10000", "--calls", "100"}
	a := irOf(t, "phases", append([]string{"--seed", "1"}, args...)...)
	for _, seed := range []string{"2", "7"} { // one digit each: argv's length moves libc's start-up (loop.c)
		if b := irOf(t, "phases", append([]string{"--seed", seed}, args...)...); b != a {
			t.Errorf("--seed %s: Ir %d, --seed 1: %d", seed, b, a)
		}
	}
	file := filepath.Join(t.TempDir(), "seed")
	first := irOf(t, "phases", append([]string{"--seed-file", file}, args...)...)
	for range 2 {
		if b := irOf(t, "phases", append([]string{"--seed-file", file}, args...)...); b != first {
			t.Errorf("--seed-file, a later run: Ir %d, the first run %d", b, first)
		}
	}
	walk := []string{"--mode", "walk", "--walk", "64", "--pairs", "10", "--spin", "10000", "--calls", "100"}
	w1 := irOf(t, "phases", append([]string{"--seed", "5"}, walk...)...)
	if w2 := irOf(t, "phases", append([]string{"--seed", "7"}, walk...)...); w1 != w2 {
		t.Errorf("walk mode: Ir %d and %d for two seeds", w1, w2)
	}
}
