package cli

import (
	"bytes"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

var compressedSummary = regexp.MustCompile(`\[ pmc record: Captured and wrote [0-9.]+ MB .*perf\.data \(([0-9]+) samples\), compressed \(original ([0-9.]+) MB, ratio is ([0-9.]+)\) \]`)

// TestRecordCompressed: pmc record -z writes what perf reads as the same recording
// uncompressed (perf inject -i writes it decompressed): perf script and perf report print
// the same of both, so do pmc report and pmc script, and pmc script prints what perf script
// prints.
func TestRecordCompressed(t *testing.T) {
	path, stderr := recordLoop(t, "-z", "-g")
	m := compressedSummary.FindStringSubmatch(stderr)
	if m == nil {
		t.Fatalf("no summary line with the compression in %q", stderr)
	}
	n, _ := readSamples(t, path)
	if strconv.Itoa(n) != m[1] || n < 50 {
		t.Fatalf("the summary says %s samples, the file has %d", m[1], n)
	}
	if ratio, _ := strconv.ParseFloat(m[3], 64); ratio < 2 {
		t.Errorf("compression ratio %s", m[3])
	}
	if _, err := exec.LookPath("perf"); err != nil {
		t.Skip("perf is not installed: the file read by pmc only")
	}
	plain := filepath.Join(t.TempDir(), "plain.data")
	if out, err := exec.Command("perf", "inject", "-i", path, "-o", plain).CombinedOutput(); err != nil {
		t.Fatalf("perf inject: %v\n%s", err, out)
	}
	perf := func(args ...string) string {
		t.Helper()
		out, err := exec.Command("perf", args...).Output()
		if err != nil {
			t.Fatalf("perf %v: %v", args, err)
		}
		return tipLine.ReplaceAllString(string(out), "") // perf report's tip is drawn at random
	}
	pmc := func(args ...string) string {
		t.Helper()
		var stdout, stderr bytes.Buffer
		if code := testRun(args, &stdout, &stderr); code != 0 {
			t.Fatalf("pmc %v: exit %d: %s", args, code, stderr.String())
		}
		return stdout.String()
	}
	same := func(what, a, b string) {
		t.Helper()
		if len(a) < 200 || a != b {
			t.Errorf("%s: %d bytes of the -z file, %d of its uncompressed twin:\n%s\n---\n%s", what, len(a), len(b), a, b)
		}
	}
	same("perf script", perf("script", "-i", path), perf("script", "-i", plain))
	same("perf report", perfReport(t, path), perfReport(t, plain)) // without its random tip
	same("pmc report", pmc("report", "--stdio", "-i", path), pmc("report", "--stdio", "-i", plain))
	same("pmc script", pmc("script", "-i", path), pmc("script", "-i", plain))
	same("pmc script vs perf script", pmc("script", "-i", path), perf("script", "-i", path))
	hdr := perf("report", "-i", path, "--header-only")
	if !strings.Contains(hdr, "# compressed : Zstd, level = 1, ratio = ") {
		t.Errorf("perf report --header-only:\n%s", hdr)
	}
}

func TestRecordCompressionLevelErrors(t *testing.T) {
	for _, arg := range []string{"--compression-level=0", "--compression-level=23", "-z=30"} {
		var stdout, stderr bytes.Buffer
		args := []string{"record", arg, "true"}
		if code := testRun(args, &stdout, &stderr); code == 0 || !strings.Contains(stderr.String(), "level from 1 (fastest) to 22") ||
			strings.Count(stderr.String(), "\n") != 1 {
			t.Errorf("%q: exit %d, %q", args, code, stderr.String())
		}
	}
}
