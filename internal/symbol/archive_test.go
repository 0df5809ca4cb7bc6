package symbol

import (
	"archive/zip"
	"bytes"
	"hash/crc32"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/pmc-tools/pmc/internal/unix"
)

// member is one zip member of a test archive.
type member struct {
	name   string
	data   []byte
	stored bool // zip.Store instead of Deflate
}

func zipOf(t testing.TB, ms ...member) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, m := range ms {
		method := zip.Deflate
		if m.stored {
			method = zip.Store
		}
		w, err := zw.CreateHeader(&zip.FileHeader{Name: m.name, Method: method})
		if err != nil {
			t.Fatal(err)
		}
		w.Write(m.data)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// tableText is a valid archive member of n symbol lines.
func tableText(path string, n int) []byte {
	var b bytes.Buffer
	b.WriteString("pmcsym v1\npath " + path + "\nkind dyn\n")
	for i := 0; i < n; i++ {
		b.WriteString("sym 1000 10 spin\n")
	}
	return b.Bytes()
}

// TestArchiveLimits: an archive whose members expand past a bound (one member, all of them,
// the ratio to the compressed size, their number) is refused with an error naming the bound;
// one within them opens.
func TestArchiveLimits(t *testing.T) {
	lim := ArchiveLimits{Member: 4000, Total: 6000, Ratio: 10, RatioFloor: 1000, Members: 3}
	small := tableText("/a", 10) // 206 bytes
	for _, c := range []struct {
		name    string
		members []member
		want    string // "" opens
	}{
		{"within", []member{{"dso/0", small, false}, {"dso/1", tableText("/b", 10), true}}, ""},
		{"member", []member{{"dso/0", tableText("/a", 250), true}}, "expands past 3 KiB"},
		{"total", []member{{"dso/0", tableText("/a", 180), true}, {"dso/1", tableText("/b", 180), true}}, "past 5 KiB in all"},
		{"ratio", []member{{"dso/0", tableText("/a", 200), false}}, "more than 10 times its compressed size"},
		{"count", []member{{"dso/0", small, false}, {"x", nil, false}, {"y", nil, false}, {"z", nil, false}}, "more than 3 members"},
	} {
		data := zipOf(t, c.members...)
		_, err := openArchive(bytes.NewReader(data), int64(len(data)), lim)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: %v", c.name, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%s: error %v, want %q", c.name, err, c.want)
		}
	}
}

// TestArchiveLyingSizes: a member whose header claims fewer bytes than it holds is cut at the
// bound, not read to its end.
func TestArchiveLyingSizes(t *testing.T) {
	body := tableText("/a", 5000) // 85 KB
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	w, err := zw.CreateRaw(&zip.FileHeader{Name: "dso/0", Method: zip.Store, CompressedSize64: uint64(len(body)),
		UncompressedSize64: 100, CRC32: crc32.ChecksumIEEE(body)})
	if err != nil {
		t.Fatal(err)
	}
	w.Write(body)
	zw.Close()
	lim := DefaultArchiveLimits
	lim.Member = 10000
	data := buf.Bytes()
	if _, err := openArchive(bytes.NewReader(data), int64(len(data)), lim); err == nil {
		t.Fatal("a member larger than its header says opened")
	}
}

// TestArchiveBomb (issue 25 item 2): a 64 MiB member deflated to ~64 KB (a valid table, so
// nothing but the bounds refuses it) is refused by the default limits before it is read
// whole; it opened, and a 1.5 GiB one took pmc report past 4.5 GB.
func TestArchiveBomb(t *testing.T) {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	w, err := zw.Create("dso/0")
	if err != nil {
		t.Fatal(err)
	}
	w.Write([]byte("pmcsym v1\npath /bomb\nkind dyn\n"))
	chunk := bytes.Repeat([]byte("sym 1000 10 spin\n"), 4096)
	for n := 0; n < 64<<20; n += len(chunk) {
		w.Write(chunk)
	}
	zw.Close()
	data := buf.Bytes()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	_, err = OpenArchive(bytes.NewReader(data), int64(len(data)))
	runtime.ReadMemStats(&after)
	alloc := after.TotalAlloc - before.TotalAlloc
	t.Logf("archive of %d bytes: %v; %d KiB allocated", len(data), err, alloc>>10)
	if err == nil || !strings.Contains(err.Error(), "times its compressed size") {
		t.Errorf("the bomb opened: %v", err)
	}
	if alloc > 16<<20 {
		t.Errorf("refusing a %d-byte bomb allocated %d MiB", len(data), alloc>>20)
	}
}

// TestOpenArchiveFile: a missing archive is no archive; a FIFO, a directory or a device named
// FILE.pmcsym is refused at once (a FIFO blocked the open forever); a regular file opens.
func TestOpenArchiveFile(t *testing.T) {
	dir := t.TempDir()
	if a, err := OpenArchiveFile(filepath.Join(dir, "missing")); a != nil || err != nil {
		t.Errorf("missing: %v %v", a, err)
	}
	fifo := filepath.Join(dir, "fifo.pmcsym")
	if err := unix.Mkfifo(fifo, 0o644); err != nil {
		t.Skip("mkfifo:", err)
	}
	done := make(chan error, 1)
	go func() { _, err := OpenArchiveFile(fifo); done <- err }()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "not a regular file") {
			t.Errorf("FIFO: %v", err)
		}
	case <-time.After(time.Minute):
		// Unblock the open so that the test ends.
		f, _ := os.OpenFile(fifo, os.O_WRONLY, 0)
		f.Close()
		t.Fatal("opening a FIFO as an archive blocked")
	}
	for _, p := range []string{dir, "/dev/zero"} {
		if _, err := OpenArchiveFile(p); err == nil || !strings.Contains(err.Error(), "not a regular file") {
			t.Errorf("%s: %v", p, err)
		}
	}
	good := filepath.Join(dir, "good.pmcsym")
	os.WriteFile(good, zipOf(t, member{"dso/0", tableText("/a", 3), false}), 0o644)
	if a, err := OpenArchiveFile(good); err != nil || len(a.Tables()) != 1 {
		t.Errorf("good: %v", err)
	}
}
