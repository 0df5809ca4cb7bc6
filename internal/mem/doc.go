// Package mem is pmc's memory hierarchy probe (`pmc mem`), the rpistat posts' pointer-chasing
// experiment: a linked list with one node per 64-byte cache line, linked in one random cycle
// (Sattolo's shuffle, fixed seed) so that every hop is a dependent load to an unpredictable
// line and the prefetchers cannot help, walked over a sweep of working-set sizes (4 KiB to
// 256 MiB, sqrt(2) apart by default).
//
// For each size it reports:
//   - the latency per hop in ns: a fixed number of hops split into blocks, each timed with the
//     monotonic clock; the fastest block counts (on a shared machine the others include
//     time stolen by other tasks), the median is kept beside it;
//   - the same in cycles: counted by the hardware cycles event on the probing thread when the
//     machine has a PMU (perf_event_open, user space only, allowed at perf_event_paranoid 2),
//     otherwise ns times the core clock, which is measured first with a chain of dependent
//     adds (one cycle each on every x86-64 core) and labelled "calibrated", never "counted";
//     on architectures without that calibration, ns only, said so in the output;
//   - single-hop samples taken the seed's way: one hop per traversal (every 256 hops for
//     lists longer than 256 lines, to bound the run time) timed alone between two reads of
//     the hardware cycle counter from user space where the kernel allows it (RDPMC with the
//     index of the cycles event's perf page on x86-64; MRS PMCCNTR_EL0 on arm64 with
//     perf_user_access=1; internal/unix's assembly, ChooseTimer says why not otherwise),
//     else of the time-stamp counter (LFENCE; RDTSC; load; LFENCE; RDTSC) or the monotonic
//     clock, with the bias of an empty
//     timed interval measured and shown, as a histogram like the seed's one-liner (value,
//     count, bar). The clock's resolution is measured too: the TSC of the Zen 3 VM advances
//     in 10 ns steps, so its samples resolve L3 and DRAM hops but not L1 and L2 ones.
//
// Checked in the QEMU arm64 guest (Cortex-A57, `-icount shift=0`, the kernel's armv8_pmuv3):
// clock.cycles is "pmu" and every size costs 7.4 cycles per hop, equal to instructions:u per
// hop counted with -e, as it must be under icount (cycles == instructions) with no cache model
// in QEMU: one tier. On the Zen 3 VM (no PMU) the cycles are calibrated.
//
// Then Detect groups the sizes into tiers (runs of sizes with about the same latency, split
// where the latency rises faster than StepPerOctave) and compares each step with the cache
// sizes read from sysfs (ReadCaches, over an fs.FS rooted like /sys).
//
// Why the chase is in Go and not the C workload: the probe must run inside the static pmc
// binary on any machine (including the ARM guests and boards with no compiler and no
// workloads/ build), and it has to interleave timing, counter reads and samples with the
// chase. The hot loop compiles to one load, a bounds check and a counter per hop
// (`go build -gcflags=-S ./internal/mem`: MOVL (AX)(CX*4), DI; only the load is on the
// dependency chain) and its result goes to a package-level sink so it cannot be removed. The
// nodes are []uint32 indices, not pointers, so the garbage collector never scans the list;
// the collector is switched off and the goroutine locked to its thread while probing. The
// single timed hop and the add chain are a few lines of Go assembly (amd64); elsewhere the
// samples use the monotonic clock.
//
// The JSON document (Result, schema "pmc.mem/v1") is described in docs/json-schema.md.
//
// Main is the command around Run: flags to a Config, the memory the sweep needs against what
// the machine has, the output files opened first, rows written as they come, a progress
// line on a terminal, and Ctrl-C ending the sweep with what was measured still written.
package mem
