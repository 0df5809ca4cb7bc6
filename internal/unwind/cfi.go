package unwind

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
)

// cfi is one section of DWARF call frame information: .eh_frame (LSB's variant: CIE id 0,
// CIE pointers relative to themselves, augmentations, encoded pointers) or .debug_frame
// (DWARF 5 section 6.4.1).
type cfi struct {
	data []byte
	addr uint64 // the section's address: .eh_frame's pc-relative pointers count from it
	eh   bool
	word int // the object's address size
	hdr  *ehHdr
	// index is every FDE by start address, built on the first lookup that has no
	// .eh_frame_hdr table to search.
	index    []fdeSpan
	indexErr error
	indexed  bool
	cies     map[int]*cie
}

type fdeSpan struct {
	start, end uint64
	off        int
}

// cie is a Common Information Entry.
type cie struct {
	version   uint8
	codeAlign uint64
	dataAlign int64
	ra        uint64
	fdeEnc    uint8 // 'R': how FDEs encode their addresses
	zAug      bool  // 'z': FDEs have augmentation data
	signal    bool  // 'S': a signal handler's frame
	word      int
	initial   []byte
}

// fde is a Frame Description Entry.
type fde struct {
	cie        *cie
	start, end uint64
	insns      []byte
}

var errNoFDE = errors.New("no FDE covers the address")

// maxCIEs bounds the CIEs kept per section (a real object has a handful).
const maxCIEs = 1 << 12

// entryAt reads the header of the entry at off: its body (after the CIE id or pointer),
// the id field's value and offset, whether it is 64-bit DWARF, and the next entry's
// offset. A zero length (eh_frame's terminator) gives body nil.
func (c *cfi) entryAt(off int) (body []byte, id uint64, idOff int, is64 bool, next int, err error) {
	r := &reader{b: c.data, pos: off}
	length := uint64(r.u32())
	if length == 0xffffffff {
		length, is64 = r.u64(), true
	}
	if r.err != nil {
		return nil, 0, 0, false, 0, r.err
	}
	if length == 0 {
		return nil, 0, 0, is64, r.pos, nil
	}
	start := r.pos
	if length > uint64(len(c.data)-start) {
		return nil, 0, 0, false, 0, errTruncated
	}
	next = start + int(length)
	idOff = r.pos
	idSize := 4
	if is64 {
		idSize = 8
	}
	id = r.word(idSize)
	if r.err != nil || r.pos > next {
		return nil, 0, 0, false, 0, errTruncated
	}
	return c.data[r.pos:next], id, idOff, is64, next, nil
}

func (c *cfi) isCIE(id uint64, is64 bool) bool {
	switch {
	case c.eh:
		return id == 0
	case is64:
		return id == ^uint64(0)
	}
	return id == 0xffffffff
}

// cieAt parses (once) the CIE at off.
func (c *cfi) cieAt(off int) (*cie, error) {
	if e, ok := c.cies[off]; ok {
		return e, nil
	}
	body, id, _, is64, _, err := c.entryAt(off)
	if err != nil {
		return nil, err
	}
	if body == nil || !c.isCIE(id, is64) {
		return nil, fmt.Errorf("no CIE at offset %#x", off)
	}
	e := &cie{word: c.word, fdeEnc: peAbsptr}
	r := &reader{b: body}
	e.version = r.u8()
	aug := r.cstring()
	if e.version >= 4 {
		e.word = int(r.u8())
		r.u8() // segment selector size
		if e.word != 4 && e.word != 8 {
			return nil, fmt.Errorf("CIE at %#x: address size %d", off, e.word)
		}
	}
	e.codeAlign = r.uleb()
	e.dataAlign = r.sleb()
	if e.version == 1 {
		e.ra = uint64(r.u8())
	} else {
		e.ra = r.uleb()
	}
	if r.err != nil {
		return nil, fmt.Errorf("CIE at %#x: %w", off, r.err)
	}
	if e.version != 1 && e.version != 3 && e.version != 4 {
		return nil, fmt.Errorf("CIE at %#x: version %d", off, e.version)
	}
	if aug != "" {
		if aug[0] != 'z' {
			return nil, fmt.Errorf("CIE at %#x: augmentation %q", off, aug)
		}
		e.zAug = true
		n := r.uleb()
		data := r.block(n)
		if r.err != nil {
			return nil, fmt.Errorf("CIE at %#x: %w", off, r.err)
		}
		ar := &reader{b: data}
		for _, ch := range aug[1:] {
			switch ch {
			case 'R':
				e.fdeEnc = ar.u8()
			case 'L':
				ar.u8() // the LSDA's encoding: FDEs' augmentation data is skipped whole
			case 'P':
				enc := ar.u8()
				if _, err := ar.ptr(enc&^peIndir, e.word, 0, 0); err != nil {
					return nil, fmt.Errorf("CIE at %#x: personality: %w", off, err)
				}
			case 'S':
				e.signal = true
			case 'B', 'G':
				// arm64: B-key pointer authentication, MTE-tagged frames: no data.
			default:
				// Unknown: the rest of the data is its; stop reading it.
			}
			if ar.err != nil {
				return nil, fmt.Errorf("CIE at %#x: augmentation data: %w", off, ar.err)
			}
		}
	}
	e.initial = body[r.pos:]
	if len(c.cies) < maxCIEs {
		if c.cies == nil {
			c.cies = map[int]*cie{}
		}
		c.cies[off] = e
	}
	return e, nil
}

// fdeAt parses the FDE at off (its CIE too).
func (c *cfi) fdeAt(off int) (*fde, error) {
	body, id, idOff, is64, next, err := c.entryAt(off)
	if err != nil {
		return nil, err
	}
	if body == nil || c.isCIE(id, is64) {
		return nil, fmt.Errorf("no FDE at offset %#x", off)
	}
	cieOff := int(id)
	if c.eh {
		cieOff = idOff - int(id)
	}
	if id > uint64(len(c.data)) || cieOff < 0 || cieOff >= len(c.data) || cieOff == off {
		return nil, fmt.Errorf("FDE at %#x: its CIE pointer %#x is outside the section", off, id)
	}
	e, err := c.cieAt(cieOff)
	if err != nil {
		return nil, err
	}
	bodyStart := next - len(body)
	r := &reader{b: c.data[:next], pos: bodyStart}
	f := &fde{cie: e}
	enc := e.fdeEnc
	if !c.eh {
		enc = peAbsptr
	}
	f.start, err = r.ptr(enc, e.word, c.addr, 0)
	if err != nil {
		return nil, fmt.Errorf("FDE at %#x: %w", off, err)
	}
	size, err := r.ptr(enc&0x0f, e.word, c.addr, 0)
	if err != nil {
		return nil, fmt.Errorf("FDE at %#x: %w", off, err)
	}
	f.end = f.start + size
	if c.eh && e.zAug {
		r.block(r.uleb())
	}
	if r.err != nil {
		return nil, fmt.Errorf("FDE at %#x: %w", off, r.err)
	}
	f.insns = c.data[r.pos:next]
	return f, nil
}

// maxEntries bounds the entries an index is built from.
const maxEntries = 1 << 22

// buildIndex lists every FDE of the section, sorted by start address.
func (c *cfi) buildIndex() error {
	c.indexed = true
	var idx []fdeSpan
	for off, n := 0, 0; off < len(c.data) && n < maxEntries; n++ {
		body, id, _, is64, next, err := c.entryAt(off)
		if err != nil {
			if len(idx) > 0 {
				break // keep what came before a damaged entry
			}
			return err
		}
		if body != nil && !c.isCIE(id, is64) {
			if f, err := c.fdeAt(off); err == nil && f.end > f.start {
				idx = append(idx, fdeSpan{f.start, f.end, off})
			}
		}
		if body == nil && c.eh {
			break // the terminator
		}
		off = next
	}
	slices.SortFunc(idx, func(a, b fdeSpan) int { return cmp.Compare(a.start, b.start) })
	c.index = idx
	return nil
}

// find returns the FDE covering pc (an address of the object's own space).
func (c *cfi) find(pc uint64) (*fde, error) {
	if c.hdr != nil {
		off, ok := c.hdr.lookup(pc)
		if !ok {
			return nil, errNoFDE
		}
		f, err := c.fdeAt(off)
		if err != nil {
			return nil, err
		}
		if pc < f.start || pc >= f.end {
			return nil, errNoFDE
		}
		return f, nil
	}
	if !c.indexed {
		c.indexErr = c.buildIndex()
	}
	if c.indexErr != nil {
		return nil, c.indexErr
	}
	i, _ := slices.BinarySearchFunc(c.index, pc, func(s fdeSpan, pc uint64) int {
		if s.start > pc {
			return 1
		}
		return -1
	})
	// Entries may overlap (a broken table): the last one starting at or before pc that
	// covers it.
	for j := i - 1; j >= 0 && j >= i-4; j-- {
		if s := c.index[j]; pc < s.end {
			return c.fdeAt(s.off)
		}
	}
	return nil, errNoFDE
}

// ehHdr is .eh_frame_hdr's binary search table (LSB 3.0 section 10.6.2).
type ehHdr struct {
	data   []byte // the table
	enc    uint8
	size   int // bytes per entry
	count  int
	addr   uint64 // the section's address (data-relative entries count from it)
	frame  uint64 // .eh_frame's address
	word   int
	offset int // the table's offset in the section
}

// parseHdr reads an .eh_frame_hdr at addr whose .eh_frame is at frameAddr; nil when it
// has no usable table (the caller indexes .eh_frame itself).
func parseHdr(b []byte, addr, frameAddr uint64, word int) *ehHdr {
	r := &reader{b: b}
	if r.u8() != 1 {
		return nil
	}
	framePtrEnc, countEnc, tableEnc := r.u8(), r.u8(), r.u8()
	ptr, err := r.ptr(framePtrEnc, word, addr, addr)
	if err != nil || ptr != frameAddr {
		return nil
	}
	if countEnc == peOmit || tableEnc == peOmit {
		return nil
	}
	n, err := r.ptr(countEnc, word, addr, addr)
	if err != nil {
		return nil
	}
	var size int
	switch tableEnc & 0x0f {
	case peUdata4, peSdata4:
		size = 8
	case peUdata8, peSdata8:
		size = 16
	default:
		return nil
	}
	if tableEnc&0x70 != peDataRel && tableEnc&0x70 != 0 {
		return nil
	}
	if n > uint64(len(b)-r.pos)/uint64(size) {
		return nil
	}
	return &ehHdr{data: b, enc: tableEnc, size: size, count: int(n), addr: addr, frame: frameAddr, word: word, offset: r.pos}
}

// entry reads the table's i-th entry: the start address and the FDE's address.
func (h *ehHdr) entry(i int) (start, fdeAddr uint64) {
	r := &reader{b: h.data, pos: h.offset + i*h.size}
	start, _ = r.ptr(h.enc, h.word, h.addr, h.addr)
	fdeAddr, _ = r.ptr(h.enc, h.word, h.addr, h.addr)
	return start, fdeAddr
}

// lookup returns the .eh_frame offset of the FDE of the last entry starting at or before
// pc.
func (h *ehHdr) lookup(pc uint64) (int, bool) {
	lo, hi := 0, h.count
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if s, _ := h.entry(m); s <= pc {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo == 0 {
		return 0, false
	}
	_, fa := h.entry(lo - 1)
	if fa < h.frame || fa-h.frame > 1<<31 {
		return 0, false
	}
	return int(fa - h.frame), true
}
