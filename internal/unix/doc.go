// Package unix is pmc's kernel boundary: the only package that imports golang.org/x/sys/unix,
// syscall or unsafe for system calls (a test in this package enforces it). It is thin on
// purpose: type aliases, constants and one-line wrappers, plus the few places where a kernel
// structure has to be decoded by hand (the siginfo of waitid, a file's owner). Meaning lives
// elsewhere: package perfevent gives perf_event_open its semantics, package launch gives the
// process calls theirs. The layout follows cilium/ebpf's internal/unix.
package unix
