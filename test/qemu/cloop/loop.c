/* loop N: the harness's own fixed-length workload (used until workloads/ provides one).
 * Runs N iterations of a 2-instruction loop (subtract-and-set-flags, branch-if-not-zero).
 * Pass N zero-padded to a fixed width (e.g. 00001000) so that parsing costs the same number
 * of instructions for every N and count(N) - count(0) == 2N exactly. */
#include <stdlib.h>

int main(int argc, char **argv)
{
	unsigned long n = argc > 1 ? strtoul(argv[1], 0, 10) : 0;
#if defined(__aarch64__)
	__asm__ volatile("cbz %0, 2f\n1:\tsubs %0, %0, #1\n\tb.ne 1b\n2:" : "+r"(n) : : "cc");
#elif defined(__arm__)
	__asm__ volatile("cmp %0, #0\n\tbeq 2f\n1:\tsubs %0, %0, #1\n\tbne 1b\n2:" : "+r"(n) : : "cc");
#else
#error "loop.c: arm64 or armv7 only"
#endif
	return (int)n;
}
