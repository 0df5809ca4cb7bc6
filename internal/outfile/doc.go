// Package outfile writes pmc's output files (pmc stat -o, --report, pmc mem -o, pmc record -o
// and the others) the way a user expects of a path given on the command line:
//
//   - a regular file, new or existing, is replaced atomically (a temporary file in the same
//     directory, synced, renamed over it) and keeps the existing file's mode and owner; a file
//     with other hard links, or one pmc could not give back its owner, is rewritten in place
//     instead, so those links and that owner survive; a file its user may not write (mode
//     0444, a read-only mount) is refused as perf refuses it, never replaced;
//   - a symbolic link is written through: its target is replaced (or created), the link stays;
//   - a device, FIFO or socket (/dev/null, /dev/stdout, a named pipe) is opened and written,
//     never replaced;
//   - Append adds to the end of the file, and Stream writes as the data comes (intervals that
//     `tail -f` should see), both on the path itself;
//   - Rotate writes a recording (perf.data) as perf record does, keeping the previous one as
//     PATH.old, but only once the new one is complete: until Close the data is in a temporary
//     file, so an aborted recording removes only what pmc created. The path that moves to
//     PATH.old is the path itself (a symlink, not its target, as perf moves it).
//
// Create checks and opens the path at once, so a command fails before it runs a workload when
// its output cannot be written (a missing directory, a directory given as a file).
package outfile
