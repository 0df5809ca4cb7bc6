//go:build !amd64

package mem

import "time"

// Without a user-readable cycle or time-stamp counter in pmc's assembly, the per-access
// samples use the monotonic clock (nanosecond ticks), whose own cost (tens of ns) sets the
// bias, and there is no dependent-add calibration: latencies are reported in ns only unless
// a hardware PMU provides cycles.

const (
	tickSource    = "monotonic"
	haveAddChain  = false
	cyclesPerIter = 0
)

var epoch = time.Now()

func ticks() uint64 { return uint64(time.Since(epoch)) }

func timedHop(buf *uint32, i uint32) (uint32, uint64) {
	t0 := ticks()
	next := *(*uint32)(unsafeAdd(buf, i))
	return next, ticks() - t0
}

func timedNothing() uint64 {
	t0 := ticks()
	return ticks() - t0
}

func addChain(n uint64) uint64 { return n }
