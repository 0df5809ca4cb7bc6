/*
 * array2d --order row|col --rows R --cols C: the Armv8 blog's 2D_array program. assign sets
 * array[i][j] = i + j, then squares squares every element (both noinline, as in the blog, so a
 * profile splits its samples between them), walking a long[R][C] array by row (consecutive
 * addresses) or by column (stride C*8 bytes: a new cache line per access once a row exceeds one).
 * Defaults: 16384 rows x 64 columns (8 MiB; the blog used 512000 x 64 = 250 MiB).
 *
 * Output: array2d order=<row|col> rows=<R> cols=<C> checksum=<sum of elements, mod 2^64>
 */
#include "wl.h"

#define ARRAY2D_MAX_BYTES (256ull << 20)

__attribute__((noinline)) static void assign(long *a, uint64_t rows, uint64_t cols, int bycol)
{
	if (bycol) {
		for (uint64_t j = 0; j < cols; j++)
			for (uint64_t i = 0; i < rows; i++)
				a[i * cols + j] = (long)(i + j);
	} else {
		for (uint64_t i = 0; i < rows; i++)
			for (uint64_t j = 0; j < cols; j++)
				a[i * cols + j] = (long)(i + j);
	}
}

__attribute__((noinline)) static void squares(long *a, uint64_t rows, uint64_t cols, int bycol)
{
	if (bycol) {
		for (uint64_t j = 0; j < cols; j++)
			for (uint64_t i = 0; i < rows; i++)
				a[i * cols + j] = a[i * cols + j] * a[i * cols + j];
	} else {
		for (uint64_t i = 0; i < rows; i++)
			for (uint64_t j = 0; j < cols; j++)
				a[i * cols + j] = a[i * cols + j] * a[i * cols + j];
	}
}

int main(int argc, char **argv)
{
	static const char *const orders[] = {"row", "col", NULL};
	wl_name = "array2d";
	wl_usage = "[--order row|col] [--rows R] [--cols C]   (R*C*8 bytes <= 256 MiB)";
	int order = 0;
	uint64_t rows = 16384, cols = 64;
	for (int i = 1; i < argc; i++) {
		const char *v;
		if (wl_flag(argc, argv, &i, "--order", &v))
			order = wl_choice("--order", v, orders);
		else if (wl_flag(argc, argv, &i, "--rows", &v))
			rows = wl_u64("--rows", v, 1, ARRAY2D_MAX_BYTES / sizeof(long));
		else if (wl_flag(argc, argv, &i, "--cols", &v))
			cols = wl_u64("--cols", v, 1, ARRAY2D_MAX_BYTES / sizeof(long));
		else
			wl_die("unknown argument %s", argv[i]);
	}
	if (rows * cols > ARRAY2D_MAX_BYTES / sizeof(long))
		wl_die("--rows %" PRIu64 " --cols %" PRIu64 ": array larger than 256 MiB, make it smaller",
		       rows, cols);
	long *a = malloc(rows * cols * sizeof *a);
	if (a == NULL)
		wl_die("out of memory for %" PRIu64 " x %" PRIu64 " longs", rows, cols);
	assign(a, rows, cols, order);
	squares(a, rows, cols, order);
	uint64_t sum = 0;
	for (uint64_t i = 0; i < rows * cols; i++)
		sum += (uint64_t)a[i];
	printf("array2d order=%s rows=%" PRIu64 " cols=%" PRIu64 " checksum=%" PRIu64 "\n", orders[order],
	       rows, cols, sum);
	free(a);
	return 0;
}
