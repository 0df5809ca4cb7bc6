package symbol

import (
	"bufio"
	"bytes"
	"cmp"
	"fmt"
	"os"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"testing/iotest"
)

// parseKallsymsFields is the straightforward parser (a Scanner and strings.Fields a line)
// that ParseKallsyms must agree with.
func parseKallsymsFields(data []byte) (*Table, error) {
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
		nonzero = nonzero || addr != 0
		if c := f[1][0]; c != 't' && c != 'T' && c != 'w' && c != 'W' {
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
	if n > 0 && !nonzero {
		return nil, ErrRestricted
	}
	// perf's choice between kallsyms' aliases: the last at an address (in the file's order).
	slices.SortStableFunc(t.Syms, func(a, b Sym) int { return cmp.Compare(a.Addr, b.Addr) })
	keep := t.Syms[:0]
	for _, s := range t.Syms {
		if n := len(keep); n > 0 && keep[n-1].Addr == s.Addr {
			keep[n-1] = s
			continue
		}
		keep = append(keep, s)
	}
	t.Syms = keep
	t.finish()
	return t, nil
}

// bigKallsyms is kallsyms text of n symbols in /proc/kallsyms' shape: mostly ascending
// kernel text with data symbols between, aliases, and module symbols at the end.
func bigKallsyms(n int) []byte {
	var b bytes.Buffer
	types := "TtTdtWTbtr"
	for i := 0; i < n; i++ {
		addr := 0xffffffff81000000 + uint64(i)*0x40
		if i%97 == 0 && i > 0 {
			addr -= 0x40 // an alias of the previous address
		}
		fmt.Fprintf(&b, "%016x %c sym_%d\n", addr, types[i%len(types)], i)
	}
	for i := 0; i < n/10; i++ {
		fmt.Fprintf(&b, "%016x t mod_fn_%d\t[mod%d]\n", 0xffffffffc0000000+uint64(i)*0x80, i, i%7)
	}
	return b.Bytes()
}

func TestParseKallsymsAgrees(t *testing.T) {
	inputs := []string{
		kallsymsSample,
		string(bigKallsyms(5000)),
		"ffffffff81000000 T a\r\nffffffff81000010 t b \t [m]\r\n\r\n",
		"ffffffff81000000 T a x y z\n",
		"ffffffff81000000 T a\t[m]\u00a0x\n",
		"ffffffff81000000 T a\u00a0[m]\n",
		"ffffffff81000000 T  a\n",
		"ffffffff81000000 T a  \t \n",
		"ffffffff8100000g T a\n",
		"FFFFFFFF81000000 t A\t[mod]\n",
		"0000000000000000 T a\n",
		"ffffffff81000000\u00a0T\u00a0a\n",
		"ffffffff81000000 TT a\n",
		"ffffffff81000000 T\n",
		"0x10 T a\n",
		"ffffffff81000020 T b\nffffffff81000000 T a\nffffffff81000010 W c\n",
		"\n\n",
		"",
	}
	// Out of order (Table.finish's sort, against the compact table's).
	lines := bytes.SplitAfter(bigKallsyms(3000), []byte("\n"))
	slices.Reverse(lines)
	inputs = append(inputs, string(bytes.Join(lines, nil)))
	for _, in := range inputs {
		got, gerr := ParseKallsyms([]byte(in))
		want, werr := parseKallsymsFields([]byte(in))
		if fmt.Sprint(gerr) != fmt.Sprint(werr) || !reflect.DeepEqual(got, want) {
			t.Errorf("%.60q: got %v (%v), want %v (%v)", in, got, gerr, want, werr)
		}
	}
}

// TestReadKallsymsAgrees: the compact table finds what the full one finds, at each symbol's
// first and last byte, the bytes around them and far off, and lists the same symbols.
func TestReadKallsymsAgrees(t *testing.T) {
	inputs := [][]byte{[]byte(kallsymsSample), bigKallsyms(5000),
		[]byte("ffffffff81000020 T b\nffffffff81000000 T _a\nffffffff81000000 t a\tmod\nffffffff81000010 W c\n"),
		[]byte("fffffffffffff000 T top\n"), []byte("ffffffff81000000 T " + strings.Repeat("x", 70000) + "\nffffffff81000100 t y\n")}
	if data, err := os.ReadFile("/proc/kallsyms"); err == nil {
		inputs = append(inputs, data)
	}
	// Out of order across several blocks of the compact table.
	lines := bytes.SplitAfter(bigKallsyms(30000), []byte("\n"))
	slices.Reverse(lines)
	inputs = append(inputs, bytes.Join(lines, nil))
	for _, in := range inputs {
		compareKallsyms(t, in)
	}
}

// compareKallsyms checks ReadKallsyms against ParseKallsyms on in.
func compareKallsyms(t *testing.T, in []byte) {
	full, ferr := ParseKallsyms(in)
	// A reader giving a few bytes a call: lines cross its reads and the reader's buffer.
	small, serr := ReadKallsyms(iotest.HalfReader(bytes.NewReader(in)))
	if fmt.Sprint(ferr) != fmt.Sprint(serr) {
		t.Fatalf("%.40q: errors %v and %v", in, ferr, serr)
	}
	if ferr != nil {
		return
	}
	if len(small.Syms) != 0 || !reflect.DeepEqual(small.Symbols(), full.Syms) && len(full.Syms) > 0 {
		t.Fatalf("%.40q: Symbols() differ from ParseKallsyms's", in)
	}
	probe := []uint64{0, 1, ^uint64(0)}
	for _, s := range full.Syms {
		probe = append(probe, s.Addr-1, s.Addr, s.Addr+1, s.End()-1, s.End())
	}
	for _, a := range probe {
		x, y := full.Lookup(a), small.Lookup(a)
		if (x == nil) != (y == nil) || x != nil && *x != *y {
			t.Fatalf("%.40q: Lookup(%#x) = %v, want %v", in, a, y, x)
		}
		if y != nil && small.Lookup(a) != y {
			t.Fatalf("Lookup(%#x) made a second Sym", a)
		}
	}
}

// BenchmarkParseKallsyms: a kernel's worth of /proc/kallsyms (about 150k lines).
// go test -bench ParseKallsyms ./internal/symbol
func BenchmarkParseKallsyms(b *testing.B) {
	data := bigKallsyms(140000)
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := ReadKallsyms(bytes.NewReader(data)); err != nil {
			b.Fatal(err)
		}
	}
}

// TestKallsymsAliasIsPerfs: of the names kallsyms gives one address, perf 6.1 reports the
// last (it sizes the symbols before it chooses, so only the last has a length): a sample in
// sh's memcpy showed as __pi_memcpy in perf report and as memcpy in pmc's before.
func TestKallsymsAliasIsPerfs(t *testing.T) {
	tab, err := ParseKallsymsText("ffffffff821f64a0 T memcpy\nffffffff821f64a0 T __memcpy\nffffffff821f64a0 T __pi_memcpy\nffffffff821f6500 T next\n")
	if err != nil {
		t.Fatal(err)
	}
	if s := tab.Lookup(0xffffffff821f64b0); s == nil || s.Name != "__pi_memcpy" {
		t.Errorf("Lookup in the aliased function: %+v, want __pi_memcpy", s)
	}
	r, err := ReadKallsyms(strings.NewReader("ffffffff821f64a0 T memcpy\nffffffff821f64a0 W __memcpy\nffffffff821f64a0 t __pi_memcpy\n"))
	if err != nil {
		t.Fatal(err)
	}
	if s := r.Lookup(0xffffffff821f64a0); s == nil || s.Name != "__pi_memcpy" {
		t.Errorf("compact table: %+v, want __pi_memcpy", s)
	}
}
