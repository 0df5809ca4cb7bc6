package mem

// On x86-64 the per-access samples are timed with the time-stamp counter (RDTSC, constant
// rate on every CPU since ~2008) and the core clock is calibrated with a dependent-add chain.

const (
	tickSource    = "tsc"
	haveAddChain  = true
	cyclesPerIter = 8 // add latency 1 cycle
)

func timedHop(buf *uint32, i uint32) (next uint32, ticks uint64)
func timedNothing() uint64
func ticks() uint64
func addChain(n uint64) uint64
