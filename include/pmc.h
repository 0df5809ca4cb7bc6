/*
 * SPDX-License-Identifier: MIT-0
 * Copyright 2026 The pmc authors
 *
 * This header, unlike the rest of pmc (Apache-2.0, see LICENSE), is under the MIT No
 * Attribution license so that it can be compiled into any program, open or closed, under
 * any license, with no notice to keep:
 *
 * Permission is hereby granted, free of charge, to any person obtaining a copy of this
 * software and associated documentation files (the "Software"), to deal in the Software
 * without restriction, including without limitation the rights to use, copy, modify,
 * merge, publish, distribute, sublicense, and/or sell copies of the Software, and to
 * permit persons to whom the Software is furnished to do so.
 *
 * THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR IMPLIED,
 * INCLUDING BUT NOT LIMITED TO THE WARRANTIES OF MERCHANTABILITY, FITNESS FOR A
 * PARTICULAR PURPOSE AND NONINFRINGEMENT. IN NO EVENT SHALL THE AUTHORS OR COPYRIGHT
 * HOLDERS BE LIABLE FOR ANY CLAIM, DAMAGES OR OTHER LIABILITY, WHETHER IN AN ACTION OF
 * CONTRACT, TORT OR OTHERWISE, ARISING FROM, OUT OF OR IN CONNECTION WITH THE SOFTWARE
 * OR THE USE OR OTHER DEALINGS IN THE SOFTWARE.
 */
/*
 * pmc.h: self-measurement of code regions with Linux perf_event_open(2). Single header, no
 * kernel module, no library: in exactly one C file write
 *
 *     #define PMC_IMPLEMENTATION
 *     #include "pmc.h"
 *
 * API (not thread-safe: one measuring thread; counters count the calling thread only):
 *   int  pmc_open(const char *events);   comma-separated names, NULL or "" for the default
 *                                        "instructions,cycles,task-clock,page-faults".
 *                                        Returns how many events opened, -1 on an unknown name.
 *                                        An event that cannot be opened (no PMU, EACCES, ...) is
 *                                        reported on stderr, kept as "not-supported" with the
 *                                        errno text, and the others are still measured.
 *   void pmc_begin(const char *region);  start (or re-enter) a named region; regions nest
 *   void pmc_end(const char *region);    end the innermost region; must name it
 *   int  pmc_value(const char *region, const char *event, uint64_t *value);
 *                                        accumulated raw value; 0 ok, -1 unknown/not counted
 *   int  pmc_write_json(const char *path); "-" for stdout; 0 ok, -1 with errno set
 *   void pmc_close(void);
 *
 * Event names: hardware "cycles" (cpu-cycles), "instructions", "cache-references",
 * "cache-misses", "branches" (branch-instructions), "branch-misses", "bus-cycles",
 * "stalled-cycles-frontend", "stalled-cycles-backend", "ref-cycles"; software "task-clock",
 * "cpu-clock", "page-faults" (faults), "minor-faults", "major-faults", "context-switches" (cs),
 * "cpu-migrations" (migrations), "alignment-faults", "emulation-faults"; perf's hardware cache
 * events ("L1-dcache-load-misses", "LLC-loads", "dTLB-load-misses", "branch-loads"...); raw
 * codes "rNNN" (hex, the CPU's own event numbers); and, with a table the CPU's names compiled
 * in (`pmc list --cpu NAME --c-header > pmc_events.h`, then `#include "pmc_events.h"` and
 * `#define PMC_EVENT_TABLE pmc_events` before pmc.h), the CPU's event names such as
 * "L1D_CACHE_REFILL" (case ignored). Modifiers: ":u" (user
 * space only), ":k" (kernel only). Without a modifier the kernel is counted too, and when the
 * kernel refuses that (perf_event_paranoid >= 2 without privileges) the event is reopened
 * user-only, like perf stat does.
 *
 * Reading: read(2) on each event's fd (value, time_enabled, time_running). With the
 * environment variable PMC_USER_READ=1, hardware events are read in user space where the
 * kernel allows it: x86 `rdpmc` and arm64 `mrs PMEVCNTR<n>_EL0/PMCCNTR_EL0` (arm64 also needs
 * `sysctl kernel.perf_user_access=1`; the event is opened with config1 bit 1, the arm64 PMU's
 * "rdpmc" format bit). The counter index, offset and times come from the event's mmap page
 * under its seqlock (cap_user_rdpmc, index, pmc_width, cap_user_time). When the page says no
 * (software event, not scheduled, no cap_user_time to extend the times), read(2) is used.
 *
 * Exactness: pmc_begin reads the counters as its LAST action and pmc_end as its FIRST, in
 * the same event order, so a region's value is the region's code plus a fixed overhead (the
 * return from pmc_begin and the call into pmc_end, and the other events' reads): constant for
 * a given build and event list. Count user space only (":u") for exact instruction counts;
 * workloads/src/selfmeasure.c measures the overhead with an empty region.
 *
 * JSON (pmc_write_json): the pmc.stat/v1 schema of internal/stat/result.go, so `pmc` reads it
 * as a stat.Result. The mapping:
 *   - each region is one Run: runs[i].index = i, in order of first pmc_begin;
 *     elapsed_sec = wall time summed over the region's passes; exit_status 0; user/sys 0;
 *   - runs[i].counts: one Count per event, in pmc_open order: event = the name as written,
 *     group = the event's index (each event is its own group), cpu = -1, raw = the summed
 *     deltas of the region's passes, time_enabled_ns / time_running_ns = the summed deltas,
 *     scaled = raw * enabled / running, unit "msec" for task-clock and cpu-clock (raw in ns),
 *     encoding = perf_event_attr type/config/config1 ("pmu": "software" for software events);
 *     status "counted" (ran), "not-counted" (opened, never ran in the region: running == 0),
 *     "not-supported" (open failed; error = "perf_event_open: <strerror> (errno N)");
 *   - summary: one entry per event over all region passes of the top-level regions only
 *     (nested regions would count twice), runs = number of top-level regions counted;
 *   - mode "self", backend "perf_event", repeat 1, scaled true, command = /proc/self/cmdline,
 *     elapsed_sec = wall time from pmc_open to pmc_write_json;
 *   - extra top-level "regions": [{"name", "run", "calls", "parent"}], run = index into runs,
 *     calls = completed begin/end pairs, parent = enclosing region at the first pass ("" at
 *     top level); and "read_method": "read" or "user" (PMC_USER_READ) per event order.
 */
#ifndef PMC_H
#define PMC_H
#define PMC_VERSION "0.2.0-dev"

#if defined(PMC_IMPLEMENTATION) && !defined(_GNU_SOURCE) && !defined(_DEFAULT_SOURCE)
/* syscall(2), gmtime_r, clock_gettime under -std=c11: effective when the implementing file
 * includes pmc.h before other headers (else compile with -std=gnu11 or -D_DEFAULT_SOURCE). */
#define _DEFAULT_SOURCE 1
#endif


#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

int pmc_open(const char *events);
void pmc_begin(const char *region);
void pmc_end(const char *region);
int pmc_value(const char *region, const char *event, uint64_t *value);
int pmc_write_json(const char *path);
void pmc_close(void);

#ifdef __cplusplus
}
#endif

#endif /* PMC_H */

#if defined(PMC_IMPLEMENTATION) && !defined(PMC_IMPLEMENTED)
#define PMC_IMPLEMENTED
/* ---- implementation ----------------------------------------------------------------------
 * Needs a Linux libc with syscall(2); no -lm. Compiles as C11 (-std=c11 -pedantic when pmc.h is
 * the implementing file's first include, else -std=gnu11 or -D_DEFAULT_SOURCE) and as C++. */
#include <errno.h>
#include <linux/perf_event.h>
#include <math.h> /* isnan, isinf: macros, no -lm */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#define PMC__MAX_EVENTS 16
#define PMC__MAX_REGIONS 64
#define PMC__MAX_DEPTH 16
#define PMC__NAME 64

struct pmc__def {
	const char *name;
	uint32_t type;
	uint64_t config;
};

static const struct pmc__def pmc__defs[] = {
	{"cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES},
	{"cpu-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES},
	{"instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS},
	{"cache-references", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_REFERENCES},
	{"cache-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES},
	{"branches", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS},
	{"branch-instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS},
	{"branch-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES},
	{"bus-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BUS_CYCLES},
	{"stalled-cycles-frontend", PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_FRONTEND},
	{"stalled-cycles-backend", PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_BACKEND},
	{"ref-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_REF_CPU_CYCLES},
	{"cpu-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK},
	{"task-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK},
	{"page-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS},
	{"faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS},
	{"minor-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MIN},
	{"major-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MAJ},
	{"context-switches", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES},
	{"cs", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES},
	{"cpu-migrations", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS},
	{"migrations", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS},
	{"alignment-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_ALIGNMENT_FAULTS},
	{"emulation-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_EMULATION_FAULTS},
};

struct pmc__ev {
	char name[PMC__NAME]; /* as written, with modifier */
	int fd;               /* -1: not supported */
	int err;              /* errno of the failed open */
	uint32_t type;
	uint64_t config, config1;
	int msec; /* task-clock / cpu-clock: value in ns, shown in msec */
	struct perf_event_mmap_page *page; /* PMC_USER_READ only */
};

struct pmc__reading {
	uint64_t v, ena, run;
};

struct pmc__region {
	char name[PMC__NAME];
	int parent;
	uint64_t calls;
	double elapsed;
	struct pmc__reading sum[PMC__MAX_EVENTS];
};

struct pmc__frame {
	int region;
	struct timespec t0;
	struct pmc__reading start[PMC__MAX_EVENTS];
};

static struct {
	int open, nev, nreg, depth, warned;
	struct timespec t_open;
	time_t date_open; /* wall clock at pmc_open, for the JSON's "date" */
	struct pmc__ev ev[PMC__MAX_EVENTS];
	struct pmc__region reg[PMC__MAX_REGIONS];
	struct pmc__frame stack[PMC__MAX_DEPTH];
} pmc__s;

static void pmc__warn(const char *fmt, const char *a, const char *b)
{
	if (pmc__s.warned++ < 10) {
		fprintf(stderr, "pmc: ");
		fprintf(stderr, fmt, a, b);
		fputc('\n', stderr);
	}
}

/* pmc__sqrt: Newton's method, so that pmc.h needs no -lm; 0 for x <= 0. */
static double pmc__sqrt(double x)
{
	if (!(x > 0))
		return 0;
	double r = x > 1 ? x : 1;
	for (int i = 0; i < 200; i++) {
		double next = (r + x / r) / 2;
		if (next >= r)
			break;
		r = next;
	}
	return r;
}

#ifdef PMC_EVENT_TABLE
/* pmc__ieq compares ASCII names ignoring case (strcasecmp is not in ISO C). */
static int pmc__ieq(const char *a, const char *b)
{
	for (; *a && *b; a++, b++) {
		char x = *a >= 'A' && *a <= 'Z' ? (char)(*a - 'A' + 'a') : *a;
		char y = *b >= 'A' && *b <= 'Z' ? (char)(*b - 'A' + 'a') : *b;
		if (x != y)
			return 0;
	}
	return *a == *b;
}
#endif

/* pmc__cache parses perf's hardware cache names: L1-dcache, L1-icache, LLC, dTLB, iTLB,
 * branch, node; then -load(s), -store(s), -prefetch(es) (or nothing: loads); then -misses
 * (or nothing: accesses), e.g. L1-dcache-load-misses, dTLB-loads, LLC-misses. */
static int pmc__cache(const char *name, uint64_t *config)
{
	static const char *const caches[] = {"L1-dcache", "L1-icache", "LLC", "dTLB", "iTLB", "branch", "node"};
	static const char *const ops[][2] = {{"load", "loads"}, {"store", "stores"}, {"prefetch", "prefetches"}};
	for (unsigned c = 0; c < sizeof caches / sizeof caches[0]; c++) {
		size_t n = strlen(caches[c]);
		if (strncmp(name, caches[c], n) != 0 || (name[n] != '-' && name[n] != '\0'))
			continue;
		const char *rest = name[n] ? name + n + 1 : name + n;
		unsigned op = 0, result = 0; /* read access */
		for (unsigned o = 0; o < 3; o++)
			for (unsigned f = 0; f < 2; f++) {
				size_t k = strlen(ops[o][f]);
				if (strncmp(rest, ops[o][f], k) == 0 && (rest[k] == '-' || rest[k] == '\0')) {
					op = o;
					rest += rest[k] ? k + 1 : k;
					o = 3;
					break;
				}
			}
		if (strcmp(rest, "misses") == 0 || strcmp(rest, "miss") == 0)
			result = 1;
		else if (*rest != '\0' && strcmp(rest, "refs") != 0 && strcmp(rest, "accesses") != 0)
			return 0;
		*config = (uint64_t)c | (uint64_t)op << 8 | (uint64_t)result << 16;
		return 1;
	}
	return 0;
}

/* pmc__lookup resolves a name (without modifier) to a perf_event_attr type and config:
 * generic, hardware cache, raw rNNN, then PMC_EVENT_TABLE. 0 when unknown. */
static int pmc__lookup(const char *name, uint32_t *type, uint64_t *config)
{
	for (size_t i = 0; i < sizeof pmc__defs / sizeof pmc__defs[0]; i++)
		if (strcmp(pmc__defs[i].name, name) == 0) {
			*type = pmc__defs[i].type;
			*config = pmc__defs[i].config;
			return 1;
		}
	if (pmc__cache(name, config)) {
		*type = PERF_TYPE_HW_CACHE;
		return 1;
	}
	if (name[0] == 'r' && name[1] != '\0' && strlen(name) <= 17 && strspn(name + 1, "0123456789abcdefABCDEF") == strlen(name + 1)) {
		*type = PERF_TYPE_RAW;
		*config = strtoull(name + 1, NULL, 16);
		return 1;
	}
#ifdef PMC_EVENT_TABLE
	for (size_t i = 0; i < sizeof PMC_EVENT_TABLE / sizeof PMC_EVENT_TABLE[0]; i++)
		if (pmc__ieq(PMC_EVENT_TABLE[i].name, name)) {
			*type = PERF_TYPE_RAW;
			*config = PMC_EVENT_TABLE[i].config;
			return 1;
		}
#endif
	return 0;
}

static double pmc__since(const struct timespec *t0, const struct timespec *t1)
{
	return (double)(t1->tv_sec - t0->tv_sec) + (double)(t1->tv_nsec - t0->tv_nsec) * 1e-9;
}

/* ---- user-space counter read (PMC_USER_READ=1) ---- */
#if defined(__x86_64__) || defined(__i386__)
#define PMC__HAVE_USER_READ 1
static inline uint64_t pmc__hw_counter(uint32_t idx)
{
	uint32_t lo, hi;
	__asm__ volatile("rdpmc" : "=a"(lo), "=d"(hi) : "c"(idx));
	return (uint64_t)hi << 32 | lo;
}
static inline uint64_t pmc__hw_time(void)
{
	uint32_t lo, hi;
	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return (uint64_t)hi << 32 | lo;
}
#elif defined(__aarch64__)
#define PMC__HAVE_USER_READ 1
#define PMC__EVCNTR(n)                                                                             \
	case n:                                                                                    \
		__asm__ volatile("mrs %0, pmevcntr" #n "_el0" : "=r"(v));                          \
		break;
static inline uint64_t pmc__hw_counter(uint32_t idx)
{
	uint64_t v = 0;
	switch (idx) {
		PMC__EVCNTR(0) PMC__EVCNTR(1) PMC__EVCNTR(2) PMC__EVCNTR(3) PMC__EVCNTR(4)
		PMC__EVCNTR(5) PMC__EVCNTR(6) PMC__EVCNTR(7) PMC__EVCNTR(8) PMC__EVCNTR(9)
		PMC__EVCNTR(10) PMC__EVCNTR(11) PMC__EVCNTR(12) PMC__EVCNTR(13) PMC__EVCNTR(14)
		PMC__EVCNTR(15) PMC__EVCNTR(16) PMC__EVCNTR(17) PMC__EVCNTR(18) PMC__EVCNTR(19)
		PMC__EVCNTR(20) PMC__EVCNTR(21) PMC__EVCNTR(22) PMC__EVCNTR(23) PMC__EVCNTR(24)
		PMC__EVCNTR(25) PMC__EVCNTR(26) PMC__EVCNTR(27) PMC__EVCNTR(28) PMC__EVCNTR(29)
		PMC__EVCNTR(30)
	case 31: /* the kernel's index for the dedicated cycle counter */
		__asm__ volatile("mrs %0, pmccntr_el0" : "=r"(v));
		break;
	}
	return v;
}
static inline uint64_t pmc__hw_time(void)
{
	uint64_t v;
	__asm__ volatile("isb; mrs %0, cntvct_el0" : "=r"(v)::"memory");
	return v;
}
#else
#define PMC__HAVE_USER_READ 0
#endif

/* pmc__user_read follows the seqlock protocol of struct perf_event_mmap_page; -1: use read(2). */
static int pmc__user_read(struct pmc__ev *e, struct pmc__reading *r)
{
#if PMC__HAVE_USER_READ
	volatile struct perf_event_mmap_page *pc = e->page;
	uint32_t seq;
	uint64_t count, enabled, running;
	do {
		seq = pc->lock;
		__asm__ volatile("" ::: "memory");
		uint32_t idx = pc->index;
		if (!pc->cap_user_rdpmc || idx == 0 || !pc->cap_user_time)
			return -1;
		enabled = pc->time_enabled;
		running = pc->time_running;
		count = (uint64_t)pc->offset;
		uint64_t cyc = pmc__hw_time();
		if (pc->cap_user_time_short)
			cyc = pc->time_cycles + ((cyc - pc->time_cycles) & pc->time_mask);
		uint16_t shift = pc->time_shift;
		uint32_t mult = pc->time_mult;
		uint64_t quot = cyc >> shift, rem = cyc & (((uint64_t)1 << shift) - 1);
		uint64_t delta = pc->time_offset + quot * mult + ((rem * mult) >> shift);
		enabled += delta;
		running += delta;
		uint16_t width = pc->pmc_width;
		int64_t pmc = (int64_t)(pmc__hw_counter(idx - 1) << (64 - width)) >> (64 - width);
		count += (uint64_t)pmc;
		__asm__ volatile("" ::: "memory");
	} while (pc->lock != seq);
	r->v = count;
	r->ena = enabled;
	r->run = running;
	return 0;
#else
	(void)e;
	(void)r;
	return -1;
#endif
}

static inline void pmc__read(struct pmc__ev *e, struct pmc__reading *r)
{
	uint64_t buf[3];
	if (e->page != NULL && pmc__user_read(e, r) == 0)
		return;
	if (read(e->fd, buf, sizeof buf) != (ssize_t)sizeof buf) {
		r->v = r->ena = r->run = 0;
		return;
	}
	r->v = buf[0];
	r->ena = buf[1];
	r->run = buf[2];
}

static inline void pmc__read_all(struct pmc__reading *out)
{
	for (int i = 0; i < pmc__s.nev; i++)
		if (pmc__s.ev[i].fd >= 0)
			pmc__read(&pmc__s.ev[i], &out[i]);
}

static int pmc__add(const char *spec, size_t len, int user_read)
{
	char name[PMC__NAME];
	if (len == 0 || len >= sizeof name) {
		fprintf(stderr, "pmc: event name of %zu characters: use 1..63\n", len);
		return -1;
	}
	if (pmc__s.nev == PMC__MAX_EVENTS) {
		fprintf(stderr, "pmc: more than %d events: measure fewer at a time\n", PMC__MAX_EVENTS);
		return -1;
	}
	memcpy(name, spec, len);
	name[len] = '\0';
	char *mod = strchr(name, ':');
	int excl_user = 0, excl_kernel = 0;
	if (mod != NULL) {
		*mod++ = '\0';
		if (strcmp(mod, "u") == 0)
			excl_kernel = 1;
		else if (strcmp(mod, "k") == 0)
			excl_user = 1;
		else {
			fprintf(stderr, "pmc: event %.*s: unknown modifier, use :u or :k\n", (int)len, spec);
			return -1;
		}
	}
	uint32_t type;
	uint64_t config;
	if (!pmc__lookup(name, &type, &config)) {
		fprintf(stderr, "pmc: unknown event %s: use a generic name such as instructions, cycles, "
				"task-clock, page-faults, a cache event such as L1-dcache-load-misses, a raw rNN, "
				"or a name of PMC_EVENT_TABLE\n", name);
		return -1;
	}
	struct pmc__ev *e = &pmc__s.ev[pmc__s.nev++];
	memset(e, 0, sizeof *e);
	memcpy(e->name, spec, len);
	e->name[len] = '\0';
	e->type = type;
	e->config = config;
	e->msec = type == PERF_TYPE_SOFTWARE &&
		  (config == PERF_COUNT_SW_TASK_CLOCK || config == PERF_COUNT_SW_CPU_CLOCK);
#if defined(__aarch64__)
	if (user_read && (type == PERF_TYPE_HARDWARE || type == PERF_TYPE_RAW))
		e->config1 = 2; /* armv8_pmuv3 format "rdpmc": config1:1 */
#endif
	struct perf_event_attr a;
	memset(&a, 0, sizeof a);
	a.size = sizeof a;
	a.type = e->type;
	a.config = e->config;
	a.config1 = e->config1;
	a.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
	a.exclude_kernel = (unsigned)excl_kernel;
	a.exclude_hv = (unsigned)excl_kernel;
	a.exclude_user = (unsigned)excl_user;
	e->fd = (int)syscall(__NR_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (e->fd < 0 && (errno == EACCES || errno == EPERM) && mod == NULL) {
		/* perf_event_paranoid forbids kernel counting: count user space, as perf stat does. */
		a.exclude_kernel = a.exclude_hv = 1;
		e->fd = (int)syscall(__NR_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	}
	if (e->fd < 0) {
		e->err = errno;
		fprintf(stderr, "pmc: %s: not supported: %s (errno %d), measuring the others\n", e->name,
			strerror(e->err), e->err);
		return 0;
	}
	if (user_read && (e->type == PERF_TYPE_HARDWARE || e->type == PERF_TYPE_RAW || e->type == PERF_TYPE_HW_CACHE)) {
		void *p = mmap(NULL, (size_t)sysconf(_SC_PAGESIZE), PROT_READ, MAP_SHARED, e->fd, 0);
		if (p != MAP_FAILED)
			e->page = (struct perf_event_mmap_page *)p;
	}
	return 1;
}

int pmc_open(const char *events)
{
	if (pmc__s.open)
		pmc_close();
	memset(&pmc__s, 0, sizeof pmc__s);
	if (events == NULL || *events == '\0')
		events = "instructions,cycles,task-clock,page-faults";
	const char *env = getenv("PMC_USER_READ");
	int user_read = env != NULL && strcmp(env, "1") == 0;
	int opened = 0;
	for (const char *p = events;;) {
		const char *comma = strchr(p, ',');
		size_t len = comma ? (size_t)(comma - p) : strlen(p);
		int r = pmc__add(p, len, user_read);
		if (r < 0) {
			pmc__s.open = 1;
			pmc_close();
			return -1;
		}
		opened += r;
		if (comma == NULL)
			break;
		p = comma + 1;
	}
	pmc__s.open = 1;
	clock_gettime(CLOCK_MONOTONIC, &pmc__s.t_open);
	pmc__s.date_open = time(NULL);
	return opened;
}

static int pmc__region(const char *name, int parent)
{
	for (int i = 0; i < pmc__s.nreg; i++)
		if (strcmp(pmc__s.reg[i].name, name) == 0)
			return i;
	if (pmc__s.nreg == PMC__MAX_REGIONS || strlen(name) >= PMC__NAME)
		return -1;
	struct pmc__region *r = &pmc__s.reg[pmc__s.nreg];
	memset(r, 0, sizeof *r);
	strcpy(r->name, name);
	r->parent = parent;
	return pmc__s.nreg++;
}

void pmc_begin(const char *region)
{
	if (!pmc__s.open) {
		pmc__warn("pmc_begin(\"%s\")%s: call pmc_open first", region, "");
		return;
	}
	if (pmc__s.depth == PMC__MAX_DEPTH) {
		pmc__warn("pmc_begin(\"%s\"): regions nested deeper than 16%s", region, "");
		return;
	}
	int parent = pmc__s.depth > 0 ? pmc__s.stack[pmc__s.depth - 1].region : -1;
	int idx = pmc__region(region, parent);
	if (idx < 0) {
		pmc__warn("pmc_begin(\"%s\"): more than 64 regions or a name over 63 characters%s", region, "");
		return;
	}
	struct pmc__frame *f = &pmc__s.stack[pmc__s.depth++];
	f->region = idx;
	clock_gettime(CLOCK_MONOTONIC, &f->t0);
	pmc__read_all(f->start); /* last: what follows is the region */
}

void pmc_end(const char *region)
{
	struct pmc__reading now[PMC__MAX_EVENTS];
	if (!pmc__s.open)
		return;
	pmc__read_all(now); /* first: what precedes is the region */
	struct timespec t1;
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (pmc__s.depth == 0) {
		pmc__warn("pmc_end(\"%s\"): no region is open%s", region, "");
		return;
	}
	struct pmc__frame *f = &pmc__s.stack[pmc__s.depth - 1];
	struct pmc__region *r = &pmc__s.reg[f->region];
	if (strcmp(r->name, region) != 0) {
		pmc__warn("pmc_end(\"%s\"): the innermost open region is \"%s\"; pass ignored", region, r->name);
		return;
	}
	pmc__s.depth--;
	for (int i = 0; i < pmc__s.nev; i++) {
		if (pmc__s.ev[i].fd < 0)
			continue;
		r->sum[i].v += now[i].v - f->start[i].v;
		r->sum[i].ena += now[i].ena - f->start[i].ena;
		r->sum[i].run += now[i].run - f->start[i].run;
	}
	r->calls++;
	r->elapsed += pmc__since(&f->t0, &t1);
}

int pmc_value(const char *region, const char *event, uint64_t *value)
{
	for (int i = 0; i < pmc__s.nreg; i++) {
		if (strcmp(pmc__s.reg[i].name, region) != 0)
			continue;
		for (int j = 0; j < pmc__s.nev; j++)
			if (strcmp(pmc__s.ev[j].name, event) == 0 && pmc__s.ev[j].fd >= 0 &&
			    pmc__s.reg[i].sum[j].run > 0) {
				*value = pmc__s.reg[i].sum[j].v;
				return 0;
			}
	}
	return -1;
}

void pmc_close(void)
{
	for (int i = 0; i < pmc__s.nev; i++) {
		if (pmc__s.ev[i].page != NULL)
			munmap(pmc__s.ev[i].page, (size_t)sysconf(_SC_PAGESIZE));
		if (pmc__s.ev[i].fd >= 0)
			close(pmc__s.ev[i].fd);
		pmc__s.ev[i].fd = -1;
		pmc__s.ev[i].page = NULL;
	}
	pmc__s.open = 0;
}

/* ---- JSON ---- */
static void pmc__jstr(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

static void pmc__jnum(FILE *f, double v)
{
	if (isnan(v) || isinf(v))
		v = 0;
	fprintf(f, "%.17g", v);
}

static const char *pmc__status(const struct pmc__ev *e, const struct pmc__reading *s)
{
	if (e->fd < 0)
		return "not-supported";
	return s->run == 0 ? "not-counted" : "counted";
}

static double pmc__scaled(const struct pmc__reading *s)
{
	if (s->run == 0)
		return 0;
	if (s->run == s->ena)
		return (double)s->v;
	return (double)s->v * (double)s->ena / (double)s->run;
}

static void pmc__encoding(FILE *f, const struct pmc__ev *e)
{
	fprintf(f, "\"encoding\":{");
	if (e->type == PERF_TYPE_SOFTWARE)
		fprintf(f, "\"pmu\":\"software\",");
	fprintf(f, "\"type\":%u,\"config\":%llu", e->type, (unsigned long long)e->config);
	if (e->config1)
		fprintf(f, ",\"config1\":%llu", (unsigned long long)e->config1);
	fputc('}', f);
}

static void pmc__error(FILE *f, const struct pmc__ev *e)
{
	if (e->fd >= 0)
		return;
	char msg[160];
	snprintf(msg, sizeof msg, "perf_event_open: %s (errno %d)", strerror(e->err), e->err);
	fprintf(f, ",\"error\":");
	pmc__jstr(f, msg);
}

static void pmc__command(FILE *f, const char *key)
{
	char buf[4096];
	size_t n = 0;
	FILE *c = fopen("/proc/self/cmdline", "rb");
	if (c != NULL) {
		n = fread(buf, 1, sizeof buf - 1, c);
		fclose(c);
	}
	buf[n] = '\0';
	fprintf(f, "\"%s\":[", key);
	for (size_t i = 0; i < n; i += strlen(buf + i) + 1) {
		if (i > 0)
			fputc(',', f);
		pmc__jstr(f, buf + i);
	}
	fputc(']', f);
}

/* pmc__cpuinfo copies the value of the first "key" line of /proc/cpuinfo into out ("" if none). */
static void pmc__cpuinfo(const char *key, char *out, size_t size)
{
	char line[512];
	size_t k = strlen(key);
	out[0] = '\0';
	FILE *c = fopen("/proc/cpuinfo", "r");
	if (c == NULL)
		return;
	while (fgets(line, sizeof line, c) != NULL) {
		char *colon = strchr(line, ':');
		if (strncmp(line, key, k) != 0 || colon == NULL || (line[k] != ' ' && line[k] != '\t' && line[k] != ':'))
			continue;
		colon += strspn(colon + 1, " \t") + 1;
		colon[strcspn(colon, "\n")] = '\0';
		snprintf(out, size, "%s", colon);
		break;
	}
	fclose(c);
}

/* pmc__machine writes the "machine", "date", "pmc_version" and "pmc_command" members that
 * identify where a result was measured (schema pmc.stat/v1, docs/json-schema.md). */
static void pmc__machine(FILE *f)
{
	struct utsname u;
	char buf[600], model[256], impl[64], part[64];
	fprintf(f, ",\"machine\":{");
	if (uname(&u) == 0) {
		fprintf(f, "\"host\":");
		pmc__jstr(f, u.nodename);
		snprintf(buf, sizeof buf, "%s %s %s %s", u.sysname, u.release, u.version, u.machine);
		fprintf(f, ",\"kernel\":");
		pmc__jstr(f, buf);
		fputc(',', f);
	}
	pmc__cpuinfo("model name", model, sizeof model);
	if (model[0] != '\0') {
		fprintf(f, "\"cpu\":");
		pmc__jstr(f, model);
		fputc(',', f);
	}
	pmc__cpuinfo("CPU implementer", impl, sizeof impl);
	pmc__cpuinfo("CPU part", part, sizeof part);
	if (impl[0] != '\0' && part[0] != '\0') {
		snprintf(buf, sizeof buf, "Arm implementer %s part %s", impl, part);
		fprintf(f, "\"cpu_id\":");
		pmc__jstr(f, buf);
		fputc(',', f);
	}
	fprintf(f, "\"cpus\":%ld}", sysconf(_SC_NPROCESSORS_ONLN));
	struct tm tm;
	if (gmtime_r(&pmc__s.date_open, &tm) != NULL && strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm) > 0) {
		fprintf(f, ",\"date\":");
		pmc__jstr(f, buf);
	}
	fprintf(f, ",\"pmc_version\":\"pmc.h " PMC_VERSION "\",");
	pmc__command(f, "pmc_command");
}

static void pmc__summary(FILE *f, int j)
{
	const struct pmc__ev *e = &pmc__s.ev[j];
	double sum = 0, sumsq = 0, rawsum = 0, mn = 0, mx = 0;
	uint64_t ena = 0, run = 0;
	int n = 0;
	for (int i = 0; i < pmc__s.nreg; i++) {
		const struct pmc__reading *s = &pmc__s.reg[i].sum[j];
		if (pmc__s.reg[i].parent >= 0)
			continue;
		ena += s->ena;
		run += s->run;
		if (e->fd < 0 || s->run == 0)
			continue;
		double v = pmc__scaled(s);
		mn = n == 0 || v < mn ? v : mn;
		mx = n == 0 || v > mx ? v : mx;
		sum += v;
		sumsq += v * v;
		rawsum += (double)s->v;
		n++;
	}
	double mean = n ? sum / n : 0, sd = 0;
	if (n > 1)
		sd = pmc__sqrt((sumsq - n * mean * mean) / (n - 1));
	const char *status = e->fd < 0 ? "not-supported" : (n > 0 ? "counted" : "not-counted");
	fprintf(f, "{\"event\":");
	pmc__jstr(f, e->name);
	fprintf(f, ",\"group\":%d,\"cpu\":-1,\"status\":\"%s\"", j, status);
	if (e->msec)
		fprintf(f, ",\"unit\":\"msec\"");
	fprintf(f, ",\"runs\":%d,\"mean\":", n);
	pmc__jnum(f, mean);
	fprintf(f, ",\"raw_mean\":");
	pmc__jnum(f, n ? rawsum / n : 0);
	fprintf(f, ",\"stddev\":");
	pmc__jnum(f, sd);
	fprintf(f, ",\"variation_pct\":");
	pmc__jnum(f, n > 1 && mean != 0 ? sd / pmc__sqrt((double)n) / mean * 100 : 0);
	fprintf(f, ",\"min\":");
	pmc__jnum(f, mn);
	fprintf(f, ",\"max\":");
	pmc__jnum(f, mx);
	fprintf(f, ",\"time_enabled_ns\":%llu,\"time_running_ns\":%llu,", (unsigned long long)ena,
		(unsigned long long)run);
	pmc__encoding(f, e);
	pmc__error(f, e);
	fputc('}', f);
}

int pmc_write_json(const char *path)
{
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	FILE *f = strcmp(path, "-") == 0 ? stdout : fopen(path, "w");
	if (f == NULL)
		return -1;
	fprintf(f, "{\"schema\":\"pmc.stat/v1\",");
	pmc__command(f, "command");
	fprintf(f, ",\"mode\":\"self\",\"scaled\":true,\"repeat\":1,\"backend\":\"perf_event\",\"runs\":[");
	for (int i = 0; i < pmc__s.nreg; i++) {
		const struct pmc__region *r = &pmc__s.reg[i];
		fprintf(f, "%s{\"index\":%d,\"elapsed_sec\":", i ? "," : "", i);
		pmc__jnum(f, r->elapsed);
		fprintf(f, ",\"exit_status\":0,\"user_sec\":0,\"sys_sec\":0,\"counts\":[");
		for (int j = 0; j < pmc__s.nev; j++) {
			const struct pmc__ev *e = &pmc__s.ev[j];
			const struct pmc__reading *s = &r->sum[j];
			fprintf(f, "%s{\"event\":", j ? "," : "");
			pmc__jstr(f, e->name);
			fprintf(f, ",\"group\":%d,\"cpu\":-1,\"status\":\"%s\",\"raw\":%llu,\"scaled\":", j,
				pmc__status(e, s), (unsigned long long)s->v);
			pmc__jnum(f, pmc__scaled(s));
			fprintf(f, ",\"time_enabled_ns\":%llu,\"time_running_ns\":%llu,",
				(unsigned long long)s->ena, (unsigned long long)s->run);
			if (e->msec)
				fprintf(f, "\"unit\":\"msec\",");
			pmc__encoding(f, e);
			pmc__error(f, e);
			fputc('}', f);
		}
		fprintf(f, "]}");
	}
	fprintf(f, "],\"summary\":[");
	for (int j = 0; j < pmc__s.nev; j++) {
		if (j)
			fputc(',', f);
		pmc__summary(f, j);
	}
	fprintf(f, "],\"elapsed_sec\":");
	pmc__jnum(f, pmc__since(&pmc__s.t_open, &now));
	fprintf(f, ",\"exit_status\":0");
	pmc__machine(f);
	fprintf(f, ",\"regions\":[");
	for (int i = 0; i < pmc__s.nreg; i++) {
		const struct pmc__region *r = &pmc__s.reg[i];
		fprintf(f, "%s{\"name\":", i ? "," : "");
		pmc__jstr(f, r->name);
		fprintf(f, ",\"run\":%d,\"calls\":%llu,\"parent\":", i, (unsigned long long)r->calls);
		pmc__jstr(f, r->parent >= 0 ? pmc__s.reg[r->parent].name : "");
		fputc('}', f);
	}
	fprintf(f, "],\"read_method\":[");
	for (int j = 0; j < pmc__s.nev; j++)
		fprintf(f, "%s\"%s\"", j ? "," : "", pmc__s.ev[j].page ? "user" : "read");
	fprintf(f, "]}\n");
	int bad = ferror(f);
	if (f == stdout)
		bad |= fflush(f) != 0;
	else
		bad |= fclose(f) != 0;
	return bad ? -1 : 0;
}
#endif /* PMC_IMPLEMENTATION */
