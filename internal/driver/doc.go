// Package driver turns a recording, its symbol archive and the machine into one
// symbolized profile, the way pprof's driver goes from a source to a profile before any
// view: report, annotate and diff all load through Load and differ only in what they do
// with the profile.
//
// Load opens the perf.data file (perf's or pmc's), the archive beside it (FILE.pmcsym,
// written by pmc record --embed-symbols), and resolves addresses through internal/symbol:
// binaries under --symfs when their build-ids match the recording's, else the archive's
// tables. Kernel symbols follow perf report's rules (dso__load_kernel_sym): --kallsyms FILE
// or --vmlinux FILE when given, else the archive's table for the recording's kernel
// build-id, else the running kernel's /proc/kallsyms, but only when its build-id
// (/sys/kernel/notes) is the one the recording names, or the recording names none, and no
// --symfs points elsewhere. A recording of another kernel keeps its kernel addresses, as
// perf's does, and /proc/kallsyms is read only when kernel samples need it (in the
// background, beside the records, when the recording's build-id list names the kernel).
//
// The machine is an interface (Machine: the running kernel's build-id and symbols) so tests
// give a snapshot. Annotate picks a profile's hottest functions and lays their machine code
// out (code and line tables read per function through symbol.CodeReader); Disassemble is
// that decoding alone, for any function (the web view's disassembly); Diff loads the files pmc
// diff compares.
//
// The commands' runs are here too, so internal/cli only parses flags: Report chooses and
// writes pmc report's outputs (internal/proffmt's text, JSON, folded stacks, pprof and HTML,
// the header, --stats, --tasks), WriteAnnotate and WriteDiff write annotate's and diff's
// text or JSON; every output file goes through internal/outfile, opened before the
// recording is read and left as it was when anything fails.
package driver
