package mem

import (
	"errors"
	"fmt"
	"runtime"

	pe "github.com/pmc-tools/pmc/internal/perfevent"
	"github.com/pmc-tools/pmc/internal/result"
	"github.com/pmc-tools/pmc/internal/unix"
)

// EventSpec is an event to count per size, already resolved to an attr (package events).
type EventSpec struct {
	Name string
	Attr pe.Attr
}

// counterSet is the probing thread's open counters. cycles is the index of the hardware
// cycles counter pmc mem opens itself, -1 when the machine has none.
type counterSet struct {
	names  []string
	ctrs   []*pe.Counter // nil where the event could not be opened
	errs   []error
	cycles int
	// cyclesErr is why the cycles counter did not open; page is its perf mmap page (nil when
	// it could not be mapped), which says whether user space may read the counter.
	cyclesErr error
	page      []byte
}

// blockCount is one counter's change over a block: its status and, when counted, the
// value scaled for multiplexing (result.Reading, the rule every command shares).
type blockCount struct {
	status result.Status
	value  float64
}

// ok reports whether the counter has a value for the block.
func (b blockCount) ok() bool { return b.status == result.Counted }

// cyclesAttr counts user-space core cycles of the calling thread: allowed at
// perf_event_paranoid 2 (kernel and hypervisor excluded).
var cyclesAttr = pe.Attr{Type: pe.TypeHardware, Config: pe.HWCPUCycles, ExcludeKernel: true, ExcludeHV: true,
	ReadFormat: pe.FormatTotalTimeEnabled | pe.FormatTotalTimeRunning}

// openCounters opens the cycles counter and the requested events on the calling thread
// (which the caller has locked). Events that fail are reported in notes and their rows say
// why; a missing cycles counter is not an error (the clock is calibrated instead).
func openCounters(events []EventSpec) (*counterSet, []string) {
	cs := &counterSet{cycles: -1}
	var notes []string
	a := cyclesAttr
	if runtime.GOARCH == "arm64" {
		// The arm64 PMU's format: config1 bit 0 "long" (64-bit), bit 1 "rdpmc" (user-space
		// reads when perf_user_access is 1; the dedicated cycle counter is then index 32).
		a.Config1 = 0x3
	}
	c, err := pe.Open("cycles", a, pe.CallingThread, pe.AnyCPU, nil)
	if err != nil && a.Config1 != 0 {
		c, err = pe.Open("cycles", cyclesAttr, pe.CallingThread, pe.AnyCPU, nil)
	}
	if err == nil {
		cs.names, cs.ctrs, cs.errs, cs.cycles = append(cs.names, "cycles"), append(cs.ctrs, c), append(cs.errs, nil), 0
		if page, err := unix.Mmap(c.FD(), 0, unix.PageSize(), unix.PROT_READ, unix.MAP_SHARED); err == nil {
			cs.page = page
		}
	} else {
		cs.cyclesErr = err
		if errors.Is(err, pe.ErrPermission) {
			notes = append(notes, "cycles: "+err.Error())
		}
	}
	for _, ev := range events {
		a := ev.Attr
		a.Disabled, a.Inherit, a.EnableOnExec = false, false, false
		a.ReadFormat = pe.FormatTotalTimeEnabled | pe.FormatTotalTimeRunning
		c, err := pe.Open(ev.Name, a, pe.CallingThread, pe.AnyCPU, nil)
		if err != nil {
			notes = append(notes, fmt.Sprintf("%s: %v", ev.Name, err))
			c = nil
		}
		cs.names, cs.ctrs, cs.errs = append(cs.names, ev.Name), append(cs.ctrs, c), append(cs.errs, err)
	}
	return cs, notes
}

func (cs *counterSet) read() []pe.Value {
	if len(cs.ctrs) == 0 {
		return nil
	}
	vs := make([]pe.Value, len(cs.ctrs))
	for i, c := range cs.ctrs {
		if c != nil {
			vs[i], _ = c.Read()
		}
	}
	return vs
}

// diff is the scaled change of each counter between two reads.
func diff(before, after []pe.Value) []blockCount {
	out := make([]blockCount, len(after))
	for i := range after {
		rd := result.Reading{Raw: after[i].Raw, Enabled: after[i].Enabled, Running: after[i].Running}.
			Sub(result.Reading{Raw: before[i].Raw, Enabled: before[i].Enabled, Running: before[i].Running})
		out[i] = blockCount{status: rd.Status(), value: rd.Scaled()}
	}
	return out
}

// perHop turns a block's counts into the point's event rows (the cycles counter pmc opened
// for itself is reported as Point.Cycles, not here).
func (cs *counterSet) perHop(counts []blockCount, hops int) []EventCount {
	var out []EventCount
	for i, name := range cs.names {
		if i == cs.cycles {
			continue
		}
		ec := EventCount{Name: name}
		switch {
		case cs.ctrs[i] == nil:
			ec.Status = result.NotSupported
			if cs.errs[i] != nil {
				ec.Error = cs.errs[i].Error()
			}
		case i >= len(counts):
			ec.Status = result.NotCounted
		default:
			ec.Status = counts[i].status
			if ec.Status == result.Counted {
				ec.PerHop = counts[i].value / float64(hops)
			}
		}
		out = append(out, ec)
	}
	return out
}

func (cs *counterSet) close() {
	if cs.page != nil {
		unix.Munmap(cs.page)
		cs.page = nil
	}
	for _, c := range cs.ctrs {
		if c != nil {
			c.Close()
		}
	}
}
