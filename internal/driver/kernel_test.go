package driver

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/pmc-tools/pmc/internal/host"
	"github.com/pmc-tools/pmc/internal/profile"
	"github.com/pmc-tools/pmc/internal/symbol"
)

// The recording machine of ../cli/testdata/kernel: its kernel's build-id and the part of its
// /proc/kallsyms kernel.data's samples need.
const (
	kernelData = "../cli/testdata/kernel/kernel.data"
	kallsyms   = "../cli/testdata/kernel/machine/proc/kallsyms"
	recorded   = "4a5a9b0affb66c437abcd455d2738af879985fa9"
	// perf's recordings of ../perfdata/testdata: cpuclock.data sampled no kernel address
	// (its BUILD_ID feature names no kernel); system.data another build of this VM's kernel.
	cpuclock = "../perfdata/testdata/cpuclock.data"
	system   = "../perfdata/testdata/system.data"
)

// fakeMachine counts what is read of it.
type fakeMachine struct {
	id       string
	idErr    error
	kallsyms string
	ids      atomic.Int32 // KernelBuildID calls
	reads    atomic.Int32 // KallsymsText calls
}

func (m *fakeMachine) KernelBuildID() (string, error) {
	m.ids.Add(1)
	return m.id, m.idErr
}

func (m *fakeMachine) KallsymsText() (string, error) {
	m.reads.Add(1)
	return m.kallsyms, nil
}

// copyFile copies a recording into dir (without the archive beside it) and returns its path.
func copyFile(t *testing.T, dir, from string, patch func([]byte) []byte) string {
	t.Helper()
	data, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if patch != nil {
		data = patch(data)
	}
	p := filepath.Join(dir, filepath.Base(from))
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// kernelNamed says how many kernel samples have a named function and how many an address.
func kernelNamed(p *profile.Profile) (named, addrs int) {
	for _, s := range p.Samples {
		if l := s.Stack[0]; l.DSO.Kernel {
			if l.Sym.Unknown {
				addrs++
			} else {
				named++
			}
		}
	}
	return
}

// TestKernelSymbols: the running kernel's symbols are read only when the recording's kernel
// is the running one (or it names none) and it sampled the kernel; otherwise not at all.
func TestKernelSymbols(t *testing.T) {
	text, err := os.ReadFile(kallsyms)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	kernel := copyFile(t, dir, kernelData, nil)
	noID := copyFile(t, t.TempDir(), kernelData, func(b []byte) []byte {
		return bytes.Replace(b, []byte(symbol.KernelName+"\x00"), []byte("[kernel.kallsymX]\x00"), 1)
	})
	other := "b5a564f5004993bc85432baa2d8c75078667a056"
	cases := []struct {
		name    string
		o       Options
		m       *fakeMachine // nil: no machine
		reads   int32        // KallsymsText calls
		named   bool         // kernel samples named (else every one an address)
		warning string
	}{
		{"same kernel", Options{Path: kernel}, &fakeMachine{id: recorded}, 1, true, ""},
		{"other kernel", Options{Path: kernel}, &fakeMachine{id: other}, 0, false, "the recorded kernel (build-id " + recorded + ") is not the running one (" + other + ")"},
		{"build-id unknown", Options{Path: kernel}, &fakeMachine{idErr: errors.New("no notes")}, 0, false, "the running kernel's is unknown (no notes)"},
		{"no machine", Options{Path: kernel}, nil, 0, false, "the running kernel's is unknown"},
		{"no recorded build-id", Options{Path: noID}, &fakeMachine{id: other}, 1, true, ""},
		{"--kallsyms", Options{Path: kernel, Kallsyms: kallsyms}, &fakeMachine{id: other}, 0, true, ""},
		{"--symfs", Options{Path: kernel, Symfs: t.TempDir()}, &fakeMachine{id: recorded}, 0, false, "with --symfs the running kernel's symbols are not used"},
		{"--symfs /", Options{Path: kernel, Symfs: "/"}, &fakeMachine{id: recorded}, 1, true, ""},
		{"no kernel samples", Options{Path: copyFile(t, t.TempDir(), cpuclock, nil)}, &fakeMachine{id: recorded}, 0, false, ""},
		{"another build", Options{Path: copyFile(t, t.TempDir(), system, nil)}, &fakeMachine{id: recorded}, 0, false, "is not the running one"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if c.m != nil {
				c.m.kallsyms = string(text)
				c.o.Machine = func() Machine { return c.m }
			}
			r, err := Load(c.o)
			if err != nil {
				t.Fatal(err)
			}
			if c.m != nil && c.m.reads.Load() != c.reads {
				t.Errorf("/proc/kallsyms read %d times, want %d", c.m.reads.Load(), c.reads)
			}
			named, addrs := kernelNamed(r.Profile)
			if c.named && (named == 0 || addrs != 0) || !c.named && named != 0 {
				t.Errorf("%d kernel samples named, %d addresses", named, addrs)
			}
			w := strings.Join(r.Warnings, "\n")
			if c.warning != "" && (!strings.Contains(w, "kernel samples show addresses: ") || !strings.Contains(w, c.warning)) {
				t.Errorf("warnings %q, want %q", w, c.warning)
			}
			if c.warning == "" && strings.Contains(w, "kernel") {
				t.Errorf("warnings %q", w)
			}
		})
	}
}

// TestVmlinuxBuildID: a kernel image of another build than the recorded kernel is refused.
func TestVmlinuxBuildID(t *testing.T) {
	k := &kernel{vmlinux: "vmlinux", loads: map[source]*kernelLoad{}}
	l := &kernelLoad{done: make(chan struct{}), t: &symbol.Table{BuildID: strings.Repeat("ab", 20)}}
	close(l.done)
	k.loads[fromVmlinux] = l
	if _, err := k.table(recorded); err == nil || !strings.Contains(err.Error(), "vmlinux has build-id abab") {
		t.Errorf("another build's image: %v", err)
	}
	l.t.BuildID = recorded
	if tab, err := k.table(recorded); err != nil || tab != l.t {
		t.Errorf("the recorded build's image: %v", err)
	}
}

// The machine pmc runs on streams /proc/kallsyms into the compact table.
var _ kallsymsOpener = (*host.Machine)(nil)
