package symbol

import (
	"debug/elf"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"
)

// What an archive keeps for call graphs recorded with --call-graph dwarf (records of a
// table, after its code):
//
//	frames MACHINE CLASS          (the ELF e_machine and e_ident class, decimal)
//	fsec NAME ADDR OFF HEX        (bytes [OFF, OFF+len) of unwind section NAME, loaded at
//	                               ADDR: .eh_frame, .eh_frame_hdr, .debug_frame,
//	                               .ARM.exidx, .ARM.extab; in pieces of at most 32 KiB)
//	scope LO HI DEPTH NAME        (a DWARF function scope, Scope; hexadecimal range)
//	scope+ LO HI                  (another range of the scope before it)

const framePiece = 32 << 10

func (t *Table) marshalUnwind(b *strings.Builder) {
	if f := t.Frames; f != nil && !f.Empty() {
		fmt.Fprintf(b, "frames %d %d\n", f.Machine, f.Class)
		for _, name := range frameSectionNames {
			s := f.byName()[name]
			for off := 0; off < len(s.Data); off += framePiece {
				end := min(off+framePiece, len(s.Data))
				fmt.Fprintf(b, "fsec %s %x %x %s\n", name, s.Addr, off, hex.EncodeToString(s.Data[off:end]))
			}
		}
	}
	for _, s := range t.Scopes {
		if s.More {
			fmt.Fprintf(b, "scope+ %x %x\n", s.Lo, s.Hi)
			continue
		}
		name := strings.Map(func(r rune) rune {
			if r == '\n' || r == '\r' {
				return '?'
			}
			return r
		}, s.Name)
		fmt.Fprintf(b, "scope %x %x %d %s\n", s.Lo, s.Hi, s.Depth, name)
	}
}

// frameSectionNames is the order sections are written in.
var frameSectionNames = []string{".eh_frame_hdr", ".eh_frame", ".debug_frame", ".ARM.exidx", ".ARM.extab"}

// parseUnwind reads one record of marshalUnwind's; ok false for other keys.
func (t *Table) parseUnwind(key, rest string) (ok bool, err error) {
	switch key {
	case "frames":
		f := strings.Fields(rest)
		if len(f) != 2 {
			return true, fmt.Errorf("want frames MACHINE CLASS")
		}
		m, err1 := strconv.ParseUint(f[0], 10, 16)
		c, err2 := strconv.ParseUint(f[1], 10, 8)
		if err1 != nil || err2 != nil {
			return true, fmt.Errorf("want frames MACHINE CLASS")
		}
		t.Frames = &FrameSections{Machine: elf.Machine(m), Class: elf.Class(c)}
	case "fsec":
		f := strings.Fields(rest)
		if len(f) != 4 || t.Frames == nil {
			return true, fmt.Errorf("want fsec NAME ADDR OFF HEX after frames")
		}
		s, known := t.Frames.byName()[f[0]]
		addr, err1 := strconv.ParseUint(f[1], 16, 64)
		off, err2 := strconv.ParseUint(f[2], 16, 64)
		data, err3 := hex.DecodeString(f[3])
		if !known || err1 != nil || err2 != nil || err3 != nil || off != uint64(len(s.Data)) || off > 0 && addr != s.Addr {
			return true, fmt.Errorf("bad fsec record")
		}
		s.Addr, s.Data = addr, append(s.Data, data...)
	case "scope":
		f := strings.SplitN(rest, " ", 4)
		if len(f) != 4 {
			return true, fmt.Errorf("want scope LO HI DEPTH NAME")
		}
		v, err := hexFields(f[0]+" "+f[1], 2)
		d, err2 := strconv.Atoi(f[2])
		if err != nil || err2 != nil || d < 0 || d > 1<<10 || v[1] < v[0] {
			return true, fmt.Errorf("bad scope record")
		}
		t.Scopes = append(t.Scopes, Scope{Lo: v[0], Hi: v[1], Depth: d, Name: f[3]})
	case "scope+":
		v, err := hexFields(rest, 2)
		if err != nil || len(t.Scopes) == 0 || v[1] < v[0] {
			return true, fmt.Errorf("bad scope+ record")
		}
		prev := t.Scopes[len(t.Scopes)-1]
		t.Scopes = append(t.Scopes, Scope{Lo: v[0], Hi: v[1], Depth: prev.Depth, More: true, Name: prev.Name})
	default:
		return false, nil
	}
	return true, nil
}
