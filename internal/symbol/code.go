package symbol

import (
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"
)

// Code is machine code kept in a symbol archive: the bytes of a function that got samples,
// so pmc annotate can show it where the binary is gone or was rebuilt. Archive records:
//
//	machine N          (the ELF e_machine, decimal)
//	code ADDR HEX      (the bytes at ADDR of the DSO's address space, in hexadecimal)
//	map ADDR K         (an ARM mapping symbol inside kept code: a, t or d)
type Code struct {
	Addr  uint64
	Bytes []byte
}

// CodeMap is an ARM ELF mapping symbol ($a, $t, $d) of kept code.
type CodeMap struct {
	Addr uint64
	Kind byte
}

// CodeAt returns the kept bytes [addr, addr+size), ok false when no kept range holds them.
func (t *Table) CodeAt(addr, size uint64) ([]byte, bool) {
	if t == nil {
		return nil, false
	}
	for _, c := range t.Code {
		if addr >= c.Addr && addr+size <= c.Addr+uint64(len(c.Bytes)) {
			return c.Bytes[addr-c.Addr : addr-c.Addr+size], true
		}
	}
	return nil, false
}

func (t *Table) marshalCode(b *strings.Builder) {
	if len(t.Code) == 0 {
		return
	}
	fmt.Fprintf(b, "machine %d\n", t.Machine)
	for _, c := range t.Code {
		fmt.Fprintf(b, "code %x %s\n", c.Addr, hex.EncodeToString(c.Bytes))
	}
	for _, m := range t.CodeMaps {
		fmt.Fprintf(b, "map %x %c\n", m.Addr, m.Kind)
	}
}

// parseCode reads one code record (key machine, code or map); ok false for other keys.
func (t *Table) parseCode(key, rest string) (ok bool, err error) {
	switch key {
	case "machine":
		m, err := strconv.ParseUint(rest, 10, 16)
		if err != nil {
			return true, fmt.Errorf("bad machine %q", rest)
		}
		t.Machine = uint16(m)
	case "code":
		a, h, _ := strings.Cut(rest, " ")
		addr, err1 := strconv.ParseUint(a, 16, 64)
		b, err2 := hex.DecodeString(h)
		if err1 != nil || err2 != nil || len(b) == 0 {
			return true, fmt.Errorf("want code ADDR HEX")
		}
		t.Code = append(t.Code, Code{addr, b})
	case "map":
		a, k, _ := strings.Cut(rest, " ")
		addr, err := strconv.ParseUint(a, 16, 64)
		if err != nil || len(k) != 1 || !strings.Contains("atd", k) {
			return true, fmt.Errorf("want map ADDR a|t|d")
		}
		t.CodeMaps = append(t.CodeMaps, CodeMap{addr, k[0]})
	default:
		return false, nil
	}
	return true, nil
}
