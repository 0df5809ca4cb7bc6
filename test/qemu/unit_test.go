package qemu

import (
	"bytes"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"github.com/pmc-tools/pmc/internal/testenv"
)

// readNewc is an independent minimal reader of the archives WriteCPIO produces.
func readNewc(t *testing.T, b []byte) map[string]File {
	t.Helper()
	out := map[string]File{}
	off := 0
	field := func(i int) uint32 {
		v, err := strconv.ParseUint(string(b[off+6+8*i:off+14+8*i]), 16, 32)
		if err != nil {
			t.Fatalf("offset %d field %d: %v", off, i, err)
		}
		return uint32(v)
	}
	for {
		if string(b[off:off+6]) != "070701" {
			t.Fatalf("offset %d: magic %q", off, b[off:off+6])
		}
		mode, size, namesize := field(1), field(6), field(11)
		name := string(b[off+110 : off+110+int(namesize)-1])
		if b[off+110+int(namesize)-1] != 0 {
			t.Fatalf("%s: name not NUL-terminated", name)
		}
		data := off + 110 + int(namesize)
		data = (data + 3) &^ 3
		if name == "TRAILER!!!" {
			return out
		}
		out["/"+name] = File{Path: "/" + name, Mode: mode, Data: b[data : data+int(size)], Rdev: [2]uint32{field(9), field(10)}}
		off = (data + int(size) + 3) &^ 3
	}
}

func TestWriteCPIO(t *testing.T) {
	files := []File{
		Exec("/bin/probe", []byte("abcde")),
		Regular("/cmds", []byte("snapshot\n")),
		CharDev("/dev/console", 5, 1),
		Exec("/init", []byte{0x7f, 'E', 'L', 'F'}),
	}
	var b bytes.Buffer
	if err := WriteCPIO(&b, files); err != nil {
		t.Fatal(err)
	}
	if b.Len()%4 != 0 {
		t.Errorf("archive length %d not a multiple of 4", b.Len())
	}
	got := readNewc(t, b.Bytes())
	for _, f := range files {
		g, ok := got[f.Path]
		if !ok || g.Mode != f.Mode || !bytes.Equal(g.Data, f.Data) || g.Rdev != f.Rdev {
			t.Errorf("%s: got %+v, want %+v", f.Path, g, f)
		}
	}
	for _, d := range []string{"/bin", "/dev"} {
		if got[d].Mode != modeDir|0o755 {
			t.Errorf("parent %s: mode %o, want a directory", d, got[d].Mode)
		}
	}
	if len(got) != 6 {
		t.Errorf("%d entries, want 6: %v", len(got), got)
	}
	// The first entry, byte for byte (magic, ino 1, mode, uid, gid, nlink 2, ..., namesize 4).
	want := "070701" + "00000001" + "000041ed" + "00000000" + "00000000" + "00000002" + "00000000" +
		"00000000" + "00000000" + "00000000" + "00000000" + "00000000" + "00000004" + "00000000" + "bin\x00"
	if got := b.String()[:len(want)]; got != want {
		t.Errorf("first header:\n got %q\nwant %q", got, want)
	}
	// The system cpio tool agrees (scripts/deps.sh installs it).
	if testenv.HaveTool(t, "cpio", "the archive not listed by cpio -t") != "" {
		c := exec.Command("cpio", "-t", "--quiet")
		c.Stdin = bytes.NewReader(b.Bytes())
		out, err := c.Output()
		if err != nil {
			t.Fatalf("cpio -t: %v", err)
		}
		if s := strings.Join(strings.Fields(string(out)), " "); s != "bin bin/probe cmds dev dev/console init" {
			t.Errorf("cpio -t lists %q", s)
		}
	}
}

func TestWriteCPIOErrors(t *testing.T) {
	for _, files := range [][]File{
		{Regular("relative", nil)},
		{Regular("/a//b", nil)},
		{Regular("/a/", nil)},
		{Regular("/a", nil), Regular("/a", nil)},
	} {
		if err := WriteCPIO(&bytes.Buffer{}, files); err == nil {
			t.Errorf("WriteCPIO(%q): no error", files[0].Path)
		}
	}
}

const sampleConsole = "# qemu-system-aarch64 ...\r\n" +
	"[    0.5] some kernel line\r\n" +
	"=====INIT pmc-guestinit 6.1.0-50-arm64 arm64=====\r\n" +
	"=====BEGIN 0=====\r\n" +
	"line one\r\n" +
	"line two\r\n" +
	"=====EXIT 0 0=====\r\n" +
	"=====END 0=====\r\n" +
	"=====BEGIN 1=====\r\n" +
	"[    3.1] kernel: interrupted\r\n" +
	"boom\r\n" +
	"=====EXIT 1 139=====\r\n" +
	"=====END 1=====\r\n" +
	"=====BEGIN 2=====\r\n" +
	"partial"

func TestParseConsole(t *testing.T) {
	c, err := ParseConsole([]byte(sampleConsole))
	if err != nil {
		t.Fatal(err)
	}
	if c.Init != "pmc-guestinit 6.1.0-50-arm64 arm64" || c.Done {
		t.Errorf("init %q done %v", c.Init, c.Done)
	}
	want := map[int]Section{
		0: {N: 0, Output: "line one\nline two\n", Status: 0, Ended: true},
		1: {N: 1, Output: "[    3.1] kernel: interrupted\nboom\n", Status: 139, Ended: true},
		2: {N: 2, Output: "partial", Status: -1},
	}
	for n, w := range want {
		if got := c.Sections[n]; got != w {
			t.Errorf("section %d: got %+v, want %+v", n, got, w)
		}
	}
	c, err = ParseConsole([]byte(sampleConsole[:strings.Index(sampleConsole, "=====BEGIN 2")] + "=====DONE=====\r\n"))
	if err != nil || !c.Done || len(c.Sections) != 2 {
		t.Errorf("done run: %+v, %v", c, err)
	}
	for _, bad := range []string{"=====EXIT 3 0=====\n", "=====BEGIN x=====\n", "=====BEGIN 1=====\n=====END 2=====\n"} {
		if _, err := ParseConsole([]byte(bad)); err == nil {
			t.Errorf("ParseConsole(%q): no error", bad)
		}
	}
}

func FuzzParseConsole(f *testing.F) {
	f.Add([]byte(sampleConsole))
	f.Add([]byte("=====BEGIN 0=====\n====="))
	f.Add([]byte("x=====END 0=====\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		c, err := ParseConsole(b)
		if err != nil {
			return
		}
		for n, s := range c.Sections {
			if s.N != n {
				t.Fatalf("section key %d holds N %d", n, s.N)
			}
		}
	})
}

func TestParseSnapshot(t *testing.T) {
	in := "@@ /sys/bus/event_source/devices/armv8_pmuv3/type 2\r\n8\r\n\r\n" +
		"@@! /sys/x permission denied\n" +
		"@@ /proc/cpuinfo 0\n\n"
	fs, err := ParseSnapshot([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	if got := string(fs["sys/bus/event_source/devices/armv8_pmuv3/type"].Data); got != "8\n" {
		t.Errorf("type = %q", got)
	}
	if f, ok := fs["proc/cpuinfo"]; !ok || len(f.Data) != 0 {
		t.Errorf("cpuinfo: %v %v", f, ok)
	}
	if len(fs) != 2 {
		t.Errorf("%d files", len(fs))
	}
	for _, bad := range []string{"junk\n", "@@ /a 5\nab\n", "@@ /a x\n", "@@ a 0\n\n", "@@ /a"} {
		if _, err := ParseSnapshot([]byte(bad)); err == nil {
			t.Errorf("ParseSnapshot(%q): no error", bad)
		}
	}
}

func FuzzParseSnapshot(f *testing.F) {
	f.Add([]byte("@@ /a 2\n8\n\n@@! /b err\n"))
	f.Fuzz(func(t *testing.T, b []byte) { ParseSnapshot(b) })
}

func TestPatchPMUNode(t *testing.T) {
	dts := "/ {\n\tpmu {\n\t};\n\n\tintc@8000000 {\n\t};\n};\n"
	got, err := PatchPMUNode([]byte(dts), 2)
	if err != nil {
		t.Fatal(err)
	}
	want := "/ {\n\tpmu {\n\t\tcompatible = \"arm,cortex-a7-pmu\";\n\t\tinterrupts = <0x01 0x07 0x304>;\n\t};\n\n\tintc@8000000 {\n\t};\n};\n"
	if string(got) != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	if _, err := PatchPMUNode([]byte("/ {\n\tpmu {\n\t\tcompatible = \"x\";\n\t};\n};\n"), 1); err == nil {
		t.Error("a filled pmu node was patched")
	}
}
