package perfdata

import (
	"errors"
	"io"
)

// Stats is what perf report --stats counts of a file: its records by type (a pipe's
// header records, those inside COMPRESSED records and the COMPRESSED records themselves),
// and each event's samples and lost samples.
type Stats struct {
	Total       int
	ByType      map[uint32]int
	Samples     []int    // by event, an index in File.Events
	LostSamples []uint64 // by event: the samples its LOST_SAMPLES records say were lost
}

// Stats reads f's records and counts them.
func (f *File) Stats() (*Stats, error) {
	st := &Stats{ByType: map[uint32]int{}}
	for t, n := range f.pipeHeaders {
		st.ByType[t] += n
		st.Total += n
	}
	rs := f.Records()
	for {
		r, err := rs.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		st.ByType[r.Header().Type]++
		st.Total++
		switch r := r.(type) {
		case *Sample:
			if r.Event >= 0 {
				st.grow(r.Event)
				st.Samples[r.Event]++
			}
			rs.Recycle(r)
		case *LostSamples:
			if r.Event >= 0 {
				st.grow(r.Event)
				st.LostSamples[r.Event] += r.Lost
			}
		}
	}
	if rs.zrecords > 0 {
		st.ByType[RecordCompressed] += rs.zrecords
		st.Total += rs.zrecords
	}
	st.grow(len(f.Events) - 1)
	return st, nil
}

// grow makes room for event i's counts.
func (st *Stats) grow(i int) {
	for len(st.Samples) <= i {
		st.Samples = append(st.Samples, 0)
		st.LostSamples = append(st.LostSamples, 0)
	}
}

// TypeName is perf's name of a record type (perf 6.1's perf_event__names), "" for a type
// perf does not name.
func TypeName(t uint32) string {
	kernel := [...]string{"TOTAL", "MMAP", "LOST", "COMM", "EXIT", "THROTTLE", "UNTHROTTLE", "FORK",
		"READ", "SAMPLE", "MMAP2", "AUX", "ITRACE_START", "LOST_SAMPLES", "SWITCH",
		"SWITCH_CPU_WIDE", "NAMESPACES", "KSYMBOL", "BPF_EVENT", "CGROUP", "TEXT_POKE",
		"AUX_OUTPUT_HW_ID"}
	user := [...]string{"ATTR", "EVENT_TYPE", "TRACING_DATA", "BUILD_ID", "FINISHED_ROUND",
		"ID_INDEX", "AUXTRACE_INFO", "AUXTRACE", "AUXTRACE_ERROR", "THREAD_MAP", "CPU_MAP",
		"STAT_CONFIG", "STAT", "STAT_ROUND", "EVENT_UPDATE", "TIME_CONV", "FEATURE",
		"COMPRESSED", "FINISHED_INIT"}
	switch {
	case int(t) < len(kernel):
		return kernel[t]
	case t >= 64 && int(t-64) < len(user):
		return user[t-64]
	}
	return ""
}
