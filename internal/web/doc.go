// Package web serves a recording in pprof's web interface (github.com/google/pprof/driver):
// flame graph, top, graph, peek, source and disassembly views, on any machine, with no
// objdump, addr2line or network.
//
// The profile is pmc's: the recording (perf's or pmc's perf.data, with its symbol archive)
// goes through internal/driver into one symbolized profile, and internal/proffmt converts it
// with one sample type per event ("samples" first, then each sampled event's period; the
// default is the event perf report shows first) and addresses in each binary's own space,
// so that the views need no relocation and a diff of two runs of one binary lines their
// instructions up. pprof is handed:
//   - a Fetcher that returns that profile (pprof symbolizes nothing: Sym is a no-op),
//   - an ObjTool backed by internal/symbol (symbol tables, line tables, code from the
//     binaries or from the archive) and internal/disasm (x86-64, arm64, A32, Thumb-2), so the
//     source and disassembly views read what pmc annotate reads,
//   - a FlagSet of its own (pprof's driver parses flags; pmc's command line is not its),
//   - a UI that never prompts and never opens a browser (pprof's -no_browser),
//   - an HTTPServer that listens where it is told (127.0.0.1 unless the user names another
//     address), prints the URL, refuses clients other than the local machine when bound to a
//     loopback address, and stops when its context is done.
//
// ServeReport and ServeDiff are pmc report --http and pmc diff --http: they listen first (a
// port in use fails before any file is read), load the recordings through internal/driver
// with line tables and every sample, and serve until Ctrl-C or SIGTERM.
//
// The graph view runs graphviz's dot; without it pprof answers that view with an error and
// the server says so when it starts. Nothing here runs at package initialisation; pprof's
// own packages do a little (regular expressions, a configuration table: measured in the
// README's start-up section).
package web
