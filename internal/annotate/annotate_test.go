package annotate

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pmc-tools/pmc/internal/disasm"
	"github.com/pmc-tools/pmc/internal/golden"
)

// synthetic gives every third instruction a period that varies along the function, and
// the instruction after each load a larger one (what skid does to a load that misses).
func synthetic(insts []disasm.Inst) map[uint64]uint64 {
	p := map[uint64]uint64{}
	for i, in := range insts {
		if i%3 == 0 {
			p[in.Addr] = uint64(i*37%11+1) * 1000
		}
		if i > 0 && insts[i-1].Class&disasm.Load != 0 {
			p[in.Addr] += uint64(i%5+1) * 10000
		}
	}
	return p
}

func TestGoldens(t *testing.T) {
	for _, s := range fixtureSpecs {
		t.Run(s.name, func(t *testing.T) {
			fx := loadFixture(t, s.name)
			insts, lines := fx.decode(t)
			periods := synthetic(insts)
			r := Build(Input{Symbol: fx.Symbol, Start: fx.Start, DSO: fx.DSO, Event: "cycles",
				Insts: insts, Periods: periods, Samples: uint64(len(periods)), Lines: lines,
				Sources: os.DirFS(filepath.Join("testdata", "src"))})
			var text, js bytes.Buffer
			if err := r.WriteText(&text, TextOptions{}); err != nil {
				t.Fatal(err)
			}
			if err := r.WriteJSON(&js); err != nil {
				t.Fatal(err)
			}
			golden.Check(t, filepath.Join("testdata", s.name+".txt"), text.Bytes())
			golden.Check(t, filepath.Join("testdata", s.name+".json.golden"), js.Bytes())
			// Every instruction is there once, and the percentages add up to 100.
			var sum float64
			for _, row := range r.Rows {
				sum += row.Percent
			}
			if len(r.Rows) != len(insts) || sum < 99.999 || sum > 100.001 {
				t.Errorf("%d rows for %d instructions, percentages sum to %f", len(r.Rows), len(insts), sum)
			}
			if !strings.Contains(text.String(), "<- skid?") || !strings.Contains(text.String(), "\n>") {
				t.Errorf("no skid note or hot mark in:\n%s", text.String())
			}
		})
	}
}

// TestSkidHotLines checks the marks on a hand-made x86-64 loop:
//
//	0: mov (%rax),%rdx   load
//	3: add $0x8,%rax     60 samples: skid from the load
//	7: div %rcx          long latency
//	a: add %rax,%rdx     30 samples: skid from the div
//	d: cmp %rax,%rcx     10 samples: no skid (add is neither)
func TestSkidHotLines(t *testing.T) {
	code := []byte{0x48, 0x8b, 0x10, 0x48, 0x83, 0xc0, 0x08, 0x48, 0xf7, 0xf1, 0x48, 0x01, 0xc2, 0x48, 0x39, 0xc1}
	insts := disasm.Decode(disasm.X86_64, 0x1000, code, nil)
	if len(insts) != 5 {
		t.Fatalf("decoded %d instructions: %+v", len(insts), insts)
	}
	src := map[uint64]int{0x1000: 10, 0x1003: 10, 0x1007: 11, 0x100a: 11, 0x100d: 12}
	r := Build(Input{Symbol: "f", Start: 0x1000, Insts: insts,
		Periods: map[uint64]uint64{0x1003: 60, 0x100b: 30, 0x100d: 10, 0x2000: 5},
		Lines:   func(a uint64) (string, int, bool) { l, ok := src[a]; return "/src/f.c", l, ok },
		Sources: fsOf("src/f.c", "l1\nl2\nl3\nl4\nl5\nl6\nl7\nl8\nl9\n\tx = *p;\n\tq /= d;\n\ti++;\n")})
	type want struct {
		period uint64
		hot    int
		skid   string
	}
	wants := []want{{0, 0, ""}, {60, 1, "load@1000"}, {0, 0, ""}, {30, 2, "long-latency@1007"}, {10, 3, ""}}
	for i, w := range wants {
		row := r.Rows[i]
		skid := ""
		if row.Skid != nil {
			skid = row.Skid.Reason + "@" + strings.TrimPrefix(fmtAddr(row.Skid.From), "0x")
		}
		if row.Period != w.period || row.Hot != w.hot || skid != w.skid {
			t.Errorf("row %d (%s): period %d hot %d skid %q, want %+v", i, row.Text, row.Period, row.Hot, skid, w)
		}
	}
	if r.TotalPeriod != 100 || r.Outside != 5 || r.Rows[1].Percent != 60 {
		t.Errorf("total %d outside %d percent %f", r.TotalPeriod, r.Outside, r.Rows[1].Percent)
	}
	if len(r.Lines) != 3 || r.Lines[0].Line != 10 || r.Lines[0].Percent != 60 || r.Lines[0].Text != "x = *p;" {
		t.Errorf("line totals: %+v", r.Lines)
	}
	var b bytes.Buffer
	if err := r.WriteText(&b, TextOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{
		">  60.00 :   1003: add    $0x8,%rax     <- skid? probably the cost of mov at 1000 (load)",
		">  30.00 :   100a: add    %rax,%rdx     <- skid? probably the cost of div at 1007 (long-latency)",
		"         :\t   10          x = *p;",
		"   60.00 | f.c:10  x = *p;",
		"period 5 of the samples fell outside f's",
	} {
		if !strings.Contains(b.String(), s) {
			t.Errorf("text lacks %q:\n%s", s, b.String())
		}
	}
}

// TestSkidAfterStore is the seed's case: a column walk whose stores miss (array2d's
// assign) puts its samples on the instruction after the store, the hottest of the function,
// and the skid note must point at the store as it does at a load (x86-64 and arm64).
func TestSkidAfterStore(t *testing.T) {
	le := func(ws ...uint32) []byte {
		var b []byte
		for _, w := range ws {
			b = append(b, byte(w), byte(w>>8), byte(w>>16), byte(w>>24))
		}
		return b
	}
	for _, c := range []struct {
		arch        disasm.Arch
		code        []byte
		store, next uint64
		op          string
	}{
		// mov %rdx,(%rax); add $0x200,%rax; sub $1,%rcx; jne 0
		{disasm.X86_64, []byte{0x48, 0x89, 0x10, 0x48, 0x05, 0x00, 0x02, 0x00, 0x00, 0x48, 0x83, 0xe9, 0x01, 0x75, 0xf1}, 0x1000, 0x1003, "mov"},
		// str x2, [x0]; add x0, x0, #0x200; subs x1, x1, #1; b.ne 0
		{disasm.ARM64, le(0xf9000002, 0x91080000, 0xf1000421, 0x54ffffa1), 0x1000, 0x1004, "str"},
	} {
		insts := disasm.Decode(c.arch, 0x1000, c.code, nil)
		if len(insts) != 4 {
			t.Fatalf("%v: decoded %d instructions: %+v", c.arch, len(insts), insts)
		}
		r := Build(Input{Symbol: "assign", Start: 0x1000, Insts: insts,
			Periods: map[uint64]uint64{c.next: 90, insts[2].Addr: 6, insts[3].Addr: 4}})
		row := r.Rows[1]
		if row.Hot != 1 || row.Skid == nil || row.Skid.Reason != "store" || uint64(row.Skid.From) != c.store || row.Skid.Op != c.op {
			t.Errorf("%v: hottest row %+v skid %+v, want a store skid from %x", c.arch, row, row.Skid, c.store)
		}
		var b bytes.Buffer
		r.WriteText(&b, TextOptions{})
		if want := fmt.Sprintf("<- skid? probably the cost of %s at %x (store)", c.op, c.store); !strings.Contains(b.String(), want) {
			t.Errorf("%v: text lacks %q:\n%s", c.arch, want, b.String())
		}
	}
}
