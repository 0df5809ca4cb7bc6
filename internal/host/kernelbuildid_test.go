package host

import (
	"encoding/binary"
	"encoding/hex"
	"os"
	"os/exec"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/pmc-tools/pmc/internal/testenv"
)

// note is one ELF note in the machine's byte order.
func note(typ uint32, name string, desc []byte) []byte {
	pad := func(b []byte) []byte { return append(b, make([]byte, (4-len(b)%4)%4)...) }
	h := binary.NativeEndian.AppendUint32(nil, uint32(len(name)))
	h = binary.NativeEndian.AppendUint32(h, uint32(len(desc)))
	h = binary.NativeEndian.AppendUint32(h, typ)
	return append(append(h, pad([]byte(name))...), pad(desc)...)
}

func TestKernelBuildID(t *testing.T) {
	id, _ := hex.DecodeString("4a5a9b0affb66c437abcd455d2738af879985fa9")
	// As this project's VMs export it: the build-id, then Linux and Xen notes.
	notes := append(note(3, "GNU\x00", id), note(6, "Linux\x00", []byte{1, 1, 0, 0})...)
	notes = append(notes, note(0x100, "Linux\x00", []byte("6.1.102\x00"))...)
	m := Probe(fstest.MapFS{}, fstest.MapFS{"kernel/notes": {Data: notes}})
	if got, err := m.KernelBuildID(); err != nil || got != "4a5a9b0affb66c437abcd455d2738af879985fa9" {
		t.Errorf("KernelBuildID() = %q, %v", got, err)
	}
	// The build-id after another note.
	m = Probe(fstest.MapFS{}, fstest.MapFS{"kernel/notes": {Data: append(note(6, "Linux\x00", []byte{1, 2, 3}), note(3, "GNU\x00", id[:8])...)}})
	if got, err := m.KernelBuildID(); err != nil || got != "4a5a9b0affb66c43" {
		t.Errorf("after another note: %q, %v", got, err)
	}
	for name, data := range map[string][]byte{
		"no GNU note": note(6, "Linux\x00", []byte{1}),
		"truncated":   note(3, "GNU\x00", id)[:20],
		"empty":       {},
		"other owner": note(3, "XEN\x00", id),
	} {
		m := Probe(fstest.MapFS{}, fstest.MapFS{"kernel/notes": {Data: data}})
		if got, err := m.KernelBuildID(); err != ErrNoKernelBuildID {
			t.Errorf("%s: %q, %v", name, got, err)
		}
	}
	if _, err := Empty().KernelBuildID(); err != ErrNoKernelBuildID {
		t.Errorf("empty machine: %v", err)
	}
}

// TestKernelBuildIDLive: the running kernel's build-id is the one perf buildid-list -k
// prints.
func TestKernelBuildIDLive(t *testing.T) {
	if _, err := os.Stat("/sys/kernel/notes"); err != nil {
		t.Skipf("no /sys/kernel/notes on this machine: %v", err)
	}
	id, err := Live().KernelBuildID()
	if err != nil {
		t.Fatal(err)
	}
	testenv.Tool(t, "perf")
	out, err := exec.Command("perf", "buildid-list", "-k").Output()
	if err != nil {
		t.Skipf("perf buildid-list -k: %v: the build-id read (%s) is not checked", err, id)
	}
	if want := strings.TrimSpace(string(out)); id != want {
		t.Errorf("KernelBuildID() = %s, perf buildid-list -k says %s", id, want)
	}
}

// FuzzNoteBuildID: any bytes in /sys/kernel/notes give a build-id or ErrNoKernelBuildID.
func FuzzNoteBuildID(f *testing.F) {
	f.Add(append(note(3, "GNU\x00", []byte{1, 2, 3, 4}), note(6, "Linux\x00", []byte{1})...))
	f.Add([]byte{4, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, 3, 0, 0, 0, 'G', 'N', 'U', 0})
	f.Fuzz(func(t *testing.T, data []byte) {
		id, err := kernelBuildID(data)
		if (err == nil) == (id == "") || err != nil && err != ErrNoKernelBuildID {
			t.Errorf("%q, %v", id, err)
		}
	})
}
