/* clauncher [-i] [-k] NEVENTS CMD ARGS...: perf stat's launch in plain C, for comparing with
 * Go launchers (pmc, probe -x): fork, the child waits on a pipe, the parent opens NEVENTS
 * instruction counters on it (disabled, enable_on_exec, inherit with -i, user space only
 * unless -k), releases it, waits, and prints
 *     clauncher inherit=B evI=VALUE/ENABLED/RUNNING ...
 * The child is single-threaded (unlike a Go shim), which separates the kernel's behaviour
 * from the launcher's. */
#include <linux/perf_event.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	int inherit = 0, kernel = 0, i = 1;
	for (; i < argc && argv[i][0] == '-'; i++) {
		if (!strcmp(argv[i], "-i"))
			inherit = 1;
		else if (!strcmp(argv[i], "-k"))
			kernel = 1;
	}
	if (argc - i < 2) {
		fprintf(stderr, "usage: clauncher [-i] [-k] NEVENTS CMD ARGS...\n");
		return 2;
	}
	int n = atoi(argv[i++]);
	if (n < 1 || n > 32) {
		fprintf(stderr, "clauncher: NEVENTS must be 1..32\n");
		return 2;
	}
	int p[2];
	if (pipe(p))
		return perror("pipe"), 1;
	pid_t pid = fork();
	if (pid == 0) {
		char c;
		close(p[1]);
		if (read(p[0], &c, 1) != 1)
			_exit(126);
		execv(argv[i], argv + i);
		perror("execv");
		_exit(127);
	}
	close(p[0]);
	int fds[32];
	for (int k = 0; k < n; k++) {
		struct perf_event_attr a;
		memset(&a, 0, sizeof a);
		a.size = sizeof a;
		a.type = PERF_TYPE_HARDWARE;
		a.config = PERF_COUNT_HW_INSTRUCTIONS;
		a.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
		a.disabled = 1;
		a.enable_on_exec = 1;
		a.inherit = inherit;
		a.exclude_kernel = !kernel;
		a.exclude_hv = 1;
		fds[k] = syscall(SYS_perf_event_open, &a, pid, -1, -1, 0);
		if (fds[k] < 0)
			return perror("perf_event_open"), 1;
	}
	if (write(p[1], "x", 1) != 1)
		return perror("write"), 1;
	int st;
	waitpid(pid, &st, 0);
	printf("clauncher inherit=%s", inherit ? "true" : "false");
	for (int k = 0; k < n; k++) {
		uint64_t v[3];
		if (read(fds[k], v, sizeof v) != sizeof v)
			return perror("read"), 1;
		printf(" ev%d=%llu/%llu/%llu", k, (unsigned long long)v[0], (unsigned long long)v[1],
		       (unsigned long long)v[2]);
	}
	printf("\n");
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}
