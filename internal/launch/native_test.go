package launch

import (
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/pmc-tools/pmc/internal/launch/tiny"
)

// On the architectures pmc ships, a launch goes through the tiny shim, not a re-executed
// pmc: the launch then costs an exec of one page, and wait's peak RSS is the workload's.
func TestTinyShimIsUsed(t *testing.T) {
	if os.Getenv(launchEnv) == "self" {
		t.Skip(launchEnv + "=self: this run tests the re-executed shim")
	}
	if tiny.Image() == nil {
		t.Skipf("no tiny shim for %s: launches re-execute pmc", runtime.GOARCH)
	}
	if _, err := tinyPath(); err != nil {
		t.Fatalf("the tiny shim cannot be used here: %v", err)
	}
	ch, err := Start(Cmd{Args: []string{"true"}})
	if err != nil {
		t.Fatal(err)
	}
	if !ch.tiny || !ch.ownRSS {
		t.Errorf("started with tiny=%v ownRSS=%v, want both", ch.tiny, ch.ownRSS)
	}
	// The process that will exec is pmc's own child (CLONE_PARENT), not the shim's.
	b, err := os.ReadFile("/proc/" + itoa(ch.Pid()) + "/stat")
	if err != nil {
		t.Fatal(err)
	}
	f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+2:]))
	if f[1] != itoa(os.Getpid()) {
		t.Errorf("parent of the launched process %s, want pmc (%d)", f[1], os.Getpid())
	}
	if err := ch.Exec(); err != nil {
		t.Fatal(err)
	}
	st, err := ch.Wait(t.Context())
	if err != nil || st.ExitCode() != 0 {
		t.Fatalf("%+v %v", st, err)
	}
	if st.MaxRSSKB <= 0 || st.MaxRSSBelowKB != 0 {
		t.Errorf("peak RSS %d KiB (at most %d): want /bin/true's own", st.MaxRSSKB, st.MaxRSSBelowKB)
	}
}

// When the kernel refuses the tiny shim's exec, the launch re-executes pmc instead, and so
// do the launches after it.
func TestTinyShimRefused(t *testing.T) {
	if os.Getenv(launchEnv) == "self" {
		t.Skip(launchEnv + "=self")
	}
	if _, err := tinyPath(); err != nil {
		t.Skipf("no tiny shim here: %v", err)
	}
	saved := tinyShim.path
	defer func() { tinyShim.path, tinyShim.err = saved, nil }()
	noexec := filepath.Join(t.TempDir(), "shim")
	if err := os.WriteFile(noexec, tiny.Image(), 0o644); err != nil {
		t.Fatal(err)
	}
	tinyShim.path = noexec // EACCES at the exec
	for i := range 2 {
		ch, err := Start(Cmd{Args: []string{"sh", "-c", "exit 3"}})
		if err != nil {
			t.Fatalf("launch %d: %v", i, err)
		}
		if ch.tiny {
			t.Errorf("launch %d used the refused shim", i)
		}
		if err := ch.Exec(); err != nil {
			t.Fatal(err)
		}
		st, err := ch.Wait(t.Context())
		if err != nil || st.ExitCode() != 3 {
			t.Fatalf("launch %d: %+v %v", i, st, err)
		}
	}
	if _, err := tinyPath(); err == nil || !strings.Contains(err.Error(), "permission denied") {
		t.Errorf("tinyPath after a refusal: %v, want the refusal", err)
	}
}

func itoa(n int) string { return strconv.Itoa(n) }
