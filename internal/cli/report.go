package cli

import (
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/pmc-tools/pmc/internal/driver"
	"github.com/pmc-tools/pmc/internal/profile"
)

func newReportCmd(e *env) *cobra.Command {
	o := driver.ReportOptions{}
	var input, addr string
	var syms symbolFlags
	cmd := &cobra.Command{
		Use:   "report [-i FILE] [options]",
		Short: "show where the samples of a perf.data file (perf's or pmc's) went, like perf report --stdio",
		Long: `Read a perf.data file written by perf record or pmc record and show the samples per
command, shared object and symbol the way perf report --stdio does, with the same
percentages. Call graphs are shown when the file has call chains (-g none hides them,
-g caller or callee orders them), with a Children column unless --no-children. As perf:
a file with event groups is shown a report per group (--no-group: per event), one with
branch stacks as its branches (--no-branch-stack: where samples hit). -i - reads perf's
pipe format from standard input (perf record -o - | pmc report -i -). Symbols come from the binaries the file names
when their build-ids match, else from the archive pmc record --embed-symbols wrote beside
the file (FILE.pmcsym). Kernel symbols come from --kallsyms FILE or --vmlinux FILE, else
the archive, else /proc/kallsyms when the running kernel is the recorded one (same
build-id, or the file names none), as perf report decides: a recording of another kernel
keeps its kernel addresses.
Exports: --json (pmc.report/v1), --folded stacks, --pprof FILE, --html FILE (flame graph).
--http serves the interactive view (pprof's web interface, pmc's symbols and disassembler).`,
		Args: func(cmd *cobra.Command, args []string) error {
			// perf's -g takes its value as the next word too (-g caller): pmc's -g, whose
			// value is optional, leaves it as an argument.
			if len(args) == 1 && cmd.Flags().Changed("call-graph") && o.CallGraph == "caller" {
				if _, err := driver.ParseCallGraph(args[0]); err == nil {
					o.CallGraph = args[0]
					return nil
				}
			}
			return cobra.NoArgs(cmd, args)
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			fl := cmd.Flags()
			o.Load = syms.options(e, input)
			if fl.Changed("http") {
				return runReportHTTP(cmd, e, addr, o)
			}
			o.SortGiven, o.CallGraphGiven = fl.Changed("sort"), fl.Changed("call-graph")
			o.Stdout, o.Warn = e.stdout, warner(e, "report")
			return driver.Report(o)
		},
	}
	fl := cmd.Flags()
	fl.StringVarP(&input, "input", "i", "perf.data", "the perf.data file to read (-: standard input, as perf record -o - writes it)")
	fl.BoolVar(&o.Stdio, "stdio", false, "write the text report (the default when no other format is chosen)")
	fl.StringVarP(&o.Sort, "sort", "s", strings.Join(profile.DefaultSort, ","), "group by these keys: "+strings.Join(profile.SortKeys, ","))
	fl.BoolVar(&o.Children, "children", false, "add each sample's period to its callers too (the default with call chains)")
	fl.BoolVar(&o.NoChildren, "no-children", false, "self period only")
	fl.StringVarP(&o.CallGraph, "call-graph", "g", "", "show call graphs: caller (a bare -g, as perf), callee, none (default: callee with --no-children, when the file has call chains)")
	fl.Lookup("call-graph").NoOptDefVal = "caller"
	fl.Float64Var(&o.PercentLimit, "percent-limit", 0, "hide entries below this percentage")
	fl.BoolVar(&o.JSON, "json", false, "write the report as JSON (schema pmc.report/v1)")
	fl.BoolVar(&o.Folded, "folded", false, "write collapsed stacks weighed by period (flamegraph.pl, inferno, speedscope)")
	fl.StringVar(&o.Pprof, "pprof", "", "write a gzipped pprof profile to this file")
	fl.StringVar(&o.HTML, "html", "", "write a self-contained flame graph page to this file")
	fl.StringVarP(&o.Output, "output", "o", "", "write the text, JSON or folded output to this file instead of stdout")
	syms.add(fl)
	fl.StringVarP(&o.Event, "event", "e", "", "the event --folded and --html show (needed when the file has samples of several; --pprof has them all)")
	fl.BoolVar(&o.Group, "group", false, "show each event group as one report, a column per member (the default when the file has groups)")
	fl.BoolVar(&o.NoGroup, "no-group", false, "show a group's events one by one")
	fl.BoolVar(&o.BranchStack, "branch-stack", false, "report the samples' branch stacks: source and target of each branch (the default when samples have them)")
	fl.BoolVar(&o.NoBranchStack, "no-branch-stack", false, "report where samples hit even when they have branch stacks")
	fl.StringVarP(&o.Fields, "fields", "F", "", "show these columns (perf's -F): sort keys, optionally after overhead; without overhead no percentages, entries in the order of their keys")
	fl.BoolVar(&o.Header, "header", false, "print the file's header first (perf report --header: its layout, its features, those it lacks)")
	fl.BoolVar(&o.HeaderOnly, "header-only", false, "print the file's header alone")
	fl.BoolVar(&o.Stats, "stats", false, "print the file's records counted by type and each event's samples (perf report --stats), no report")
	fl.BoolVar(&o.Tasks, "tasks", false, "list the recorded threads as a tree of who forked whom (perf report --tasks), nothing else")
	fl.BoolVar(&o.Tasks, "task", false, "--tasks")
	fl.MarkHidden("task") // perf takes any unambiguous prefix of --tasks
	httpFlag(cmd, &addr)
	return cmd
}

// symbolFlags are where report, annotate and diff find symbols (perf's --symfs,
// --kallsyms and --vmlinux).
type symbolFlags struct {
	symfs, kallsyms, vmlinux string
}

func (s *symbolFlags) add(fl *pflag.FlagSet) {
	fl.StringVar(&s.kallsyms, "kallsyms", "", "kernel symbols from this kallsyms file (whatever kernel was recorded)")
	fl.StringVarP(&s.vmlinux, "vmlinux", "k", "", "kernel symbols from this kernel image (its build-id must be the recorded kernel's)")
	fl.StringVar(&s.symfs, "symfs", "", "look for the binaries under this directory instead of / (and not at this machine's kernel)")
}

// options are the driver's options for the recording at path, on e's machine.
func (s *symbolFlags) options(e *env, path string) driver.Options {
	return driver.Options{Path: path, Symfs: s.symfs, Kallsyms: s.kallsyms, Vmlinux: s.vmlinux,
		Machine: func() driver.Machine { return e.machine() }, Stdin: e.workload[0]} // -i -
}

// load runs the driver and says its warnings on e's stderr, as pmc cmd.
func load(e *env, cmd string, o driver.Options) (*driver.Result, error) {
	r, err := driver.Load(o)
	if err != nil {
		return nil, err
	}
	warn(e, cmd, r.Warnings)
	return r, nil
}

func warn(e *env, cmd string, warnings []string) {
	for _, w := range warnings {
		warnf(e.stderr, "pmc %s: %s", cmd, w)
	}
}

// warner says warnings on e's stderr, as pmc cmd.
func warner(e *env, cmd string) func([]string) {
	return func(warnings []string) { warn(e, cmd, warnings) }
}
