package top

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/pmc-tools/pmc/internal/perfdata"
	"github.com/pmc-tools/pmc/internal/unix"
)

// UIOptions say how the live view is shown.
type UIOptions struct {
	Delay  time.Duration // between refreshes (-d)
	Stdio  bool          // print a snapshot every Delay instead of a full-screen view
	Out    io.Writer
	In     *os.File // keys (the terminal), full-screen view only
	Keys   []string // the columns (the sort keys)
	Rows   int      // rows per snapshot; 0: what fits the terminal (40 in --stdio)
	Target string   // how the header names what is sampled
	Freq   uint64
	// Count stops after this many refreshes (0: until q or ctx ends).
	Count int
}

// ui is the running view.
type ui struct {
	o        UIOptions
	m        *Model
	src      *Source
	selected int
	chains   bool
	paused   bool
	last     uint64 // Model.Samples at the previous refresh
	lastT    time.Time
	message  string
}

// Run samples and shows the model until ctx ends, q is typed or Count refreshes are done.
func Run(ctx context.Context, src *Source, m *Model, o UIOptions) error {
	u := &ui{o: o, m: m, src: src, lastT: time.Now()}
	// Counting starts before /proc is read, so a task that starts or execs in between is
	// seen by one or the other (both is harmless); the other way round it went nameless.
	src.Start()
	src.Synthesize(m.Add)
	keys := make(chan byte, 16)
	if !o.Stdio {
		restore, err := unix.Cbreak(int(o.In.Fd()))
		if err != nil {
			return fmt.Errorf("the full-screen view needs a terminal (%v): use --stdio", err)
		}
		defer restore()
		io.WriteString(o.Out, "\x1b[?1049h\x1b[?25l") // the alternate screen, no cursor
		defer io.WriteString(o.Out, "\x1b[?25h\x1b[?1049l")
		go readKeys(o.In, keys)
	}
	stop := context.AfterFunc(ctx, src.Wake)
	defer stop()
	next := time.Now().Add(o.Delay)
	refreshes := 0
	for {
		wait := min(time.Until(next), 100*time.Millisecond)
		if _, err := src.Wait(max(wait, 0)); err != nil {
			return err
		}
		if ctx.Err() != nil {
			return nil
		}
		if !u.paused {
			src.Drain(m.Add)
		} else {
			src.Drain(func(perfdata.Record) {})
		}
		for done := false; !done; {
			select {
			case k := <-keys:
				if u.key(k) {
					return nil
				}
				if !o.Stdio {
					u.draw() // at once, not at the next refresh
				}
			default:
				done = true
			}
		}
		if time.Now().Before(next) {
			continue
		}
		u.draw()
		m.Decay()
		next = time.Now().Add(o.Delay)
		refreshes++
		if o.Count > 0 && refreshes >= o.Count {
			return nil
		}
	}
}

// readKeys sends each byte typed to keys; the loop reads them within its 100 ms wait (the
// poller's wake-up is for good, so it is kept for the end).
func readKeys(in *os.File, keys chan<- byte) {
	var b [16]byte
	for {
		n, err := in.Read(b[:])
		for _, c := range b[:n] {
			keys <- c
		}
		if err != nil {
			return
		}
	}
}

// key handles one key; it reports whether to quit. Arrow keys come as ESC [ A/B: the
// final letter is enough.
func (u *ui) key(k byte) bool {
	switch k {
	case 'q', 'Q':
		return true
	case 'j', 'B':
		u.selected++
	case 'k', 'A':
		u.selected = max(u.selected-1, 0)
	case '\n', '\r', 'g':
		u.chains = !u.chains
		if !u.m.opt.Callchain && u.chains {
			u.message = "no call chains: run pmc top -g"
			u.chains = false
		}
	case ' ':
		u.paused = !u.paused
	}
	return false
}

func (u *ui) draw() {
	now := time.Now()
	h := Header{Event: u.src.Event, Freq: u.o.Freq, Target: u.o.Target, Lost: u.m.Lost, Paused: u.paused, Message: u.message}
	if dt := now.Sub(u.lastT).Seconds(); dt > 0 && u.m.Samples >= u.last {
		h.Rate = float64(u.m.Samples-u.last) / dt
	}
	u.last, u.lastT = u.m.Samples, now
	rows, cols := u.o.Rows, 0
	if !u.o.Stdio {
		if r, c, err := unix.WindowSize(int(u.o.In.Fd())); err == nil {
			cols = c
			if rows == 0 {
				rows = r - 4
			}
		}
	}
	if rows <= 0 {
		rows = 40
	}
	v := u.m.Snapshot(rows)
	h.Kernel = v.KernelShare(u.m)
	if u.selected >= len(v.Rows) {
		u.selected = max(len(v.Rows)-1, 0)
	}
	var b bytes.Buffer
	if u.o.Stdio {
		sel := -1
		if u.m.opt.Callchain {
			sel = -2 // every row's chains
		}
		v.Write(&b, h, u.o.Keys, 0, sel, u.m.opt.Callchain)
		b.WriteByte('\n')
	} else {
		b.WriteString("\x1b[H")
		var body bytes.Buffer
		v.Write(&body, h, u.o.Keys, cols, u.selected, u.chains)
		for _, l := range bytes.SplitAfter(body.Bytes(), []byte("\n")) {
			b.Write(bytes.TrimSuffix(l, []byte("\n")))
			if len(l) > 0 {
				b.WriteString("\x1b[K\r\n")
			}
		}
		b.WriteString("\x1b[J")
	}
	u.o.Out.Write(b.Bytes())
}
