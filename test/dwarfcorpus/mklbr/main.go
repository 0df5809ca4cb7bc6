// Command mklbr writes a recording laid out as perf record --call-graph lbr writes one on
// Intel hardware (branch stacks of the user call stack: PERF_SAMPLE_BRANCH_CALL_STACK),
// which no machine of the project's can record: a made-up program, /nonexistent/app, of
// functions f0..f7 0x100 bytes apart, and samples whose LBR call stacks run through them.
// test/dwarfcorpus/regen.sh writes it and perf report's output on it; the test checks pmc
// reads it as perf does.
package main

import (
	"fmt"
	"os"

	"github.com/pmc-tools/pmc/internal/perfdata"
)

const (
	base = 0x400000
	fn   = 0x100 // each function's size
	pid  = 4242
)

// branchSampleType is perf's for --call-graph lbr: user, call stack, no cycles, no flags,
// the hardware index.
const branchSampleType = 1<<0 | 1<<11 | 1<<15 | 1<<14 | 1<<17

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: mklbr FILE")
		os.Exit(2)
	}
	if err := write(os.Args[1]); err != nil {
		fmt.Fprintln(os.Stderr, "mklbr:", err)
		os.Exit(1)
	}
}

func write(path string) error {
	out, err := os.Create(path)
	if err != nil {
		return err
	}
	defer out.Close()
	ev := perfdata.Event{Name: "cycles:u", IDs: []uint64{1}, Attr: perfdata.Attr{Type: 0, Config: 0, SamplePeriod: 100000,
		SampleType: perfdata.SampleIP | perfdata.SampleTID | perfdata.SampleTime | perfdata.SamplePeriod |
			perfdata.SampleCallchain | perfdata.SampleBranchStack,
		Flags:            perfdata.FlagDisabled | perfdata.FlagExcludeKernel | perfdata.FlagExcludeHV | perfdata.FlagSampleIDAll | perfdata.FlagMmap2 | perfdata.FlagComm,
		BranchSampleType: branchSampleType}}
	w, err := perfdata.NewWriter(out, []perfdata.Event{ev})
	if err != nil {
		return err
	}
	w.Features = perfdata.Features{Hostname: "made-up", OSRelease: "6.1.0", Version: "6.1", Arch: "x86_64",
		NrCPUsAvailable: 1, NrCPUsOnline: 1, CPUDesc: "made-up Intel CPU with LBR call stacks"}
	o := perfdata.Origin{PID: pid, TID: pid, Time: 1}
	recs := []perfdata.Record{
		&perfdata.Comm{RecordHeader: perfdata.RecordHeader{Type: perfdata.RecordComm}, Origin: o, PID: pid, TID: pid, Comm: "app"},
		&perfdata.Mmap{RecordHeader: perfdata.RecordHeader{Type: perfdata.RecordMmap2, Misc: perfdata.MiscUser}, Origin: o,
			PID: pid, TID: pid, Addr: base, Len: 0x10000, Prot: 5, Flags: 2, Filename: "/nonexistent/app"},
	}
	f := func(i, off int) uint64 { return base + uint64(i*fn+off) }
	// Each sample: the function it is in, then its callers, the innermost first.
	stacks := [][]int{{0, 1, 2, 3}, {0, 1, 2, 3}, {4, 1, 2, 3}, {5, 6, 7}, {0, 1, 2, 3}, {6, 7}, {4, 2, 3}}
	for k, st := range stacks {
		s := &perfdata.Sample{RecordHeader: perfdata.RecordHeader{Type: perfdata.RecordSample, Misc: perfdata.MiscUser},
			Origin: perfdata.Origin{PID: pid, TID: pid, Time: uint64(10 + k)}, IP: f(st[0], 0x40+k), Period: 100000}
		// The chain the kernel wrote beside it: the user context and the sampled address
		// (what a frame-pointer walk gave; perf's LBR resolution keeps only the context).
		s.Callchain = []uint64{perfdata.ContextUser, s.IP, f(st[len(st)-1], 0x80)}
		for i := 0; i+1 < len(st); i++ {
			// The call from st[i+1] into st[i]: its source in the caller, its target the
			// callee's first byte.
			s.Branches = append(s.Branches, perfdata.BranchEntry{From: f(st[i+1], 0x20+8*i), To: f(st[i], 0)})
		}
		recs = append(recs, s)
	}
	for _, r := range recs {
		if err := w.Write(r); err != nil {
			return err
		}
	}
	return w.Close()
}
