package proffmt

import (
	"bufio"
	"fmt"
	"io"
	"path"
	"sort"
	"strings"

	"github.com/pmc-tools/pmc/internal/profile"
	"github.com/pmc-tools/pmc/internal/result"
)

// FoldedOptions chooses what Folded counts.
type FoldedOptions struct {
	Event  int  // index in Profile.Events
	Period bool // weigh stacks by period instead of sample count
}

// Folded writes collapsed stacks (flamegraph.pl, inferno, speedscope): one line per distinct
// stack, "comm;outermost;...;leaf COUNT", sorted, named as inferno-collapse-perf --kernel
// names the frames of perf script's text (FrameName); with Period each stack counts its
// samples' periods, as inferno counts them.
func Folded(w io.Writer, p *profile.Profile, o FoldedOptions) error {
	counts := map[string]uint64{}
	var b strings.Builder
	for i := range p.Samples {
		s := &p.Samples[i]
		if s.Event != o.Event {
			continue
		}
		b.Reset()
		b.WriteString(foldName(s.Thread.Comm))
		for j := len(s.Stack) - 1; j >= 0; j-- {
			b.WriteByte(';')
			b.WriteString(FrameName(s.Stack[j]))
		}
		v := uint64(1)
		if o.Period {
			v = s.Period
		}
		counts[b.String()] += v
	}
	keys := make([]string, 0, len(counts))
	for k := range counts {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	bw := bufio.NewWriter(w)
	for _, k := range keys {
		fmt.Fprintf(bw, "%s %d\n", k, counts[k])
	}
	return bw.Flush()
}

// FrameName is a frame's name in folded stacks and flame graphs, as stackcollapse-perf and
// inferno-collapse-perf --kernel name it from perf script's text: an unresolved address of
// a known DSO is "[file name of the DSO]", one outside every mapping "[unknown]".
func FrameName(l *profile.Location) string {
	name := "[unknown]"
	switch {
	case !l.Sym.Unknown:
		name = foldName(l.Sym.Name)
	case l.DSO != nil && l.DSO.Name != profile.Unknown:
		name = "[" + foldName(path.Base(l.DSO.Name)) + "]"
	}
	if l.Kernel() {
		name += "_[k]"
	}
	return name
}

// foldName keeps ';' (the frame separator) and control characters (newlines, terminal
// escapes: shown escaped) out of a name; spaces may stay, the count is the text after the
// last one.
func foldName(s string) string {
	return strings.ReplaceAll(result.Printable(s), ";", ":")
}
