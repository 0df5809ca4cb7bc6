package unwind

import (
	"errors"
	"fmt"
)

// ruleKind is how a register of the caller's frame is found (DWARF 5 section 6.4.1).
type ruleKind uint8

const (
	ruleSame      ruleKind = iota // unchanged (also: no rule given)
	ruleUndefined                 // not recoverable; for the return address: the outermost frame
	ruleOffset                    // saved at CFA+off
	ruleValOffset                 // is CFA+off
	ruleRegister                  // is in register reg
	ruleExpr                      // saved at the address expr computes (CFA pushed first)
	ruleValExpr                   // is the value expr computes (CFA pushed first)
)

type rule struct {
	kind ruleKind
	reg  uint16
	off  int64
	expr []byte
}

// row is the unwind rules at one address: how to find the CFA and every tracked register.
type row struct {
	cfaReg   uint16
	cfaOff   int64
	cfaExpr  []byte // when not nil, the CFA is this expression's value
	regs     [maxRegs]rule
	ra       int  // the return address column
	signal   bool // the frame of a signal handler's trampoline ('S')
	raSigned bool // arm64: the return address is signed (pointer authentication)
}

// DWARF call frame instructions.
const (
	cfaAdvanceLoc        = 0x40 // high two bits
	cfaOffset            = 0x80
	cfaRestore           = 0xc0
	cfaNop               = 0x00
	cfaSetLoc            = 0x01
	cfaAdvanceLoc1       = 0x02
	cfaAdvanceLoc2       = 0x03
	cfaAdvanceLoc4       = 0x04
	cfaOffsetExtended    = 0x05
	cfaRestoreExtended   = 0x06
	cfaUndefined         = 0x07
	cfaSameValue         = 0x08
	cfaRegister          = 0x09
	cfaRememberState     = 0x0a
	cfaRestoreState      = 0x0b
	cfaDefCFA            = 0x0c
	cfaDefCFARegister    = 0x0d
	cfaDefCFAOffset      = 0x0e
	cfaDefCFAExpression  = 0x0f
	cfaExpression        = 0x10
	cfaOffsetExtendedSF  = 0x11
	cfaDefCFASF          = 0x12
	cfaDefCFAOffsetSF    = 0x13
	cfaValOffset         = 0x14
	cfaValOffsetSF       = 0x15
	cfaValExpression     = 0x16
	cfaGNUWindowSave     = 0x2d // arm64: DW_CFA_AARCH64_negate_ra_state
	cfaGNUArgsSize       = 0x2e
	cfaGNUNegOffsetExtSF = 0x2f
)

// maxRemembered bounds DW_CFA_remember_state's stack.
const maxRemembered = 64

var errBadCFA = errors.New("corrupt call frame instructions")

// rowAt runs f's CIE's initial instructions, then f's own, up to pc: the rules in force at
// pc. arch says which registers are tracked (others' rules are read and dropped).
func (c *cfi) rowAt(f *fde, pc uint64, arch Arch) (*row, error) {
	e := f.cie
	r := &row{ra: int(e.ra), signal: e.signal}
	if r.ra >= archs[arch].nregs || e.ra >= maxRegs {
		return nil, fmt.Errorf("the return address is in register %d", e.ra)
	}
	in := interp{c: c, cie: e, arch: arch, loc: f.start, pc: pc}
	if err := in.run(e.initial, r, nil); err != nil {
		return nil, err
	}
	initial := *r
	if err := in.run(f.insns, r, &initial); err != nil {
		return nil, err
	}
	return r, nil
}

type interp struct {
	c       *cfi
	cie     *cie
	arch    Arch
	loc, pc uint64
	done    bool // an advance went past pc
	stack   []row
}

// run interprets insns into r; initial is the row after the CIE's instructions (nil while
// running them), what DW_CFA_restore goes back to.
func (in *interp) run(insns []byte, r *row, initial *row) error {
	rd := &reader{b: insns}
	e := in.cie
	nregs := archs[in.arch].nregs
	set := func(reg uint64, ru rule) {
		if reg < uint64(nregs) {
			r.regs[reg] = ru
		}
	}
	restore := func(reg uint64) {
		if reg < uint64(nregs) {
			if initial != nil {
				r.regs[reg] = initial.regs[reg]
			} else {
				r.regs[reg] = rule{}
			}
		}
	}
	advance := func(delta uint64) {
		in.loc += delta * e.codeAlign
		if in.loc > in.pc {
			in.done = true
		}
	}
	for rd.pos < len(rd.b) && !in.done {
		op := rd.u8()
		switch op & 0xc0 {
		case cfaAdvanceLoc:
			advance(uint64(op & 0x3f))
			continue
		case cfaOffset:
			set(uint64(op&0x3f), rule{kind: ruleOffset, off: int64(rd.uleb()) * e.dataAlign})
			continue
		case cfaRestore:
			restore(uint64(op & 0x3f))
			continue
		}
		switch op {
		case cfaNop:
		case cfaSetLoc:
			enc := uint8(peAbsptr)
			if in.c.eh {
				enc = e.fdeEnc
			}
			loc, err := rd.ptr(enc, e.word, 0, 0)
			if err != nil {
				return err
			}
			if enc&0x70 == pePCRel {
				return errBadCFA // a pc-relative DW_CFA_set_loc: never emitted
			}
			in.loc = loc
			if in.loc > in.pc {
				in.done = true
			}
		case cfaAdvanceLoc1:
			advance(uint64(rd.u8()))
		case cfaAdvanceLoc2:
			advance(uint64(rd.u16()))
		case cfaAdvanceLoc4:
			advance(uint64(rd.u32()))
		case cfaOffsetExtended:
			reg := rd.uleb()
			set(reg, rule{kind: ruleOffset, off: int64(rd.uleb()) * e.dataAlign})
		case cfaRestoreExtended:
			restore(rd.uleb())
		case cfaUndefined:
			set(rd.uleb(), rule{kind: ruleUndefined})
		case cfaSameValue:
			set(rd.uleb(), rule{kind: ruleSame})
		case cfaRegister:
			reg, reg2 := rd.uleb(), rd.uleb()
			if reg2 >= maxRegs {
				return fmt.Errorf("register %d in register %d: not tracked", reg, reg2)
			}
			set(reg, rule{kind: ruleRegister, reg: uint16(reg2)})
		case cfaRememberState:
			if len(in.stack) >= maxRemembered {
				return errBadCFA
			}
			in.stack = append(in.stack, *r)
		case cfaRestoreState:
			if len(in.stack) == 0 {
				return errBadCFA
			}
			// The CFA rule is restored too, as GCC and LLVM's unwinders do.
			*r = in.stack[len(in.stack)-1]
			in.stack = in.stack[:len(in.stack)-1]
		case cfaDefCFA:
			reg, off := rd.uleb(), rd.uleb()
			r.cfaReg, r.cfaOff, r.cfaExpr = uint16(min(reg, 0xffff)), int64(off), nil
		case cfaDefCFASF:
			reg, off := rd.uleb(), rd.sleb()
			r.cfaReg, r.cfaOff, r.cfaExpr = uint16(min(reg, 0xffff)), off*e.dataAlign, nil
		case cfaDefCFARegister:
			r.cfaReg, r.cfaExpr = uint16(min(rd.uleb(), 0xffff)), nil
		case cfaDefCFAOffset:
			r.cfaOff = int64(rd.uleb())
		case cfaDefCFAOffsetSF:
			r.cfaOff = rd.sleb() * e.dataAlign
		case cfaDefCFAExpression:
			r.cfaExpr = rd.block(rd.uleb())
			if r.cfaExpr == nil {
				r.cfaExpr = []byte{}
			}
		case cfaExpression:
			reg := rd.uleb()
			set(reg, rule{kind: ruleExpr, expr: rd.block(rd.uleb())})
		case cfaOffsetExtendedSF:
			reg := rd.uleb()
			set(reg, rule{kind: ruleOffset, off: rd.sleb() * e.dataAlign})
		case cfaValOffset:
			reg := rd.uleb()
			set(reg, rule{kind: ruleValOffset, off: int64(rd.uleb()) * e.dataAlign})
		case cfaValOffsetSF:
			reg := rd.uleb()
			set(reg, rule{kind: ruleValOffset, off: rd.sleb() * e.dataAlign})
		case cfaValExpression:
			reg := rd.uleb()
			set(reg, rule{kind: ruleValExpr, expr: rd.block(rd.uleb())})
		case cfaGNUArgsSize:
			rd.uleb()
		case cfaGNUNegOffsetExtSF:
			reg := rd.uleb()
			set(reg, rule{kind: ruleOffset, off: -int64(rd.uleb()) * e.dataAlign})
		case cfaGNUWindowSave:
			if in.arch != ARM64 {
				return fmt.Errorf("DW_CFA_GNU_window_save (SPARC) in %v code", in.arch)
			}
			r.raSigned = !r.raSigned
		default:
			return fmt.Errorf("call frame instruction %#x", op)
		}
		if rd.err != nil {
			return fmt.Errorf("%w: %v", errBadCFA, rd.err)
		}
	}
	if rd.err != nil {
		return fmt.Errorf("%w: %v", errBadCFA, rd.err)
	}
	return nil
}
