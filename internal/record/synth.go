package record

import (
	"strings"

	"github.com/pmc-tools/pmc/internal/host"
	"github.com/pmc-tools/pmc/internal/perfdata"
)

// synthesize writes COMM and MMAP2 records for the tasks that exist before sampling starts
// (attach and system-wide modes), as perf does, so their samples have a name and a DSO;
// and the kernel's map in every mode.
func (s *Session) synthesize() {
	s.kernelMap()
	if s.req.Mode == Launch {
		return
	}
	m := s.k.Machine
	pids := s.req.PIDs
	if s.req.Mode == System {
		var err error
		if pids, err = m.Pids(); err != nil {
			return
		}
	}
	origin := perfdata.Origin{ID: s.ids[0][0]}
	for _, pid := range pids {
		tids, err := m.Threads(pid)
		if err != nil {
			continue // gone meanwhile
		}
		for _, tid := range tids {
			comm, _, err := m.Comm(tid)
			if err != nil {
				continue
			}
			o := origin
			o.PID, o.TID = uint32(pid), uint32(tid)
			s.write(s.w.Write(&perfdata.Comm{RecordHeader: perfdata.RecordHeader{Type: perfdata.RecordComm},
				Origin: o, PID: uint32(pid), TID: uint32(tid), Comm: comm}))
		}
		maps, err := m.Maps(pid)
		if err != nil {
			continue
		}
		o := origin
		o.PID, o.TID = uint32(pid), uint32(pid)
		for _, mp := range maps {
			exec := strings.Contains(mp.Perms, "x")
			if !exec && s.req.UserStack == 0 || mp.Path == "" {
				continue // data mappings only for --call-graph dwarf (sampling's MmapData)
			}
			rec := mmap2Of(mp, pid)
			if !exec {
				rec.Misc |= miscMmapData
			}
			rec.Origin = o
			s.write(s.w.Write(rec))
			s.hits.add(rec)
		}
	}
}

// miscMmapData marks an MMAP2 record of a mapping that is not executable
// (PERF_RECORD_MISC_MMAP_DATA).
const miscMmapData = 1 << 13

// kernelMap writes perf's MMAP of the kernel's text, so kernel samples are attributed to
// [kernel.kallsyms].
func (s *Session) kernelMap() {
	start, end := s.k.Machine.KernelText()
	if start == 0 {
		return
	}
	s.hits.kstart, s.hits.kend = start, end
	s.write(s.w.Write(&perfdata.Mmap{RecordHeader: perfdata.RecordHeader{Type: perfdata.RecordMmap, Misc: perfdata.MiscKernel},
		Origin: perfdata.Origin{ID: s.ids[0][0]}, PID: ^uint32(0), Addr: start, Len: end - start, Pgoff: start,
		Filename: "[kernel.kallsyms]_text"}))
}

// mmap2Of is the MMAP2 record of one executable mapping of process pid.
func mmap2Of(m host.Mapping, pid int) *perfdata.Mmap {
	var prot, flags uint32
	for i, bit := range []uint32{1, 2, 4} { // PROT_READ, PROT_WRITE, PROT_EXEC
		if len(m.Perms) > i && m.Perms[i] != '-' {
			prot |= bit
		}
	}
	flags = 1 // MAP_SHARED
	if strings.HasSuffix(m.Perms, "p") {
		flags = 2 // MAP_PRIVATE
	}
	return &perfdata.Mmap{RecordHeader: perfdata.RecordHeader{Type: perfdata.RecordMmap2, Misc: perfdata.MiscUser},
		PID: uint32(pid), TID: uint32(pid), Addr: m.Start, Len: m.End - m.Start, Pgoff: m.Offset,
		Maj: m.Maj, Min: m.Min, Ino: m.Inode, Prot: prot, Flags: flags, Filename: m.Path}
}
