package cli

import (
	"debug/elf"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/pmc-tools/pmc/internal/perfdata"
	"github.com/pmc-tools/pmc/internal/testenv"
)

// BenchmarkReport: pmc report --stdio on a generated recording of 120k samples with deep
// call chains (recursion, like bench/report.sh's workload) in the loop workload and a
// generated kernel. go test -run XXX -bench Report -cpuprofile cpu.out ./internal/cli
// (bench/report.sh compares with perf report on a real recording). PMC_BENCH_DATA=FILE
// reports that recording instead (with PMC_BENCH_KALLSYMS, else /proc/kallsyms).
func BenchmarkReport(b *testing.B) {
	data, kallsyms := os.Getenv("PMC_BENCH_DATA"), os.Getenv("PMC_BENCH_KALLSYMS")
	if data == "" {
		data, kallsyms = writeBigRecording(b, b.TempDir(), 120000)
	}
	for _, mode := range []struct{ name, args string }{
		{"children-graph", ""},
		{"no-children", "--no-children -g=false"},
		{"json", "--json"},
	} {
		b.Run(mode.name, func(b *testing.B) {
			args := append([]string{"report", "--stdio", "-i", data}, strings.Fields(mode.args)...)
			if kallsyms != "" {
				args = append(args, "--kallsyms", kallsyms)
			}
			for i := 0; i < b.N; i++ {
				if code := testRun(args, io.Discard, io.Discard); code != 0 {
					b.Fatalf("pmc report exit %d", code)
				}
			}
		})
	}
}

// writeBigRecording writes dir/big.data, n samples of two threads, and the kallsyms file
// its kernel addresses resolve with.
func writeBigRecording(b testing.TB, dir string, n int) (data, kallsyms string) {
	bin := testenv.Workload(b, "loop")
	ef, err := elf.Open(bin)
	if err != nil {
		b.Fatal(err)
	}
	defer ef.Close()
	var text *elf.Prog
	for _, p := range ef.Progs {
		if p.Type == elf.PT_LOAD && p.Flags&elf.PF_X != 0 {
			text = p
		}
	}
	syms, err := ef.Symbols()
	if err != nil || text == nil {
		b.Fatalf("loop workload: symbols %v, text segment %v", err, text)
	}
	var funcs []elf.Symbol
	for _, s := range syms {
		if elf.ST_TYPE(s.Info) == elf.STT_FUNC && s.Size >= 32 && s.Value >= text.Vaddr && s.Value+s.Size <= text.Vaddr+text.Memsz {
			funcs = append(funcs, s)
		}
	}
	if len(funcs) < 8 {
		b.Fatalf("loop workload: %d functions", len(funcs))
	}
	slices.SortFunc(funcs, func(x, y elf.Symbol) int { return strings.Compare(x.Name, y.Name) })
	var base uint64
	if ef.Type == elf.ET_DYN {
		base = 0x555555554000
	}
	const kbase = 0xffffffff81000000
	var ks strings.Builder
	for i := 0; i < 20000; i++ {
		fmt.Fprintf(&ks, "%016x T kfn_%d\n", kbase+uint64(i)*0x100, i)
	}
	kallsyms = filepath.Join(dir, "kallsyms")
	if err := os.WriteFile(kallsyms, []byte(ks.String()), 0o644); err != nil {
		b.Fatal(err)
	}

	data = filepath.Join(dir, "big.data")
	out, err := os.Create(data)
	if err != nil {
		b.Fatal(err)
	}
	defer out.Close()
	attr := perfdata.Attr{Type: 1, SamplePeriod: 20000,
		SampleType: perfdata.SampleIP | perfdata.SampleTID | perfdata.SampleTime | perfdata.SampleCPU | perfdata.SamplePeriod | perfdata.SampleCallchain,
		Flags:      perfdata.FlagDisabled | perfdata.FlagInherit | perfdata.FlagMmap | perfdata.FlagComm | perfdata.FlagFreq | perfdata.FlagTask | perfdata.FlagSampleIDAll | perfdata.FlagMmap2}
	w, err := perfdata.NewWriter(out, []perfdata.Event{{Attr: attr, IDs: []uint64{7}, Name: "cpu-clock"}})
	if err != nil {
		b.Fatal(err)
	}
	const pid = 4242
	at := perfdata.Origin{PID: pid, TID: pid, Time: 1000}
	page := text.Vaddr &^ 0xfff
	recs := []perfdata.Record{
		&perfdata.Mmap{RecordHeader: perfdata.RecordHeader{Type: perfdata.RecordMmap, Misc: perfdata.MiscKernel},
			Origin: perfdata.Origin{PID: ^uint32(0), TID: 0}, PID: ^uint32(0), Addr: kbase, Len: 0x2000000, Pgoff: kbase, Filename: "[kernel.kallsyms]_text"},
		&perfdata.Comm{RecordHeader: perfdata.RecordHeader{Type: perfdata.RecordComm, Misc: perfdata.MiscCommExec}, Origin: at, PID: pid, TID: pid, Comm: "deep"},
		&perfdata.Mmap{RecordHeader: perfdata.RecordHeader{Type: perfdata.RecordMmap2, Misc: perfdata.MiscUser}, Origin: at, PID: pid, TID: pid,
			Addr: base + page, Len: text.Memsz + (text.Vaddr - page), Pgoff: text.Off &^ 0xfff, Prot: 5, Flags: 2, Filename: bin},
		&perfdata.Task{RecordHeader: perfdata.RecordHeader{Type: perfdata.RecordFork}, Origin: at, PID: pid, PPID: pid, TID: pid + 1, PTID: pid, Time: 1000},
	}
	for _, r := range recs {
		if err := w.Write(r); err != nil {
			b.Fatal(err)
		}
	}
	// The stacks: leaf <- (even|odd)^depth <- walk <- main <- start, return addresses at
	// fixed call sites, the leaf's IP anywhere in it; one sample in ten in the kernel.
	fn := func(i int, off uint64) uint64 { f := funcs[i]; return base + f.Value + off%f.Size }
	x := uint64(88172645463325252)
	rnd := func() uint64 { x ^= x << 13; x ^= x >> 7; x ^= x << 17; return x }
	for i := 0; i < n; i++ {
		tid := uint32(pid + i%2)
		s := &perfdata.Sample{RecordHeader: perfdata.RecordHeader{Type: perfdata.RecordSample, Misc: perfdata.MiscUser},
			Origin: perfdata.Origin{PID: pid, TID: tid, Time: uint64(2000 + i), CPU: uint32(i % 2)}, Period: 50000}
		r := rnd()
		if r%10 == 0 {
			s.Misc = perfdata.MiscKernel
			s.Callchain = append(s.Callchain, perfdata.ContextKernel)
			for k := 0; k < 3+int(r>>8)%4; k++ {
				s.Callchain = append(s.Callchain, kbase+uint64(int(r>>(12+4*k))%40)*0x100+uint64(k)*8+4)
			}
		}
		s.Callchain = append(s.Callchain, perfdata.ContextUser, fn(0, r>>20))
		callee := 0
		for d := 4 + int(r>>30)%16; d > 0; d-- {
			f := 1 + int(r>>(32+d%30))&1
			s.Callchain = append(s.Callchain, fn(f, uint64(8+16*callee)))
			callee = f
		}
		s.Callchain = append(s.Callchain, fn(3, 24), fn(4, 40), fn(5, 12))
		s.IP = s.Callchain[1]
		if err := w.Write(s); err != nil {
			b.Fatal(err)
		}
		if i%1000 == 999 {
			if err := w.Write(&perfdata.FinishedRound{RecordHeader: perfdata.RecordHeader{Type: perfdata.RecordFinishedRound}}); err != nil {
				b.Fatal(err)
			}
		}
	}
	if err := w.Close(); err != nil {
		b.Fatal(err)
	}
	return data, kallsyms
}
