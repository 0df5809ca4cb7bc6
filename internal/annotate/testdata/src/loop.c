/*
 * loop N: run a loop of exactly N iterations whose body is inline assembly with a known
 * instruction count, so that a user-space instruction counter over the WHOLE process obeys
 *
 *     count(N) - count(0) == WL_SPIN_INSNS_PER_ITER * N        (exactly, for 0 <= N <= LOOP_MAX)
 *
 * Per-iteration and guard instruction counts (WL_SPIN_INSNS_PER_ITER == 2 on every ISA):
 *   x86-64:  test %rcx,%rcx ; jz 2f ; 1: dec %rcx ; jnz 1b ; 2:
 *   aarch64: cbz x0, 2f ;            1: subs x0, x0, #1 ; b.ne 1b ; 2:
 *   armv7:   cmp r0, #0 ; beq 2f ;   1: subs r0, r0, #1 ; bne 1b ; 2:
 *            built as ARM (A32) code: the Makefile passes -marm and the block starts with
 *            `.arm`; the same unified-syntax instructions are also valid Thumb-2, and a Thumb-2
 *            build (-mthumb) executes the same number of instructions (the isa= field says which).
 * The guard costs 2 (x86-64, armv7) or 1 (aarch64) instructions for every N, so it cancels.
 *
 * Why the code outside the loop costs the same for every N (what makes the difference exact):
 *   - N is parsed by parse_fixed(): always LOOP_DIGITS iterations, branch-free (masks, no
 *     early exit), so "7" and "4000000000" cost the same. Validation branches are only taken
 *     on the error path, which exits before the loop.
 *   - The result line is formatted by format_fixed(): always 10 digit positions, branch-free,
 *     32-bit division by the constant 10 (a multiply on every ISA, never a libgcc call), then
 *     one write(2). The kernel side of write(2) depends on the line's length, so count user
 *     space only (instructions:u); the user-space side is identical for every N.
 *   - Nothing is printed before the loop. The environment and the number of arguments must be
 *     the same between the runs compared (libc start-up scans them).
 *   - Give N ZERO-PADDED TO 10 DIGITS (loop 0000001000) when comparing runs: then argv has the
 *     same length for every N. The kernel places the argument strings at the top of the stack,
 *     so their length moves argv[0]'s address, and libc start-up string functions on argv[0]
 *     cost a few instructions more or less with its alignment. Measured on armv7 (static glibc
 *     2.36, QEMU -icount): "0"->10798, "00"->10822, "1000"->12831 but "0001000"->12788;
 *     padded to 10 digits every N gave exactly 10822 + 2N (N up to 10^7). x86-64 (static,
 *     callgrind) and aarch64 (QEMU) were exact for unpadded arguments too, padded is safe on all.
 *     In a dynamic build ld.so also scans the environment strings, which move with argv:
 *     x86-64 callgrind showed 14 instructions of strcspn between "0" and "123456".
 * Measured whole-process user-space counts (instructions:u with enable_on_exec, QEMU -icount
 * shift=0, padded N, this repository's static builds): aarch64 (cortex-a57) 9772 + 2N,
 * armv7-arm (cortex-a7) 10822 + 2N, armv7 built with -mthumb (16-bit Thumb encodings of the
 * same four instructions) 10905 + 2N; x86-64 callgrind Ir 36626 + 2N (unpadded "0": the base
 * depends on the build and the environment, only the 2N difference is the contract).
 * The test workloads_test.go checks this with valgrind callgrind (exact user-space Ir) on the
 * host; test/qemu checks it on the ARM guests with INST_RETIRED under -icount.
 *
 * Output (stdout, one line):  loop n=<N> per_iter=2 isa=<x86-64|aarch64|armv7-arm|armv7-thumb2>
 */
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#define LOOP_DIGITS 10                 /* accepted argument width: 1..10 decimal digits */
#define LOOP_MAX 4000000000ull         /* bounds the run time: ~2-4 s natively */

#include "spin.h"

static void die(const char *msg)
{
	/* Error path only: its cost does not matter, it never reaches the loop. */
	(void)!write(2, msg, strlen(msg));
	_exit(2);
}

/*
 * parse_fixed reads up to LOOP_DIGITS decimal digits in exactly LOOP_DIGITS steps. After the
 * terminating NUL the pointer stops advancing (it re-reads the NUL), so it never reads past
 * the string. Returns the value; *bad is non-zero on a non-digit, *len is the digit count.
 */
__attribute__((noinline)) static uint64_t parse_fixed(const char *s, uint32_t *bad, uint32_t *len)
{
	uint64_t v = 0;
	uint32_t end = 0, err = 0, n = 0;
	for (int i = 0; i < LOOP_DIGITS; i++) {
		uint32_t c = (unsigned char)*s;
		end |= (c == 0);
		uint32_t live = end ^ 1;                 /* 1 while still inside the string */
		uint32_t d = c - '0';
		err |= live & (d > 9);
		uint64_t mask = 0 - (uint64_t)live;      /* all ones while live */
		v = (v & ~mask) | ((v * 10 + d) & mask);
		n += live;
		s += live;
	}
	*bad = err | (uint32_t)(*s != 0);                /* more than LOOP_DIGITS characters */
	*len = n;
	return v;
}

/*
 * format_fixed writes v as decimal without leading zeros into out (>= 10 bytes) in exactly 10
 * steps and returns the number of characters. Leading zeros are removed by computing, branch
 * free, the index of the most significant non-zero digit.
 */
__attribute__((noinline)) static uint32_t format_fixed(uint32_t v, char *out)
{
	char tmp[10];
	uint32_t first = 9; /* index of the leading digit; 9 keeps "0" for v == 0 */
	for (int i = 9; i >= 0; i--) {
		uint32_t q = v / 10;
		uint32_t d = v - q * 10;
		tmp[i] = (char)('0' + d);
		uint32_t nz = (d != 0);
		uint32_t m = 0 - nz;                     /* all ones when this digit is non-zero */
		first = ((uint32_t)i & m) | (first & ~m);
		v = q;
	}
	/* Fixed-size copy, then the caller writes only the significant part. */
	for (int i = 0; i < 10; i++)
		out[i] = tmp[(i + first) % 10];
	return 10 - first;
}

int main(int argc, char **argv)
{
	if (argc != 2)
		die("usage: loop N   (N: 0..4000000000 iterations, decimal, at most 10 digits)\n");
	uint32_t bad, len;
	uint64_t n = parse_fixed(argv[1], &bad, &len);
	if (bad || len == 0)
		die("loop: N must be a decimal number of 1 to 10 digits, e.g. `loop 1000000`\n");
	if (n > LOOP_MAX)
		die("loop: N too large: the maximum is 4000000000 (keeps the run under a few seconds)\n");

	wl_spin((uint32_t)n);

	static const char pre[] = "loop n=";
	static const char post[] = " per_iter=2 isa=" WL_ISA "\n";
	char line[sizeof pre - 1 + 10 + sizeof post];
	memcpy(line, pre, sizeof pre - 1);
	uint32_t k = format_fixed((uint32_t)n, line + sizeof pre - 1);
	/* Move the fixed-size suffix after the digits: constant-size copy whatever k is. */
	memcpy(line + sizeof pre - 1 + k, post, sizeof post - 1);
	if (write(1, line, sizeof pre - 1 + k + sizeof post - 1) < 0)
		return 1;
	return 0;
}
