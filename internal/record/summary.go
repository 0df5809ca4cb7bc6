package record

import (
	"fmt"
	"io"
)

// Summary writes what the recording lost (Losses) and perf's summary line
// ("[ ... Captured and wrote N MB FILE (K samples) ]") to w, and returns the exit status:
// the workload's, else 1 when samples could not be written.
func (r *Result) Summary(w io.Writer, output string) int {
	status := r.Losses(w, output)
	fmt.Fprintf(w, "[ pmc record: Captured and wrote %.3f MB %s (%d samples)", float64(r.Bytes)/(1<<20), output, r.Samples)
	if r.Packed.Out > 0 {
		fmt.Fprintf(w, ", compressed (original %.3f MB, ratio is %.3f)", float64(r.Packed.In)/(1<<20),
			float64(r.Packed.In)/float64(r.Packed.Out))
	}
	fmt.Fprintln(w, " ]")
	return status
}

// Losses writes what the recording lost, if anything (what perf record -q still says), and
// returns the exit status as Summary does.
func (r *Result) Losses(w io.Writer, output string) int {
	if r.Lost > 0 || r.LostSamples > 0 {
		fmt.Fprintf(w, "pmc record: lost %d records and %d samples: the rings filled up; sample less often (-F, -c)\n",
			r.Lost, r.LostSamples)
	}
	if r.Throttled > 0 {
		fmt.Fprintf(w, "pmc record: the kernel throttled sampling %d times (its interrupts took too long): "+
			"fewer samples than asked where it did; sample less often (-F, -c)\n", r.Throttled)
	}
	if r.Corrupt > 0 {
		fmt.Fprintf(w, "pmc record: %d ring buffers held records that made no sense; the rest of each was skipped\n", r.Corrupt)
	}
	mb := float64(r.Bytes) / (1 << 20)
	status := r.ExitStatus
	switch {
	case r.WriteErr != nil && output == "-": // how much of it the reader took is its own
		fmt.Fprintf(w, "pmc record: %v: standard output took %d samples (%.3f MB) before; "+
			"%d samples after them were not written (the workload ran on)\n", r.WriteErr, r.Samples, mb, r.Unwritten)
	case r.WriteErr != nil:
		fmt.Fprintf(w, "pmc record: %v: %s keeps the first %d samples (%.3f MB), which perf and pmc read; "+
			"%d samples after them were not written (the workload ran on)\n", r.WriteErr, output, r.Samples, mb, r.Unwritten)
	}
	if r.WriteErr != nil && status == 0 {
		status = 1
	}
	return status
}
