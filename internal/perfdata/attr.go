package perfdata

import "encoding/binary"

// Attr is a struct perf_event_attr as stored in a perf.data file.
type Attr struct {
	Type             uint32
	Size             uint32 // the size the file stored (0: the writer picks one)
	Config           uint64
	SamplePeriod     uint64 // the sample frequency when Flags has FlagFreq
	SampleType       uint64
	ReadFormat       uint64
	Flags            uint64 // the bit fields: Flag* and precise_ip
	WakeupEvents     uint32
	BPType           uint32
	Config1          uint64
	Config2          uint64
	BranchSampleType uint64
	SampleRegsUser   uint64
	SampleStackUser  uint32
	ClockID          int32
	SampleRegsIntr   uint64
	AuxWatermark     uint32
	SampleMaxStack   uint16
	AuxSampleSize    uint32
	SigData          uint64
	Config3          uint64
}

// The bit fields of perf_event_attr (the word after read_format).
const (
	FlagDisabled      uint64 = 1 << 0
	FlagInherit       uint64 = 1 << 1
	FlagPinned        uint64 = 1 << 2
	FlagExclusive     uint64 = 1 << 3
	FlagExcludeUser   uint64 = 1 << 4
	FlagExcludeKernel uint64 = 1 << 5
	FlagExcludeHV     uint64 = 1 << 6
	FlagExcludeIdle   uint64 = 1 << 7
	FlagMmap          uint64 = 1 << 8
	FlagComm          uint64 = 1 << 9
	FlagFreq          uint64 = 1 << 10
	FlagInheritStat   uint64 = 1 << 11
	FlagEnableOnExec  uint64 = 1 << 12
	FlagTask          uint64 = 1 << 13
	FlagWatermark     uint64 = 1 << 14
	FlagMmapData      uint64 = 1 << 17
	FlagSampleIDAll   uint64 = 1 << 18
	FlagExcludeHost   uint64 = 1 << 19
	FlagExcludeGuest  uint64 = 1 << 20
	FlagMmap2         uint64 = 1 << 23
	FlagCommExec      uint64 = 1 << 24
	FlagUseClockID    uint64 = 1 << 25
	FlagContextSwitch uint64 = 1 << 26
)

// Sample types (PERF_SAMPLE_*).
const (
	SampleIP          uint64 = 1 << 0
	SampleTID         uint64 = 1 << 1
	SampleTime        uint64 = 1 << 2
	SampleAddr        uint64 = 1 << 3
	SampleRead        uint64 = 1 << 4
	SampleCallchain   uint64 = 1 << 5
	SampleID          uint64 = 1 << 6
	SampleCPU         uint64 = 1 << 7
	SamplePeriod      uint64 = 1 << 8
	SampleStreamID    uint64 = 1 << 9
	SampleRaw         uint64 = 1 << 10
	SampleBranchStack uint64 = 1 << 11
	SampleIdentifier  uint64 = 1 << 16
	sampleTypeDecoded        = SampleIP | SampleTID | SampleTime | SampleAddr | SampleRead | SampleCallchain | SampleID | SampleCPU | SamplePeriod | SampleStreamID | SampleRaw | SampleBranchStack | SampleIdentifier | SampleRegsUser | SampleStackUser
	sampleIDAllFields        = SampleTID | SampleTime | SampleID | SampleStreamID | SampleCPU | SampleIdentifier
)

// BranchHWIndex (PERF_SAMPLE_BRANCH_HW_INDEX in branch_sample_type): a branch stack
// starts with the hardware's index of its newest entry.
const BranchHWIndex uint64 = 1 << 17

// Read formats (PERF_FORMAT_*).
const (
	FormatTotalTimeEnabled uint64 = 1 << 0
	FormatTotalTimeRunning uint64 = 1 << 1
	FormatID               uint64 = 1 << 2
	FormatGroup            uint64 = 1 << 3
	FormatLost             uint64 = 1 << 4
)

// Attribute sizes: the first version perf.data files use, and what this package writes.
const (
	attrSizeVer0 = 64
	attrSizeVer7 = 128
	attrSizeVer8 = 136
)

// Freq says SamplePeriod is a frequency in Hz.
func (a Attr) Freq() bool { return a.Flags&FlagFreq != 0 }

// SampleIDAll says non-sample records carry a sample_id trailer.
func (a Attr) SampleIDAll() bool { return a.Flags&FlagSampleIDAll != 0 }

// PreciseIP is the precise_ip field (0..3).
func (a Attr) PreciseIP() uint8 { return uint8(a.Flags>>15) & 3 }

// decodeAttr reads an attribute of len(b) bytes (at least attrSizeVer0); fields beyond b
// stay zero, as the kernel treats a shorter attr.
func decodeAttr(b []byte, o binary.ByteOrder) Attr {
	var full [attrSizeVer8]byte
	copy(full[:], b)
	u32 := func(off int) uint32 { return o.Uint32(full[off:]) }
	u64 := func(off int) uint64 { return o.Uint64(full[off:]) }
	return Attr{
		Type: u32(0), Size: u32(4), Config: u64(8), SamplePeriod: u64(16), SampleType: u64(24),
		ReadFormat: u64(32), Flags: u64(40), WakeupEvents: u32(48), BPType: u32(52),
		Config1: u64(56), Config2: u64(64), BranchSampleType: u64(72), SampleRegsUser: u64(80),
		SampleStackUser: u32(88), ClockID: int32(u32(92)), SampleRegsIntr: u64(96),
		AuxWatermark: u32(104), SampleMaxStack: o.Uint16(full[108:]), AuxSampleSize: u32(112),
		SigData: u64(120), Config3: u64(128),
	}
}

// encodedSize is the attr size the writer uses for a.
func (a Attr) encodedSize() int {
	if a.Config3 != 0 {
		return attrSizeVer8
	}
	return attrSizeVer7
}

// appendAttr appends a in n bytes (n is attrSizeVer7 or attrSizeVer8), little endian.
func appendAttr(dst []byte, a Attr, n int) []byte {
	var b [attrSizeVer8]byte
	le := binary.LittleEndian
	le.PutUint32(b[0:], a.Type)
	le.PutUint32(b[4:], uint32(n))
	le.PutUint64(b[8:], a.Config)
	le.PutUint64(b[16:], a.SamplePeriod)
	le.PutUint64(b[24:], a.SampleType)
	le.PutUint64(b[32:], a.ReadFormat)
	le.PutUint64(b[40:], a.Flags)
	le.PutUint32(b[48:], a.WakeupEvents)
	le.PutUint32(b[52:], a.BPType)
	le.PutUint64(b[56:], a.Config1)
	le.PutUint64(b[64:], a.Config2)
	le.PutUint64(b[72:], a.BranchSampleType)
	le.PutUint64(b[80:], a.SampleRegsUser)
	le.PutUint32(b[88:], a.SampleStackUser)
	le.PutUint32(b[92:], uint32(a.ClockID))
	le.PutUint64(b[96:], a.SampleRegsIntr)
	le.PutUint32(b[104:], a.AuxWatermark)
	le.PutUint16(b[108:], a.SampleMaxStack)
	le.PutUint32(b[112:], a.AuxSampleSize)
	le.PutUint64(b[120:], a.SigData)
	le.PutUint64(b[128:], a.Config3)
	return append(dst, b[:n]...)
}
