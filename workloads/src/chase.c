/*
 * chase --size BYTES --order random|sequential [--hops H]: pointer chasing over a linked list
 * with one node per 64-byte cache line, the seed's (rpistat) memory-hierarchy experiment.
 *
 * The list occupies BYTES (rounded down to whole 64-byte lines, at least 2 lines). "random"
 * links the lines in one random cycle (Sattolo's algorithm, fixed seed): every hop depends on
 * the previous load and goes to an unpredictable line, which defeats the hardware prefetcher,
 * so the time per hop shows the level of the hierarchy the list fits in. "sequential" links
 * line i to line i+1 (a stride the prefetcher follows). The number of hops H is fixed
 * (default 2^24) whatever the size, as in the seed, so runs of different sizes execute the same
 * number of chase instructions and their cycles and misses compare directly.
 *
 * Output: chase order=<o> size=<bytes used> lines=<L> hops=<H> end=<index of the last node>
 */
#include "wl.h"

#define LINE 64
#define CHASE_MAX_BYTES (256ull << 20)
#define CHASE_MAX_HOPS (1ull << 30)

struct node {
	struct node *next;
	char pad[LINE - sizeof(struct node *)];
};

_Static_assert(sizeof(struct node) == LINE, "one node per cache line");

int main(int argc, char **argv)
{
	static const char *const orders[] = {"random", "sequential", NULL};
	wl_name = "chase";
	wl_usage = "--size BYTES [--order random|sequential] [--hops H]   (BYTES 128..256 MiB, H 1..2^30)";
	int order = 0;
	uint64_t size = 0, hops = 1u << 24;
	for (int i = 1; i < argc; i++) {
		const char *v;
		if (wl_flag(argc, argv, &i, "--size", &v))
			size = wl_u64("--size", v, 2 * LINE, CHASE_MAX_BYTES);
		else if (wl_flag(argc, argv, &i, "--order", &v))
			order = wl_choice("--order", v, orders);
		else if (wl_flag(argc, argv, &i, "--hops", &v))
			hops = wl_u64("--hops", v, 1, CHASE_MAX_HOPS);
		else
			wl_die("unknown argument %s", argv[i]);
	}
	if (size == 0)
		wl_die("--size is required, e.g. --size 16384 for a list that fits a 16 KiB L1D");
	uint64_t lines = size / LINE;
	struct node *list = aligned_alloc(LINE, lines * LINE);
	uint32_t *perm = malloc(lines * sizeof *perm);
	if (list == NULL || perm == NULL)
		wl_die("out of memory for %" PRIu64 " bytes", lines * LINE);
	memset(list, 0, lines * LINE);
	for (uint64_t i = 0; i < lines; i++)
		perm[i] = (uint32_t)i;
	if (order == 0) {
		/* Sattolo: a uniformly random permutation with exactly one cycle. */
		uint64_t seed = 0x9E3779B97F4A7C15ull;
		for (uint64_t i = lines - 1; i > 0; i--) {
			uint64_t j = wl_rand(&seed) % i;
			uint32_t t = perm[i];
			perm[i] = perm[j];
			perm[j] = t;
		}
		/* perm is a cyclic permutation: node k points to node perm[k]. */
		for (uint64_t k = 0; k < lines; k++)
			list[k].next = &list[perm[k]];
	} else {
		for (uint64_t k = 0; k < lines; k++)
			list[k].next = &list[(k + 1) % lines];
	}
	free(perm);

	struct node *p = &list[0];
	for (uint64_t h = 0; h < hops; h++)
		p = p->next;
	/* Printing the end node keeps the chase from being optimised away. */
	printf("chase order=%s size=%" PRIu64 " lines=%" PRIu64 " hops=%" PRIu64 " end=%td\n",
	       orders[order], lines * LINE, lines, hops, p - list);
	free(list);
	return 0;
}
