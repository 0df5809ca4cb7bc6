package pmu

import (
	"errors"
	"fmt"
	"math/bits"
	"strconv"
	"strings"

	"github.com/pmc-tools/pmc/internal/perfevent"
)

// ErrFormat reports a malformed sysfs format line.
var ErrFormat = errors.New("bad pmu format")

// ErrValueRange reports a term value too wide for its format field.
var ErrValueRange = errors.New("value out of range")

// Format is one sysfs format field: which config word it lives in and which bits of that
// word it occupies. Ranges are kept as written; the field's value bits are scattered over the
// union of the ranges in ascending bit order (the kernel and perf do the same).
type Format struct {
	Word   int // 0 = config, 1 = config1, 2 = config2, 3 = config3
	Ranges []BitRange
}

// BitRange is an inclusive bit range Lo..Hi (0..63) of a config word.
type BitRange struct {
	Lo, Hi uint
}

var wordNames = []string{"config", "config1", "config2", "config3"}

// ParseFormat parses a sysfs format line such as "config:0-7,32-35" or "config1:0".
func ParseFormat(s string) (Format, error) {
	s = strings.TrimSpace(s)
	word, spec, ok := strings.Cut(s, ":")
	if !ok {
		return Format{}, fmt.Errorf("%w %q: want config[N]:BITS", ErrFormat, s)
	}
	f := Format{Word: -1}
	for i, n := range wordNames {
		if word == n {
			f.Word = i
		}
	}
	if f.Word < 0 {
		return Format{}, fmt.Errorf("%w %q: unknown word %q (want config, config1, config2 or config3)", ErrFormat, s, word)
	}
	for _, part := range strings.Split(spec, ",") {
		lo, hi, isRange := strings.Cut(part, "-")
		l, err := parseBit(lo)
		if err != nil {
			return Format{}, fmt.Errorf("%w %q: %v", ErrFormat, s, err)
		}
		h := l
		if isRange {
			if h, err = parseBit(hi); err != nil {
				return Format{}, fmt.Errorf("%w %q: %v", ErrFormat, s, err)
			}
			if h < l {
				return Format{}, fmt.Errorf("%w %q: range %s is reversed", ErrFormat, s, part)
			}
		}
		f.Ranges = append(f.Ranges, BitRange{Lo: l, Hi: h})
	}
	return f, nil
}

func parseBit(s string) (uint, error) {
	if s == "" || len(s) > 2 || s[0] == '+' || s[0] == '-' {
		return 0, fmt.Errorf("bad bit number %q", s)
	}
	n, err := strconv.ParseUint(s, 10, 8)
	if err != nil || n > 63 {
		return 0, fmt.Errorf("bad bit number %q (want 0..63)", s)
	}
	return uint(n), nil
}

// Mask is the set of config word bits the field occupies.
func (f Format) Mask() uint64 {
	var m uint64
	for _, r := range f.Ranges {
		m |= (^uint64(0) >> (63 - r.Hi)) &^ (uint64(1)<<r.Lo - 1)
	}
	return m
}

// Bits is the field's width: how many value bits it can hold.
func (f Format) Bits() int { return bits.OnesCount64(f.Mask()) }

// Max is the largest value the field can hold.
func (f Format) Max() uint64 {
	if f.Bits() == 64 {
		return ^uint64(0)
	}
	return uint64(1)<<f.Bits() - 1
}

// String renders the format in sysfs syntax, e.g. "config:0-7,32-35".
func (f Format) String() string {
	var b strings.Builder
	if f.Word >= 0 && f.Word < len(wordNames) {
		b.WriteString(wordNames[f.Word])
	}
	b.WriteByte(':')
	for i, r := range f.Ranges {
		if i > 0 {
			b.WriteByte(',')
		}
		if r.Lo == r.Hi {
			fmt.Fprintf(&b, "%d", r.Lo)
		} else {
			fmt.Fprintf(&b, "%d-%d", r.Lo, r.Hi)
		}
	}
	return b.String()
}

// Scatter places value's low bits into the field's bits, lowest first. It fails when value has
// bits set above the field's width.
func (f Format) Scatter(value uint64) (uint64, error) {
	if value > f.Max() {
		return 0, fmt.Errorf("%w: %#x does not fit in %s (max %#x)", ErrValueRange, value, f, f.Max())
	}
	var out uint64
	mask := f.Mask()
	for vbit := 0; mask != 0; vbit++ {
		fbit := bits.TrailingZeros64(mask)
		mask &= mask - 1
		if value&(1<<vbit) != 0 {
			out |= 1 << fbit
		}
	}
	return out, nil
}

// Apply writes value into the field's bits of the right config word of attr, replacing what
// those bits held before and leaving the other bits alone.
func (f Format) Apply(attr *perfevent.Attr, value uint64) error {
	v, err := f.Scatter(value)
	if err != nil {
		return err
	}
	var w *uint64
	switch f.Word {
	case 0:
		w = &attr.Config
	case 1:
		w = &attr.Config1
	case 2:
		w = &attr.Config2
	case 3:
		w = &attr.Config3
	default:
		return fmt.Errorf("%w: config word %d", ErrFormat, f.Word)
	}
	*w = *w&^f.Mask() | v
	return nil
}
