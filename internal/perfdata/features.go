package perfdata

import (
	"bytes"
	"encoding/binary"
	"fmt"
)

// Feature bits of the header (HEADER_*).
const (
	FeatTracingData = 1
	FeatBuildID     = 2
	FeatHostname    = 3
	FeatOSRelease   = 4
	FeatVersion     = 5
	FeatArch        = 6
	FeatNrCPUs      = 7
	FeatCPUDesc     = 8
	FeatCPUID       = 9
	FeatTotalMem    = 10
	FeatCmdline     = 11
	FeatEventDesc   = 12
	FeatBranchStack = 15
	FeatPMUMappings = 16
	FeatGroupDesc   = 17
	FeatAuxtrace    = 18
	FeatStat        = 19 // a flag (its section is empty): the data holds perf stat record's counts
	FeatSampleTime  = 21
	FeatClockID     = 23
	FeatDirFormat   = 24
	FeatCPUPMUCaps  = 28
	FeatPMUCaps     = 31
	FeatCompressed  = 27
	featMax         = 256
)

// BuildID is one entry of the BUILD_ID feature: a DSO that got samples and its build id.
type BuildID struct {
	Misc     uint16 // PERF_RECORD_MISC_KERNEL, _USER, ...
	PID      int32  // -1: the host
	ID       []byte // the build id, usually 20 bytes (SHA-1)
	Filename string
}

// Features is what the header features say. Strings are empty and slices nil when the file
// does not have the feature. Raw keeps every feature section's bytes by bit.
type Features struct {
	Hostname, OSRelease, Version, Arch, CPUDesc, CPUID string
	NrCPUsAvailable, NrCPUsOnline                      uint32
	TotalMemKB                                         uint64
	Cmdline                                            []string
	BuildIDs                                           []BuildID
	EventDescs                                         []Event // EVENT_DESC: attr, name and ids
	EventNames                                         []string
	Groups                                             []Group // GROUP_DESC
	Compressed                                         *Compressed
	PMUMappings                                        []PMUMapping // PMU_MAPPINGS
	// SampleTime is SAMPLE_TIME: the times of the first and last samples (ns).
	SampleTime [2]uint64
	ClockRes   uint64 // CLOCKID: the clock's frequency (MHz)
	DirFormat  uint64 // DIR_FORMAT: the directory data version
	// PMUCaps are CPU_PMU_CAPS (one entry, PMU "cpu") or PMU_CAPS: capabilities as
	// "name=value".
	PMUCaps []PMUCaps
	Stat    bool // STAT: the data holds perf stat record's counts
	Raw     map[int][]byte
	// Skipped says which feature sections could not be decoded (each one line); the rest
	// of the file is read without them.
	Skipped []string
}

// feature keeps feature bit's section b and decodes it; one that does not decode is
// skipped (Skipped says so), as perf reads a file whose feature is empty or odd.
func (f *File) feature(bit int, b []byte) {
	f.Features.Raw[bit] = b
	if err := f.decodeFeature(bit, b); err != nil {
		f.Features.skip(bit, err)
	}
}

func (fs *Features) skip(bit int, err error) {
	fs.Skipped = append(fs.Skipped, fmt.Sprintf("header feature %s skipped: %v", featureName(bit), err))
}

// Group is an event group of the GROUP_DESC feature: Members events from Leader (an
// index in File.Events), the leader included.
type Group struct {
	Name            string // "" for perf's "anon group"
	Leader, Members int
}

// PMUMapping is a PMU's name and perf_event_attr type.
type PMUMapping struct {
	Name string
	Type uint32
}

// PMUCaps are a PMU's capabilities as "name=value" strings, in the file's order.
type PMUCaps struct {
	PMU  string
	Caps []string
}

// Has says whether the file has feature bit.
func (fs *Features) Has(bit int) bool { _, ok := fs.Raw[bit]; return ok }

const maxFeatureSize = 1 << 28

func (f *File) readFeatures(bits [4]uint64) error {
	var present []int
	for bit := 0; bit < featMax; bit++ {
		if bits[bit/64]&(1<<(bit%64)) != 0 {
			present = append(present, bit)
		}
	}
	f.Features.Raw = map[int][]byte{}
	if len(present) == 0 {
		return nil
	}
	secs, err := f.read(f.Data.Offset+f.Data.Size, uint64(len(present))*sectionSize, "feature table")
	if err != nil {
		return err
	}
	for i, bit := range present {
		s := Section{f.order.Uint64(secs[16*i:]), f.order.Uint64(secs[16*i+8:])}
		if s.Size > maxFeatureSize {
			f.Features.skip(bit, fmt.Errorf("claims %d bytes", s.Size))
			continue
		}
		b, err := f.read(s.Offset, s.Size, fmt.Sprintf("feature %d", bit))
		if err != nil {
			// A feature is optional: perf reports a file whose feature is damaged.
			f.Features.skip(bit, err)
			continue
		}
		f.feature(bit, b)
	}
	return nil
}

func featureName(bit int) string {
	names := map[int]string{FeatBuildID: "BUILD_ID", FeatHostname: "HOSTNAME", FeatOSRelease: "OSRELEASE",
		FeatVersion: "VERSION", FeatArch: "ARCH", FeatNrCPUs: "NRCPUS", FeatCPUDesc: "CPUDESC",
		FeatCPUID: "CPUID", FeatTotalMem: "TOTAL_MEM", FeatCmdline: "CMDLINE", FeatEventDesc: "EVENT_DESC",
		FeatGroupDesc: "GROUP_DESC", FeatCompressed: "COMPRESSED"}
	if n, ok := names[bit]; ok {
		return n
	}
	return fmt.Sprint(bit)
}

// fbuf decodes a feature section.
type fbuf struct {
	b   []byte
	o   binary.ByteOrder
	err error
}

func (d *fbuf) take(n uint64) []byte {
	if d.err != nil {
		return nil
	}
	if n > uint64(len(d.b)) {
		d.err = fmt.Errorf("needs %d bytes, has %d", n, len(d.b))
		return nil
	}
	v := d.b[:n]
	d.b = d.b[n:]
	return v
}

func (d *fbuf) u32() uint32 {
	if b := d.take(4); b != nil {
		return d.o.Uint32(b)
	}
	return 0
}

func (d *fbuf) u64() uint64 {
	if b := d.take(8); b != nil {
		return d.o.Uint64(b)
	}
	return 0
}

// str reads a perf_header_string: u32 len, then len bytes NUL-padded.
func (d *fbuf) str() string { return cstring(d.take(uint64(d.u32()))) }

func (d *fbuf) strs() []string {
	n := d.u32()
	if uint64(n) > uint64(len(d.b))/4 {
		d.err = fmt.Errorf("%d strings in %d bytes", n, len(d.b))
		return nil
	}
	out := make([]string, 0, n)
	for i := uint32(0); i < n && d.err == nil; i++ {
		out = append(out, d.str())
	}
	return out
}

// caps reads a PMU's capabilities: u32 count, then name and value strings.
func (d *fbuf) caps() []string {
	n := d.u32()
	if uint64(n) > uint64(len(d.b))/8 {
		d.err = fmt.Errorf("%d capabilities in %d bytes", n, len(d.b))
		return nil
	}
	out := make([]string, 0, n)
	for i := uint32(0); i < n && d.err == nil; i++ {
		name := d.str()
		out = append(out, name+"="+d.str())
	}
	return out
}

func cstring(b []byte) string {
	if i := bytes.IndexByte(b, 0); i >= 0 {
		b = b[:i]
	}
	return string(b)
}

func (f *File) decodeFeature(bit int, b []byte) error {
	d := &fbuf{b: b, o: f.order}
	fs := &f.Features
	switch bit {
	case FeatHostname:
		fs.Hostname = d.str()
	case FeatOSRelease:
		fs.OSRelease = d.str()
	case FeatVersion:
		fs.Version = d.str()
	case FeatArch:
		fs.Arch = d.str()
	case FeatCPUDesc:
		fs.CPUDesc = d.str()
	case FeatCPUID:
		fs.CPUID = d.str()
	case FeatNrCPUs:
		fs.NrCPUsAvailable = d.u32()
		fs.NrCPUsOnline = d.u32()
	case FeatTotalMem:
		fs.TotalMemKB = d.u64()
	case FeatCmdline:
		fs.Cmdline = d.strs()
	case FeatStat:
		fs.Stat = true
	case FeatBuildID:
		ids, err := decodeBuildIDs(b, f.order)
		if err != nil {
			return err
		}
		fs.BuildIDs = ids
	case FeatPMUMappings:
		n := d.u32()
		if uint64(n) > uint64(len(d.b))/8 {
			return fmt.Errorf("%d PMUs in %d bytes", n, len(d.b))
		}
		for i := uint32(0); i < n && d.err == nil; i++ {
			m := PMUMapping{Type: d.u32()}
			m.Name = d.str()
			fs.PMUMappings = append(fs.PMUMappings, m)
		}
	case FeatSampleTime:
		fs.SampleTime = [2]uint64{d.u64(), d.u64()}
	case FeatClockID:
		fs.ClockRes = d.u64()
	case FeatDirFormat:
		fs.DirFormat = d.u64()
	case FeatCPUPMUCaps:
		fs.PMUCaps = []PMUCaps{{PMU: "cpu", Caps: d.caps()}}
	case FeatPMUCaps:
		n := d.u32()
		if uint64(n) > uint64(len(d.b))/4 {
			return fmt.Errorf("%d PMUs in %d bytes", n, len(d.b))
		}
		for i := uint32(0); i < n && d.err == nil; i++ {
			caps := d.caps()
			fs.PMUCaps = append(fs.PMUCaps, PMUCaps{Caps: caps, PMU: d.str()})
		}
	case FeatCompressed:
		c := &Compressed{Version: d.u32(), Type: d.u32(), Level: d.u32(), Ratio: d.u32(), MmapLen: d.u32()}
		if d.err == nil {
			fs.Compressed = c
		}
	case FeatGroupDesc:
		n := d.u32()
		if uint64(n) > uint64(len(d.b))/12 {
			return fmt.Errorf("%d groups in %d bytes", n, len(d.b))
		}
		var gs []Group
		for i := uint32(0); i < n && d.err == nil; i++ {
			g := Group{Name: d.str()}
			g.Leader, g.Members = int(d.u32()), int(d.u32())
			if g.Name == "{anon_group}" {
				g.Name = "" // perf's own placeholder for a group without a name
			}
			gs = append(gs, g)
		}
		if d.err == nil {
			fs.Groups = gs
		}
	case FeatEventDesc:
		n := d.u32()
		asz := d.u32()
		if d.err == nil && (asz < attrSizeVer0 || asz > 4096 || uint64(n) > uint64(len(d.b))/uint64(asz)) {
			return fmt.Errorf("%d events of %d bytes in %d bytes", n, asz, len(d.b))
		}
		for i := uint32(0); i < n && d.err == nil; i++ {
			ab := d.take(uint64(asz))
			nids := d.u32()
			name := d.str()
			if uint64(nids) > uint64(len(d.b))/8 {
				return fmt.Errorf("event %d claims %d ids", i, nids)
			}
			ev := Event{Name: name, IDs: make([]uint64, nids)}
			if ab != nil {
				ev.Attr = decodeAttr(ab, f.order)
			}
			for j := range ev.IDs {
				ev.IDs[j] = d.u64()
			}
			fs.EventDescs = append(fs.EventDescs, ev)
		}
		fs.EventNames = nil
		if len(fs.EventDescs) == len(f.Events) {
			for _, ev := range fs.EventDescs {
				fs.EventNames = append(fs.EventNames, ev.Name)
			}
		}
	}
	return d.err
}

// buildIDMiscSize: build_id_event's build_id[20] holds the id's size (perf 5.x+).
const buildIDMiscSize = 1 << 15

func decodeBuildIDs(b []byte, o binary.ByteOrder) ([]BuildID, error) {
	var out []BuildID
	for len(b) > 0 {
		if len(b) < 8+4+24 {
			return nil, fmt.Errorf("build id entry of %d bytes", len(b))
		}
		misc := o.Uint16(b[4:])
		size := int(o.Uint16(b[6:]))
		if size < 8+4+24 || size > len(b) {
			return nil, fmt.Errorf("build id entry claims %d bytes of %d", size, len(b))
		}
		id := b[12:32]
		if misc&buildIDMiscSize != 0 && int(b[32]) <= 20 {
			id = b[12 : 12+int(b[32])]
		} else {
			id = bytes.TrimRight(id, "\x00")
		}
		out = append(out, BuildID{Misc: misc &^ buildIDMiscSize, PID: int32(o.Uint32(b[8:])),
			ID: append([]byte(nil), id...), Filename: cstring(b[36:size])})
		b = b[size:]
	}
	return out, nil
}
