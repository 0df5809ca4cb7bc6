/* Four threads measuring the same regions with include/pmc.h at once; driven by
 * pmcthreads_test.go (also under AddressSanitizer and ThreadSanitizer, and as C++).
 *
 *   work   CALLS passes per thread of a short loop (each thread its own counters)
 *   touch  one pass per thread writing one byte to each page of a fresh 1 MiB mapping:
 *          page-faults(touch) is 4 x 256 plus a few
 *   open   begun by the main thread and never ended: pmc_write_json reports it
 *
 * Prints "cpu_ns=N" (the workers' CPU time over their loops, CLOCK_THREAD_CPUTIME_ID) and
 * "work_task_clock=N" (pmc_value of work's task-clock, merged over the threads).
 * Usage: pmcthreads CALLS JSON */
#define PMC_IMPLEMENTATION
#include "pmc.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#define THREADS 4
#define TOUCH_BYTES (1u << 20)

static unsigned long calls;
static long long cpu_ns[THREADS];

static void *worker(void *arg)
{
	int id = (int)(long)arg;
	struct timespec t0, t1;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t0);
	for (unsigned long i = 0; i < calls; i++) {
		pmc_begin("work");
		for (volatile int k = 0; k < 50; k++)
			;
		pmc_end("work");
	}
	unsigned char *mem = (unsigned char *)mmap(NULL, TOUCH_BYTES, PROT_READ | PROT_WRITE,
						   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (mem == MAP_FAILED)
		return NULL;
#ifdef MADV_NOHUGEPAGE
	madvise(mem, TOUCH_BYTES, MADV_NOHUGEPAGE);
#endif
	long page = sysconf(_SC_PAGESIZE);
	pmc_begin("touch");
	for (unsigned long off = 0; off < TOUCH_BYTES; off += (unsigned long)page)
		((volatile unsigned char *)mem)[off] = 1;
	pmc_end("touch");
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t1);
	munmap(mem, TOUCH_BYTES);
	cpu_ns[id] = (long long)(t1.tv_sec - t0.tv_sec) * 1000000000LL + (t1.tv_nsec - t0.tv_nsec);
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc != 3)
		return 2;
	calls = strtoul(argv[1], NULL, 10);
	if (pmc_open("task-clock,page-faults,context-switches") != 3)
		return 3;
	pthread_t th[THREADS];
	for (long i = 0; i < THREADS; i++)
		if (pthread_create(&th[i], NULL, worker, (void *)i) != 0)
			return 4;
	for (int i = 0; i < THREADS; i++)
		pthread_join(th[i], NULL);
	long long total = 0;
	for (int i = 0; i < THREADS; i++)
		total += cpu_ns[i];
	printf("cpu_ns=%lld\n", total);
	uint64_t v = 0;
	if (pmc_value("work", "task-clock", &v) != 0)
		return 6;
	printf("work_task_clock=%llu\n", (unsigned long long)v);
	pmc_begin("open"); /* left open: reported, not dropped */
	for (volatile int k = 0; k < 1000; k++)
		;
	if (pmc_write_json(argv[2]) != 0)
		return 5;
	pmc_close();
	return 0;
}
