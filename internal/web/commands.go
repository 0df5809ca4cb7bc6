package web

import (
	"context"
	"errors"
	"io"
	"os"
	"os/signal"

	pmcdriver "github.com/pmc-tools/pmc/internal/driver"
	"github.com/pmc-tools/pmc/internal/unix"
)

// ServeOptions are pmc report --http's and pmc diff --http's: where to serve, how the
// recordings are loaded, and who is told.
type ServeOptions struct {
	Addr   string            // --http's value (Listen)
	Load   pmcdriver.Options // where symbols come from; Path is set per recording
	Event  string            // the event shown ("" the default one)
	Stderr io.Writer
	Warn   func(warnings []string) // told each recording's symbol warnings
}

// ServeReport is pmc report --http: it listens (a port in use fails before the file is
// read), loads the recording and serves it until ctx is done, Ctrl-C or SIGTERM.
func ServeReport(ctx context.Context, path string, o ServeOptions) error {
	ln, err := Listen(o.Addr)
	if err != nil {
		return err
	}
	defer ln.Close()
	rec, err := o.load(path)
	if err != nil {
		return err
	}
	ctx, stop := signalContext(ctx)
	defer stop()
	return Report(ctx, rec, o.Event, Options{Listener: ln, Cmd: "report", Stderr: o.Stderr})
}

// ServeDiff is pmc diff --http: NEW against BASELINE (none: perf.data.old against
// perf.data) until ctx is done, Ctrl-C or SIGTERM.
func ServeDiff(ctx context.Context, paths []string, o ServeOptions) error {
	if len(paths) == 0 {
		paths = []string{"perf.data.old", "perf.data"}
	}
	if len(paths) != 2 {
		return errors.New("--http shows one difference: give BASELINE NEW (and the address as --http=ADDR)")
	}
	ln, err := Listen(o.Addr)
	if err != nil {
		return err
	}
	defer ln.Close()
	var recs [2]Recording
	for i, path := range paths {
		if recs[i], err = o.load(path); err != nil {
			return err
		}
	}
	ctx, stop := signalContext(ctx)
	defer stop()
	return Diff(ctx, recs[0], recs[1], o.Event, Options{Listener: ln, Cmd: "diff", Stderr: o.Stderr})
}

// load is how the web view loads a recording: call chains, source lines, every sample.
func (o *ServeOptions) load(path string) (Recording, error) {
	lo := o.Load
	lo.Path, lo.Lines, lo.Keep = path, true, true
	r, err := pmcdriver.Load(lo)
	if err != nil {
		return Recording{}, err
	}
	o.Warn(r.Warnings)
	return Recording{Path: path, Result: r}, nil
}

// signalContext is done with ctx (nil: never), or at Ctrl-C or SIGTERM.
func signalContext(ctx context.Context) (context.Context, context.CancelFunc) {
	if ctx == nil {
		ctx = context.Background()
	}
	return signal.NotifyContext(ctx, os.Interrupt, unix.SIGTERM)
}
