package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"

	"github.com/spf13/cobra"

	"github.com/pmc-tools/pmc/internal/unix"
	"github.com/pmc-tools/pmc/internal/web"
)

// httpFlag adds --http[=ADDR] to cmd, report's and diff's: the value is optional, so a
// separate word after it is an argument, which report (taking none) explains.
func httpFlag(cmd *cobra.Command, addr *string) {
	fl := cmd.Flags()
	fl.StringVar(addr, "http", "", "serve the interactive web view (pprof's: flame graph, top, graph, peek, source, disassembly) on `ADDR`: PORT, :PORT or HOST:PORT joined by =, 127.0.0.1 on a free port without; Ctrl-C stops")
	fl.Lookup("http").NoOptDefVal = "127.0.0.1:0"
	if args := cmd.Args; args != nil {
		cmd.Args = func(c *cobra.Command, a []string) error {
			if len(a) == 1 && c.Flags().Changed("http") && *addr == "127.0.0.1:0" {
				return usageErr(fmt.Errorf("pmc %s takes no argument %q: write --http=%s", c.Name(), a[0], a[0]))
			}
			return args(c, a)
		}
	}
}

// serveContext is done at Ctrl-C or SIGTERM.
func serveContext(cmd *cobra.Command) (context.Context, context.CancelFunc) {
	ctx := cmd.Context()
	if ctx == nil {
		ctx = context.Background()
	}
	return signal.NotifyContext(ctx, os.Interrupt, unix.SIGTERM)
}

// httpLoad is how the web view loads a recording: call chains, source lines, every sample.
func httpLoad(e *env, cmd string, syms *symbolFlags, path string) (web.Recording, error) {
	lo := syms.options(e, path)
	lo.Lines, lo.Keep = true, true
	r, err := load(e, cmd, lo)
	if err != nil {
		return web.Recording{}, err
	}
	return web.Recording{Path: path, Result: r}, nil
}

// runReportHTTP is pmc report --http: the recording in pprof's web interface.
func runReportHTTP(cmd *cobra.Command, e *env, f *reportFlags) error {
	for _, o := range []string{"stdio", "json", "folded", "pprof", "html", "output"} {
		if f.changed(o) {
			return usageErr(fmt.Errorf("--http serves the recording: leave out --%s (or write it in a second run)", o))
		}
	}
	ln, err := web.Listen(f.http) // a port in use fails before the file is read
	if err != nil {
		return usageErr(err)
	}
	defer ln.Close()
	rec, err := httpLoad(e, "report", &f.syms, f.input)
	if err != nil {
		return err
	}
	ctx, stop := serveContext(cmd)
	defer stop()
	return web.Report(ctx, rec, f.event, web.Options{Listener: ln, Cmd: "report", Stderr: e.stderr})
}

// runDiffHTTP is pmc diff --http: NEW against BASELINE in pprof's web interface.
func runDiffHTTP(cmd *cobra.Command, e *env, f *diffFlags, args []string) error {
	if len(args) == 0 {
		args = []string{"perf.data.old", "perf.data"}
	}
	if len(args) != 2 {
		return usageErr(errors.New("--http shows one difference: give BASELINE NEW (and the address as --http=ADDR)"))
	}
	if f.json || f.output != "" {
		return usageErr(errors.New("--http serves the difference: leave out --json and -o"))
	}
	ln, err := web.Listen(f.http)
	if err != nil {
		return usageErr(err)
	}
	defer ln.Close()
	var recs [2]web.Recording
	for i, path := range args {
		if recs[i], err = httpLoad(e, "diff", &f.syms, path); err != nil {
			return err
		}
	}
	ctx, stop := serveContext(cmd)
	defer stop()
	return web.Diff(ctx, recs[0], recs[1], f.event, web.Options{Listener: ln, Cmd: "diff", Stderr: e.stderr})
}
