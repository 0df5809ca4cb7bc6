// Package perfcorpus holds no code: its test compares `pmc report` with `perf report` on
// perf.data files that other projects publish as test data and on files recorded with
// perf on the project's machines (testdata/README.md lists them with their sources and
// licences). perf's own output, reduced to the rows compared, is kept in testdata/perf/
// (regen.sh runs perf to rewrite it); the test needs neither perf nor a network.
package perfcorpus
