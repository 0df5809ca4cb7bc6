package cli

import (
	"bytes"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestOutputPaths: pmc stat -o and --report write through symlinks, never replace a device,
// keep a file's mode, and fail before counting when the path cannot be written. The old
// writers renamed a temporary file over every path (as root, -o /dev/null made /dev/null a
// regular file). The fake backend measures nothing, so only the output path is under test.
func TestOutputPaths(t *testing.T) {
	dir := t.TempDir()
	stat := func(args ...string) (string, int) {
		var stdout, stderr bytes.Buffer
		full := append([]string{"stat", "--fake", "testdata/fake/pmu.json"}, args...)
		code := testRun(append(full, "--", "./matmul"), &stdout, &stderr)
		return stderr.String(), code
	}
	// A symlink to a private (0600) result file: written through, mode kept.
	target := filepath.Join(dir, "result.json")
	os.WriteFile(target, nil, 0o600)
	link := filepath.Join(dir, "latest.json")
	os.Symlink("result.json", link)
	if out, code := stat("--json", "-o", link, "--report="+link+".report"); code != 0 {
		t.Fatalf("exit %d: %s", code, out)
	}
	fi, _ := os.Lstat(link)
	st, _ := os.Stat(target)
	b, _ := os.ReadFile(target)
	if fi.Mode()&fs.ModeSymlink == 0 || st.Mode().Perm() != 0o600 || !bytes.Contains(b, []byte(`"schema": "pmc.stat/v1"`)) {
		t.Errorf("-o through a symlink: link mode %v, target mode %v, %d bytes", fi.Mode(), st.Mode(), len(b))
	}
	if _, err := os.Stat(link + ".report"); err != nil {
		t.Errorf("--report: %v", err)
	}
	// A device stays a device (as root, a null device node of the test's own).
	if os.Geteuid() == 0 {
		null := filepath.Join(dir, "null")
		if out, err := exec.Command("mknod", "-m", "666", null, "c", "1", "3").CombinedOutput(); err != nil {
			t.Fatalf("mknod: %v %s", err, out)
		}
		for _, args := range [][]string{{"-o", null}, {"-o", null, "--append"}, {"--report=" + null}} {
			if out, code := stat(args...); code != 0 {
				t.Fatalf("%v: exit %d: %s", args, code, out)
			}
			if fi, _ := os.Lstat(null); fi.Mode()&fs.ModeCharDevice == 0 {
				t.Fatalf("%v replaced the device with a %v", args, fi.Mode())
			}
		}
	}
	// Paths that cannot be written fail with one line naming the flag, before counting.
	for _, args := range [][]string{
		{"-o", filepath.Join(dir, "missing", "out.txt")},
		{"-o", dir},
		{"--report=" + dir},
	} {
		out, code := stat(args...)
		if code != 1 || strings.Count(strings.TrimSpace(out), "\n") != 0 || !strings.Contains(out, args[0][:2]) {
			t.Errorf("%v: exit %d, want 1 and one line naming the flag:\n%s", args, code, out)
		}
	}
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if strings.Contains(e.Name(), ".tmp-") {
			t.Errorf("temporary file left behind: %s", e.Name())
		}
	}
}
