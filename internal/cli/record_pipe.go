package cli

import (
	"io"
	"os"
	"os/signal"

	"github.com/pmc-tools/pmc/internal/outfile"
	"github.com/pmc-tools/pmc/internal/record"
	"github.com/pmc-tools/pmc/internal/unix"
)

// recordOutput is where a recording goes: a file (kept or removed as a whole by outfile),
// or standard output for -o -.
type recordOutput interface {
	io.Writer
	Close() error
	Abort()
}

// open opens the recording's output. For -o - (perf's pipe format on standard output) the
// workload's standard output goes to its standard error, as perf sends it, so that it
// cannot mix with the records; a reader that goes away makes a write error (a broken pipe)
// rather than a signal that kills pmc with its workload's recording unfinished.
func (p *recordPlan) open(e *env, req *record.Request) (recordOutput, error) {
	if p.output != "-" {
		return outfile.Create(p.output, outfile.Rotate)
	}
	req.Pipe = true
	req.Stdout = req.Stderr
	return &pipeOutput{Writer: e.stdout, sigpipe: sigpipe()}, nil
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
