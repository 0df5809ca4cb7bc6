package symbol

import (
	"debug/dwarf"
	"debug/elf"
	"path"
	"sort"
)

// Lines is a DWARF line table flattened into rows sorted by address: the row with the
// greatest address not above a query covers it, unless it ends a sequence.
type Lines struct {
	Files []string
	Rows  []LineRow
}

// LineRow starts the source position File:Line at Addr; File -1 ends a sequence (no line
// for the addresses from Addr on).
type LineRow struct {
	Addr uint64
	File int32
	Line int32
}

// Lookup returns the source file and line of addr, or "", 0.
func (l *Lines) Lookup(addr uint64) (string, int) {
	if l == nil {
		return "", 0
	}
	i := sort.Search(len(l.Rows), func(i int) bool { return l.Rows[i].Addr > addr })
	if i == 0 {
		return "", 0
	}
	r := l.Rows[i-1]
	if r.File < 0 || int(r.File) >= len(l.Files) {
		return "", 0
	}
	return l.Files[r.File], int(r.Line)
}

func readLines(f *elf.File) (*Lines, error) {
	d, err := f.DWARF()
	if err != nil {
		return nil, err
	}
	l := &Lines{}
	fileIdx := map[string]int32{}
	rd := d.Reader()
	for {
		e, err := rd.Next()
		if err != nil {
			return nil, err
		}
		if e == nil {
			break
		}
		if e.Tag != dwarf.TagCompileUnit {
			rd.SkipChildren()
			continue
		}
		compDir, _ := e.Val(dwarf.AttrCompDir).(string)
		lr, err := d.LineReader(e)
		rd.SkipChildren()
		if err != nil || lr == nil {
			continue
		}
		l.addRows(lr, compDir, fileIdx)
	}
	l.sortRows()
	return l, nil
}

// addRows appends the rows of one unit's line program (lr), its relative file names joined
// to compDir; fileIdx indexes l.Files by name. A broken program keeps what it gave so far.
func (l *Lines) addRows(lr *dwarf.LineReader, compDir string, fileIdx map[string]int32) {
	var le dwarf.LineEntry
	for lr.Next(&le) == nil {
		row := LineRow{Addr: le.Address, File: -1}
		if !le.EndSequence && le.File != nil {
			name := le.File.Name
			if !path.IsAbs(name) && compDir != "" {
				name = path.Join(compDir, name)
			}
			idx, ok := fileIdx[name]
			if !ok {
				idx = int32(len(l.Files))
				fileIdx[name] = idx
				l.Files = append(l.Files, name)
			}
			row.File, row.Line = idx, int32(le.Line)
		}
		l.Rows = append(l.Rows, row)
	}
}

// sortRows orders rows by address; at one address a sequence's end comes before the rows
// of the sequence that starts there, and rows of one sequence keep their order.
func (l *Lines) sortRows() {
	sort.SliceStable(l.Rows, func(i, j int) bool {
		a, b := l.Rows[i], l.Rows[j]
		if a.Addr != b.Addr {
			return a.Addr < b.Addr
		}
		return a.File < 0 && b.File >= 0
	})
}
