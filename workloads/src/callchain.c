/*
 * callchain N: a known call chain without frame pointers, for call graphs recorded with
 * --call-graph dwarf. main calls top, top calls mid, mid calls leaf, and leaf spins N
 * iterations of a multiply-add loop; nearly every sample of the run lands in leaf, with
 * the callers
 *
 *     leaf <- mid <- top <- main (<- the C library's start-up)
 *
 * The Makefile builds it -O2 -g -fomit-frame-pointer (what distributions ship): nothing
 * links the frames, so only the unwind tables (.eh_frame, .debug_frame, .ARM.exidx) give
 * the callers. noipa keeps each function a function of its own name (no inlining, no
 * .constprop/.isra clones), and each caller uses the result after the call, so no call
 * becomes a tail jump that would drop the caller from the stack.
 *
 * Output (stdout, one line):  callchain n=<N> sum=<checksum>
 */
#include <stdio.h>
#include <stdlib.h>

#define CALLCHAIN_MAX 4000000000ul

static volatile unsigned long sink;

__attribute__((noipa)) unsigned long leaf(unsigned long n)
{
	unsigned long s = 1;
	for (unsigned long i = 0; i < n; i++)
		s = s * 2654435761ul + i;
	return s;
}

__attribute__((noipa)) unsigned long mid(unsigned long n)
{
	unsigned long s = leaf(n);
	sink = s;
	return s + 1;
}

__attribute__((noipa)) unsigned long top(unsigned long n)
{
	unsigned long s = mid(n);
	sink = s;
	return s + 2;
}

int main(int argc, char **argv)
{
	char *end;
	if (argc != 2) {
		fputs("usage: callchain N (iterations of leaf's loop)\n", stderr);
		return 2;
	}
	unsigned long n = strtoul(argv[1], &end, 10);
	if (*end != '\0' || end == argv[1] || n > CALLCHAIN_MAX) {
		fprintf(stderr, "callchain: %s: want a number of iterations from 0 to %lu\n", argv[1], CALLCHAIN_MAX);
		return 2;
	}
	unsigned long s = top(n);
	printf("callchain n=%lu sum=%lu\n", n, s);
	return 0;
}
