package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/pmc-tools/pmc/internal/testenv"
)

// readmeBlock is the README's fenced code block that contains marker.
func readmeBlock(t *testing.T, marker string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	parts := strings.Split(string(data), "```")
	for i := 1; i < len(parts); i += 2 {
		if strings.Contains(parts[i], marker) {
			return strings.TrimPrefix(parts[i], "\n")
		}
	}
	t.Fatalf("README.md has no code block with %q", marker)
	return ""
}

// runReadme runs a README block as written, with sh -e, in a tree laid out as after make
// demo (workloads/build/ARCH holding the workloads) and pmc on PATH, and returns its output.
func runReadme(t *testing.T, block string, workloads ...string) string {
	t.Helper()
	root := t.TempDir()
	arch, err := exec.Command("uname", "-m").Output()
	if err != nil {
		t.Fatal(err)
	}
	wl := filepath.Join(root, "workloads", "build", strings.TrimSpace(string(arch)))
	bin := filepath.Join(root, "bin")
	for _, d := range []string{wl, bin} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, w := range workloads {
		if err := os.Symlink(testenv.Workload(t, w), filepath.Join(wl, w)); err != nil {
			t.Fatal(err)
		}
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	wrapper := "#!/bin/sh\n" + cliModeEnv + "=1 exec '" + self + "' \"$@\"\n"
	if err := os.WriteFile(filepath.Join(bin, "pmc"), []byte(wrapper), 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("sh", "-e", "-x", "-c", block)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "PATH="+bin+":"+os.Getenv("PATH"))
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the README's block, as written, failed: %v\n%s\n--- output\n%s", err, block, out)
	}
	return string(out)
}

// TestReadmeSampling runs the README's sampling example (the Armv8 seed's 2D array) as
// written: the array2d workload keeps assign and squares as functions, so the report
// names them, pmc annotate finds assign, and pmc diff lines them up.
func TestReadmeSampling(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("sampling needs Linux")
	}
	out := runReadme(t, readmeBlock(t, "perf.data.old"), "array2d")
	for _, want := range []string{"] assign", "] squares", "Disassembly of array2d for cpu-clock", "<assign>:"} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in the output:\n%s", want, out)
		}
	}
	var diff string
	if i := strings.LastIndex(out, "+ pmc diff"); i >= 0 {
		diff = out[i:]
	}
	if !strings.Contains(diff, "assign") || !strings.Contains(diff, "squares") {
		t.Errorf("pmc diff does not line up assign and squares:\n%s", diff)
	}
}

// TestReadmeSelfMeasurement runs the README's include/pmc.h example as written: pmc show of a
// pmc.h file, two of them compared region by region, and a region against a whole program.
func TestReadmeSelfMeasurement(t *testing.T) {
	out := runReadme(t, readmeBlock(t, "./selfmeasure"), "selfmeasure")
	for _, want := range []string{"region main (1 calls)", "region loop (3 calls)", "compared region by region",
		"loop: task-clock [msec]", "self.json: region main (1 calls)", "<not recorded>"} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in the output:\n%s", want, out)
		}
	}
}
