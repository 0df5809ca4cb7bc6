//go:build race

package launch

// raceEnabled: the race runtime adds threads and start-up work of its own, in pmc and in the
// shim, so the timing and context-switch bounds do not apply.
const raceEnabled = true
