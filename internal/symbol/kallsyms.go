package symbol

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"
)

// ErrRestricted says /proc/kallsyms showed every address as zero (kptr_restrict, or not
// root): kernel samples stay addresses.
var ErrRestricted = errors.New("kernel symbol addresses are hidden (/proc/kallsyms shows zeros): run as root or set kernel.kptr_restrict=0")

// ParseKallsyms reads /proc/kallsyms text ("ADDR TYPE NAME [MODULE]" a line) into the
// kernel's Table: text symbols (t, T, w, W) of the kernel and its modules, every one in
// Table.Syms. ReadKallsyms keeps them in less memory.
func ParseKallsyms(data []byte) (*Table, error) { return expand(ReadKallsyms(bytes.NewReader(data))) }

// ParseKallsymsText is ParseKallsyms of a string.
func ParseKallsymsText(text string) (*Table, error) {
	return expand(ReadKallsyms(strings.NewReader(text)))
}

// expand moves a compact table's symbols into Table.Syms.
func expand(t *Table, err error) (*Table, error) {
	if err != nil {
		return nil, err
	}
	if t.ksyms != nil {
		t.Syms, t.ksyms = t.ksyms.all(), nil
	}
	return t, nil
}

// ReadKallsyms reads /proc/kallsyms text from r, as it comes, into the kernel's Table, as
// ParseKallsyms does, but compact: Table.Syms stays empty, Lookup finds the symbols in an
// array of 16 bytes a symbol and their names in one copy (a kernel's 120k symbols: 5 MB,
// where the text and the Syms took 12), and Symbols lists them.
func ReadKallsyms(r io.Reader) (*Table, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	var k ksymsBuilder
	var long []byte // a line longer than br's buffer
	n, nonzero := 0, false
	for {
		line, err := br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			long = append(long, line...)
			continue
		}
		if len(long) > 0 {
			line = append(long, line...)
			long = long[:0]
		}
		if err != nil && !errors.Is(err, io.EOF) {
			return nil, err
		}
		line = bytes.TrimSuffix(bytes.TrimSuffix(line, []byte("\n")), []byte("\r")) // as bufio.ScanLines
		if len(line) > 0 {
			var f [4][]byte
			addr, nf, ok := kallsymsLine(line, &f)
			if !ok {
				nf = fields(line, &f)
				if nf < 3 || len(f[1]) != 1 {
					return nil, fmt.Errorf("kallsyms line %d: want ADDRESS TYPE NAME, got %q", n+1, line)
				}
				var perr error
				if addr, perr = strconv.ParseUint(string(f[0]), 16, 64); perr != nil {
					return nil, fmt.Errorf("kallsyms line %d: bad address %q", n+1, f[0])
				}
			}
			n++
			nonzero = nonzero || addr != 0
			switch f[1][0] {
			case 't', 'T', 'w', 'W':
				var mod []byte
				if nf > 3 {
					mod = bytes.Trim(f[3], "[]")
				}
				if err := k.add(addr, f[2], mod, f[1][0] == 't'); err != nil {
					return nil, err
				}
			}
		}
		if err != nil {
			break
		}
	}
	if n > 0 && !nonzero {
		return nil, ErrRestricted
	}
	t := &Table{Path: "[kernel.kallsyms]", Kind: KindKernel, Source: "kallsyms"}
	if ks := k.finish(); ks.n > 0 {
		t.ksyms = ks
	}
	return t, nil
}

// kallsymsLine reads a line in the kernel's own layout ("%016x %c %s", then perhaps
// "\t[module]") into its fields and address, as fields and ParseUint would; ok is false
// for any other line.
func kallsymsLine(line []byte, f *[4][]byte) (addr uint64, nf int, ok bool) {
	if len(line) < 20 || line[16] != ' ' || line[18] != ' ' || asciiSpace[line[17]] || line[17] >= utf8.RuneSelf {
		return 0, 0, false
	}
	for i := 0; i < 16; i++ {
		v := hexDigit[line[i]]
		if v > 15 {
			return 0, 0, false
		}
		addr = addr<<4 | uint64(v)
	}
	rest := line[19:]
	token := func() ([]byte, bool) {
		i := 0
		for i < len(rest) && !asciiSpace[rest[i]] {
			if rest[i] >= utf8.RuneSelf {
				return nil, false
			}
			i++
		}
		tok := rest[:i]
		for i < len(rest) && asciiSpace[rest[i]] {
			i++
		}
		rest = rest[i:]
		return tok, true
	}
	name, ok := token()
	if !ok || len(name) == 0 {
		return 0, 0, false
	}
	f[0], f[1], f[2] = line[:16], line[17:18], name
	if len(rest) == 0 {
		return addr, 3, true
	}
	if f[3], ok = token(); !ok {
		return 0, 0, false
	}
	return addr, 4, true
}

var hexDigit = func() (t [256]uint8) {
	for i := range t {
		t[i] = 0xff
	}
	for c := '0'; c <= '9'; c++ {
		t[c] = uint8(c - '0')
	}
	for c := 'a'; c <= 'f'; c++ {
		t[c], t[c-'a'+'A'] = uint8(c-'a'+10), uint8(c-'a'+10)
	}
	return t
}()

// fields splits line at white space like strings.Fields into at most len(f) fields (the
// rest is dropped) and returns how many it found. Lines with non-ASCII bytes take
// strings.Fields itself, for its Unicode white space.
func fields(line []byte, f *[4][]byte) int {
	for i := 0; i < len(line); i++ {
		if line[i] >= utf8.RuneSelf {
			n := 0
			for _, x := range strings.Fields(string(line)) {
				if n == len(f) {
					break
				}
				f[n] = []byte(x)
				n++
			}
			return n
		}
	}
	n := 0
	for i := 0; i < len(line) && n < len(f); {
		for i < len(line) && asciiSpace[line[i]] {
			i++
		}
		j := i
		for j < len(line) && !asciiSpace[line[j]] {
			j++
		}
		if j > i {
			f[n] = line[i:j]
			n++
		}
		i = j
	}
	return n
}

var asciiSpace = [256]bool{'\t': true, '\n': true, '\v': true, '\f': true, '\r': true, ' ': true}

// ParsePerfMap reads a JIT's /tmp/perf-PID.map ("START SIZE NAME" a line, hexadecimal,
// with or without 0x) into a Table of process addresses.
func ParsePerfMap(data []byte) (*Table, error) {
	t := &Table{Kind: KindPerfMap, Source: "perf-map"}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		a, rest, _ := strings.Cut(line, " ")
		sz, name, _ := strings.Cut(strings.TrimLeft(rest, " "), " ")
		start, err1 := parseHex(a)
		size, err2 := parseHex(sz)
		if err1 != nil || err2 != nil || name == "" {
			return nil, fmt.Errorf("perf map line %d: want START SIZE NAME (hexadecimal), got %q", n, line)
		}
		t.Syms = append(t.Syms, Sym{Addr: start, Size: size, Name: name, bind: bindGlobal})
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("perf map: %w", err)
	}
	// A JIT may reuse an address; the last entry written is the live code.
	last := map[uint64]int{}
	for i, s := range t.Syms {
		last[s.Addr] = i
	}
	keep := t.Syms[:0]
	for i, s := range t.Syms {
		if last[s.Addr] == i {
			keep = append(keep, s)
		}
	}
	t.Syms = keep
	t.finish()
	return t, nil
}

func parseHex(s string) (uint64, error) {
	s = strings.TrimPrefix(strings.TrimPrefix(s, "0x"), "0X")
	return strconv.ParseUint(s, 16, 64)
}
