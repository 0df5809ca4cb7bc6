// Package launch runs a workload so that counters opened on it start at its exec, as perf's
// fork + enable_on_exec does, from Go, which cannot fork without exec.
//
// Start execs a shim that blocks reading a "go" byte from an inherited pipe. Meanwhile the
// caller opens counters on Child.Pid() with enable_on_exec=1, inherit=1, disabled=1. Exec
// writes the byte, and the shim execs the already-resolved path. An exec failure goes back
// through a close-on-exec pipe that pmc reads only after the exit, so nothing wakes pmc at
// exec time; the process then exits 127 or 126 like a shell.
//
// The shim is package tiny's executable, run from a sealed memfd (native.go): it clones
// itself with CLONE_PARENT, reports the clone's pid and exits, so the process that execs is
// pmc's child with a fresh high-water RSS, and wait's peak RSS and CPU times are the
// workload's own. Where the kernel will not run it, or with PMC_LAUNCH=self, Start
// re-executes pmc (/proc/self/exe) with PMC_LAUNCH_SHIM in its environment: the init of
// package launch/shim, which imports so little that it runs before most of pmc's packages
// initialise and never reaches pmc's main. Locked to the main thread, it says it is ready
// once its runtime is up, then waits for the byte, removes its variable from the
// environment and execs on the counted thread (the exec restores the RLIMIT_NOFILE soft
// limit pmc started with); it records its own CPU time, peak RSS and the moment of the exec,
// which Wait takes out or uses.
//
// Why not fork the workload straight from a thread of pmc's own that the counters are opened
// on (inherit=1): it halves the launch's CPU cost, and counts wrongly. The child's copies of
// the counters live in a clone of the thread's perf context, and the kernel swaps equivalent
// contexts between a parent and its clone at a context switch instead of scheduling them out
// and in: whenever the workload and pmc's thread follow each other on a CPU, the enabled
// counters move to pmc's thread and the workload's become the disabled copies. Tried on
// 2026-11-26: in the armv7 guest, 3 of 8 multiplexed runs lost 1-9% of an event's enabled
// time (TestPMCMultiplex). perf stat forks first and opens the counters on the child, as the
// shim lets pmc do.
//
// Wait parks on a pidfd in Go's poller (no thread busy in waitid, no sysmon churn), measures
// the wall clock itself from Exec to exit, and returns the exit status with the rusage
// times of the workload alone. ForwardSignals keeps pmc alive through SIGINT,
// SIGTERM, SIGHUP and SIGQUIT and passes them on without doubling a terminal's ^C.
//
// LookPath resolves a command as a shell does and returns an *ExecError carrying the exit
// status 127 (not found) or 126 (not executable). The CLI prints it as "pmc: " + Error().
// Gone watches any process (attach mode) for its exit.
//
// This package owns the meaning of the process system calls (sys.go: pipes, pidfds,
// waitid's exit information, rusage); the calls themselves go through internal/unix.
package launch
