/* Exercises include/pmc.h's error paths and JSON escaping; driven by pmcheader_test.go. */
#define PMC_IMPLEMENTATION
#include "pmc.h"

#include <stdio.h>

int main(int argc, char **argv)
{
	if (argc != 2)
		return 2;
	pmc_begin("early"); /* before pmc_open: warns, ignored */
	if (pmc_open("task-clock,page-faults,cs") != 3)
		return 3;
	pmc_end("nothing"); /* nothing open: warns */
	pmc_begin("a");
	pmc_begin("b");
	pmc_end("a"); /* wrong order: warns, ignored */
	pmc_end("b");
	pmc_end("a");
	pmc_begin("a"); /* re-entered: calls 2 */
	pmc_end("a");
	pmc_begin("q\"\\\tx");
	pmc_end("q\"\\\tx");
	uint64_t v;
	printf("value_unknown=%d value_a=%d\n", pmc_value("zzz", "task-clock", &v),
	       pmc_value("a", "task-clock", &v));
	/* An unknown name fails the whole open and says so; a 17th event is refused. */
	printf("open_bad=%d\n", pmc_open("task-clock,nope"));
	printf("open_17=%d\n", pmc_open("cs,cs,cs,cs,cs,cs,cs,cs,cs,cs,cs,cs,cs,cs,cs,cs,cs"));
	/* The JSON of the first session was lost by the reopen: reopen and replay one region. */
	pmc_open("task-clock,page-faults,cs");
	pmc_begin("a");
	pmc_begin("b");
	pmc_end("b");
	pmc_end("a");
	pmc_begin("q\"\\\tx");
	pmc_end("q\"\\\tx");
	return pmc_write_json(argv[1]) == 0 ? 0 : 4;
}
