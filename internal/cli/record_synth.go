package cli

import (
	"debug/elf"
	"sort"
	"strings"

	"github.com/pmc-tools/pmc/internal/host"
	"github.com/pmc-tools/pmc/internal/perfdata"
	"github.com/pmc-tools/pmc/internal/stat"
)

// synthesize writes COMM and MMAP2 records for the tasks that exist before sampling starts
// (attach and system-wide modes), as perf does, so their samples have a name and a DSO.
func (s *recorder) synthesize() {
	s.kernelMap()
	if s.plan.mode == stat.Launch {
		return
	}
	pids := s.plan.pids
	if s.plan.mode == stat.System {
		var err error
		if pids, err = s.machine.Pids(); err != nil {
			return
		}
	}
	origin := perfdata.Origin{ID: s.w.Events()[0].IDs[0]}
	for _, pid := range pids {
		tids, err := s.machine.Threads(pid)
		if err != nil {
			continue
		}
		for _, tid := range tids {
			comm, _, err := s.machine.Comm(tid)
			if err != nil {
				continue
			}
			o := origin
			o.PID, o.TID = uint32(pid), uint32(tid)
			s.w.Write(&perfdata.Comm{RecordHeader: perfdata.RecordHeader{Type: perfdata.RecordComm},
				Origin: o, PID: uint32(pid), TID: uint32(tid), Comm: comm})
		}
		maps, err := s.machine.Maps(pid)
		if err != nil {
			continue
		}
		o := origin
		o.PID, o.TID = uint32(pid), uint32(pid)
		for _, m := range maps {
			if !strings.Contains(m.Perms, "x") || m.Path == "" {
				continue
			}
			rec := mmap2Of(m, pid)
			rec.Origin = o
			s.w.Write(rec)
			s.addFile(m.Path, perfdata.MiscUser)
		}
	}
}

// kernelMap writes perf's MMAP of the kernel's text, so kernel samples are attributed to
// [kernel.kallsyms].
func (s *recorder) kernelMap() {
	start, end := s.machine.KernelText()
	if start == 0 {
		return
	}
	s.w.Write(&perfdata.Mmap{RecordHeader: perfdata.RecordHeader{Type: perfdata.RecordMmap, Misc: perfdata.MiscKernel},
		Origin: perfdata.Origin{ID: s.w.Events()[0].IDs[0]}, PID: ^uint32(0), Addr: start, Len: end - start, Pgoff: start,
		Filename: "[kernel.kallsyms]_text"})
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

// buildIDs reads the GNU build id of every file (path -> cpumode); files without one are
// left out, as perf leaves them.
func buildIDs(files map[string]uint16) []perfdata.BuildID {
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	var out []perfdata.BuildID
	for _, name := range names {
		if id := elfBuildID(name); id != nil {
			out = append(out, perfdata.BuildID{Misc: files[name], PID: -1, ID: id, Filename: name})
		}
	}
	return out
}

// elfBuildID is the NT_GNU_BUILD_ID note's descriptor of an ELF file (nil when none).
func elfBuildID(path string) []byte {
	f, err := elf.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	for _, sec := range f.Sections {
		if sec.Type != elf.SHT_NOTE {
			continue
		}
		b, err := sec.Data()
		if err != nil {
			continue
		}
		for len(b) >= 12 {
			namesz, descsz, typ := f.ByteOrder.Uint32(b), f.ByteOrder.Uint32(b[4:]), f.ByteOrder.Uint32(b[8:])
			name := uint64(12) + (uint64(namesz)+3)&^3
			end := name + (uint64(descsz)+3)&^3
			if end > uint64(len(b)) {
				break
			}
			if typ == 3 && namesz == 4 && string(b[12:15]) == "GNU" && descsz > 0 && descsz <= 20 {
				return append([]byte(nil), b[name:name+uint64(descsz)]...)
			}
			b = b[end:]
		}
	}
	return nil
}
