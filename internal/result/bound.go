package result

import (
	"encoding/json"
	"math"
)

// Bound says how far a multiplexed count (one that shared its counter: running < enabled)
// may be from the true count: the half-width of a 95% interval around the scaled value,
// computed from periodic reads of the counter (docs/multiplexing-error.md). A count that
// ran all the time is exact and has no Bound. When the reads cannot support a bound (the run
// was too short for them), Unknown says why and there are no numbers.
type Bound struct {
	Pct   float64 `json:"pct"`             // the half-width in percent of the count
	Abs   float64 `json:"abs"`             // the same in the count's raw unit (ns for clocks)
	Reads int     `json:"reads,omitempty"` // the periodic reads it stands on
	// Unknown: why the count, though multiplexed, has no bound; Pct and Abs are then absent.
	Unknown string `json:"unknown,omitempty"`
}

// NewBound is the bound abs on a count of value v.
func NewBound(abs, v float64, reads int) *Bound {
	b := &Bound{Abs: abs, Reads: reads}
	if v != 0 {
		b.Pct = 100 * abs / math.Abs(v)
	}
	return b
}

// NoBound is the Bound of a multiplexed count that cannot be bounded, saying why.
func NoBound(why string) *Bound { return &Bound{Unknown: why} }

// Known reports whether b holds a bound (nil: the count needs none, or none was computed).
func (b *Bound) Known() bool { return b != nil && b.Unknown == "" }

// MarshalJSON writes an unknown bound as {"unknown": why} alone: no number for a value that
// was not measured.
func (b Bound) MarshalJSON() ([]byte, error) {
	if b.Unknown != "" {
		return json.Marshal(struct {
			Unknown string `json:"unknown"`
		}{b.Unknown})
	}
	type plain Bound
	return json.Marshal(plain(b))
}
