// A deep-stack workload for the sampling benchmarks (report.sh, files.sh): walk recurses
// through even/odd 4 to 19 frames deep and ends in leaf; runs for argv[1] seconds.
#include <stdlib.h>
#include <time.h>
static volatile unsigned long sink;
__attribute__((noinline)) static unsigned long leaf(unsigned long x) {
	for (int i = 0; i < 40; i++) x = x * 6364136223846793005UL + 1442695040888963407UL;
	return x;
}
__attribute__((noinline)) static unsigned long odd(int d, unsigned long x);
__attribute__((noinline)) static unsigned long even(int d, unsigned long x) {
	return d == 0 ? leaf(x) : ((x >> 7) & 1 ? odd(d - 1, x * 3 + 1) : even(d - 1, x >> 1)) + 2;
}
__attribute__((noinline)) static unsigned long odd(int d, unsigned long x) {
	return d == 0 ? leaf(x ^ 0x5555) : ((x >> 9) & 1 ? even(d - 1, x + 7) : odd(d - 1, x * 5)) + 1;
}
__attribute__((noinline)) static unsigned long walk(unsigned long x) { return even(4 + (int)(x % 16), x); }
int main(int argc, char **argv) {
	double secs = argc > 1 ? atof(argv[1]) : 1;
	struct timespec t0, t;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	unsigned long x = 1;
	do {
		for (int i = 0; i < 20000; i++) x = walk(x + (unsigned long)i);
		sink = x;
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while ((double)(t.tv_sec - t0.tv_sec) + (double)(t.tv_nsec - t0.tv_nsec) / 1e9 < secs);
	return 0;
}
