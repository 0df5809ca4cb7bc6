package workloads_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/pmc-tools/pmc/internal/cli"
	"github.com/pmc-tools/pmc/internal/result"
	"github.com/pmc-tools/pmc/internal/testenv"
)

// strictWarnings are the flags include/pmc.h must compile cleanly with, in C and C++.
var strictWarnings = []string{"-Wall", "-Wextra", "-Wconversion", "-Wsign-conversion", "-Werror"}

// TestPMCHeaderThreads (issue 25 item 4): four threads measure the same regions at once with
// include/pmc.h, built plain (C11 -pedantic and C++11 with strictWarnings), with
// AddressSanitizer and with ThreadSanitizer. Each thread counts with its own counters and the
// JSON merges them by region: work has exactly 4 x 200,000 calls and 4 threads, touch's
// page-faults are the 4 x 256 pages the threads touched, work's task-clock is the threads'
// CPU time spent in it, and the region left open is reported. pmc show prints the file.
// Before: a global-buffer-overflow at pmc.h:545 under ASan, 60,045 calls counted for 800,000
// without it, and -Wconversion failed at pmc.h:461.
func TestPMCHeaderThreads(t *testing.T) {
	for _, tool := range []string{"gcc", "g++"} {
		testenv.Tool(t, tool)
	}
	const perThread = 200000
	src, _ := filepath.Abs("testdata/pmcthreads.c")
	inc, _ := filepath.Abs("../include")
	for _, b := range []struct {
		name  string
		cc    string
		flags []string
		plain bool // no sanitizer: its timings are the program's own
	}{
		{"c11-strict", "gcc", append([]string{"-std=c11", "-pedantic", "-O2"}, strictWarnings...), true},
		{"c++11-strict", "g++", append([]string{"-std=c++11", "-pedantic", "-O2", "-x", "c++"}, strictWarnings...), true},
		{"asan", "gcc", []string{"-std=gnu11", "-O1", "-g", "-fsanitize=address", "-fno-omit-frame-pointer", "-Wall", "-Wextra", "-Werror"}, false},
		{"tsan", "gcc", []string{"-std=gnu11", "-O1", "-g", "-fsanitize=thread", "-Wall", "-Wextra", "-Werror"}, false},
	} {
		t.Run(b.name, func(t *testing.T) {
			dir := t.TempDir()
			exe := filepath.Join(dir, "pmcthreads")
			args := append(append([]string{}, b.flags...), "-I"+inc, "-o", exe, src, "-pthread")
			if out, err := exec.Command(b.cc, args...).CombinedOutput(); err != nil {
				if !b.plain && bytes.Contains(out, []byte("cannot find")) {
					t.Skipf("no sanitizer runtime: %s", out)
				}
				t.Fatalf("%s %s: %v\n%s", b.cc, strings.Join(args, " "), err, out)
			}
			jsonPath := filepath.Join(dir, "out.json")
			cmd := exec.Command(exe, strconv.Itoa(perThread), jsonPath)
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			err := cmd.Run()
			if err != nil || strings.Contains(stderr.String(), "Sanitizer") {
				t.Fatalf("pmcthreads: %v\n%s", err, stderr.String())
			}
			if !strings.Contains(stderr.String(), `pmc: pmc_write_json: region "open" is still open`) {
				t.Errorf("the open region is not reported on stderr: %q", stderr.String())
			}
			data, err := os.ReadFile(jsonPath)
			if err != nil {
				t.Fatal(err)
			}
			var rep selfReport
			if err := json.Unmarshal(data, &rep); err != nil {
				t.Fatalf("invalid JSON: %v\n%s", err, data)
			}
			type want struct {
				calls, open uint64
				threads     int
			}
			wants := map[string]want{"work": {4 * perThread, 0, 4}, "touch": {4, 0, 4}, "open": {0, 1, 1}}
			if len(rep.Regions) != len(wants) || rep.MeasuringThreads != 5 {
				t.Fatalf("%d regions, %d measuring threads; want 3 and 5: %+v", len(rep.Regions), rep.MeasuringThreads, rep.Regions)
			}
			count := map[string]map[string]result.Count{}
			for _, r := range rep.Regions {
				w, ok := wants[r.Name]
				if !ok || r.Calls != w.calls || r.Open != w.open || r.Threads != w.threads || r.Parent != "" {
					t.Errorf("region %+v, want %+v", r, w)
				}
				count[r.Name] = map[string]result.Count{}
				for _, c := range rep.Runs[r.Run].Counts {
					if c.Status != result.Counted {
						t.Errorf("region %s %s: %s %s", r.Name, c.Event, c.Status, c.Error)
					}
					count[r.Name][c.Event] = c
				}
			}
			// The sanitizers fault in their shadow memory too: only the lower bound holds there.
			pages := uint64(4 * (1 << 20) / os.Getpagesize())
			if pf := count["touch"]["page-faults"].Raw; pf < pages || b.plain && pf > pages+64 {
				t.Errorf("page-faults of touch %d, want the %d pages the 4 threads touched (+ at most 64)", pf, pages)
			}
			if pf := count["work"]["page-faults"].Raw; b.plain && pf > 64 {
				t.Errorf("page-faults of work %d: the loop touches no new page", pf)
			}
			var cpu float64
			var value uint64
			fmt.Sscanf(stdout.String(), "cpu_ns=%g\nwork_task_clock=%d", &cpu, &value)
			if value != count["work"]["task-clock"].Raw {
				t.Errorf("pmc_value of work's task-clock %d, the JSON's %d", value, count["work"]["task-clock"].Raw)
			}
			work := float64(count["work"]["task-clock"].Raw)
			t.Logf("work: task-clock %.0f ns of the threads' %.0f ns of CPU (%.0f%%)", work, cpu, 100*work/cpu)
			// The threads' own CPU time encloses their regions; the work region's short loop is
			// at least a quarter of it (half, measured; the rest is pmc.h's reads).
			if work > cpu*1.01+1e6 || b.plain && work < cpu/4 {
				t.Errorf("task-clock of work %.0f ns against the threads' %.0f ns of CPU", work, cpu)
			}
			var out, errs bytes.Buffer
			if code := cli.Run([]string{"show", jsonPath}, &out, &errs); code != 0 {
				t.Fatalf("pmc show: exit %d: %s", code, errs.String())
			}
			for _, s := range []string{fmt.Sprintf("region work (%d calls)", 4*perThread), "region touch (4 calls)", "region open (0 calls)"} {
				if !strings.Contains(out.String(), s) {
					t.Errorf("pmc show lacks %q:\n%s", s, out.String())
				}
			}
		})
	}
}
