package symbol

import (
	"debug/elf"
	"errors"
	"fmt"
	"io"
)

// FrameSections are the unwind tables of one object, as its ELF files hold them (the
// binary's .eh_frame, .eh_frame_hdr and ARM exception tables; .debug_frame from the binary
// or its separate debug file), or as a symbol archive kept them: what package unwind
// parses.
type FrameSections struct {
	Machine    elf.Machine
	Class      elf.Class
	EHFrame    Section
	EHFrameHdr Section
	DebugFrame Section
	ARMExidx   Section
	ARMExtab   Section
}

// Section is a section's bytes and the address it is loaded at (0 for .debug_frame).
type Section struct {
	Addr uint64
	Data []byte
}

// maxFrameSection bounds one unwind section read from a file (libc's .eh_frame is 150 KB).
const maxFrameSection = 64 << 20

// frameSections are the sections FrameSections holds, by name.
func (s *FrameSections) byName() map[string]*Section {
	return map[string]*Section{".eh_frame": &s.EHFrame, ".eh_frame_hdr": &s.EHFrameHdr,
		".debug_frame": &s.DebugFrame, ".ARM.exidx": &s.ARMExidx, ".ARM.extab": &s.ARMExtab}
}

// Empty says s holds no table.
func (s *FrameSections) Empty() bool {
	return s == nil || len(s.EHFrame.Data)+len(s.DebugFrame.Data)+len(s.ARMExidx.Data) == 0
}

// ReadFrameSections reads the unwind sections of an ELF file (those it has; a debug file's
// .eh_frame is NOBITS and left out).
func ReadFrameSections(r io.ReaderAt) (*FrameSections, error) {
	f, err := elf.NewFile(r)
	if err != nil {
		return nil, fmt.Errorf("not an ELF file: %w", err)
	}
	defer f.Close()
	s := &FrameSections{Machine: f.Machine, Class: f.Class}
	for name, sec := range s.byName() {
		es := f.Section(name)
		if es == nil || es.Type == elf.SHT_NOBITS || es.Size == 0 {
			continue
		}
		if es.Size > maxFrameSection {
			return nil, fmt.Errorf("%s of %d bytes", name, es.Size)
		}
		data, err := es.Data()
		if err != nil {
			return nil, fmt.Errorf("reading %s: %w", name, err)
		}
		*sec = Section{Addr: es.Addr, Data: data}
	}
	return s, nil
}

type framesEntry struct {
	s   *FrameSections
	err error
}

// Frames returns the unwind tables of the object t describes, read once: from the
// archive's copy when t came from an archive, else from t.Path under FS (its build-id
// checked), with .debug_frame from its separate debug file when the binary has none.
func (r *Resolver) Frames(t *Table) (*FrameSections, error) {
	if t == nil {
		return nil, errors.New("no symbols")
	}
	r.framesMu.Lock()
	defer r.framesMu.Unlock()
	if e, ok := r.frames[t]; ok {
		return e.s, e.err
	}
	s, err := r.readFrames(t)
	if err == nil && s.Empty() {
		s, err = nil, errors.New("no unwind tables (.eh_frame, .debug_frame, .ARM.exidx)")
	}
	if r.frames == nil {
		r.frames = map[*Table]framesEntry{}
	}
	r.frames[t] = framesEntry{s, err}
	return s, err
}

func (r *Resolver) readFrames(t *Table) (*FrameSections, error) {
	switch {
	case t.Frames != nil:
		return t.Frames, nil
	case t.Kind == KindKernel || t.Kind == KindPerfMap:
		return nil, errors.New("kernel and JIT code are not unwound")
	case t.Source == "archive":
		return nil, errors.New("the symbol archive keeps no unwind tables for it (pmc record --call-graph dwarf --embed-symbols keeps them)")
	case r.FS == nil:
		return nil, errors.New("no filesystem")
	}
	ra, closer, err := r.readerAt(t.Path)
	if err != nil {
		return nil, err
	}
	defer closer()
	info, err := ReadELFInfo(ra)
	if err != nil {
		return nil, err
	}
	if t.BuildID != "" && info.BuildID != "" && info.BuildID != t.BuildID {
		return nil, fmt.Errorf("%s: build-id %s, the recording saw %s", t.Path, info.BuildID, t.BuildID)
	}
	s, err := ReadFrameSections(ra)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", t.Path, err)
	}
	if len(s.DebugFrame.Data) == 0 {
		r.eachDebugFile(t.Path, info, func(dra io.ReaderAt, _ string, closer func()) bool {
			defer closer()
			ds, err := ReadFrameSections(dra)
			if err != nil || ds.Machine != s.Machine {
				return false
			}
			s.DebugFrame = ds.DebugFrame
			return true
		})
	}
	return s, nil
}
