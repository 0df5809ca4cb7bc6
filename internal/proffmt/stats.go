package proffmt

import (
	"bufio"
	"fmt"
	"io"
	"slices"

	"github.com/pmc-tools/pmc/internal/perfdata"
)

// Stats writes what perf report --stats prints: the records of the file by type, with
// their share of all, then the samples and lost samples of each event that has some
// (events are the names of the file's events, in its order). With an AUX area trace
// (aux), perf says that what it would decode from it is not counted.
func Stats(w io.Writer, st *perfdata.Stats, events []string, aux bool) error {
	bw := bufio.NewWriter(w)
	note := ""
	if aux {
		note = " (excludes AUX area (e.g. instruction trace) decoded / synthesized events)"
	}
	fmt.Fprintf(bw, "\nAggregated stats:%s\n%16s events: %10d\n", note, "TOTAL", st.Total)
	types := make([]uint32, 0, len(st.ByType))
	for t := range st.ByType {
		types = append(types, t)
	}
	slices.Sort(types)
	for _, t := range types {
		if name := perfdata.TypeName(t); name != "" && t != 0 {
			n := st.ByType[t]
			fmt.Fprintf(bw, "%16s events: %10d  (%4.1f%%)\n", name, n, 100*float64(n)/float64(st.Total))
		}
	}
	for i, name := range events {
		if i >= len(st.Samples) || st.Samples[i] == 0 && st.LostSamples[i] == 0 {
			continue
		}
		fmt.Fprintf(bw, "%s stats:\n", name)
		if st.Samples[i] > 0 {
			fmt.Fprintf(bw, "%16s events: %10d\n", "SAMPLE", st.Samples[i])
		}
		if st.LostSamples[i] > 0 {
			fmt.Fprintf(bw, "%16s events: %10d\n", "LOST_SAMPLES", st.LostSamples[i])
		}
	}
	return bw.Flush()
}
