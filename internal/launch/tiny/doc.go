// Package tiny holds pmc's launch shim as a static executable of a few hundred bytes, one per
// architecture pmc ships (src/shim_ARCH.S, assembled by gen.sh into elf/ARCH). Package
// launch runs it from a sealed memfd instead of re-executing pmc's own binary: a launch then
// costs an exec of one page instead of a Go runtime's start-up, and the workload's peak RSS
// is its own.
//
// The contract. pmc starts the shim with argv MODE, PATH, then the workload's argv, and with
// fds 0-2 the workload's stdio, fd 3 the read end of the go pipe, fd 4 the write end of the
// record pipe and fd 5 the write end of the pid pipe. The shim:
//
//  1. clones itself with CLONE_PARENT|SIGCHLD: the copy is pmc's child, a fresh process
//     whose high-water RSS holds only the shim's few pages (the shim itself was started by a
//     vfork of pmc and so carries pmc's peak, which the kernel keeps across an exec);
//  2. writes the copy's pid (4 bytes, host order) to fd 5 and exits 0; when the clone is
//     refused (qemu's user mode refuses CLONE_PARENT) it writes its own pid and goes on;
//  3. in the copy: closes fd 5, reads one byte from fd 3 (EOF: exit 125, nothing run),
//     closes fd 3, makes fd 4 close-on-exec and execs PATH with the workload's argv;
//  4. if that fails with ENOEXEC and MODE starts with '/', execs MODE (a shell) with argv
//     MODE, PATH, argv[1:], as execvp(3) does for a script without #!;
//  5. if the exec failed, writes the errno (4 bytes, host order) to fd 4 and exits 127
//     (ENOENT, ENOTDIR) or 126, as a shell does.
//
// Image returns nil on an architecture without a shim; launch then re-executes pmc.
package tiny
