package symbol

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// fakeVmlinux links a small kernel-like image: _text at the x86-64 kernel's usual address,
// functions, an assembly label, a hidden label and data, with the given build-id.
func fakeVmlinux(t *testing.T, buildID string) string {
	t.Helper()
	need(t, "as", "ld")
	dir := t.TempDir()
	src := filepath.Join(dir, "k.s")
	asm := `
	.text
	.globl _text
_text:
	.skip 0x100
	.globl start_kernel
	.type start_kernel, @function
start_kernel:
	.skip 0x40
	.size start_kernel, .-start_kernel
	.skip 0xc0
	.globl entry_SYSCALL_64
entry_SYSCALL_64:
	.skip 0x80
	.hidden hidden_label
hidden_label:
	.skip 0x80
	.type do_idle, @function
do_idle:
	.skip 0x20
	.size do_idle, .-do_idle
	.data
	.type jiffies, @object
jiffies:
	.quad 0
	.size jiffies, 8
`
	if err := os.WriteFile(src, []byte(asm), 0o644); err != nil {
		t.Fatal(err)
	}
	obj, out := filepath.Join(dir, "k.o"), filepath.Join(dir, "vmlinux")
	for _, c := range [][]string{{"as", "-o", obj, src}, {"ld", "-o", out, "-Ttext=0xffffffff81000000", "--build-id=0x" + buildID, "-e", "_text", obj}} {
		if b, err := exec.Command(c[0], c[1:]...).CombinedOutput(); err != nil {
			t.Fatalf("%v: %v\n%s", c, err, b)
		}
	}
	return out
}

func TestVmlinux(t *testing.T) {
	const id = "48dc540c8b76393804ca8088dbfa7d42911a9444"
	tab, err := OpenVmlinux(fakeVmlinux(t, id))
	if err != nil {
		t.Fatal(err)
	}
	if tab.BuildID != id || tab.Kind != KindKernel || tab.Text != 0xffffffff81000000 {
		t.Fatalf("build-id %q kind %q text %#x", tab.BuildID, tab.Kind, tab.Text)
	}
	var names []string
	for _, s := range tab.Syms {
		names = append(names, s.Name)
	}
	// Functions and visible code labels, as /proc/kallsyms lists them; no hidden label, no data.
	if want := "[_text start_kernel entry_SYSCALL_64 do_idle]"; fmt.Sprint(names) != want {
		t.Errorf("symbols %v, want %s", names, want)
	}
	// Where the kernel ran 16 MiB higher (KASLR), its mapping's pgoff is the _text it ran at.
	const ran = 0xffffffff82000000
	for _, c := range []struct {
		ip   uint64
		want string
	}{
		{ran + 0x110, "start_kernel"},
		{ran + 0x200, "entry_SYSCALL_64"},
		{ran + 0x2f0, "entry_SYSCALL_64"}, // the hidden label is no symbol: the one before covers it
		{ran + 0x310, "do_idle"},
	} {
		s := tab.Lookup(tab.MapAddr(c.ip, ran, ran))
		if s == nil || s.Name != c.want {
			t.Errorf("%#x: %v, want %s", c.ip, s, c.want)
		}
	}
	// Without relocation (the kernel ran at its link address), addresses are the image's.
	if s := tab.Lookup(tab.MapAddr(0xffffffff81000110, 0xffffffff81000000, 0xffffffff81000000)); s == nil || s.Name != "start_kernel" {
		t.Errorf("unrelocated: %v", s)
	}
	if _, err := OpenVmlinux(filepath.Join("testdata", "prog.c")); err == nil {
		t.Error("a C file read as a kernel image")
	}
}
