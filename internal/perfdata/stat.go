package perfdata

import (
	"fmt"
	"math"
)

// The records of perf stat record (tools/lib/perf/include/perf/event.h: perf_record_*),
// which carry counts instead of samples. None has a sample_id trailer.
const (
	RecordThreadMap  uint32 = 73
	RecordCPUMap     uint32 = 74
	RecordStatConfig uint32 = 75
	RecordStat       uint32 = 76
	RecordStatRound  uint32 = 77
)

// Stat is one counter's reading (perf_record_stat): the counter of event ID on CPU (-1:
// any) and thread (an index in the THREAD_MAP), with its value and times.
type Stat struct {
	RecordHeader
	ID                      uint64
	CPU                     int32
	Thread                  uint32
	Value, Enabled, Running uint64
}

// StatRound ends a set of Stat records: an interval of perf stat -I, or the final counts.
type StatRound struct {
	RecordHeader
	Type uint64 // StatRoundInterval or StatRoundFinal
	Time uint64 // ns: the interval's end since the start, or the run's elapsed time
}

// StatRound types (PERF_STAT_ROUND_TYPE__*).
const (
	StatRoundInterval uint64 = 0
	StatRoundFinal    uint64 = 1
)

// StatConfig is how perf stat counted (perf_record_stat_config): tag/value terms.
type StatConfig struct {
	RecordHeader
	Terms []StatTerm
}

// StatTerm is one term of a StatConfig.
type StatTerm struct{ Tag, Value uint64 }

// StatConfig tags (PERF_STAT_CONFIG_TERM__*) and aggregation modes (perf's enum aggr_mode).
const (
	StatTermAggrMode uint64 = 0
	StatTermInterval uint64 = 1 // ms, 0: none
	StatTermScale    uint64 = 2 // 1: counts scaled for multiplexing

	AggrNone   uint64 = 0 // -A: per CPU
	AggrGlobal uint64 = 1
	AggrSocket uint64 = 2
	AggrDie    uint64 = 3
	AggrCore   uint64 = 4
	AggrThread uint64 = 5
)

// Term returns the value of tag, and whether the record has it.
func (c *StatConfig) Term(tag uint64) (uint64, bool) {
	for _, t := range c.Terms {
		if t.Tag == tag {
			return t.Value, true
		}
	}
	return 0, false
}

// ThreadMap lists the threads counted (perf_record_thread_map); a Stat's Thread indexes it.
type ThreadMap struct {
	RecordHeader
	Threads []MappedThread
}

// MappedThread is one entry of a ThreadMap: its tid (-1: any) and name (perf leaves it
// empty).
type MappedThread struct {
	PID  int64
	Comm string
}

// CPUMap lists the CPUs counted (perf_record_cpu_map); -1 is "any CPU".
type CPUMap struct {
	RecordHeader
	CPUs []int
}

// EventUpdate gives an event (by one of its ids) a unit, a scale, a name or CPUs
// (perf_record_event_update); Kind says which.
type EventUpdate struct {
	RecordHeader
	Kind  uint64
	ID    uint64
	Unit  string  // EventUpdateUnit
	Scale float64 // EventUpdateScale
	Name  string  // EventUpdateName
	CPUs  []int   // EventUpdateCPUs
}

// EventUpdate kinds (PERF_EVENT_UPDATE__*).
const (
	EventUpdateUnit  uint64 = 0
	EventUpdateScale uint64 = 1
	EventUpdateName  uint64 = 2
	EventUpdateCPUs  uint64 = 3
)

// eventUpdateHead is the size of perf_record_event_update before its variable part; perf
// sizes a record as this plus the part, rounded up to 8 bytes.
const eventUpdateHead = 40

// The encodings of a perf_record_cpu_map_data (PERF_CPU_MAP__*).
const (
	cpuMapList  = 0
	cpuMapMask  = 1
	cpuMapRange = 2
)

// decodeStatRecord decodes the records of perf stat record; ok is false for other types.
func (f *File) decodeStatRecord(hdr RecordHeader, body []byte) (Record, bool, error) {
	d := &dec{b: body, o: f.order}
	switch hdr.Type {
	case RecordStat:
		s := &Stat{RecordHeader: hdr, ID: d.u64()}
		cpu, thread := d.u32s()
		s.CPU, s.Thread = int32(cpu), thread
		s.Value, s.Enabled, s.Running = d.u64(), d.u64(), d.u64()
		return s, true, d.err
	case RecordStatRound:
		return &StatRound{RecordHeader: hdr, Type: d.u64(), Time: d.u64()}, true, d.err
	case RecordStatConfig:
		n := d.u64()
		if n > uint64(len(d.b))/16 {
			return nil, true, fmt.Errorf("%d terms in %d bytes", n, len(d.b))
		}
		c := &StatConfig{RecordHeader: hdr, Terms: make([]StatTerm, n)}
		for i := range c.Terms {
			c.Terms[i] = StatTerm{d.u64(), d.u64()}
		}
		return c, true, d.err
	case RecordThreadMap:
		n := d.u64()
		if n > uint64(len(d.b))/24 {
			return nil, true, fmt.Errorf("%d threads in %d bytes", n, len(d.b))
		}
		m := &ThreadMap{RecordHeader: hdr, Threads: make([]MappedThread, n)}
		for i := range m.Threads {
			m.Threads[i] = MappedThread{PID: int64(d.u64()), Comm: cstring(d.bytes(16))}
		}
		return m, true, d.err
	case RecordCPUMap:
		cpus, err := decodeCPUMap(body, f)
		return &CPUMap{RecordHeader: hdr, CPUs: cpus}, true, err
	case RecordEventUpdate:
		u := &EventUpdate{RecordHeader: hdr, Kind: d.u64(), ID: d.u64()}
		if d.err != nil {
			return nil, true, d.err
		}
		switch u.Kind {
		case EventUpdateUnit:
			u.Unit = cstring(d.b)
		case EventUpdateName:
			u.Name = cstring(d.b)
		case EventUpdateScale:
			u.Scale = math.Float64frombits(d.u64())
		case EventUpdateCPUs:
			cpus, err := decodeCPUMap(d.b, f)
			if err != nil {
				return nil, true, err
			}
			u.CPUs = cpus
		}
		return u, true, d.err
	}
	return nil, false, nil
}

// maxMappedCPUs bounds a CPU map read from a file.
const maxMappedCPUs = 1 << 16

// decodeCPUMap reads a perf_record_cpu_map_data: a list, a bitmap or a range.
func decodeCPUMap(b []byte, f *File) ([]int, error) {
	o := f.order
	if len(b) < 4 {
		return nil, errShort
	}
	u16 := func(off int) int { return int(o.Uint16(b[off:])) }
	cpu := func(v int) int {
		if v == 0xffff {
			return -1
		}
		return v
	}
	var cpus []int
	switch o.Uint16(b) {
	case cpuMapList:
		n := u16(2)
		if 4+2*n > len(b) {
			return nil, fmt.Errorf("a list of %d CPUs in %d bytes", n, len(b))
		}
		for i := range n {
			cpus = append(cpus, cpu(u16(4+2*i)))
		}
	case cpuMapMask:
		if len(b) < 6 {
			return nil, errShort
		}
		n, size := u16(2), u16(4)
		off := 6
		if size == 8 {
			off = 10 // perf_record_mask_cpu_map64's padding
		}
		if size != 4 && size != 8 || off+n*size > len(b) || n*size*8 > maxMappedCPUs {
			return nil, fmt.Errorf("a CPU mask of %d words of %d bytes in %d bytes", n, size, len(b))
		}
		for w := range n {
			var word uint64
			if size == 4 {
				word = uint64(o.Uint32(b[off+4*w:]))
			} else {
				word = o.Uint64(b[off+8*w:])
			}
			for bit := range size * 8 {
				if word&(1<<bit) != 0 {
					cpus = append(cpus, w*size*8+bit)
				}
			}
		}
	case cpuMapRange:
		if len(b) < 8 {
			return nil, errShort
		}
		start, end := u16(4), u16(6)
		if end < start || end-start >= maxMappedCPUs {
			return nil, fmt.Errorf("a CPU range %d-%d", start, end)
		}
		if b[2] != 0 {
			cpus = append(cpus, -1)
		}
		for c := start; c <= end; c++ {
			cpus = append(cpus, c)
		}
	default:
		return nil, fmt.Errorf("CPU map encoding %d", o.Uint16(b))
	}
	return cpus, nil
}

// appendCPUMap appends cpus (-1: any CPU) as a perf_record_cpu_map_data: a range when the
// CPUs after an optional -1 are consecutive, as perf 6.1 writes them, else a list (where
// perf may choose a bitmap; it reads either).
func appendCPUMap(b []byte, cpus []int) []byte {
	anyCPU := len(cpus) > 0 && cpus[0] == -1
	rest := cpus
	if anyCPU {
		rest = cpus[1:]
	}
	if n := len(rest); n > 0 && rest[0] >= 0 && consecutive(rest) {
		b = le.AppendUint16(b, cpuMapRange)
		b = append(b, 0, 0)
		if anyCPU {
			b[len(b)-2] = 1
		}
		return le.AppendUint16(le.AppendUint16(b, uint16(rest[0])), uint16(rest[n-1]))
	}
	b = le.AppendUint16(b, cpuMapList)
	b = le.AppendUint16(b, uint16(len(cpus)))
	for _, c := range cpus {
		b = le.AppendUint16(b, uint16(c))
	}
	return b
}

func consecutive(cpus []int) bool {
	for i := 1; i < len(cpus); i++ {
		if cpus[i] != cpus[i-1]+1 {
			return false
		}
	}
	return true
}

// encodeStat appends the body of a record of perf stat record as perf lays it out and
// returns its type; 0 for other records.
func encodeStat(b []byte, r Record) ([]byte, uint32, error) {
	var typ uint32
	switch r := r.(type) {
	case *Stat:
		typ = RecordStat
		b = le.AppendUint64(b, r.ID)
		b = le.AppendUint32(b, uint32(r.CPU))
		b = le.AppendUint32(b, r.Thread)
		b = le.AppendUint64(b, r.Value)
		b = le.AppendUint64(b, r.Enabled)
		b = le.AppendUint64(b, r.Running)
	case *StatRound:
		typ = RecordStatRound
		b = le.AppendUint64(le.AppendUint64(b, r.Type), r.Time)
	case *StatConfig:
		typ = RecordStatConfig
		b = le.AppendUint64(b, uint64(len(r.Terms)))
		for _, t := range r.Terms {
			b = le.AppendUint64(le.AppendUint64(b, t.Tag), t.Value)
		}
	case *ThreadMap:
		typ = RecordThreadMap
		b = le.AppendUint64(b, uint64(len(r.Threads)))
		for _, t := range r.Threads {
			var comm [16]byte
			copy(comm[:15], t.Comm)
			b = append(le.AppendUint64(b, uint64(t.PID)), comm[:]...)
		}
	case *CPUMap:
		typ = RecordCPUMap
		b = appendCPUMap(b, r.CPUs)
	case *EventUpdate:
		typ = RecordEventUpdate
		b = le.AppendUint64(le.AppendUint64(b, r.Kind), r.ID)
		switch r.Kind {
		case EventUpdateUnit:
			b = append(append(b, r.Unit...), 0)
		case EventUpdateName:
			b = append(append(b, r.Name...), 0)
		case EventUpdateScale:
			b = le.AppendUint64(b, math.Float64bits(r.Scale))
		case EventUpdateCPUs:
			b = appendCPUMap(b, r.CPUs)
		default:
			return nil, typ, fmt.Errorf("perf.data writer: an event update of kind %d", r.Kind)
		}
		// perf sizes it as the whole structure (its union included) plus the variable part.
		b = append(b, make([]byte, eventUpdateHead-24)...)
	default:
		return b, 0, nil
	}
	return append(b, make([]byte, (8-len(b)%8)%8)...), typ, nil
}
