package unwind

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// MaxFrames is the most frames a chain has: perf report's limit
// (kernel.perf_event_max_stack's default).
const MaxFrames = 127

// Reason says why a chain ends.
type Reason uint8

const (
	End       Reason = iota // the outermost frame: its tables say there is no caller
	NoMap                   // an address in no mapping of the process
	NoTables                // the object has no unwind tables pmc could read
	NoEntry                 // the object's tables do not cover the address
	StackEnd                // the caller's frame is beyond the stack copy
	BadTables               // the tables are corrupt or use what pmc does not read
	BadRegs                 // the registers are missing or not the code's architecture
	Depth                   // MaxFrames reached
	Loop                    // a step made no progress
)

// Stop is why and where a chain ended.
type Stop struct {
	Reason Reason
	Object string // the object of the last frame, "" when none
	Err    error  // the detail, for BadTables and BadRegs
}

// Normal says the chain reached its outermost frame.
func (s Stop) Normal() bool { return s.Reason == End }

// String says why the chain ended, for a note.
func (s Stop) String() string {
	in := ""
	if s.Object != "" {
		in = " in " + s.Object
	}
	switch s.Reason {
	case End:
		return "the outermost frame"
	case NoMap:
		return "an address in no mapping"
	case NoTables:
		return "no unwind tables for " + s.Object
	case NoEntry:
		return "an address the unwind tables do not cover" + in
	case StackEnd:
		return "the end of the stack copy (--call-graph dwarf,SIZE records more)"
	case BadTables:
		return fmt.Sprintf("unusable unwind tables%s: %v", in, s.Err)
	case BadRegs:
		return fmt.Sprintf("registers that do not fit%s: %v", in, s.Err)
	case Depth:
		return fmt.Sprintf("%d frames", MaxFrames)
	case Loop:
		return "a frame that unwinds to itself" + in
	}
	return "an unknown reason"
}

// Code is what the unwinder needs to know of an address: the tables of the object mapped
// there and the address in the object's own space (ELF virtual addresses).
type Code struct {
	Tables *Tables
	Rel    uint64
	Object string // its name, for notes
}

// Finder gives the code at a process address; ok false when no mapping covers it.
type Finder func(addr uint64) (c Code, ok bool)

// Stack is the copy of the user stack from the sampled stack pointer up.
type Stack struct {
	Base uint64 // the address of Data[0]
	Data []byte
}

var errStackRead = errors.New("a read outside the stack copy")

// read reads size bytes at addr, little endian. As perf's libunwind reader, the copy's
// last word is out of reach (a word is read only when it ends before the copy does).
func (s *Stack) read(addr uint64, size int) (uint64, bool) {
	if addr < s.Base || addr-s.Base >= uint64(len(s.Data)) || uint64(len(s.Data))-(addr-s.Base) <= uint64(size) {
		return 0, false
	}
	b := s.Data[addr-s.Base:]
	switch size {
	case 1:
		return uint64(b[0]), true
	case 2:
		return uint64(binary.LittleEndian.Uint16(b)), true
	case 4:
		return uint64(binary.LittleEndian.Uint32(b)), true
	case 8:
		return binary.LittleEndian.Uint64(b), true
	}
	return 0, false
}

// Unwind appends to out the frames of a sample of arch with registers regs and the copy
// of its stack from the stack pointer up: the sampled address, then for every caller the
// address of its call (the return address less one), as perf reports them. It stops at
// MaxFrames frames and says why the chain ended.
func Unwind(arch Arch, regs Regs, copied []byte, find Finder, out []uint64) ([]uint64, Stop) {
	if arch == ArchUnknown {
		return out, Stop{Reason: BadRegs, Err: errors.New("an architecture pmc does not unwind")}
	}
	ai := archs[arch]
	pc, ok := regs.Get(ai.pc)
	sp, ok2 := regs.Get(ai.sp)
	if !ok || !ok2 {
		return out, Stop{Reason: BadRegs, Err: errors.New("no program counter or stack pointer")}
	}
	stack := Stack{Base: sp, Data: copied}
	mem := func(addr uint64, size int) (uint64, bool) { return stack.read(addr, size) }
	first := len(out)
	out = append(out, pc)
	exact := true // the frame's pc is where it stopped (the sample, or after a signal frame)
	for {
		lookup := pc
		if arch == ARM {
			lookup &^= 1
		}
		if !exact {
			lookup--
		}
		c, ok := find(lookup)
		if !ok {
			return out, Stop{Reason: NoMap}
		}
		if c.Tables == nil {
			return out, Stop{Reason: NoTables, Object: c.Object}
		}
		if c.Tables.arch != arch {
			return out, Stop{Reason: BadRegs, Object: c.Object,
				Err: fmt.Errorf("%v code, %v registers", c.Tables.arch, arch)}
		}
		p := c.Tables.plan(c.Rel)
		if p.err != nil {
			return out, planStop(p.err, c.Object)
		}
		var next Regs
		var err error
		if p.row != nil {
			next, err = cfiStep(arch, p.row, &regs, mem)
		} else {
			next, err = ehabiStep(p.ops, &regs, mem)
		}
		if err != nil {
			return out, stepStop(err, c.Object)
		}
		npc, ok := next.Get(ai.pc)
		if !ok {
			return out, Stop{Reason: End, Object: c.Object} // an undefined return address
		}
		if arch == ARM && npc&^1 == 0 || npc == 0 {
			return out, Stop{Reason: End, Object: c.Object}
		}
		osp, _ := regs.Get(ai.sp)
		nsp, _ := next.Get(ai.sp)
		if nsp == osp && npc == pc {
			return out, Stop{Reason: Loop, Object: c.Object}
		}
		if len(out)-first >= MaxFrames {
			return out, Stop{Reason: Depth}
		}
		// After a signal handler's trampoline, the interrupted pc is exact: its table is
		// looked up there. perf reports every caller at pc-1 all the same.
		exact = p.row != nil && p.row.signal
		regs, pc = next, npc
		ip := pc
		if arch == ARM {
			ip &^= 1
		}
		out = append(out, ip-1)
	}
}

func planStop(err error, object string) Stop {
	switch {
	case errors.Is(err, errCantUnwind):
		return Stop{Reason: End, Object: object}
	case errors.Is(err, errNoFDE):
		return Stop{Reason: NoEntry, Object: object}
	}
	return Stop{Reason: BadTables, Object: object, Err: err}
}

func stepStop(err error, object string) Stop {
	switch {
	case errors.Is(err, errStackRead):
		return Stop{Reason: StackEnd, Object: object}
	case errors.Is(err, errCantUnwind):
		return Stop{Reason: End, Object: object}
	case errors.Is(err, errRegs):
		return Stop{Reason: BadRegs, Object: object, Err: err}
	}
	return Stop{Reason: BadTables, Object: object, Err: err}
}

var errRegs = errors.New("a register the rules need is not known")

// cfiStep applies the rules r to the frame in regs: the caller's frame.
func cfiStep(arch Arch, r *row, regs *Regs, mem func(addr uint64, size int) (uint64, bool)) (Regs, error) {
	ai := archs[arch]
	var cfa uint64
	if r.cfaExpr != nil {
		v, err := eval(r.cfaExpr, nil, regs, mem, ai.word)
		if err != nil {
			return Regs{}, err
		}
		cfa = v
	} else {
		v, ok := regs.Get(int(r.cfaReg))
		if !ok {
			return Regs{}, fmt.Errorf("%w: the CFA comes from register %d", errRegs, r.cfaReg)
		}
		cfa = v + uint64(r.cfaOff)
	}
	if ai.word == 4 {
		cfa &= 0xffffffff
	}
	next := *regs
	raKnown := true
	for n := 0; n < ai.nregs; n++ {
		ru := r.regs[n]
		switch ru.kind {
		case ruleSame:
			continue
		case ruleUndefined:
			next.forget(n)
			if n == r.ra {
				raKnown = false
			}
		case ruleOffset, ruleValOffset:
			a := cfa + uint64(ru.off)
			if ru.kind == ruleValOffset {
				next.Set(n, a)
				continue
			}
			v, ok := mem(a, ai.word)
			if !ok && n == r.ra {
				return Regs{}, errStackRead
			}
			if !ok {
				// As libunwind, which reads a saved register only when it needs it: a
				// register saved out of reach is not known, and fails the unwinding only
				// if a later frame needs it.
				next.forget(n)
				continue
			}
			next.Set(n, v)
		case ruleRegister:
			v, ok := regs.Get(int(ru.reg))
			if !ok {
				next.forget(n)
				continue
			}
			next.Set(n, v)
		case ruleExpr, ruleValExpr:
			v, err := eval(ru.expr, []uint64{cfa}, regs, mem, ai.word)
			if err != nil {
				return Regs{}, err
			}
			if ru.kind == ruleExpr {
				var ok bool
				if v, ok = mem(v, ai.word); !ok {
					if n == r.ra {
						return Regs{}, errStackRead
					}
					next.forget(n)
					continue
				}
			}
			next.Set(n, v)
		}
	}
	if r.regs[ai.sp].kind == ruleSame {
		next.Set(ai.sp, cfa) // the caller's stack pointer is the CFA
	}
	if !raKnown {
		next.forget(ai.pc)
		return next, nil
	}
	ra, ok := next.Get(r.ra)
	if !ok {
		return Regs{}, fmt.Errorf("%w: the return address (register %d)", errRegs, r.ra)
	}
	if arch == ARM64 && r.raSigned {
		ra &= 1<<48 - 1 // a pointer authentication code in the top bits
	}
	next.Set(ai.pc, ra)
	return next, nil
}
