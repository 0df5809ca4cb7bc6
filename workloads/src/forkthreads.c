/*
 * forkthreads --procs P --threads T --work N: a process tree for testing that counters are
 * inherited by children and threads (perf's inherit bit).
 *
 * The parent forks P children. Every process (the parent and each child) starts T threads,
 * then every thread of it, including its main thread, runs wl_spin(N), the 2-instructions-per-
 * iteration loop of spin.h. So there are (P+1)*(T+1) work units and, exactly,
 *     spin instructions == 2 * N * (P+1) * (T+1)
 * An inherited instructions:u count grows by at least that between --work 0 and --work N, but
 * not exactly: how many read(2) calls collect the reports, and qsort of the ids, depend on
 * timing and on the id values (measured on aarch64 under QEMU -icount, P=2 T=2 N=1000:
 * 49569 - 31393 = 18176 for 18000 spin instructions). Without inheritance only the parent's
 * main thread is counted: 2N of spin.
 * Each task reports its pid and tid through a pipe; the parent counts distinct ones, so the
 * output proves that the tasks really existed.
 *
 * Output: forkthreads procs=P threads=T work=N pids=<distinct pids> tids=<distinct tids>
 *         units=<(P+1)*(T+1)> spin_insns=<2*N*units>
 */
#define _GNU_SOURCE
#include "wl.h"
#include "spin.h"

#include <pthread.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define FT_MAX_PROCS 64
#define FT_MAX_THREADS 64
#define FT_MAX_WORK 1000000000ull
#define FT_MAX_TOTAL 10000000000ull /* units * N: a few seconds on 2 cores */

struct rec {
	int32_t pid, tid;
};

static int report_fd = -1;
static uint32_t work;

static void report(void)
{
	struct rec r = {(int32_t)getpid(), (int32_t)syscall(SYS_gettid)};
	/* 8 bytes < PIPE_BUF: atomic, records of concurrent tasks never interleave. */
	if (write(report_fd, &r, sizeof r) != sizeof r)
		_exit(3);
}

static void *worker(void *arg)
{
	(void)arg;
	wl_spin(work);
	report();
	return NULL;
}

/* run_process starts T threads, works on the main thread too, and joins them. */
static void run_process(int threads)
{
	pthread_t tids[FT_MAX_THREADS];
	for (int i = 0; i < threads; i++)
		if (pthread_create(&tids[i], NULL, worker, NULL) != 0) {
			fprintf(stderr, "forkthreads: pthread_create failed, lower --threads\n");
			_exit(3);
		}
	worker(NULL);
	for (int i = 0; i < threads; i++)
		pthread_join(tids[i], NULL);
}

static int cmp_i32(const void *a, const void *b)
{
	int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
	return (x > y) - (x < y);
}

static uint64_t distinct(int32_t *v, size_t n)
{
	qsort(v, n, sizeof *v, cmp_i32);
	uint64_t d = 0;
	for (size_t i = 0; i < n; i++)
		d += (i == 0 || v[i] != v[i - 1]);
	return d;
}

int main(int argc, char **argv)
{
	wl_name = "forkthreads";
	wl_usage = "[--procs 0..64] [--threads 0..64] [--work N]   ((P+1)*(T+1)*N <= 1e10)";
	uint64_t procs = 2, threads = 2, n = 10000000;
	for (int i = 1; i < argc; i++) {
		const char *v;
		if (wl_flag(argc, argv, &i, "--procs", &v))
			procs = wl_u64("--procs", v, 0, FT_MAX_PROCS);
		else if (wl_flag(argc, argv, &i, "--threads", &v))
			threads = wl_u64("--threads", v, 0, FT_MAX_THREADS);
		else if (wl_flag(argc, argv, &i, "--work", &v))
			n = wl_u64("--work", v, 0, FT_MAX_WORK);
		else
			wl_die("unknown argument %s", argv[i]);
	}
	uint64_t units = (procs + 1) * (threads + 1);
	if (units * n > FT_MAX_TOTAL)
		wl_die("(procs+1)*(threads+1)*work = %" PRIu64 " is over 1e10, lower --work", units * n);
	work = (uint32_t)n;

	int fds[2];
	if (pipe(fds) != 0)
		wl_die("pipe: %s", strerror(errno));
	report_fd = fds[1];
	fflush(stdout);
	pid_t kids[FT_MAX_PROCS];
	for (uint64_t i = 0; i < procs; i++) {
		kids[i] = fork();
		if (kids[i] < 0) {
			fprintf(stderr, "forkthreads: fork: %s (lower --procs)\n", strerror(errno));
			return 3;
		}
		if (kids[i] == 0) {
			close(fds[0]);
			run_process((int)threads);
			_exit(0);
		}
	}
	run_process((int)threads);
	close(fds[1]);

	/* At most 65*65 records of 8 bytes (33 KiB): fits the pipe, nobody blocks writing. */
	static struct rec recs[(FT_MAX_PROCS + 1) * (FT_MAX_THREADS + 1)];
	size_t got = 0;
	for (;;) {
		ssize_t r = read(fds[0], (char *)recs + got, sizeof recs - got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		got += (size_t)r;
	}
	int failed = 0;
	for (uint64_t i = 0; i < procs; i++) {
		int st;
		if (waitpid(kids[i], &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
			failed = 1;
	}
	size_t nrec = got / sizeof(struct rec);
	static int32_t pids[sizeof recs / sizeof recs[0]], tids[sizeof recs / sizeof recs[0]];
	for (size_t i = 0; i < nrec; i++) {
		pids[i] = recs[i].pid;
		tids[i] = recs[i].tid;
	}
	uint64_t np = distinct(pids, nrec), nt = distinct(tids, nrec);
	printf("forkthreads procs=%" PRIu64 " threads=%" PRIu64 " work=%" PRIu64 " pids=%" PRIu64
	       " tids=%" PRIu64 " units=%" PRIu64 " spin_insns=%" PRIu64 "\n",
	       procs, threads, n, np, nt, units, 2 * n * units);
	if (failed || nrec != units) {
		fprintf(stderr, "forkthreads: %zu of %" PRIu64 " tasks reported\n", nrec, units);
		return 1;
	}
	return 0;
}
