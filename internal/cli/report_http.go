package cli

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/pmc-tools/pmc/internal/driver"
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

// serveOptions are pmc cmd --http's.
func serveOptions(e *env, cmd, addr, event string, load driver.Options) web.ServeOptions {
	return web.ServeOptions{Addr: addr, Load: load, Event: event, Stderr: e.stderr, Warn: warner(e, cmd)}
}

// runReportHTTP is pmc report --http: the recording in pprof's web interface.
func runReportHTTP(cmd *cobra.Command, e *env, addr string, o driver.ReportOptions) error {
	for _, f := range []string{"stdio", "json", "folded", "pprof", "html", "output"} {
		if cmd.Flags().Changed(f) {
			return usageErr(fmt.Errorf("--http serves the recording: leave out --%s (or write it in a second run)", f))
		}
	}
	return web.ServeReport(cmd.Context(), o.Load.Path, serveOptions(e, "report", addr, o.Event, o.Load))
}

// runDiffHTTP is pmc diff --http: NEW against BASELINE in pprof's web interface.
func runDiffHTTP(cmd *cobra.Command, e *env, addr string, o driver.DiffReport) error {
	if o.JSON || o.Output != "" {
		return usageErr(errors.New("--http serves the difference: leave out --json and -o"))
	}
	return web.ServeDiff(cmd.Context(), o.Paths, serveOptions(e, "diff", addr, o.Event, o.Load))
}
