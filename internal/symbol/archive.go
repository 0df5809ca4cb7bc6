package symbol

import (
	"archive/zip"
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/pmc-tools/pmc/internal/unix"
)

// The embedded-symbol archive (perf.data.pmcsym beside a recording) is a zip file with one
// member per DSO, named "dso/N", each a Table in the text form Marshal writes:
//
//	pmcsym v1
//	path /usr/bin/foo
//	buildid 0123abcd...            (absent when the file has none)
//	kind dyn                        (exec, dyn, kernel, perfmap)
//	seg VADDR OFF FILESZ MEMSZ      (hexadecimal; one per PT_LOAD)
//	sym ADDR SIZE NAME              (hexadecimal; sorted; NAME as stored, mangled: the rest
//	                                 of the line)
//	ksym ADDR SIZE MODULE NAME      (a kernel module's symbol)
//	file INDEX PATH                 (source files of the line table)
//	line ADDR FILE LINE             (FILE -1 ends a sequence)
//
// Everything a report needs to name an address; pmc record --embed-symbols adds the machine
// code of the sampled functions (machine, code, map: see Code) for pmc annotate.

const archiveMagic = "pmcsym v1"

// Marshal writes t in the archive's text form.
func (t *Table) Marshal(w io.Writer) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "%s\npath %s\n", archiveMagic, t.Path)
	if t.BuildID != "" {
		fmt.Fprintf(bw, "buildid %s\n", t.BuildID)
	}
	fmt.Fprintf(bw, "kind %s\n", t.Kind)
	for _, s := range t.Segments {
		fmt.Fprintf(bw, "seg %x %x %x %x\n", s.Vaddr, s.Off, s.Filesz, s.Memsz)
	}
	for _, s := range t.Symbols() {
		name := strings.Map(func(r rune) rune {
			if r == '\n' || r == '\r' {
				return '?'
			}
			return r
		}, s.Name)
		if s.Module != "" {
			fmt.Fprintf(bw, "ksym %x %x %s %s\n", s.Addr, s.Size, s.Module, name)
		} else {
			fmt.Fprintf(bw, "sym %x %x %s\n", s.Addr, s.Size, name)
		}
	}
	if t.Lines != nil {
		for i, f := range t.Lines.Files {
			fmt.Fprintf(bw, "file %d %s\n", i, f)
		}
		for _, r := range t.Lines.Rows {
			fmt.Fprintf(bw, "line %x %d %d\n", r.Addr, r.File, r.Line)
		}
	}
	var code strings.Builder
	t.marshalCode(&code)
	t.marshalUnwind(&code)
	bw.WriteString(code.String())
	return bw.Flush()
}

// ParseTable reads a Table written by Marshal.
func ParseTable(data []byte) (*Table, error) {
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	if !sc.Scan() || sc.Text() != archiveMagic {
		return nil, errors.New("symbol archive member: not pmcsym v1 text")
	}
	t := &Table{Source: "archive"}
	var lines Lines
	for n := 2; sc.Scan(); n++ {
		key, rest, _ := strings.Cut(sc.Text(), " ")
		bad := func(why string) error {
			return fmt.Errorf("symbol archive member %q line %d: %s", t.Path, n, why)
		}
		switch key {
		case "path":
			t.Path = rest
		case "buildid":
			t.BuildID = rest
		case "kind":
			t.Kind = Kind(rest)
		case "seg":
			v, err := hexFields(rest, 4)
			if err != nil {
				return nil, bad(err.Error())
			}
			t.Segments = append(t.Segments, Segment{v[0], v[1], v[2], v[3]})
		case "sym", "ksym":
			n := 3
			if key == "ksym" {
				n = 4
			}
			f := strings.SplitN(rest, " ", n)
			if len(f) < n || f[n-1] == "" {
				return nil, bad("want " + key + " ADDR SIZE [MODULE] NAME")
			}
			v, err := hexFields(f[0]+" "+f[1], 2)
			if err != nil {
				return nil, bad(err.Error())
			}
			s := Sym{Addr: v[0], Size: v[1], Name: f[n-1], bind: bindGlobal}
			if key == "ksym" {
				s.Module = f[2]
			}
			t.Syms = append(t.Syms, s)
		case "file":
			idx, name, _ := strings.Cut(rest, " ")
			if i, err := strconv.Atoi(idx); err != nil || i != len(lines.Files) {
				return nil, bad("file indices must count from 0")
			}
			lines.Files = append(lines.Files, name)
		case "line":
			f := strings.Fields(rest)
			if len(f) != 3 {
				return nil, bad("want line ADDR FILE LINE")
			}
			a, err1 := strconv.ParseUint(f[0], 16, 64)
			fi, err2 := strconv.ParseInt(f[1], 10, 32)
			ln, err3 := strconv.ParseInt(f[2], 10, 32)
			if err1 != nil || err2 != nil || err3 != nil || fi < -1 || fi >= int64(len(lines.Files)) {
				return nil, bad("bad line row")
			}
			lines.Rows = append(lines.Rows, LineRow{a, int32(fi), int32(ln)})
		default:
			ok, err := t.parseCode(key, rest)
			if !ok {
				ok, err = t.parseUnwind(key, rest)
			}
			if !ok {
				return nil, bad(fmt.Sprintf("unknown record %q", key))
			} else if err != nil {
				return nil, bad(err.Error())
			}
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	switch t.Kind {
	case KindExec, KindDyn, KindKernel, KindPerfMap:
	default:
		return nil, fmt.Errorf("symbol archive member %q: unknown kind %q", t.Path, t.Kind)
	}
	if len(lines.Rows) > 0 {
		lines.sortRows()
		t.Lines = &lines
	}
	t.finish()
	return t, nil
}

func hexFields(s string, n int) ([]uint64, error) {
	f := strings.Fields(s)
	if len(f) != n {
		return nil, fmt.Errorf("want %d hexadecimal fields", n)
	}
	out := make([]uint64, n)
	for i, x := range f {
		v, err := strconv.ParseUint(x, 16, 64)
		if err != nil {
			return nil, fmt.Errorf("bad hexadecimal %q", x)
		}
		out[i] = v
	}
	return out, nil
}

// WriteArchive writes the tables as a symbol archive.
func WriteArchive(w io.Writer, tables []*Table) error {
	zw := zip.NewWriter(w)
	for i, t := range tables {
		m, err := zw.Create(fmt.Sprintf("dso/%d", i))
		if err != nil {
			return err
		}
		if err := t.Marshal(m); err != nil {
			return err
		}
	}
	return zw.Close()
}

// Archive is an opened symbol archive, every member parsed.
type Archive struct {
	mu     sync.Mutex
	tables []*Table
	byID   map[string]int
	byPath map[string]int
}

// ArchiveLimits bound what a symbol archive may expand to. pmc report and annotate open the
// archive beside a recording by themselves, so a hostile one (a zip bomb) must end as an
// error, never as pmc out of memory.
type ArchiveLimits struct {
	Member     int64 // uncompressed bytes of one member
	Total      int64 // uncompressed bytes of all members together
	Ratio      int64 // uncompressed / compressed size of a member larger than RatioFloor
	RatioFloor int64
	Members    int // zip entries
}

// DefaultArchiveLimits are far above what pmc record writes: the largest member measured was
// 12.7 MB (a kernel's symbols), compressed 6.6 times; text tables compress 5-10 times, while
// a deflate bomb expands up to 1032 times.
var DefaultArchiveLimits = ArchiveLimits{Member: 256 << 20, Total: 512 << 20, Ratio: 100, RatioFloor: 1 << 20, Members: 1 << 16}

// OpenArchive reads and parses a symbol archive within DefaultArchiveLimits.
func OpenArchive(r io.ReaderAt, size int64) (*Archive, error) {
	return openArchive(r, size, DefaultArchiveLimits)
}

// OpenArchiveFile opens the symbol archive at path: nil, nil when there is none. Only a
// regular file is read (a FIFO of that name would block the open forever, a device never end).
func OpenArchiveFile(path string) (*Archive, error) {
	fh, err := os.OpenFile(path, os.O_RDONLY|unix.O_NONBLOCK, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	fi, err := fh.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: not a regular file (%v): not a symbol archive", path, fi.Mode().Type())
	}
	a, err := OpenArchive(fh, fi.Size())
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return a, nil
}

func openArchive(r io.ReaderAt, size int64, lim ArchiveLimits) (*Archive, error) {
	zr, err := zip.NewReader(r, size)
	if err != nil {
		return nil, fmt.Errorf("symbol archive: %w (write it again with pmc record --embed-symbols)", err)
	}
	if len(zr.File) > lim.Members {
		return nil, fmt.Errorf("symbol archive: more than %d members: not written by pmc record", lim.Members)
	}
	var members []*zip.File
	for _, f := range zr.File {
		if strings.HasPrefix(f.Name, "dso/") {
			members = append(members, f)
		}
	}
	sort.Slice(members, func(i, j int) bool { return members[i].Name < members[j].Name })
	a := &Archive{byID: map[string]int{}, byPath: map[string]int{}}
	var total int64
	for i, f := range members {
		data, err := readMember(f, lim, lim.Total-total)
		if err != nil {
			return nil, fmt.Errorf("symbol archive: member %s %w: not written by pmc record", f.Name, err)
		}
		total += int64(len(data))
		t, err := ParseTable(data)
		if err != nil {
			return nil, err
		}
		a.tables = append(a.tables, t)
		if t.BuildID != "" {
			a.byID[t.BuildID] = i
		}
		a.byPath[t.Path] = i
	}
	return a, nil
}

// readMember reads one member within the limits, left bytes being what the total allows. The
// sizes in the zip headers are checked first but not trusted: reading stops at the bound.
func readMember(f *zip.File, lim ArchiveLimits, left int64) ([]byte, error) {
	bound := min(lim.Member, left)
	why := fmt.Sprintf("expands past %s", sizeText(lim.Member))
	if left < lim.Member {
		why = fmt.Sprintf("expands the archive past %s in all", sizeText(lim.Total))
	}
	// f.CompressedSize64 is bytes of the file, read as they are: within the file's size.
	if byRatio := max(lim.RatioFloor, int64(min(f.CompressedSize64, 1<<40))*lim.Ratio); byRatio < bound {
		bound = byRatio
		why = fmt.Sprintf("expands to more than %d times its compressed size", lim.Ratio)
	}
	if f.UncompressedSize64 > uint64(bound) {
		return nil, errors.New(why)
	}
	rc, err := f.Open()
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	data, err := io.ReadAll(io.LimitReader(rc, bound+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > bound {
		return nil, errors.New(why)
	}
	return data, nil
}

// sizeText is n bytes in KiB or MiB, rounded down.
func sizeText(n int64) string {
	if n >= 1<<20 {
		return fmt.Sprintf("%d MiB", n>>20)
	}
	return fmt.Sprintf("%d KiB", n>>10)
}

// Table returns the archived Table with build-id id, or, when id is "", the one archived
// for path.
func (a *Archive) Table(id, path string) (*Table, bool) {
	if a == nil {
		return nil, false
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	i, ok := a.byID[strings.ToLower(id)]
	if id == "" {
		i, ok = a.byPath[path]
	}
	if !ok {
		return nil, false
	}
	return a.tables[i], true
}

// Tables lists the archive's tables.
func (a *Archive) Tables() []*Table {
	return append([]*Table(nil), a.tables...)
}

// ArchivePath is where the symbol archive of the recording at perfData lives.
func ArchivePath(perfData string) string { return perfData + ".pmcsym" }
