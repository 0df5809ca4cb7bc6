// Package dwarfcorpus holds no code: its test compares pmc report and pmc script with perf
// report and perf script on recordings made with --call-graph dwarf (perf's, and one of
// pmc's that perf reads), reported from their symbol archives alone, so that every
// sample's call chain, unwound by pmc, is checked against perf's unwinding (libunwind) of
// the same file. regen.sh remakes the recordings, their archives and perf's output on a
// machine with perf; mkarchive writes the archives. testdata/README.md lists the files.
package dwarfcorpus
