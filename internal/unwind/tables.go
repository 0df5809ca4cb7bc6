package unwind

import (
	"errors"
	"fmt"

	"github.com/pmc-tools/pmc/internal/symbol"
)

// Tables are one object's unwind tables, parsed as lookups need them and the rules of each
// address kept once worked out. Not safe for concurrent use.
type Tables struct {
	arch Arch
	eh   *cfi // .eh_frame
	dbg  *cfi // .debug_frame
	ex   *exidx
	rows map[uint64]*plan
}

// plan is how to step out of a frame at one address: CFI rules, or EHABI instructions.
type plan struct {
	row *row
	ops []byte // EHABI
	err error
}

// maxPlans bounds the addresses whose plan a Tables keeps.
const maxPlans = 1 << 16

// NewTables returns the tables of the sections s (nil when s has none).
func NewTables(s *symbol.FrameSections) *Tables {
	if s == nil {
		return nil
	}
	t := &Tables{arch: ArchOfMachine(s.Machine), rows: map[uint64]*plan{}}
	word := 8
	if s.Class == 1 { // ELFCLASS32
		word = 4
	}
	if len(s.EHFrame.Data) > 0 {
		t.eh = &cfi{data: s.EHFrame.Data, addr: s.EHFrame.Addr, eh: true, word: word}
		if len(s.EHFrameHdr.Data) > 0 {
			t.eh.hdr = parseHdr(s.EHFrameHdr.Data, s.EHFrameHdr.Addr, s.EHFrame.Addr, word)
		}
	}
	if len(s.DebugFrame.Data) > 0 {
		t.dbg = &cfi{data: s.DebugFrame.Data, word: word}
	}
	if len(s.ARMExidx.Data) >= 8 && t.arch == ARM {
		t.ex = &exidx{idx: s.ARMExidx.Data[:len(s.ARMExidx.Data)&^7], idxAddr: s.ARMExidx.Addr,
			tab: s.ARMExtab.Data, tabAddr: s.ARMExtab.Addr}
	}
	if t.eh == nil && t.dbg == nil && t.ex == nil {
		return nil
	}
	return t
}

// plan finds how to step out of a frame at pc (the object's own address): the FDE of
// .eh_frame, else of .debug_frame (perf's libunwind's order), else on ARM the exception
// index.
func (t *Tables) plan(pc uint64) *plan {
	if p, ok := t.rows[pc]; ok {
		return p
	}
	p := t.findPlan(pc)
	if len(t.rows) < maxPlans {
		t.rows[pc] = p
	}
	return p
}

func (t *Tables) findPlan(pc uint64) *plan {
	var firstErr error
	for _, c := range []*cfi{t.eh, t.dbg} {
		if c == nil {
			continue
		}
		f, err := c.find(pc)
		if err == nil {
			r, err := c.rowAt(f, pc, t.arch)
			if err != nil {
				return &plan{err: fmt.Errorf("%w: %v", errBadTables, err)}
			}
			return &plan{row: r}
		}
		if !errors.Is(err, errNoFDE) && firstErr == nil {
			firstErr = err
		}
	}
	if t.ex != nil {
		ops, err := t.ex.opcodes(pc)
		switch {
		case err == nil:
			return &plan{ops: ops}
		case errors.Is(err, errCantUnwind):
			return &plan{err: errCantUnwind}
		case !errors.Is(err, errNoFDE) && firstErr == nil:
			firstErr = err
		}
	}
	if firstErr != nil {
		return &plan{err: fmt.Errorf("%w: %v", errBadTables, firstErr)}
	}
	return &plan{err: errNoFDE}
}

var errBadTables = errors.New("corrupt unwind table")
