package comparerun

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"

	"github.com/pmc-tools/pmc/internal/compare"
	"github.com/pmc-tools/pmc/internal/comparehtml"
	"github.com/pmc-tools/pmc/internal/outfile"
	"github.com/pmc-tools/pmc/internal/unix"
)

// Format is the output of a comparison: the terminal table or one of the files' formats.
type Format int

const (
	Text Format = iota
	JSON
	CSV
	Markdown
)

// Output says where a comparison goes.
type Output struct {
	File   string    // -o: the comparison goes there instead of Stdout; "" for none
	HTML   string    // --html: the page also goes there; "" for none
	Format Format    // of the comparison
	Stdout io.Writer // the comparison, without File (in colour on a terminal, unless NO_COLOR is set)
	Stderr io.Writer // which files were written
}

// End is how a comparison ended, once written: the signal that stopped it (Ctrl-C: 0 for
// none) and the commands whose runs failed.
type End struct {
	Signal int
	Failed error
}

// Run is pmc compare once its inputs are known: it creates the output files first (one that
// cannot be written stops it before anything runs), gets the comparison from get, builds it
// and writes it. While measuring, the first Ctrl-C cancels get's context (the comparison
// is then written with what was measured) and a second exits at once (interruptible).
// get's err is returned as it is, the files removed.
func Run(o Output, measuring bool, get func(ctx context.Context) (c *compare.Comparison, failed, err error)) (End, error) {
	var end End
	outs, err := createOutputs(o.File, o.HTML)
	if err != nil {
		return end, err
	}
	var c *compare.Comparison
	if measuring {
		ctx, stop := interruptible(o.Stderr, outs.Abort, &end.Signal)
		c, end.Failed, err = get(ctx)
		stop()
	} else {
		c, end.Failed, err = get(context.Background())
	}
	if err != nil {
		outs.Abort()
		return end, err
	}
	return end, outs.Write(c, o.Format, o.Stdout, isTerminal(o.Stdout), o.Stderr)
}

// outputs are the comparison's files (-o, --html), created before anything runs so that one
// that cannot be written stops pmc first.
type outputs struct {
	out, page *outfile.File // nil: stdout, no page
}

// createOutputs creates the files named output (the comparison; "" for stdout) and html
// (the page; "" for none).
func createOutputs(output, html string) (*outputs, error) {
	o := &outputs{}
	var err error
	if output != "" {
		if o.out, err = outfile.Create(output, outfile.Replace); err != nil {
			return nil, fmt.Errorf("-o: %w", err)
		}
	}
	if html != "" {
		if o.page, err = outfile.Create(html, outfile.Replace); err != nil {
			o.Abort()
			return nil, fmt.Errorf("--html: %w", err)
		}
	}
	return o, nil
}

// Abort removes the files (what pmc created of them).
func (o *outputs) Abort() {
	for _, f := range []*outfile.File{o.out, o.page} {
		if f != nil {
			f.Abort()
		}
	}
}

// Write builds c and writes it as format to the output file or stdout (in colour when
// stdout is a terminal and NO_COLOR is not set), and the page; it tells stderr which files
// it wrote. On an error the files are aborted.
func (o *outputs) Write(c *compare.Comparison, format Format, stdout io.Writer, terminal bool, stderr io.Writer) error {
	compare.Build(c)
	w := stdout
	if o.out != nil {
		w = o.out
	}
	err := write(w, c, format, o.out == nil && terminal && os.Getenv("NO_COLOR") == "")
	if o.page != nil && err == nil {
		if err = comparehtml.Write(o.page, c); err == nil {
			err = o.page.Close()
		}
	}
	if o.out != nil && err == nil {
		err = o.out.Close()
	}
	if err != nil {
		o.Abort()
		return err
	}
	for _, f := range []*outfile.File{o.out, o.page} {
		if f != nil {
			fmt.Fprintf(stderr, "pmc: comparison written to %s\n", f.Name())
		}
	}
	return nil
}

func write(w io.Writer, c *compare.Comparison, format Format, color bool) error {
	switch format {
	case JSON:
		return compare.JSON(w, c)
	case CSV:
		return compare.CSV(w, c)
	case Markdown:
		return compare.Markdown(w, c)
	}
	return compare.Text(w, c, compare.TextOptions{Color: color})
}

// interruptible handles Ctrl-C (and SIGTERM, SIGHUP) while commands are compared: the first
// cancels the context, which ends the run in progress (the launcher also passes the signal
// to the command) and stops the comparison, to be written with what was measured; sig then
// holds the signal's number. A second one aborts the output files (abort), says so on
// stderr and exits at once with 128+N. stop ends the handling.
func interruptible(stderr io.Writer, abort func(), sig *int) (ctx context.Context, stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, unix.SIGTERM, unix.SIGHUP)
	done, finished := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(finished)
		var first os.Signal
		select {
		case first = <-sigs:
		case <-done:
			return
		}
		*sig = int(first.(unix.Signal))
		cancel()
		select {
		case again := <-sigs:
			abort()
			fmt.Fprintf(stderr, "pmc: %v again: exiting without the comparison\n", again)
			os.Exit(128 + int(again.(unix.Signal)))
		case <-done:
		}
	}()
	return ctx, func() {
		signal.Stop(sigs)
		close(done)
		<-finished
		cancel()
	}
}
