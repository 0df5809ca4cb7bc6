package record

import (
	"encoding/hex"
	"errors"
	"os"
	"runtime"
	"sort"

	"github.com/pmc-tools/pmc/internal/host"
	"github.com/pmc-tools/pmc/internal/perfdata"
	"github.com/pmc-tools/pmc/internal/perfevent"
	"github.com/pmc-tools/pmc/internal/symbol"
	"github.com/pmc-tools/pmc/internal/unix"
)

// drain copies every ring's records to the file, ends the round and makes it part of the
// file (the header's data size). A write error stops the writing, not the draining: the
// workload runs on and the kernel never has to drop records for want of room.
func (s *Session) drain() {
	total := 0
	for _, r := range s.rings {
		n, err := r.Drain(s.record)
		total += n
		if errors.Is(err, perfevent.ErrRingCorrupt) {
			s.res.Corrupt++
		}
	}
	if total > 0 && len(s.rings) > 1 {
		s.write(s.w.Write(&perfdata.FinishedRound{}))
	}
	s.hits.round()
	s.flush()
}

// record writes one ring record and keeps count of samples, losses, throttling and the
// mapped files. The ring hands over whole records only, so it never fails.
func (s *Session) record(rec []byte) error {
	h, err := perfdata.RawHeader(rec)
	if err != nil {
		s.res.Corrupt++
		return nil
	}
	switch h.Type {
	case perfdata.RecordSample:
		if s.werr != nil {
			s.res.Unwritten++
			return nil
		}
		s.pending++
	}
	switch h.Type {
	case perfdata.RecordSample, perfdata.RecordLost, perfdata.RecordLostSamples, perfdata.RecordThrottle,
		perfdata.RecordMmap, perfdata.RecordMmap2, perfdata.RecordFork, perfdata.RecordComm:
		r, _ := s.dec.Decode(rec) // a record it cannot decode is still written as it is
		switch r := r.(type) {
		case *perfdata.Lost:
			s.res.Lost += r.Lost
		case *perfdata.LostSamples:
			s.res.LostSamples += r.Lost
		case *perfdata.Throttle:
			s.res.Throttled++
		case *perfdata.Sample:
			s.hits.add(r)
			s.dec.Recycle(r)
		case *perfdata.Mmap, *perfdata.Task, *perfdata.Comm:
			s.hits.add(r)
		}
	}
	if s.werr == nil {
		s.write(s.w.WriteRaw(rec))
	}
	return nil
}

// write keeps the first write error.
func (s *Session) write(err error) {
	if err != nil && s.werr == nil {
		s.werr = err
		s.res.WriteErr = err
	}
}

// flush makes the records written so far part of the file; after a write error the
// samples since the last flush are not in it.
func (s *Session) flush() {
	if s.werr == nil {
		s.write(s.w.Flush())
	}
	if s.werr != nil {
		s.res.Unwritten += s.pending
	} else {
		s.res.Samples += s.pending
		s.res.Bytes = s.w.DataSize()
		s.res.Packed.In, s.res.Packed.Out = s.w.CompressedSizes()
	}
	s.pending = 0
}

// finish closes the counters and writes the features and the final header.
func (s *Session) finish() {
	s.closeCounters()
	s.hits.flush(^uint64(0))
	if s.werr != nil {
		return // the header already describes every whole round written
	}
	if !s.req.Pipe { // a pipe's went first
		s.w.Features = s.features()
	}
	s.w.Features.BuildIDs = s.buildIDs()
	s.write(s.w.Close())
}

func (s *Session) features() perfdata.Features {
	fs := HostFeatures(s.k.Machine, s.req.Cmdline)
	if s.req.Compression > 0 {
		fs.Compressed = &perfdata.Compressed{Type: perfdata.CompressZstd, Level: uint32(s.req.Compression),
			MmapLen: uint32(s.mmapLen())}
	}
	return fs
}

// HostFeatures are the header features that say where and how a recording was made: m's
// host name, kernel, architecture, CPUs and the command line (pmc stat record's too).
func HostFeatures(m *host.Machine, cmdline []string) perfdata.Features {
	release, arch, _ := unix.Uname()
	fs := perfdata.Features{Hostname: m.Hostname, OSRelease: release, Version: "pmc", Arch: arch,
		NrCPUsAvailable: uint32(runtime.NumCPU()), NrCPUsOnline: uint32(len(m.PMUs.Online)),
		CPUDesc: m.CPUModel(), Cmdline: cmdline}
	if fs.NrCPUsOnline == 0 {
		fs.NrCPUsOnline = fs.NrCPUsAvailable
	}
	return fs
}

// mmapLen is the length of a ring's mapping: its data and the control page.
func (s *Session) mmapLen() int { return (s.ringPages + 1) * os.Getpagesize() }

// buildIDs are the GNU build-ids of the running kernel ([kernel.kallsyms], from
// /sys/kernel/notes, as perf records it) and of the mapped executable files, those that
// samples hit, as perf lists them.
func (s *Session) buildIDs() []perfdata.BuildID {
	var out []perfdata.BuildID
	if kid, err := s.k.Machine.KernelBuildID(); err == nil && s.hits.kernel {
		if id, err := hex.DecodeString(kid); err == nil && len(id) > 0 {
			out = append(out, perfdata.BuildID{Misc: perfdata.MiscKernel, PID: -1, ID: id, Filename: symbol.KernelName})
		}
	}
	names := make([]string, 0, len(s.hits.files))
	for n := range s.hits.files {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, name := range names {
		if id := fileBuildID(name); id != nil {
			out = append(out, perfdata.BuildID{Misc: s.hits.files[name], PID: -1, ID: id, Filename: name})
		}
	}
	return out
}

// fileBuildID is the build-id of an ELF file (nil when it has none or cannot be read). A
// mapped path that is now something else than a regular file (a FIFO would block the
// open, a device never end) is not read.
func fileBuildID(path string) []byte {
	f, err := os.OpenFile(path, os.O_RDONLY|unix.O_NONBLOCK, 0)
	if err != nil {
		return nil
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return nil
	}
	info, err := symbol.ReadELFInfo(f)
	if err != nil {
		return nil
	}
	id, err := hex.DecodeString(info.BuildID)
	if err != nil {
		return nil
	}
	return id
}
