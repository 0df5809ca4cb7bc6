package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/pmc-tools/pmc/internal/host"
	"github.com/pmc-tools/pmc/internal/result"
)

// commands is pmc's command table: one constructor per subcommand, each in its own file.
// The help text is generated from what they declare.
var commands = []struct {
	name string // the command's Name(), so that a run builds only the command it runs
	new  func(*env) *cobra.Command
}{
	{"stat", newStatCmd},
	{"show", newShowCmd},
	{"list", newListCmd},
	{"explain", newExplainCmd},
	{"mem", newMemCmd},
	{"version", newVersionCmd},
	{"record", newRecordCmd},
	{"compare", newCompareCmd},
	{"doctor", newDoctorCmd},
	{"exporter", newExporterCmd},
	{"report", newReportCmd},
	{"annotate", newAnnotateCmd},
	{"diff", newDiffCmd},
	{"script", newScriptCmd},
	{"top", newTopCmd},
}

// env carries what every subcommand needs from the outside world, so tests can swap it.
type env struct {
	stdout, stderr io.Writer
	// workload holds the standard streams a launched command inherits (stdin, stdout,
	// stderr): pmc's own in production, anything but the test log in tests.
	workload [3]*os.File
	args     []string // pmc's command line, recorded in saved results
	// machine is the one machine model every command reads, probed on first use (host.Live
	// in production, a snapshot in tests); platform is what pmc doctor and the no-PMU hints
	// read of it beyond that.
	machine  func() *host.Machine
	platform func() *host.Platform
}

// exitError carries a process exit status through cobra (e.g. the workload's status).
type exitError struct {
	code int
	err  error // nil when the status alone says it (no message to print)
}

func (e *exitError) Error() string {
	if e.err == nil {
		return fmt.Sprintf("exit status %d", e.code)
	}
	return e.err.Error()
}

// Run executes pmc with args (without the program name) and returns the process exit status.
func Run(args []string, stdout, stderr io.Writer) int {
	return run(args, &env{stdout: stdout, stderr: stderr, workload: [3]*os.File{os.Stdin, os.Stdout, os.Stderr},
		machine: host.Live, platform: host.LivePlatform})
}

// Command returns pmc's command tree without running it, for the generators of its man pages
// and shell completions (scripts/gendoc): they read the same definitions --help prints.
func Command() *cobra.Command {
	return newRoot(&env{stdout: io.Discard, stderr: io.Discard, machine: host.Live, platform: host.LivePlatform})
}

func newRoot(e *env) *cobra.Command {
	root := newRootShell()
	for _, c := range commands {
		root.AddCommand(c.new(e))
	}
	return root
}

// newRootShell is pmc's root command without subcommands.
func newRootShell() *cobra.Command {
	root := &cobra.Command{
		Use:           "pmc",
		Short:         "count hardware performance events and explain what they count",
		SilenceUsage:  true,
		SilenceErrors: true,
		Version:       version(),
	}
	root.SetVersionTemplate("pmc {{.Version}}\n")
	return root
}

// newRootFor is the command tree a run of args needs: the root with only the subcommand
// args name first (building all fifteen, with their flags, was 4% of a pmc stat's CPU), or
// the whole tree for anything else (help, completion, root flags, a misspelt command).
func newRootFor(e *env, args []string) *cobra.Command {
	if len(args) > 0 {
		for _, c := range commands {
			if c.name == args[0] {
				root := newRootShell()
				root.AddCommand(c.new(e))
				return root
			}
		}
	}
	return newRoot(e)
}

func run(args []string, e *env) int {
	stdout, stderr := e.stdout, e.stderr
	e.args = append([]string{"pmc"}, args...)
	root := newRootFor(e, args)
	root.SetArgs(args)
	root.SetOut(stdout)
	root.SetErr(stderr)
	completionRefusesUnknown(root) // after SetOut: cobra's scripts go to the writer set then
	err := root.Execute()
	if err == nil {
		return 0
	}
	var ee *exitError
	if errors.As(err, &ee) {
		if ee.err != nil {
			warnf(stderr, "pmc: %v", ee.err)
		}
		return ee.code
	}
	warnf(stderr, "pmc: %v", err)
	return 1
}

// warnf writes a message line to w with its control characters shown escaped: messages name
// files, symbols and events read from files, which must not drive the user's terminal.
func warnf(w io.Writer, format string, args ...any) {
	fmt.Fprintln(w, result.PrintableLines(fmt.Sprintf(format, args...)))
}

// completionRefusesUnknown makes `pmc completion SHELL` fail for a shell cobra does not know:
// its completion command has only subcommands, so an unknown one printed the help and exited 0.
func completionRefusesUnknown(root *cobra.Command) {
	root.InitDefaultCompletionCmd()
	for _, c := range root.Commands() {
		if c.Name() != "completion" {
			continue
		}
		var shells []string
		for _, s := range c.Commands() {
			shells = append(shells, s.Name())
		}
		c.Args = cobra.ArbitraryArgs
		c.RunE = func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return cmd.Help()
			}
			return fmt.Errorf("completion: unknown shell %q: choose %s", args[0], strings.Join(shells, ", "))
		}
	}
}
