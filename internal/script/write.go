package script

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/pmc-tools/pmc/internal/perfdata"
	"github.com/pmc-tools/pmc/internal/profile"
	"github.com/pmc-tools/pmc/internal/result"
)

// Options say what Write prints.
type Options struct {
	Fields      *Selection // -F; nil: perf script's defaults
	NoCallchain bool       // -G: a sample's own address, never its call chain
	Nanoseconds bool       // --ns: times to the nanosecond
}

// MaxStack is how many frames of a call chain perf script prints (PERF_MAX_STACK_DEPTH).
const MaxStack = 127

// plan is how one event's samples are printed.
type plan struct {
	fields Field
	chain  bool // the samples' call chains, one frame a line
}

// Write writes p's samples as perf script prints them. events are the file's events
// (driver.Result.Events): p.Events[i] is events[i].
func Write(w io.Writer, p *profile.Profile, events []perfdata.Event, o Options) error {
	plans, width, err := Plan(p, events, o)
	if err != nil {
		return err
	}
	bw := bufio.NewWriterSize(w, 1<<16)
	var line []byte
	for i := range p.Samples {
		s := &p.Samples[i]
		line = appendSample(line[:0], s, p.Events[s.Event].Name, plans[s.Event], width, o.Nanoseconds)
		if _, err := bw.Write(line); err != nil {
			return err
		}
	}
	return bw.Flush()
}

// Plan checks the selection against the file's events and returns how each event's samples
// print and the width of the event column (the longest event name).
func Plan(p *profile.Profile, events []perfdata.Event, o Options) ([]plan, int, error) {
	if len(events) != len(p.Events) {
		return nil, 0, fmt.Errorf("the profile has %d events, the file %d", len(p.Events), len(events))
	}
	sel := o.Fields
	if sel == nil {
		sel, _ = Parse("")
	}
	names := make([]string, len(p.Events))
	width := 0
	for i, e := range p.Events {
		names[i] = e.Name
		if names[i] == "" {
			names[i] = "[unknown]"
		}
		width = max(width, len(names[i]))
	}
	kinds, err := sel.resolve(events, names)
	if err != nil {
		return nil, 0, err
	}
	useChains := false
	for _, ev := range events {
		useChains = useChains || ev.Attr.SampleType&perfdata.SampleCallchain != 0
	}
	useChains = useChains && !o.NoCallchain
	plans := make([]plan, len(events))
	for i, ev := range events {
		f := kinds[kindOf(ev.Attr)]
		plans[i] = plan{fields: f, chain: useChains && f&IP != 0 && ev.Attr.SampleType&perfdata.SampleCallchain != 0}
	}
	return plans, width, nil
}

// appendSample appends one sample's text: its line, and its call chain's lines after it.
func appendSample(b []byte, s *profile.Sample, event string, pl plan, width int, ns bool) []byte {
	f := pl.fields
	if f == 0 {
		return b
	}
	if f&Comm != 0 {
		comm := result.Printable(s.Thread.Comm)
		if pl.chain {
			b = append(b, comm...)
		} else {
			b = pad(b, len(comm), 16)
			b = append(b, comm...)
		}
		b = append(b, ' ')
	}
	switch {
	case f&PID != 0 && f&TID != 0:
		b = appendInt(b, int64(s.Thread.Pid), 5, false)
		b = append(b, '/')
		b = appendInt(b, int64(s.Thread.Tid), 5, true)
		b = append(b, ' ')
	case f&PID != 0:
		b = appendInt(b, int64(s.Thread.Pid), 5, false)
		b = append(b, ' ')
	case f&TID != 0:
		b = appendInt(b, int64(s.Thread.Tid), 5, false)
		b = append(b, ' ')
	}
	if f&CPU != 0 {
		b = append(b, '[')
		b = appendZero(b, uint64(s.CPU), 3)
		b = append(b, "] "...)
	}
	if f&Time != 0 {
		secs, frac := s.Time/1e9, s.Time%1e9
		if ns {
			b = appendInt(b, int64(secs), 5, false)
			b = append(b, '.')
			b = appendZero(b, frac, 9)
		} else {
			n := len(strconv.FormatUint(secs, 10)) + 7
			b = pad(b, n, 12)
			b = strconv.AppendUint(b, secs, 10)
			b = append(b, '.')
			b = appendZero(b, frac/1000, 6)
		}
		b = append(b, ": "...)
	}
	if f&Period != 0 {
		b = appendUint(b, s.Period, 10)
		b = append(b, ' ')
	}
	if f&Event != 0 {
		b = pad(b, len(event), width)
		b = append(b, result.Printable(event)...)
		b = append(b, ": "...)
	}
	if f&IP != 0 {
		if pl.chain {
			b = append(b, '\n')
			for i, l := range s.Stack {
				if i == MaxStack {
					break
				}
				b = append(b, '\t')
				b = appendFrame(b, l, frameIP(l), f, s.Thread.Pid)
				b = append(b, '\n')
			}
		} else {
			b = append(b, ' ')
			b = appendFrame(b, s.Stack[0], s.Stack[0].Addr, f, s.Thread.Pid)
		}
	}
	return append(b, '\n')
}

// appendFrame appends an address, its symbol+offset and its DSO, as f chooses; pid is the
// process's (perf names its anonymous executable memory /tmp/perf-PID.map).
func appendFrame(b []byte, l *profile.Location, ip uint64, f Field, pid int) []byte {
	b = appendHex(b, ip, 16)
	if f&Sym != 0 {
		b = append(b, ' ')
		if l.Sym == nil || l.Sym.Unknown {
			b = append(b, "[unknown]"...)
		} else {
			b = append(b, result.Printable(l.Sym.Name)...)
			if f&SymOff != 0 {
				b = append(b, "+0x"...)
				b = strconv.AppendUint(b, l.Rel-l.Sym.Start, 16)
			}
		}
	}
	if l.Sym != nil && l.Sym.Inlined {
		return append(b, profile.InlinedSuffix...) // perf's, in place of the DSO if it is shown
	}
	if f&DSO != 0 {
		b = append(b, " ("...)
		switch {
		case l.DSO == nil:
			b = append(b, profile.Unknown...)
		case identityMapped(l.DSO.Name):
			b = append(b, "/tmp/perf-"...)
			b = strconv.AppendInt(b, int64(pid), 10)
			b = append(b, ".map"...)
		default:
			b = append(b, result.Printable(l.DSO.Name)...)
		}
		b = append(b, ')')
	}
	return b
}

// frameIP is the address perf script prints for a call-chain frame: the offset in the
// mapped file for user space (perf's map_ip), the address itself for the kernel, for an
// address no mapping covers, and for anonymous memory (whose map is the identity).
func frameIP(l *profile.Location) uint64 {
	d := l.DSO
	if d == nil || d.Kernel || d.Name == profile.Unknown || identityMapped(d.Name) {
		return l.Addr
	}
	return l.Off
}

// identityMapped names the mappings perf addresses by their process address: anonymous
// memory (JIT code) and the stack and heap.
func identityMapped(name string) bool {
	return name == "//anon" || strings.HasPrefix(name, "/dev/zero") || strings.HasPrefix(name, "/anon_hugepage") ||
		strings.HasPrefix(name, "[stack") || strings.HasPrefix(name, "/SYSV") || name == "[heap]"
}

// pad appends spaces so that n bytes that follow fill width (C's %*s right alignment).
func pad(b []byte, n, width int) []byte {
	for ; n < width; n++ {
		b = append(b, ' ')
	}
	return b
}

// appendInt appends v in width columns, right aligned (left with left: C's %-5d).
func appendInt(b []byte, v int64, width int, left bool) []byte {
	var tmp [24]byte
	d := strconv.AppendInt(tmp[:0], v, 10)
	if !left {
		b = pad(b, len(d), width)
	}
	b = append(b, d...)
	if left {
		b = pad(b, len(d), width)
	}
	return b
}

func appendUint(b []byte, v uint64, width int) []byte {
	var tmp [24]byte
	d := strconv.AppendUint(tmp[:0], v, 10)
	return append(pad(b, len(d), width), d...)
}

// appendZero appends v with at least width digits, zero-padded (C's %03d).
func appendZero(b []byte, v uint64, width int) []byte {
	var tmp [24]byte
	d := strconv.AppendUint(tmp[:0], v, 10)
	for n := len(d); n < width; n++ {
		b = append(b, '0')
	}
	return append(b, d...)
}

// appendHex appends v in hex, right aligned in width columns (C's %16llx).
func appendHex(b []byte, v uint64, width int) []byte {
	var tmp [16]byte
	d := strconv.AppendUint(tmp[:0], v, 16)
	return append(pad(b, len(d), width), d...)
}
