package symbol

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// ErrRestricted says /proc/kallsyms showed every address as zero (kptr_restrict, or not
// root): kernel samples stay addresses.
var ErrRestricted = errors.New("kernel symbol addresses are hidden (/proc/kallsyms shows zeros): run as root or set kernel.kptr_restrict=0")

// ParseKallsyms reads /proc/kallsyms text ("ADDR TYPE NAME [MODULE]" a line) into the
// kernel's Table: text symbols (t, T, w, W) of the kernel and its modules.
func ParseKallsyms(data []byte) (*Table, error) {
	t := &Table{Path: "[kernel.kallsyms]", Kind: KindKernel, Source: "kallsyms"}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	n, nonzero := 0, false
	for sc.Scan() {
		line := sc.Text()
		if line == "" {
			continue
		}
		f := strings.Fields(line)
		if len(f) < 3 || len(f[1]) != 1 {
			return nil, fmt.Errorf("kallsyms line %d: want ADDRESS TYPE NAME, got %q", n+1, line)
		}
		addr, err := strconv.ParseUint(f[0], 16, 64)
		if err != nil {
			return nil, fmt.Errorf("kallsyms line %d: bad address %q", n+1, f[0])
		}
		n++
		if addr != 0 {
			nonzero = true
		}
		switch f[1][0] {
		case 't', 'T', 'w', 'W':
		default:
			continue
		}
		s := Sym{Addr: addr, Name: f[2], bind: bindGlobal}
		if f[1][0] == 't' {
			s.bind = bindLocal
		}
		if len(f) > 3 {
			s.Module = strings.Trim(f[3], "[]")
		}
		t.Syms = append(t.Syms, s)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("kallsyms: %w", err)
	}
	if n > 0 && !nonzero {
		return nil, ErrRestricted
	}
	t.finish()
	return t, nil
}

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
