// Package workloads holds pmc's built-in C workloads (src/*.c, built by the Makefile here) and
// their tests; the package itself has no Go code.
//
// Each program prints one line saying what it did, validates its arguments (one-line error,
// exit status 2) and bounds its own run time:
//
//	loop N                          2 instructions per iteration of inline assembly (x86-64,
//	                                aarch64, armv7 ARM mode): count(N) - count(0) == 2N exactly
//	                                for user-space instructions of the whole process; pass N
//	                                zero-padded to 10 digits (see src/loop.c for why)
//	matmul --order ijk|ikj --size N the seed's naive and loop-interchange matrix multiply
//	array2d --order row|col --rows R --cols C   the Armv8 blog's 2D array traversal
//	chase --size BYTES --order random|sequential [--hops H]   pointer chasing, one node per
//	                                64-byte line, a random single cycle, fixed hops
//	forkthreads --procs P --threads T --work N   a process and thread tree for inheritance
//	selfmeasure [--n N] [--events LIST] [--json PATH]   the include/pmc.h example
//
// `make` builds static host binaries into build/$(uname -m)/, each also as NAME-novec
// (-fno-tree-vectorize); `make cross` builds build/arm64/ and build/armv7/ for the QEMU guests.
//
// The tests compute every expected output in Go, and use valgrind as an exact simulated PMU:
// callgrind Ir for loop's 2N, cachegrind D1 misses for matmul naive vs interchange.
package workloads
