package cli

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pmc-tools/pmc/internal/golden"
	"github.com/pmc-tools/pmc/internal/perfdata"
	"github.com/pmc-tools/pmc/internal/symbol"
)

// scriptGoldens are perf script runs on committed recordings, kept in
// testdata/perf-script/NAME.txt: pmc script's output must be the same bytes.
var scriptGoldens = []struct {
	name, file string
	args       []string
}{
	{"cpuclock", "cpuclock.data", nil},
	{"cpuclock-ns", "cpuclock.data", []string{"--ns"}},
	{"callgraph", "callgraph.data", nil},
	{"callgraph-G", "callgraph.data", []string{"-G"}},
	{"callgraph-ip-sym", "callgraph.data", []string{"-F", "comm,pid,tid,ip,sym"}},
	{"callgraph-ip-dso", "callgraph.data", []string{"-F", "ip,dso"}},
	{"multi", "multi.data", nil},
	{"multi-period-event", "multi.data", []string{"-F", "period,event"}},
	{"system", "system.data", nil},
	{"system-plus-minus", "system.data", []string{"-F", "+pid,-period,-symoff"}},
	{"system-sw", "system.data", []string{"-F", "sw:comm,cpu,time,event,ip,dso"}},
	{"system-time", "system.data", []string{"-F", "time", "--ns"}},
	{"attach", "attach.data", nil},
	// pmc record's own files (testdata/script/README.md): a static PIE with call chains
	// into the kernel, and every CPU.
	{"pmc-g", "pmc-g.data", nil},
	{"pmc-g-fields", "pmc-g.data", []string{"-F", "tid,period,ip,sym,symoff"}},
	{"pmc-a", "pmc-a.data", nil},
	// perf record -z: its records in zstd-compressed COMPRESSED records.
	{"perf-z-g", "perf-z-g.data", nil},
}

// scriptDir holds pmc's own recordings (make.sh) and their archives.
const scriptDir = "testdata/script"

// scriptFile is where a golden's recording is: pmc's own in scriptDir, perf's in
// perfDataDir.
func scriptFile(name string) string {
	if strings.HasPrefix(name, "pmc-") || strings.HasPrefix(name, "perf-z") {
		return filepath.Join(scriptDir, name)
	}
	return filepath.Join(perfDataDir, name)
}

// TestScriptAgreesWithPerf: pmc script prints what perf script prints on perf's recordings
// and pmc's, byte for byte. Symbols come from the archives beside the files (an empty --symfs), so the
// test is the same on every machine. perf's goldens were made by -update-perf on the recording
// machine (perf, the loop binary of the perfdata README, its build-id cache), perf given the
// recorded kernel's symbols as a kallsyms file written from the archive (the kernel that
// ran has changed since).
func TestScriptAgreesWithPerf(t *testing.T) {
	empty := t.TempDir()
	if golden.UpdatingPerf() {
		// The archives pmc record --embed-symbols wrote keep whole tables: keep only the
		// symbols the samples hit.
		for _, f := range []string{"pmc-g.data", "pmc-a.data", "perf-z-g.data"} {
			writeTestArchive(t, scriptFile(f))
		}
	}
	for _, c := range scriptGoldens {
		t.Run(c.name, func(t *testing.T) {
			file := scriptFile(c.file)
			goldenPath := filepath.Join("testdata", "perf-script", c.name+".txt")
			if golden.UpdatingPerf() {
				abs, err := filepath.Abs(file) // perfTool runs perf in the annotate goldens' directory
				if err != nil {
					t.Fatal(err)
				}
				args := append([]string{"script", "-i", abs}, c.args...)
				if k := archiveKallsyms(t, file); k != "" {
					args = append(args, "--kallsyms", k)
				}
				golden.Write(t, goldenPath, []byte(perfTool(t, args...)))
			}
			want, err := os.ReadFile(goldenPath)
			if err != nil {
				t.Fatalf("%v (go test -update-perf runs perf to write it)", err)
			}
			var stdout, stderr bytes.Buffer
			args := append([]string{"script", "-i", file, "--symfs", empty}, c.args...)
			if code := testRun(args, &stdout, &stderr); code != 0 {
				t.Fatalf("pmc %v: exit %d: %s", args, code, stderr.String())
			}
			// Binaries gone since the recording (other programs' temporary files, sampled
			// system-wide) are unresolved for both tools; pmc says so.
			for _, l := range strings.Split(strings.TrimSpace(stderr.String()), "\n") {
				if l != "" && !strings.HasPrefix(l, "pmc script: no symbols for /tmp/") {
					t.Errorf("pmc %v said %q", args, l)
				}
			}
			if stdout.String() != string(want) {
				t.Errorf("pmc %v differs from perf script's:\n%s", args, golden.Diff(string(want), stdout.String()))
			}
		})
	}
}

// archiveKallsyms writes the kernel symbols of file's archive as a kallsyms file for perf
// (with _text where the recording's kernel mapping says it was, and each symbol's end marked
// so that perf does not stretch it to the next one kept) and returns its path, or "" when
// the archive has no kernel table.
func archiveKallsyms(t *testing.T, file string) string {
	t.Helper()
	a, err := symbol.OpenArchiveFile(symbol.ArchivePath(file))
	if err != nil {
		t.Fatal(err)
	}
	var kernel *symbol.Table
	for _, tab := range a.Tables() {
		if tab.Kind == symbol.KindKernel {
			kernel = tab
		}
	}
	if kernel == nil {
		return ""
	}
	text := kernelText(t, file)
	var b strings.Builder
	fmt.Fprintf(&b, "%016x T _text\n", text)
	for i, s := range kernel.Syms {
		mod := ""
		if s.Module != "" {
			mod = "\t[" + s.Module + "]"
		}
		fmt.Fprintf(&b, "%016x t %s%s\n", s.Addr, s.Name, mod)
		if i+1 == len(kernel.Syms) || kernel.Syms[i+1].Addr != s.End() {
			fmt.Fprintf(&b, "%016x t pmc_archive_gap_%d%s\n", s.End(), i, mod)
		}
	}
	p := filepath.Join(t.TempDir(), "kallsyms")
	write(t, p, []byte(b.String()))
	return p
}

// kernelText is the address of _text in the recording: its kernel mapping's pgoff.
func kernelText(t *testing.T, file string) uint64 {
	t.Helper()
	pf, err := perfdata.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer pf.Close()
	rs := pf.Records()
	for {
		r, err := rs.Next()
		if err != nil {
			t.Fatalf("%s: no kernel mapping: %v", file, err)
		}
		if m, ok := r.(*perfdata.Mmap); ok && strings.HasPrefix(m.Filename, symbol.KernelName) {
			return m.Pgoff
		}
	}
}
