// Package doctor says why hardware counting does or does not work on a machine (pmc doctor):
// one check per line with a verdict and, for every problem, the fix. It reads the machine
// only through package host (a snapshot in tests) and the results of a few perf_event_open
// attempts (Probes: measured by ProbeKernel, or recorded for tests).
package doctor
