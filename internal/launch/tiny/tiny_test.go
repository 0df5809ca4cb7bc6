package tiny

import (
	"bytes"
	"debug/elf"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// The committed executables are what gen.sh makes of the committed sources.
func TestImagesAreBuiltFromSource(t *testing.T) {
	for _, tool := range []string{"x86_64-linux-gnu-as", "aarch64-linux-gnu-as", "arm-linux-gnueabihf-as"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s not installed (scripts/deps.sh installs the cross binutils): %v", tool, err)
		}
	}
	dir := t.TempDir()
	if out, err := exec.Command("bash", "gen.sh", dir).CombinedOutput(); err != nil {
		t.Fatalf("gen.sh: %v\n%s", err, out)
	}
	for _, arch := range []string{"amd64", "arm64", "arm"} {
		want, err := os.ReadFile(filepath.Join(dir, arch))
		if err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(filepath.Join("elf", arch))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("elf/%s differs from what gen.sh assembles from src/shim_%s.S: run bash internal/launch/tiny/gen.sh", arch, arch)
		}
	}
}

// Each executable is a static ELF for its machine, with one loadable segment (read and
// execute, not writable), a non-executable stack, and no interpreter.
func TestImagesAreStatic(t *testing.T) {
	machines := map[string]elf.Machine{"amd64": elf.EM_X86_64, "arm64": elf.EM_AARCH64, "arm": elf.EM_ARM}
	for arch, m := range machines {
		f, err := elf.Open(filepath.Join("elf", arch))
		if err != nil {
			t.Fatal(err)
		}
		if f.Machine != m || f.Type != elf.ET_EXEC {
			t.Errorf("%s: machine %v type %v", arch, f.Machine, f.Type)
		}
		loads := 0
		for _, p := range f.Progs {
			switch p.Type {
			case elf.PT_LOAD:
				loads++
				if p.Flags != elf.PF_R|elf.PF_X {
					t.Errorf("%s: load segment flags %v, want R E", arch, p.Flags)
				}
			case elf.PT_INTERP, elf.PT_DYNAMIC:
				t.Errorf("%s: has %v", arch, p.Type)
			case elf.PT_GNU_STACK:
				if p.Flags&elf.PF_X != 0 {
					t.Errorf("%s: executable stack", arch)
				}
			}
		}
		if loads != 1 {
			t.Errorf("%s: %d load segments, want 1", arch, loads)
		}
		f.Close()
	}
}
