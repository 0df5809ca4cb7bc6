package record

import (
	"io"
	"os"
	"os/signal"

	"github.com/pmc-tools/pmc/internal/outfile"
	"github.com/pmc-tools/pmc/internal/unix"
)

// Output is where a recording goes (pmc record's, pmc stat record's): a file (kept or
// removed as a whole by outfile, an older one kept as FILE.old), or standard output for -.
type Output interface {
	io.Writer
	Close() error
	Abort()
}

// OpenOutput opens path for a recording: - is stdout, where a reader that goes away makes
// a write error (a broken pipe) rather than a signal that kills pmc with its workload's
// recording unfinished.
func OpenOutput(path string, stdout io.Writer) (Output, error) {
	if path != "-" {
		return outfile.Create(path, outfile.Rotate)
	}
	return &pipeOutput{Writer: stdout, sigpipe: sigpipe()}, nil
}

// sigpipe turns SIGPIPE into EPIPE for pmc's own writes; the returned func undoes it.
func sigpipe() func() {
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, unix.SIGPIPE)
	return func() { signal.Stop(ch) }
}

// pipeOutput is standard output: nothing to rename or remove.
type pipeOutput struct {
	io.Writer
	sigpipe func()
}

func (o *pipeOutput) Close() error { o.sigpipe(); return nil }
func (o *pipeOutput) Abort()       { o.sigpipe() }
