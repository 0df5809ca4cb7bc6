package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// perfKey finds the keys of a line of perf stat -j output, in order (JSON objects keep
// their keys in order only as text, so they are read from the text).
var perfKey = regexp.MustCompile(`"([a-z-]+)" : `)

func jsonLineKeys(out []byte) ([]string, error) {
	var lines []string
	for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		var obj map[string]any
		if err := json.Unmarshal([]byte(l), &obj); err != nil {
			return nil, fmt.Errorf("a line that is not JSON: %v\n%s", err, out)
		}
		var keys []string
		for _, m := range perfKey.FindAllStringSubmatch(l, -1) {
			keys = append(keys, m[1])
		}
		lines = append(lines, strings.Join(keys, ","))
	}
	return lines, nil
}

// TestPerfFormsMatchPerf: pmc stat -j (perf's JSON) and -x prints, on the same command line
// as perf 6.1 here, lines with the same keys (or fields) in the same order, for every
// aggregation perf's own tests check: none, -A, --per-core, --per-socket, --per-die,
// --per-node, -I, --per-thread -a.
func TestPerfFormsMatchPerf(t *testing.T) {
	needPerf(t)
	for _, args := range [][]string{
		{"-j", "-e", "cpu-clock,page-faults"},
		{"-j", "-e", "cpu-clock,page-faults", "-I", "1000"},
		{"-j", "-a", "-A", "--no-merge", "-e", "cpu-clock"},
		{"-j", "-a", "--per-core", "-e", "cpu-clock"},
		{"-j", "-a", "--per-socket", "-e", "cpu-clock"},
		{"-j", "-a", "--per-die", "-e", "cpu-clock"},
		{"-j", "-a", "--per-node", "-e", "cpu-clock"},
	} {
		name := strings.Join(args, " ")
		full := append(append([]string{"stat"}, args...), "--", "true")
		// perf's own output is not always there: a run of true shorter than perf's first
		// read may print no interval at all. Three tries.
		var p []string
		for try := 0; try < 3 && p == nil; try++ {
			want, err := exec.Command("perf", full...).CombinedOutput()
			if err != nil {
				t.Fatalf("perf %s: %v\n%s", name, err, want)
			}
			if p, err = jsonLineKeys(want); err != nil {
				t.Logf("perf %s, try %d: %v", name, try+1, err)
			}
		}
		if p == nil {
			t.Fatalf("perf %s printed no JSON in three tries", name)
		}
		var stdout, stderr bytes.Buffer
		if code := testRun(full, &stdout, &stderr); code != 0 {
			t.Fatalf("pmc %s: exit %d\n%s", name, code, stderr.String())
		}
		m, err := jsonLineKeys(stderr.Bytes())
		if err != nil {
			t.Fatalf("pmc %s: %v", name, err)
		}
		if len(m) == 0 || strings.Join(p, "\n") != strings.Join(m, "\n") {
			t.Errorf("%s: keys differ\nperf:\n%s\npmc:\n%s", name, strings.Join(p, "\n"), strings.Join(m, "\n"))
		}
	}
}

// TestPerThreadSystemWide: --per-thread -a counts every thread of the system, as perf: a
// shell spinning in the background has its row (comm-tid) in both, and -x lines have perf's
// 7 separators. pmc gets one try (a thread that exits meanwhile is left out, not an error).
func TestPerThreadSystemWide(t *testing.T) {
	needPerf(t)
	spin := exec.Command("sh", "-c", "while :; do :; done")
	if err := spin.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { spin.Process.Kill(); spin.Wait() }()
	time.Sleep(50 * time.Millisecond)
	row := fmt.Sprintf("sh-%d,", spin.Process.Pid)
	args := []string{"stat", "-x,", "--per-thread", "-a", "-e", "task-clock", "--", "sleep", "0.2"}
	// perf 6.1's --per-thread -a fails when a thread exits between its listing and its map
	// ("failed to parse CPUs map"), often on a busy machine: a few tries.
	var want []byte
	for try := 0; try < 5; try++ {
		want, _ = exec.Command("perf", args...).CombinedOutput()
		if bytes.Contains(want, []byte(row)) {
			break
		}
		t.Logf("perf, try %d: %s", try+1, bytes.SplitN(want, []byte("\n"), 2)[0])
	}
	var stdout, stderr bytes.Buffer
	if code := testRun(args, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr.String())
	}
	for who, out := range map[string]string{"perf": string(want), "pmc": stderr.String()} {
		found := false
		for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
			if strings.HasPrefix(l, row) {
				found = true
				if ms, err := strconv.ParseFloat(strings.Split(l, ",")[1], 64); err != nil || ms <= 0 {
					t.Errorf("%s: the spinning shell's task-clock: %q", who, l)
				}
			}
			if who == "pmc" && strings.Count(l, ",") != 7 {
				t.Errorf("pmc: %d separators, perf prints 7: %q", strings.Count(l, ","), l)
			}
		}
		if !found {
			t.Errorf("%s: no row %s... for the spinning shell in\n%s", who, row, out)
		}
	}
}
