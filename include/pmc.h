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
 * API (thread-safe: see Threads below; counters count the calling thread only):
 *   int  pmc_open(const char *events);   comma-separated names, NULL or "" for the default
 *                                        "instructions,cycles,task-clock,page-faults".
 *                                        Returns how many events opened, -1 on an unknown name.
 *                                        An event that cannot be opened (no PMU, EACCES, ...) is
 *                                        reported on stderr, kept as "not-supported" with the
 *                                        errno text, and the others are still measured.
 *   void pmc_begin(const char *region);  start (or re-enter) a named region; regions nest
 *   void pmc_end(const char *region);    end the innermost region; must name it
 *   int  pmc_value(const char *region, const char *event, uint64_t *value);
 *                                        accumulated raw value over every thread; 0 ok, -1
 *                                        unknown/not counted
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
 * Threads: any thread may call pmc_begin, pmc_end, pmc_value and pmc_write_json at any time
 * between pmc_open and pmc_close. Each thread measures its own regions with its own counters
 * (opened at its first pmc_begin with the attributes pmc_open's thread used, closed when the
 * thread ends; events x threads file descriptors), and regions nest within a thread. The JSON
 * and pmc_value merge the threads by region name: a region's counts, calls and elapsed time are
 * the sums over the threads that ran it ("threads" in the JSON says how many). pmc_open and
 * pmc_close must not run while another thread calls pmc.h. Link with -pthread (glibc before
 * 2.34 needs it). Compiles cleanly with -Wall -Wextra -Wconversion -Wsign-conversion in C and
 * C++ (workloads/pmcthreads_test.go builds it so, and with ASan and TSan).
 *
 * Exactness: pmc_begin reads the counters as its LAST action (but for the one store that makes
 * the region visible to the other threads) and pmc_end as its FIRST (once the thread's state
 * is found), in the same event order, so a region's value is the region's code plus a fixed
 * overhead (the return from pmc_begin and the call into pmc_end, and the other events'
 * reads): constant for a given build and event list. Count user space only (":u") for exact
 * instruction counts; workloads/src/selfmeasure.c measures the overhead with an empty region.
 *
 * JSON (pmc_write_json): schema pmc.self/v1 (docs/json-schema.md): the fields of pmc.stat/v1
 * (internal/result), so `pmc show` and `pmc compare` read it, under a name of its own because
 * its runs are regions, not runs of a program. The mapping:
 *   - each region is one Run: runs[i].index = i, in order of first pmc_begin in any thread;
 *     elapsed_sec = wall time summed over the region's passes (in every thread); exit_status
 *     0; user/sys 0;
 *   - runs[i].counts: one Count per event, in pmc_open order: event = the name as written,
 *     group = the event's index (each event is its own group), cpu = -1, raw = the summed
 *     deltas of the region's passes, time_enabled_ns / time_running_ns = the summed deltas,
 *     scaled = raw * enabled / running, unit "msec" for task-clock and cpu-clock (raw in ns),
 *     encoding = perf_event_attr type/config/config1 ("pmu": "software" for software events);
 *     status "counted" (ran), "not-counted" (opened, never ran in the region: running == 0),
 *     "not-supported" (open failed; error = "perf_event_open: <strerror> (errno N)"), or
 *     "not-counted" with an error when a thread that ran the region could not open the event
 *     (its share would be missing);
 *   - summary: one entry per event over all region passes of the top-level regions only
 *     (nested regions would count twice), runs = number of top-level regions counted;
 *   - mode "self", backend "perf_event", repeat 1, scaled true, command = /proc/self/cmdline,
 *     elapsed_sec = wall time from pmc_open to pmc_write_json;
 *   - extra top-level "regions": [{"name", "run", "calls", "parent", "threads", "open"}],
 *     run = index into runs, calls = completed begin/end pairs over all threads, parent =
 *     enclosing region at the first pass ("" at top level), threads = how many threads ran it,
 *     open = passes still open when the JSON was written (counted up to then, and said on
 *     stderr; absent when 0); "measuring_threads": how many threads ran a region; and
 *     "read_method": "read" or "user" (PMC_USER_READ) per event order. docs/json-schema.md
 *     documents them.
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
#include <pthread.h>
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

struct pmc__ev { /* an event of pmc_open, the same in every thread */
	char name[PMC__NAME]; /* as written, with modifier */
	int err;              /* errno of the failed open in pmc_open's thread: not supported */
	uint32_t type;
	uint64_t config, config1;
	int msec;        /* task-clock / cpu-clock: value in ns, shown in msec */
	int excl_kernel; /* as opened in pmc_open's thread (the perf_event_paranoid fallback) */
	int excl_user;
	int user_read;   /* PMC_USER_READ and a hardware event: read in user space */
};

struct pmc__reading {
	uint64_t v, ena, run;
};

/* pmc__sums is a region's passes: one thread's, or merged over threads. */
struct pmc__sums {
	uint64_t calls; /* completed passes */
	uint64_t open;  /* passes still open (merged: counted up to the merge) */
	int threads;    /* merged: threads that ran the region */
	double elapsed;
	struct pmc__reading sum[PMC__MAX_EVENTS];
	int missing[PMC__MAX_EVENTS]; /* merged: errno of a thread that ran it without the event */
};

struct pmc__frame {
	int region;
	struct timespec t0;
	struct pmc__reading start[PMC__MAX_EVENTS];
};

/* pmc__thread is one measuring thread: its counters, its open regions and its passes. Only the
 * thread itself writes it, but for pmc_open's reset; pmc_write_json and pmc_value read it
 * under mu (lock order: pmc__mu, then a thread's mu). */
struct pmc__thread {
	struct pmc__thread *next;
	pthread_mutex_t mu;
	int opened; /* counters opened for the current pmc_open */
	int depth;  /* open frames: written by the thread (atomic), read by others under mu */
	int fd[PMC__MAX_EVENTS]; /* -1: not open */
	int err[PMC__MAX_EVENTS];
	struct perf_event_mmap_page *page[PMC__MAX_EVENTS];
	struct pmc__frame stack[PMC__MAX_DEPTH];
	struct pmc__sums reg[PMC__MAX_REGIONS];
};

static pthread_mutex_t pmc__mu = PTHREAD_MUTEX_INITIALIZER; /* threads, region names, retired */
static pthread_once_t pmc__once = PTHREAD_ONCE_INIT;
static pthread_key_t pmc__key;
static struct pmc__thread *pmc__threads; /* every live thread that called pmc.h */
static struct pmc__sums pmc__merged[PMC__MAX_REGIONS]; /* pmc__merge's result, under pmc__mu */

static struct {
	int open, nev, nreg; /* nreg: atomic (names are published, then counted) */
	unsigned warned;     /* atomic */
	int retired_threads; /* threads that ran a region and ended */
	struct timespec t_open;
	time_t date_open; /* wall clock at pmc_open, for the JSON's "date" */
	struct pmc__ev ev[PMC__MAX_EVENTS];
	char reg_name[PMC__MAX_REGIONS][PMC__NAME]; /* in order of first pmc_begin, any thread */
	int reg_parent[PMC__MAX_REGIONS];
	struct pmc__sums retired[PMC__MAX_REGIONS]; /* the passes of threads that ended */
} pmc__s;

static void pmc__warn(const char *fmt, const char *a, const char *b)
{
	char msg[512];
	if (__atomic_fetch_add(&pmc__s.warned, 1u, __ATOMIC_RELAXED) >= 10)
		return;
	snprintf(msg, sizeof msg, fmt, a, b);
	fprintf(stderr, "pmc: %s\n", msg); /* one call: lines of threads do not mix */
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
static int pmc__user_read(struct perf_event_mmap_page *page, struct pmc__reading *r)
{
#if PMC__HAVE_USER_READ
	volatile struct perf_event_mmap_page *pc = page;
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
	(void)page;
	(void)r;
	return -1;
#endif
}

/* pmc__read_fd reads an event's value, enabled and running times with read(2). */
static void pmc__read_fd(int fd, struct pmc__reading *r)
{
	uint64_t buf[3];
	if (read(fd, buf, sizeof buf) != (ssize_t)sizeof buf) {
		r->v = r->ena = r->run = 0;
		return;
	}
	r->v = buf[0];
	r->ena = buf[1];
	r->run = buf[2];
}

/* pmc__read_all reads every open counter of the calling thread t into out. */
static inline void pmc__read_all(struct pmc__thread *t, struct pmc__reading *out)
{
	for (int i = 0; i < pmc__s.nev; i++) {
		if (t->fd[i] < 0)
			continue;
		if (t->page[i] != NULL && pmc__user_read(t->page[i], &out[i]) == 0)
			continue;
		pmc__read_fd(t->fd[i], &out[i]);
	}
}

/* pmc__add parses one event of pmc_open's list into pmc__s.ev; -1 (and why on stderr) when
 * it is not an event. Nothing is opened yet. */
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
	e->excl_kernel = excl_kernel;
	e->excl_user = excl_user;
	e->user_read = user_read && (type == PERF_TYPE_HARDWARE || type == PERF_TYPE_RAW || type == PERF_TYPE_HW_CACHE);
#if defined(__aarch64__)
	if (user_read && (type == PERF_TYPE_HARDWARE || type == PERF_TYPE_RAW))
		e->config1 = 2; /* armv8_pmuv3 format "rdpmc": config1:1 */
#endif
	return 0;
}

/* pmc__open_event opens event j of pmc__s.ev on the calling thread (pid 0: the thread alone).
 * In pmc_open's thread (first) a refused kernel count falls back to user space as perf stat
 * does, and a failure makes the event not supported; in later threads the event opens as it
 * opened there. Returns the fd or -1 with errno set. */
static int pmc__open_event(int j, int first)
{
	struct pmc__ev *e = &pmc__s.ev[j];
	struct perf_event_attr a;
	memset(&a, 0, sizeof a);
	a.size = sizeof a;
	a.type = e->type;
	a.config = e->config;
	a.config1 = e->config1;
	a.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
	if (e->excl_kernel) {
		a.exclude_kernel = 1;
		a.exclude_hv = 1;
	}
	if (e->excl_user)
		a.exclude_user = 1;
	int fd = (int)syscall(__NR_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0 && first && (errno == EACCES || errno == EPERM) && strchr(e->name, ':') == NULL) {
		/* perf_event_paranoid forbids kernel counting: count user space, as perf stat does. */
		a.exclude_kernel = 1;
		a.exclude_hv = 1;
		fd = (int)syscall(__NR_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
		if (fd >= 0)
			e->excl_kernel = 1;
	}
	return fd;
}

/* pmc__open_thread opens the calling thread's counters (t's), reporting failures on stderr;
 * returns how many opened. */
static int pmc__open_thread(struct pmc__thread *t, int first)
{
	int opened = 0;
	pthread_mutex_lock(&t->mu);
	for (int j = 0; j < pmc__s.nev; j++) {
		struct pmc__ev *e = &pmc__s.ev[j];
		t->fd[j] = -1;
		t->err[j] = 0;
		t->page[j] = NULL;
		if (!first && e->err != 0)
			continue; /* not supported here at all */
		t->fd[j] = pmc__open_event(j, first);
		if (t->fd[j] < 0) {
			t->err[j] = errno;
			if (first) {
				e->err = errno;
				fprintf(stderr, "pmc: %s: not supported: %s (errno %d), measuring the others\n",
					e->name, strerror(e->err), e->err);
			} else {
				pmc__warn("%s: cannot be opened in a thread: %s; that thread's regions do not count it",
					  e->name, strerror(t->err[j]));
			}
			continue;
		}
		opened++;
		if (e->user_read) {
			void *p = mmap(NULL, (size_t)sysconf(_SC_PAGESIZE), PROT_READ, MAP_SHARED, t->fd[j], 0);
			if (p != MAP_FAILED)
				t->page[j] = (struct perf_event_mmap_page *)p;
			else if (first)
				e->user_read = 0; /* the JSON's read_method says "read" */
		}
	}
	t->opened = 1;
	pthread_mutex_unlock(&t->mu);
	return opened;
}

/* pmc__close_thread closes t's counters (t->mu held); its passes stay. */
static void pmc__close_thread(struct pmc__thread *t)
{
	for (int j = 0; j < PMC__MAX_EVENTS; j++) {
		if (t->page[j] != NULL)
			munmap(t->page[j], (size_t)sysconf(_SC_PAGESIZE));
		if (t->fd[j] >= 0)
			close(t->fd[j]);
		t->fd[j] = -1;
		t->page[j] = NULL;
	}
}

/* pmc__fold adds t's passes of every region to out, t's open passes counted up to now
 * (read(2): the counters may be another thread's). With pmc__mu and t->mu held. */
static void pmc__fold(struct pmc__thread *t, struct pmc__sums *out, int *ran_any)
{
	int ran[PMC__MAX_REGIONS] = {0};
	int n = __atomic_load_n(&pmc__s.nreg, __ATOMIC_ACQUIRE);
	for (int i = 0; i < n; i++) {
		const struct pmc__sums *r = &t->reg[i];
		if (r->calls == 0)
			continue;
		ran[i] = 1;
		out[i].calls += r->calls;
		out[i].elapsed += r->elapsed;
		for (int j = 0; j < pmc__s.nev; j++) {
			out[i].sum[j].v += r->sum[j].v;
			out[i].sum[j].ena += r->sum[j].ena;
			out[i].sum[j].run += r->sum[j].run;
		}
	}
	int depth = __atomic_load_n(&t->depth, __ATOMIC_ACQUIRE);
	if (depth > 0) {
		struct pmc__reading now[PMC__MAX_EVENTS];
		struct timespec t1;
		for (int j = 0; j < pmc__s.nev; j++)
			if (t->fd[j] >= 0)
				pmc__read_fd(t->fd[j], &now[j]);
		clock_gettime(CLOCK_MONOTONIC, &t1);
		for (int k = 0; k < depth; k++) {
			const struct pmc__frame *f = &t->stack[k];
			struct pmc__sums *o = &out[f->region];
			ran[f->region] = 1;
			o->open++;
			o->elapsed += pmc__since(&f->t0, &t1);
			for (int j = 0; j < pmc__s.nev; j++) {
				if (t->fd[j] < 0)
					continue;
				o->sum[j].v += now[j].v - f->start[j].v;
				o->sum[j].ena += now[j].ena - f->start[j].ena;
				o->sum[j].run += now[j].run - f->start[j].run;
			}
		}
	}
	for (int i = 0; i < n; i++) {
		if (!ran[i])
			continue;
		*ran_any = 1;
		out[i].threads++;
		for (int j = 0; j < pmc__s.nev; j++)
			if (t->err[j] != 0 && pmc__s.ev[j].err == 0 && out[i].missing[j] == 0)
				out[i].missing[j] = t->err[j];
	}
}

/* pmc__merge sums the passes of every thread, live and ended, into pmc__merged by region and
 * returns how many threads ran a region. With pmc__mu held. */
static int pmc__merge(void)
{
	int threads = pmc__s.retired_threads;
	memcpy(pmc__merged, pmc__s.retired, sizeof pmc__merged);
	for (struct pmc__thread *t = pmc__threads; t != NULL; t = t->next) {
		int ran = 0;
		pthread_mutex_lock(&t->mu);
		pmc__fold(t, pmc__merged, &ran);
		pthread_mutex_unlock(&t->mu);
		threads += ran;
	}
	return threads;
}

/* pmc__thread_exit runs when a thread that used pmc.h ends: its passes (its open ones counted
 * up to now) go to the retired sums, its counters are closed and its state freed. */
static void pmc__thread_exit(void *p)
{
	struct pmc__thread *t = (struct pmc__thread *)p;
	pthread_mutex_lock(&pmc__mu);
	for (struct pmc__thread **pp = &pmc__threads; *pp != NULL; pp = &(*pp)->next)
		if (*pp == t) {
			*pp = t->next;
			break;
		}
	int ran = 0;
	pthread_mutex_lock(&t->mu);
	pmc__fold(t, pmc__s.retired, &ran);
	pmc__close_thread(t);
	pthread_mutex_unlock(&t->mu);
	pmc__s.retired_threads += ran;
	pthread_mutex_unlock(&pmc__mu);
	pthread_mutex_destroy(&t->mu);
	free(t);
}

static void pmc__key_init(void)
{
	pthread_key_create(&pmc__key, pmc__thread_exit);
}

/* pmc__self is the calling thread's state, created (and its counters opened) at its first
 * call; NULL when out of memory. */
static struct pmc__thread *pmc__self(int first)
{
	pthread_once(&pmc__once, pmc__key_init);
	struct pmc__thread *t = (struct pmc__thread *)pthread_getspecific(pmc__key);
	if (t == NULL) {
		t = (struct pmc__thread *)calloc(1, sizeof *t);
		if (t == NULL)
			return NULL;
		pthread_mutex_init(&t->mu, NULL);
		for (int j = 0; j < PMC__MAX_EVENTS; j++)
			t->fd[j] = -1;
		pthread_mutex_lock(&pmc__mu);
		t->next = pmc__threads;
		pmc__threads = t;
		pthread_mutex_unlock(&pmc__mu);
		pthread_setspecific(pmc__key, t);
	}
	if (!t->opened)
		pmc__open_thread(t, first);
	return t;
}

int pmc_open(const char *events)
{
	if (pmc__s.open)
		pmc_close();
	pthread_mutex_lock(&pmc__mu);
	memset(&pmc__s, 0, sizeof pmc__s);
	for (struct pmc__thread *t = pmc__threads; t != NULL; t = t->next) {
		pthread_mutex_lock(&t->mu);
		pmc__close_thread(t);
		memset(t->reg, 0, sizeof t->reg);
		__atomic_store_n(&t->depth, 0, __ATOMIC_RELEASE);
		t->opened = 0;
		pthread_mutex_unlock(&t->mu);
	}
	pthread_mutex_unlock(&pmc__mu);
	if (events == NULL || *events == '\0')
		events = "instructions,cycles,task-clock,page-faults";
	const char *env = getenv("PMC_USER_READ");
	int user_read = env != NULL && strcmp(env, "1") == 0;
	for (const char *p = events;;) {
		const char *comma = strchr(p, ',');
		size_t len = comma ? (size_t)(comma - p) : strlen(p);
		if (pmc__add(p, len, user_read) < 0) {
			pmc__s.nev = 0;
			return -1;
		}
		if (comma == NULL)
			break;
		p = comma + 1;
	}
	struct pmc__thread *t = pmc__self(1);
	if (t == NULL) {
		fprintf(stderr, "pmc: pmc_open: out of memory\n");
		pmc__s.nev = 0;
		return -1;
	}
	int opened = 0;
	for (int j = 0; j < pmc__s.nev; j++)
		opened += t->fd[j] >= 0;
	pmc__s.open = 1;
	clock_gettime(CLOCK_MONOTONIC, &pmc__s.t_open);
	pmc__s.date_open = time(NULL);
	return opened;
}

/* pmc__region is the index of region name (created with parent at its first pmc_begin in any
 * thread); -1 when there is no room or the name is too long. Known names are found without a
 * lock: a name is written before nreg counts it, and never changes while pmc.h is open. */
static int pmc__region(const char *name, int parent)
{
	int n = __atomic_load_n(&pmc__s.nreg, __ATOMIC_ACQUIRE);
	for (int i = 0; i < n; i++)
		if (strcmp(pmc__s.reg_name[i], name) == 0)
			return i;
	if (strlen(name) >= PMC__NAME)
		return -1;
	pthread_mutex_lock(&pmc__mu);
	int idx = -1;
	int now = pmc__s.nreg;
	for (int i = n; i < now && idx < 0; i++)
		if (strcmp(pmc__s.reg_name[i], name) == 0)
			idx = i;
	if (idx < 0 && now < PMC__MAX_REGIONS) {
		strcpy(pmc__s.reg_name[now], name);
		pmc__s.reg_parent[now] = parent;
		__atomic_store_n(&pmc__s.nreg, now + 1, __ATOMIC_RELEASE);
		idx = now;
	}
	pthread_mutex_unlock(&pmc__mu);
	return idx;
}

void pmc_begin(const char *region)
{
	if (!pmc__s.open) {
		pmc__warn("pmc_begin(\"%s\")%s: call pmc_open first", region, "");
		return;
	}
	struct pmc__thread *t = pmc__self(0);
	if (t == NULL) {
		pmc__warn("pmc_begin(\"%s\")%s: out of memory", region, "");
		return;
	}
	int depth = t->depth;
	if (depth == PMC__MAX_DEPTH) {
		pmc__warn("pmc_begin(\"%s\"): regions nested deeper than 16%s", region, "");
		return;
	}
	int idx = pmc__region(region, depth > 0 ? t->stack[depth - 1].region : -1);
	if (idx < 0) {
		pmc__warn("pmc_begin(\"%s\"): more than 64 regions or a name over 63 characters%s", region, "");
		return;
	}
	/* The frame above depth is the thread's own until depth counts it: no lock. */
	struct pmc__frame *f = &t->stack[depth];
	f->region = idx;
	clock_gettime(CLOCK_MONOTONIC, &f->t0);
	pmc__read_all(t, f->start); /* last but the store that opens the frame: then the region */
	__atomic_store_n(&t->depth, depth + 1, __ATOMIC_RELEASE);
}

void pmc_end(const char *region)
{
	struct pmc__reading now[PMC__MAX_EVENTS];
	if (!pmc__s.open)
		return;
	pthread_once(&pmc__once, pmc__key_init);
	struct pmc__thread *t = (struct pmc__thread *)pthread_getspecific(pmc__key);
	if (t != NULL)
		pmc__read_all(t, now); /* first: what precedes is the region */
	struct timespec t1;
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (t == NULL || t->depth == 0) {
		pmc__warn("pmc_end(\"%s\"): no region is open%s", region, "");
		return;
	}
	int depth = t->depth;
	struct pmc__frame *f = &t->stack[depth - 1];
	if (strcmp(pmc__s.reg_name[f->region], region) != 0) {
		pmc__warn("pmc_end(\"%s\"): the innermost open region is \"%s\"; pass ignored", region,
			  pmc__s.reg_name[f->region]);
		return;
	}
	pthread_mutex_lock(&t->mu);
	struct pmc__sums *r = &t->reg[f->region];
	for (int i = 0; i < pmc__s.nev; i++) {
		if (t->fd[i] < 0)
			continue;
		r->sum[i].v += now[i].v - f->start[i].v;
		r->sum[i].ena += now[i].ena - f->start[i].ena;
		r->sum[i].run += now[i].run - f->start[i].run;
	}
	r->calls++;
	r->elapsed += pmc__since(&f->t0, &t1);
	__atomic_store_n(&t->depth, depth - 1, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&t->mu);
}

/* pmc__counted says whether event j of a merged region has a value to give. */
static int pmc__counted(const struct pmc__sums *s, int j)
{
	return pmc__s.ev[j].err == 0 && s->missing[j] == 0 && s->sum[j].run > 0;
}

int pmc_value(const char *region, const char *event, uint64_t *value)
{
	int rc = -1;
	pthread_mutex_lock(&pmc__mu);
	int n = pmc__s.nreg;
	int i = 0;
	while (i < n && strcmp(pmc__s.reg_name[i], region) != 0)
		i++;
	if (i < n) {
		pmc__merge();
		for (int j = 0; j < pmc__s.nev; j++)
			if (strcmp(pmc__s.ev[j].name, event) == 0 && pmc__counted(&pmc__merged[i], j)) {
				*value = pmc__merged[i].sum[j].v;
				rc = 0;
				break;
			}
	}
	pthread_mutex_unlock(&pmc__mu);
	return rc;
}

void pmc_close(void)
{
	pthread_mutex_lock(&pmc__mu);
	for (struct pmc__thread *t = pmc__threads; t != NULL; t = t->next) {
		pthread_mutex_lock(&t->mu);
		pmc__close_thread(t);
		pthread_mutex_unlock(&t->mu);
	}
	pmc__s.open = 0;
	pthread_mutex_unlock(&pmc__mu);
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

static const char *pmc__status(const struct pmc__sums *s, int j)
{
	if (pmc__s.ev[j].err != 0)
		return "not-supported";
	return pmc__counted(s, j) ? "counted" : "not-counted";
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

/* pmc__error writes why event j has no value in a merged region (s NULL: in the summary). */
static void pmc__error(FILE *f, int j, const struct pmc__sums *s)
{
	const struct pmc__ev *e = &pmc__s.ev[j];
	char msg[200];
	if (e->err != 0)
		snprintf(msg, sizeof msg, "perf_event_open: %s (errno %d)", strerror(e->err), e->err);
	else if (s != NULL && s->missing[j] != 0)
		snprintf(msg, sizeof msg, "perf_event_open in a thread that ran the region: %s (errno %d)",
			 strerror(s->missing[j]), s->missing[j]);
	else
		return;
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
	int n = 0, missing = 0;
	for (int i = 0; i < pmc__s.nreg; i++) {
		const struct pmc__sums *s = &pmc__merged[i];
		if (pmc__s.reg_parent[i] >= 0)
			continue;
		ena += s->sum[j].ena;
		run += s->sum[j].run;
		missing |= s->missing[j] != 0;
		if (!pmc__counted(s, j))
			continue;
		double v = pmc__scaled(&s->sum[j]);
		mn = n == 0 || v < mn ? v : mn;
		mx = n == 0 || v > mx ? v : mx;
		sum += v;
		sumsq += v * v;
		rawsum += (double)s->sum[j].v;
		n++;
	}
	double mean = n ? sum / n : 0, sd = 0;
	if (n > 1)
		sd = pmc__sqrt((sumsq - n * mean * mean) / (n - 1));
	const char *status = e->err != 0 ? "not-supported" : (n > 0 ? "counted" : "not-counted");
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
	if (e->err == 0 && missing)
		fprintf(f, ",\"error\":\"a thread could not count it: its regions are not counted\"");
	else
		pmc__error(f, j, NULL);
	fputc('}', f);
}

/* pmc__write writes the JSON document of the merged regions (pmc__mu held). */
static void pmc__write(FILE *f, int threads, const struct timespec *now)
{
	fprintf(f, "{\"schema\":\"pmc.self/v1\",");
	pmc__command(f, "command");
	fprintf(f, ",\"mode\":\"self\",\"scaled\":true,\"repeat\":1,\"backend\":\"perf_event\",\"runs\":[");
	for (int i = 0; i < pmc__s.nreg; i++) {
		const struct pmc__sums *r = &pmc__merged[i];
		fprintf(f, "%s{\"index\":%d,\"elapsed_sec\":", i ? "," : "", i);
		pmc__jnum(f, r->elapsed);
		fprintf(f, ",\"exit_status\":0,\"user_sec\":0,\"sys_sec\":0,\"counts\":[");
		for (int j = 0; j < pmc__s.nev; j++) {
			const struct pmc__ev *e = &pmc__s.ev[j];
			const struct pmc__reading *s = &r->sum[j];
			fprintf(f, "%s{\"event\":", j ? "," : "");
			pmc__jstr(f, e->name);
			fprintf(f, ",\"group\":%d,\"cpu\":-1,\"status\":\"%s\",\"raw\":%llu,\"scaled\":", j,
				pmc__status(r, j), (unsigned long long)s->v);
			pmc__jnum(f, pmc__scaled(s));
			fprintf(f, ",\"time_enabled_ns\":%llu,\"time_running_ns\":%llu,",
				(unsigned long long)s->ena, (unsigned long long)s->run);
			if (e->msec)
				fprintf(f, "\"unit\":\"msec\",");
			pmc__encoding(f, e);
			pmc__error(f, j, r);
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
	pmc__jnum(f, pmc__since(&pmc__s.t_open, now));
	fprintf(f, ",\"exit_status\":0");
	pmc__machine(f);
	fprintf(f, ",\"regions\":[");
	for (int i = 0; i < pmc__s.nreg; i++) {
		const struct pmc__sums *r = &pmc__merged[i];
		fprintf(f, "%s{\"name\":", i ? "," : "");
		pmc__jstr(f, pmc__s.reg_name[i]);
		fprintf(f, ",\"run\":%d,\"calls\":%llu,\"parent\":", i, (unsigned long long)r->calls);
		pmc__jstr(f, pmc__s.reg_parent[i] >= 0 ? pmc__s.reg_name[pmc__s.reg_parent[i]] : "");
		fprintf(f, ",\"threads\":%d", r->threads);
		if (r->open > 0)
			fprintf(f, ",\"open\":%llu", (unsigned long long)r->open);
		fputc('}', f);
	}
	fprintf(f, "],\"measuring_threads\":%d,\"read_method\":[", threads);
	for (int j = 0; j < pmc__s.nev; j++)
		fprintf(f, "%s\"%s\"", j ? "," : "", pmc__s.ev[j].user_read ? "user" : "read");
	fprintf(f, "]}\n");
}

int pmc_write_json(const char *path)
{
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	FILE *f = strcmp(path, "-") == 0 ? stdout : fopen(path, "w");
	if (f == NULL)
		return -1;
	pthread_mutex_lock(&pmc__mu);
	int threads = pmc__merge();
	for (int i = 0; i < pmc__s.nreg; i++)
		if (pmc__merged[i].open > 0)
			pmc__warn("pmc_write_json: region \"%s\" is still open%s: its open passes are counted up to now (\"open\" in the JSON)",
				  pmc__s.reg_name[i], "");
	pmc__write(f, threads, &now);
	pthread_mutex_unlock(&pmc__mu);
	int bad = ferror(f);
	if (f == stdout)
		bad |= fflush(f) != 0;
	else
		bad |= fclose(f) != 0;
	return bad ? -1 : 0;
}

#endif /* PMC_IMPLEMENTATION */
