// Package symbol turns addresses into names: ELF .symtab/.dynsym of executables and shared
// libraries (PIE and non-PIE; a mapping's address goes to a file offset through the mmap's
// pgoff and to an ELF address through the program headers), build-ids, separate debug files
// (/usr/lib/debug/.build-id and .gnu_debuglink), DWARF line tables, /proc/kallsyms text and
// kernel images (vmlinux, relocated as the recording's kernel mapping says), perf-PID.map
// files of JITs, C++ and Rust demangling, and the embedded-symbol archive that lets a
// recording be reported on another machine. The archive is opened by itself when it sits
// beside a recording, so it is distrusted: only a regular file is read, and its members may
// expand only within ArchiveLimits (per member, in all, and relative to their compressed
// size), wherever it is opened from.
//
// It also reads machine code (CodeReader): a function's bytes from the binary a recording
// names, its build-id checked, or from the code an archive kept, and the line table of the
// one compilation unit that holds the function (found through .debug_aranges, decompressing
// no more of the DWARF than that unit needs), for pmc annotate.
//
// Everything reads bytes, io.ReaderAt or an fs.FS: the caller chooses the filesystem (the
// live root, a snapshot, an archive). A Table is built once per DSO (symbols sorted, aliases
// resolved the way perf resolves them) and looked up by binary search; the Resolver caches
// one Table per DSO, so a report costs one parse per DSO, never a process per address. Which
// kernel's symbols are valid for a recording is the caller's decision (Resolver.KernelTable).
// A kernel's table from /proc/kallsyms is compact (ReadKallsyms: read as the text streams,
// 16 bytes a symbol and one copy of the names, a Sym made when a lookup finds it), and an
// ELF file's symbol table is read raw, making only its functions.
package symbol
