/*
 * wl.h: argument helpers shared by the workloads (not by loop.c, whose parse must cost the
 * same for every N). Every error is one line on stderr naming the fix, then exit status 2.
 */
#ifndef PMC_WL_H
#define PMC_WL_H

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *wl_name = "workload";
static const char *wl_usage = "";

__attribute__((noreturn, format(printf, 1, 2))) static void wl_die(const char *fmt, ...)
{
	va_list ap;
	fprintf(stderr, "%s: ", wl_name);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, " (usage: %s %s)\n", wl_name, wl_usage);
	exit(2);
}

/* wl_u64 parses a decimal unsigned value of flag `flag` and checks lo <= v <= hi. */
__attribute__((unused)) static uint64_t wl_u64(const char *flag, const char *s, uint64_t lo, uint64_t hi)
{
	if (s == NULL)
		wl_die("%s needs a value", flag);
	if (*s < '0' || *s > '9')
		wl_die("%s %s: not a decimal number", flag, s);
	errno = 0;
	char *end;
	unsigned long long v = strtoull(s, &end, 10);
	if (errno != 0 || *end != '\0')
		wl_die("%s %s: not a decimal number", flag, s);
	if (v < lo || v > hi)
		wl_die("%s %s: out of range, use %" PRIu64 "..%" PRIu64, flag, s, lo, hi);
	return v;
}

/* wl_choice returns the index of s in the NULL-terminated list, or dies naming the choices. */
__attribute__((unused)) static int wl_choice(const char *flag, const char *s, const char *const *choices)
{
	if (s == NULL)
		wl_die("%s needs a value", flag);
	for (int i = 0; choices[i] != NULL; i++)
		if (strcmp(s, choices[i]) == 0)
			return i;
	char list[256] = "";
	for (int i = 0; choices[i] != NULL; i++) {
		if (i > 0)
			strncat(list, "|", sizeof list - strlen(list) - 1);
		strncat(list, choices[i], sizeof list - strlen(list) - 1);
	}
	wl_die("%s %s: unknown, use one of %s", flag, s, list);
}

/* wl_flag matches argv[*i] against --name or --name=value and returns the value (or NULL). */
__attribute__((unused)) static int wl_flag(int argc, char **argv, int *i, const char *name, const char **val)
{
	const char *a = argv[*i];
	size_t n = strlen(name);
	if (strncmp(a, name, n) != 0)
		return 0;
	if (a[n] == '=') {
		*val = a + n + 1;
		return 1;
	}
	if (a[n] != '\0')
		return 0;
	*val = (*i + 1 < argc) ? argv[++*i] : NULL;
	return 1;
}

/* wl_rand is a small deterministic generator (xorshift64*), so runs are repeatable. */
__attribute__((unused)) static uint64_t wl_rand(uint64_t *s)
{
	uint64_t x = *s;
	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*s = x;
	return x * 0x2545F4914F6CDD1Dull;
}

#endif
