/* A small PIE with DWARF for the symbol tests: functions at known lines. */
#include <stdio.h>
#include <stdlib.h>

static volatile long sink;

__attribute__((noinline)) static long leaf(long n)
{
	long s = 0;
	for (long i = 0; i < n; i++)
		s += i * i;
	return s;
}

__attribute__((noinline)) long middle(long n)
{
	return leaf(n) + leaf(n / 2);
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000;
	sink = middle(n);
	printf("%ld\n", sink);
	return 0;
}
