// Package perfsuite runs perf's own shell tests (Debian's linux-perf installs them under
// /usr/lib/perf-core/tests/shell) against pmc: the `perf` script in this directory, first on
// PATH, hands stat, record, report, script, annotate, diff, top and list to pmc and every other
// subcommand to the real perf. The tests are read from the installed package, never copied here.
//
// Each test of the suite (suite.go) runs twice: with the real perf, to know what perf 6.1 does
// on this machine, then through the shim. A test passes (exit 0), is skipped by the test itself
// (exit 2, with the reason it printed) or fails. A pass counts only when the commands whose
// output the test loops over printed something (the guards), so a loop over an empty
// `perf list --raw-dump` is reported as vacuous, not passed.
//
// Nothing runs unless PMC_PERFSUITE=1 (set by `make test-perfsuite`, part of `make test`).
// The run fails when a test that perf passes here does not pass with pmc, unless the test is
// listed in Waiting with the work it waits on; a waiting test that passes fails the run too,
// so that the list only shrinks.
package perfsuite
