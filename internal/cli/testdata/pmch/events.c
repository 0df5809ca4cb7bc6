/* pmc.h with every kind of event name pmc stat accepts that C can encode without sysfs:
 * generic, hardware cache, raw, and the CPU's table names from `pmc list --c-header`. Built by
 * TestPMCHeaderEvents as C11 -pedantic and as C++17, without -lm. */
#include "pmc_events.h"
#define PMC_EVENT_TABLE pmc_events
#define PMC_IMPLEMENTATION
#include "pmc.h"

int main(int argc, char **argv)
{
	(void)argc;
	int n = pmc_open("task-clock,L1-dcache-load-misses,dTLB-loads:u,LLC-misses,r11,INST_RETIRED,l1d_cache_refill:u");
	if (n < 0)
		return 2;
	pmc_begin("work");
	volatile unsigned long x = 0;
	for (unsigned long i = 0; i < 100000; i++)
		x += i;
	pmc_end("work");
	return pmc_write_json(argv[1]) != 0;
}
