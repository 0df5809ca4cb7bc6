/*
 * phases [--pairs P] [--spin N] [--calls C] [--mode sys|walk] [--walk KB] [--seed S | --seed-file F]: a
 * workload whose rate of user-space instructions changes from one phase to the next, for
 * testing how far a multiplexed (scaled) count may be off. It alternates P times
 *   - a busy phase: wl_spin(n_i), the 2-instructions-per-iteration loop of spin.h, and
 *   - a slow phase: c_i system calls (--mode sys, getppid: time in the kernel, where a :u
 *     counter runs without counting), or c_i loads of a pointer walk over a --walk KB buffer
 *     (--mode walk: cache and TLB misses slow the instructions down on real hardware; under
 *     QEMU -icount every instruction takes the same time, so use sys there).
 * The lengths n_i and c_i are drawn at random (from --seed; from the kernel's AT_RANDOM bytes
 * when the seed is 0, so that every run of `pmc stat -r` lays its phases out differently; or,
 * with --seed-file FILE, from a counter kept in FILE that every run increments, so that the
 * runs of `pmc stat -r` differ from each other and repeat from one boot to the next),
 * from 0 to twice their mean, and always add up to exactly P*N and P*C. The code is branch
 * free where it depends on the draw, so the number of user-space instructions is the same
 * for every seed: a count of instructions:u of one run is the truth for every other run with
 * the same arguments (workloads_test.go checks it with callgrind, test/qemu with the guests'
 * exact counters).
 *
 * Output: phases pairs=P spin=N calls=C mode=M spin_insns=<2*P*N>
 */
#define _GNU_SOURCE
#include "wl.h"
#include "spin.h"

#include <fcntl.h>
#include <sys/auxv.h>
#include <sys/syscall.h>
#include <unistd.h>

#define PH_MAX_PAIRS 100000
#define PH_MAX_SPIN 1000000000ull
#define PH_MAX_CALLS 10000000ull
#define PH_MAX_TOTAL 20000000000ull /* P*N: a few seconds */

/* xorshift64: a fixed number of instructions per draw. */
static uint64_t rnd(uint64_t *s)
{
	uint64_t x = *s;
	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	*s = x;
	return x;
}

/* draw returns a value in [0, hi) without a division (a 32x32->64 multiply on every ISA). */
static uint32_t draw(uint64_t *s, uint32_t hi)
{
	return (uint32_t)(((uint64_t)(uint32_t)(rnd(s) >> 32) * hi) >> 32);
}

/* walk follows the cycle in buf for n steps and returns where it ended (kept live). */
__attribute__((noinline)) static uint32_t walk(const uint32_t *buf, uint32_t at, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)
		at = buf[at];
	return at;
}

/* calls makes n getppid system calls. */
__attribute__((noinline)) static void calls(uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)
		syscall(SYS_getppid);
}

int main(int argc, char **argv)
{
	wl_name = "phases";
	wl_usage = "[--pairs P] [--spin N] [--calls C] [--mode sys|walk] [--walk KB] [--seed S | --seed-file FILE]";
	uint64_t pairs = 20, spin = 1000000, ncalls = 2000, walk_kb = 16384, seed = 0;
	const char *seed_file = NULL;
	int mode = 0;
	static const char *const modes[] = {"sys", "walk", NULL};
	for (int i = 1; i < argc; i++) {
		const char *v = NULL;
		if (wl_flag(argc, argv, &i, "--pairs", &v))
			pairs = wl_u64("--pairs", v, 1, PH_MAX_PAIRS);
		else if (wl_flag(argc, argv, &i, "--spin", &v))
			spin = wl_u64("--spin", v, 0, PH_MAX_SPIN);
		else if (wl_flag(argc, argv, &i, "--calls", &v))
			ncalls = wl_u64("--calls", v, 0, PH_MAX_CALLS);
		else if (wl_flag(argc, argv, &i, "--mode", &v))
			mode = wl_choice("--mode", v, modes);
		else if (wl_flag(argc, argv, &i, "--walk", &v))
			walk_kb = wl_u64("--walk", v, 4, 1 << 20);
		else if (wl_flag(argc, argv, &i, "--seed-file", &v))
			seed_file = v;
		else if (wl_flag(argc, argv, &i, "--seed", &v))
			seed = wl_u64("--seed", v, 0, UINT64_MAX);
		else
			wl_die("unknown argument %s", argv[i]);
	}
	if (pairs * spin > PH_MAX_TOTAL)
		wl_die("--pairs %" PRIu64 " x --spin %" PRIu64 " is too long: lower one of them", pairs, spin);
	if (pairs * ncalls > PH_MAX_TOTAL / 1000)
		wl_die("--pairs %" PRIu64 " x --calls %" PRIu64 " is too long: lower one of them", pairs, ncalls);

	uint64_t s = seed;
	if (seed_file != NULL) {
		/* The same system calls and instructions whether the file held a counter or was
		 * empty: read into a zeroed word, add one, write it back. */
		int fd = open(seed_file, O_RDWR | O_CREAT, 0644);
		if (fd < 0)
			wl_die("--seed-file %s: cannot open it", seed_file);
		uint64_t n = 0;
		(void)!read(fd, &n, sizeof n);
		n++;
		(void)!pwrite(fd, &n, sizeof n, 0);
		close(fd);
		s = n * 0x9e3779b97f4a7c15ull;
	} else if (s == 0) {
		/* 16 random bytes the kernel gives every exec: no system call, no branch on them. */
		const uint64_t *r = (const uint64_t *)getauxval(AT_RANDOM);
		s = r[0] ^ r[1];
	}
	s |= 1; /* xorshift's state must not be 0 */

	uint32_t *buf = NULL, slots = 0, at = 0;
	if (mode == 1) {
		/* A single cycle through the buffer with a large odd stride: every load misses. */
		slots = (uint32_t)(walk_kb * 1024 / sizeof *buf);
		buf = malloc((size_t)slots * sizeof *buf);
		if (buf == NULL)
			wl_die("--walk %" PRIu64 ": out of memory", walk_kb);
		uint32_t stride = (slots / 2 + 4099) | 1;
		for (uint32_t i = 0, j = stride % slots; i < slots; i++) {
			buf[i] = j;
			j = j + 1 < slots ? j + 1 : 0;
		}
	}

	/*
	 * Phase i gets mean + d_i - d_{i-1}, with d_i drawn from [0, mean) and d_{-1} = d_{P-1} =
	 * 0 (the last draw is made and masked out, so every seed costs the same): the lengths
	 * range over [0, 2*mean) and add up to P*mean exactly.
	 */
	uint32_t prev_n = 0, prev_c = 0;
	for (uint64_t i = 0; i < pairs; i++) {
		uint32_t keep = 0u - (uint32_t)(i + 1 < pairs); /* all ones except on the last phase */
		uint32_t dn = draw(&s, (uint32_t)spin) & keep;
		uint32_t dc = draw(&s, (uint32_t)ncalls) & keep;
		wl_spin((uint32_t)spin + dn - prev_n);
		uint32_t c = (uint32_t)ncalls + dc - prev_c;
		if (mode == 0)
			calls(c);
		else
			at = walk(buf, at, c);
		prev_n = dn;
		prev_c = dc;
	}
	printf("phases pairs=%" PRIu64 " spin=%" PRIu64 " calls=%" PRIu64 " mode=%s spin_insns=%" PRIu64 "%s\n",
	       pairs, spin, ncalls, modes[mode], 2 * pairs * spin, at == UINT32_MAX ? " " : "");
	free(buf);
	return 0;
}
