package top

import (
	"bytes"
	"strings"
	"testing"

	"github.com/pmc-tools/pmc/internal/perfdata"
	"github.com/pmc-tools/pmc/internal/symbol"
)

// kernelTable is a kallsyms text of two kernel functions.
func kernelTable(t *testing.T) *symbol.Table {
	k, err := symbol.ParseKallsymsText("ffffffff81000000 T _text\nffffffff81001000 t clear_page\nffffffff81002000 t schedule\nffffffff81003000 t _etext\n")
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func comm(pid, tid int, name string) *perfdata.Comm {
	return &perfdata.Comm{RecordHeader: perfdata.RecordHeader{Type: perfdata.RecordComm}, PID: uint32(pid), TID: uint32(tid), Comm: name}
}

func sample(pid, tid int, ip uint64, kernel bool, period uint64, chain ...uint64) *perfdata.Sample {
	misc := perfdata.MiscUser
	if kernel {
		misc = perfdata.MiscKernel
	}
	return &perfdata.Sample{RecordHeader: perfdata.RecordHeader{Type: perfdata.RecordSample, Misc: misc},
		Origin: perfdata.Origin{PID: uint32(pid), TID: uint32(tid)}, IP: ip, Period: period, Callchain: chain}
}

func exit(pid, tid int) *perfdata.Task {
	return &perfdata.Task{RecordHeader: perfdata.RecordHeader{Type: perfdata.RecordExit}, PID: uint32(pid), TID: uint32(tid)}
}

// TestModel: rows per command, DSO and symbol with their share, perf top's decay (7/8 a
// refresh) until a row that gets no more samples is gone, filters, and a process's state
// dropped at its exit.
func TestModel(t *testing.T) {
	m, err := NewModel(Options{}, nil, kernelTable(t))
	if err != nil {
		t.Fatal(err)
	}
	m.Add(comm(10, 10, "hot"))
	m.Add(comm(20, 20, "cold"))
	m.Add(&perfdata.Mmap{RecordHeader: perfdata.RecordHeader{Type: perfdata.RecordMmap2, Misc: perfdata.MiscUser},
		PID: 10, TID: 10, Addr: 0x400000, Len: 0x1000, Pgoff: 0, Prot: protExec, Filename: "/bin/hot"})
	for i := 0; i < 30; i++ {
		m.Add(sample(10, 10, 0x400123, false, 1000))
	}
	for i := 0; i < 10; i++ {
		m.Add(sample(20, 20, 0xffffffff81001010, true, 1000))
	}
	v := m.Snapshot(0)
	if len(v.Rows) != 2 || v.Rows[0].Comm != "hot" || v.Rows[0].Percent != 75 || v.Rows[0].DSO != "/bin/hot" ||
		v.Rows[0].Symbol != "0x123" || v.Rows[1].Symbol != "clear_page" || !v.Rows[1].Kernel {
		t.Fatalf("rows %+v %+v", v.Rows[0].Row, v.Rows[1].Row)
	}
	var b bytes.Buffer
	v.Write(&b, Header{Event: "cpu-clock", Freq: 4000, Target: "all, 2 CPUs"}, DefaultSort(), 0, -1, false)
	if !strings.Contains(b.String(), "  75.00%  hot      hot                [.] 0x123\n") ||
		!strings.Contains(b.String(), "  25.00%  cold     [kernel.kallsyms]  [k] clear_page\n") {
		t.Errorf("text:\n%s", b.String())
	}
	m.Decay()
	if r := m.Snapshot(0).Rows[0]; r.Period != 30000*7/8 {
		t.Errorf("decayed period %d, want %d", r.Period, 30000*7/8)
	}
	m.Add(exit(20, 20))
	for i := 0; i < 200 && len(m.rows) > 0; i++ {
		m.Decay()
	}
	if rows, procs, threads, dsos := m.Size(); rows != 0 || procs != 1 || threads != 1 || dsos != 1 {
		t.Errorf("after decay and cold's exit: %d rows, %d processes, %d threads, %d DSOs; want 0, 1 (hot), 1, 1", rows, procs, threads, dsos)
	}
	m.Add(exit(10, 10))
	m.Decay()
	if rows, procs, threads, dsos := m.Size(); procs+threads+dsos != 0 {
		t.Errorf("after hot's exit: %d rows, %d processes, %d threads, %d DSOs; want none", rows, procs, threads, dsos)
	}
}

// TestModelFilters: --comm and --pid keep the samples of those only; --sort dso merges
// the symbols of a DSO.
func TestModelFilters(t *testing.T) {
	for _, c := range []struct {
		o    Options
		rows int
	}{
		{Options{Comms: []string{"cold"}}, 1},
		{Options{Pids: []int{10}}, 1},
		{Options{Sort: []string{"dso"}}, 1},
		{Options{Sort: []string{"comm", "dso"}}, 2},
	} {
		m, _ := NewModel(c.o, nil, kernelTable(t))
		m.Add(comm(10, 10, "hot"))
		m.Add(comm(20, 20, "cold"))
		m.Add(sample(10, 10, 0xffffffff81002010, true, 1))
		m.Add(sample(20, 20, 0xffffffff81001010, true, 1))
		if v := m.Snapshot(0); len(v.Rows) != c.rows {
			t.Errorf("%+v: %d rows, want %d", c.o, len(v.Rows), c.rows)
		}
	}
	if _, err := NewModel(Options{Sort: []string{"cycles"}}, nil, nil); err == nil {
		t.Error("--sort cycles accepted")
	}
}

// TestModelChains: -g keeps a row's callers, most frequent first, and a bounded number.
func TestModelChains(t *testing.T) {
	m, _ := NewModel(Options{Callchain: true}, nil, kernelTable(t))
	m.Add(comm(10, 10, "hot"))
	for i := 0; i < 3; i++ {
		m.Add(sample(10, 10, 0xffffffff81001010, true, 1, perfdata.ContextKernel, 0xffffffff81001010, 0xffffffff81002010))
	}
	m.Add(sample(10, 10, 0xffffffff81001010, true, 1, perfdata.ContextKernel, 0xffffffff81001010))
	for i := 0; i < 100; i++ { // many distinct chains: at most maxChains kept
		m.Add(sample(10, 10, 0xffffffff81001010, true, 1, perfdata.ContextKernel, 0xffffffff81001010, 0x5000+uint64(i)))
	}
	v := m.Snapshot(0)
	if len(v.Rows) != 1 || len(v.Rows[0].Chains) > maxChains+1 {
		t.Fatalf("%d rows, %d chains", len(v.Rows), len(v.Rows[0].Chains))
	}
	var b bytes.Buffer
	v.Write(&b, Header{}, DefaultSort(), 0, 0, true)
	if !strings.Contains(b.String(), "[other chains]") || !strings.Contains(b.String(), "schedule\n") {
		t.Errorf("chains:\n%s", b.String())
	}
}

// TestModelBounded: however many distinct unresolved addresses come (JIT code), the rows
// kept after a refresh are at most maxRows, and the dropped ones still count in the total.
func TestModelBounded(t *testing.T) {
	m, _ := NewModel(Options{}, nil, nil)
	m.Add(comm(10, 10, "qemu"))
	for i := 0; i < 3*maxRows; i++ {
		m.Add(sample(10, 10, 0x7f0000000000+uint64(i)*16, false, 1000))
	}
	m.Add(sample(10, 10, 0x1000, false, 1000000))
	m.Decay()
	if rows, _, _, _ := m.Size(); rows != maxRows {
		t.Errorf("%d rows after a refresh, want %d", rows, maxRows)
	}
	v := m.Snapshot(1)
	if want := uint64(3*maxRows*1000+1000000) * 7 / 8; v.Total < want-maxRows || v.Total > want {
		t.Errorf("total %d, want about %d (the dropped rows included)", v.Total, want)
	}
	if v.Rows[0].Symbol != "0x1000" {
		t.Errorf("first row %+v", v.Rows[0].Row)
	}
}
