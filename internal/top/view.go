package top

import (
	"cmp"
	"fmt"
	"io"
	"path"
	"slices"
	"strings"

	"github.com/pmc-tools/pmc/internal/result"
)

// View is a snapshot of the model: the rows by decreasing period with their share of the
// total.
type View struct {
	Total uint64 // decayed period of every row
	Rows  []ViewRow
}

// ViewRow is a row and its percentage; Chains its callers (with call chains), most
// frequent first.
type ViewRow struct {
	*Row
	Percent float64
	Chains  []Chain
}

// Chain is one call chain of a row: its share of the row and the callers, nearest first.
type Chain struct {
	Percent float64
	Frames  []string
}

// Snapshot returns the rows in order (period, then names), at most limit of them (0: all).
func (m *Model) Snapshot(limit int) View {
	v := View{Total: m.Other}
	rows := make([]*Row, 0, len(m.rows))
	for _, r := range m.rows {
		rows = append(rows, r)
		v.Total += r.Period
	}
	slices.SortFunc(rows, func(a, b *Row) int {
		if c := cmp.Compare(b.Period, a.Period); c != 0 {
			return c
		}
		return cmp.Or(cmp.Compare(a.Comm, b.Comm), cmp.Compare(a.Pid, b.Pid), cmp.Compare(a.DSO, b.DSO), cmp.Compare(a.Symbol, b.Symbol))
	})
	if limit > 0 && len(rows) > limit {
		rows = rows[:limit]
	}
	for _, r := range rows {
		vr := ViewRow{Row: r}
		if v.Total > 0 {
			vr.Percent = 100 * float64(r.Period) / float64(v.Total)
		}
		for c, p := range r.chains {
			vr.Chains = append(vr.Chains, Chain{Percent: 100 * float64(p) / float64(max(r.Period, 1)), Frames: strings.Split(c, "\n")})
		}
		slices.SortFunc(vr.Chains, func(a, b Chain) int {
			return cmp.Or(cmp.Compare(b.Percent, a.Percent), slices.Compare(a.Frames, b.Frames))
		})
		v.Rows = append(v.Rows, vr)
	}
	return v
}

// Header is the line above the rows: the rate, the kernel's share, what is sampled.
type Header struct {
	Rate    float64 // samples per second over the last interval
	Kernel  float64 // percent of the total in the kernel
	Lost    uint64
	Event   string
	Freq    uint64
	Target  string // "all, 2 CPUs", "pid 1234", "cgroup /sys/fs/cgroup/x"
	Paused  bool
	Message string
}

// Write writes the view as text in width columns (0: no limit): the header, the column
// titles and the rows; the row at index selected (-1: none) is marked, and with showChains
// its call chains follow it (every row's when selected is -2).
func (v View) Write(w io.Writer, h Header, keys []string, width, selected int, showChains bool) error {
	var b strings.Builder
	fmt.Fprintf(&b, "   PmcTop: %8.0f samples/s  kernel:%5.1f%%  lost: %d [%d Hz %s], (%s)", h.Rate, h.Kernel, h.Lost, h.Freq, h.Event, h.Target)
	if h.Paused {
		b.WriteString("  [paused]")
	}
	line(&b, width)
	b.WriteString(strings.Repeat("-", max(min(width, 100), 40)))
	b.WriteByte('\n')
	if h.Message != "" {
		b.WriteString(h.Message)
		line(&b, width)
	}
	b.WriteString("  Overhead")
	cw := v.widths(keys)
	for i, k := range keys {
		fmt.Fprintf(&b, "  %-*s", cw[i], title(k))
	}
	line(&b, width)
	for i, r := range v.Rows {
		mark := "  "
		if i == selected {
			mark = "> "
		}
		fmt.Fprintf(&b, "%s%7.2f%%", mark, r.Percent)
		for j, k := range keys {
			fmt.Fprintf(&b, "  %-*s", cw[j], r.cell(k))
		}
		line(&b, width)
		if showChains && (i == selected || selected == -2) {
			for _, c := range r.Chains {
				fmt.Fprintf(&b, "            %6.2f%%  %s", c.Percent, result.Printable(strings.Join(c.Frames, " <- ")))
				line(&b, width)
			}
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// line ends a line of b, cut to width columns.
func line(b *strings.Builder, width int) {
	s := b.String()
	start := strings.LastIndexByte(s, '\n') + 1
	if width > 0 && len(s)-start > width {
		cut := s[:start+width]
		b.Reset()
		b.WriteString(cut)
	}
	b.WriteByte('\n')
}

// title is a column's title.
func title(key string) string {
	switch key {
	case "comm":
		return "Command"
	case "pid":
		return "Pid"
	case "dso":
		return "Shared Object"
	}
	return "Symbol"
}

func (r *Row) cell(key string) string {
	switch key {
	case "comm":
		return result.Printable(r.Comm)
	case "pid":
		return fmt.Sprint(r.Pid)
	case "dso":
		return result.Printable(path.Base(r.DSO))
	case "sym":
		mode := "[.] "
		if r.Kernel {
			mode = "[k] "
		}
		return mode + result.Printable(r.Symbol)
	}
	return ""
}

// widths are the columns' widths: the widest cell or title (the last column unpadded).
func (v View) widths(keys []string) []int {
	w := make([]int, len(keys))
	for i, k := range keys {
		if i == len(keys)-1 {
			break
		}
		w[i] = len(title(k))
		for _, r := range v.Rows {
			w[i] = max(w[i], len(r.cell(k)))
		}
	}
	return w
}

// KernelShare is the percentage of the total in the kernel.
func (v View) KernelShare(m *Model) float64 {
	var k, all uint64
	for _, r := range m.rows {
		all += r.Period
		if r.Kernel {
			k += r.Period
		}
	}
	if all == 0 {
		return 0
	}
	return 100 * float64(k) / float64(all)
}
