/*
 * matmul --order ijk|ikj --size N: square single-precision matrix multiply R = A * B, the
 * seed's "naive" (ijk: the inner loop walks B down a column, stride N*4 bytes) and
 * "interchange" (ikj: the inner loop walks B and R along a row, stride 4 bytes) programs.
 *
 * Elements are small integers (0..3), so every product sum is exact in float and both orders
 * print the same checksum: a wrong result shows up as a different checksum, not as noise.
 * Build the -novec variant to see the cache effect: gcc 12 vectorises even the ijk loop at -O2.
 *
 * Output: matmul order=<ijk|ikj> size=<N> checksum=<sum of R>
 */
#include "wl.h"

#define MATMUL_MAX 2048 /* 3 matrices of 16 MiB; the naive order runs ~10-30 s at this size */

static void naive(int n, const float *a, const float *b, float *r)
{
	for (int i = 0; i < n; i++)
		for (int j = 0; j < n; j++) {
			float sum = 0.0f;
			for (int k = 0; k < n; k++)
				sum = sum + a[i * n + k] * b[k * n + j];
			r[i * n + j] = sum;
		}
}

static void interchange(int n, const float *a, const float *b, float *r)
{
	for (int i = 0; i < n * n; i++)
		r[i] = 0.0f;
	for (int i = 0; i < n; i++)
		for (int k = 0; k < n; k++)
			for (int j = 0; j < n; j++)
				r[i * n + j] = r[i * n + j] + a[i * n + k] * b[k * n + j];
}

int main(int argc, char **argv)
{
	static const char *const orders[] = {"ijk", "ikj", NULL};
	wl_name = "matmul";
	wl_usage = "[--order ijk|ikj] [--size 1..2048]";
	int order = 0;
	int n = 500;
	for (int i = 1; i < argc; i++) {
		const char *v;
		if (wl_flag(argc, argv, &i, "--order", &v))
			order = wl_choice("--order", v, orders);
		else if (wl_flag(argc, argv, &i, "--size", &v))
			n = (int)wl_u64("--size", v, 1, MATMUL_MAX);
		else
			wl_die("unknown argument %s", argv[i]);
	}
	size_t cells = (size_t)n * (size_t)n;
	float *a = malloc(cells * sizeof *a);
	float *b = malloc(cells * sizeof *b);
	float *r = malloc(cells * sizeof *r);
	if (a == NULL || b == NULL || r == NULL)
		wl_die("out of memory for 3 matrices of %d x %d floats", n, n);
	for (int i = 0; i < n; i++)
		for (int j = 0; j < n; j++) {
			a[i * n + j] = (float)((i + j) % 4);
			b[i * n + j] = (float)((i * 3 + j) % 4);
		}
	if (order == 0)
		naive(n, a, b, r);
	else
		interchange(n, a, b, r);
	uint64_t sum = 0;
	for (size_t i = 0; i < cells; i++)
		sum += (uint64_t)r[i];
	printf("matmul order=%s size=%d checksum=%" PRIu64 "\n", orders[order], n, sum);
	free(a);
	free(b);
	free(r);
	return 0;
}
