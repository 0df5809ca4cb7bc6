package driver

import (
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"

	"github.com/pmc-tools/pmc/internal/profile"
)

// ReportOptions are pmc report's choices: what it shows of the recording Load.Path and
// where it writes it. The fields are its flags'.
type ReportOptions struct {
	Load      Options // the recording and its symbols (Report sets Lines, Keep, Aggregate)
	Sort      string  // --sort: comma-separated keys
	SortGiven bool    // --sort was given (-F refuses it)
	Fields    string  // -F: sort keys, optionally after overhead
	// Children and NoChildren are --children and --no-children (neither: children with call
	// chains, perf's default).
	Children, NoChildren bool
	CallGraph            string // -g's value (ParseCallGraph)
	CallGraphGiven       bool   // -g was given: its value overrides perf's default view
	PercentLimit         float64
	Stdio, JSON, Folded  bool
	// Pprof and HTML name the files written beside the main output ("": none); Output is
	// the text, JSON or folded output's file ("": Stdout).
	Pprof, HTML, Output        string
	Event                      string // the event --folded and --html show
	Group, NoGroup             bool
	BranchStack, NoBranchStack bool
	// Header prints the file's header before the report, HeaderOnly without it; Stats
	// counts the records (perf report --stats); Tasks lists the threads, nothing else.
	Header, HeaderOnly, Stats, Tasks bool

	Stdout io.Writer
	Warn   func(warnings []string) // told what could not be symbolized
}

// reportPlan is what ReportOptions mean once checked.
type reportPlan struct {
	keys               []string
	keysOnly, selfOnly bool // -F without overhead: no percentages, entries in key order; with it: self alone
	cg                 CallGraph
}

// Report writes pmc report's outputs of the recording: the text report (perf report
// --stdio's), JSON, folded stacks, pprof and HTML files; or its header, its statistics or its
// threads. Every output file is opened before the recording is read and is left as it was
// when anything fails.
func Report(o ReportOptions) error {
	plan, err := o.validate()
	if err != nil {
		return err
	}
	if o.Stats || o.HeaderOnly {
		return o.writeStats()
	}
	if o.Header && o.Load.Path == "-" {
		return errors.New("--header with -i -: standard input is read once, for the header or the report: use --header-only, or a file")
	}
	if o.Header && o.exports() {
		return errors.New("--header goes with the text report: drop --json, --folded, --pprof or --html")
	}
	if plan.cg, err = ParseCallGraph(o.CallGraph); err != nil {
		return err
	}
	if o.Tasks {
		return o.writeTasks()
	}
	out, err := o.create()
	if err != nil {
		return err
	}
	defer out.abort() // nothing once closed
	// A report's live heap (call trees, symbol tables) only grows: collect half as often
	// (unless GOGC says otherwise).
	if os.Getenv("GOGC") == "" {
		defer debug.SetGCPercent(debug.SetGCPercent(200))
	}
	text := o.Stdio || !o.exports()
	var agg *profile.Aggregator
	lo := o.Load
	// Source lines cost a DWARF parse per binary: only srcline and pprof show them.
	lo.Lines = o.Pprof != "" || o.JSON || slices.Contains(plan.keys, "srcline")
	// The text and JSON reports aggregate the samples as they are read; only the exports
	// keep them.
	lo.Keep = o.Folded || o.Pprof != "" || o.HTML != ""
	lo.Aggregate = func(in Input) (*profile.Aggregator, error) {
		if !text && !o.JSON {
			return nil, nil
		}
		var err error
		agg, err = profile.NewAggregator(o.aggregation(plan, in))
		return agg, err
	}
	if o.Header {
		if err := writeHeader(o.Load, out.main); err != nil {
			return err
		}
	}
	r, err := Load(lo)
	if err != nil {
		return err
	}
	o.Warn(r.Warnings)
	if err := o.write(out, r.Profile, agg, text); err != nil {
		return err
	}
	return out.close()
}

// exports says whether an output other than the text report was asked for.
func (o *ReportOptions) exports() bool {
	return o.JSON || o.Folded || o.Pprof != "" || o.HTML != ""
}

// aggregation is the Aggregator's view of a recording holding in.
func (o *ReportOptions) aggregation(plan reportPlan, in Input) profile.Options {
	// perf reading a pipe decides on children before it sees the events: none.
	a := profile.Options{Sort: plan.keys, Children: o.Children || in.Chains && !in.Pipe && !o.NoChildren,
		PercentLimit: o.PercentLimit, CallGraph: in.Chains, ShownGraph: !o.JSON,
		KeysOnly: plan.keysOnly, SelfOnly: plan.selfOnly}
	// perf orders its graphs from the caller when it means to show children; reading a
	// pipe, it shows none but keeps that order.
	a.CallerOrder = in.Pipe && in.Chains && !o.NoChildren && !a.Children
	if o.CallGraphGiven {
		a.CallGraph, a.CallerOrder = plan.cg.On, plan.cg.Caller
	}
	// perf's branch view is its default when samples have branch stacks.
	a.Branch = o.BranchStack || in.Branches && !o.NoBranchStack
	return a
}

func (o *ReportOptions) validate() (reportPlan, error) {
	var plan reportPlan
	switch {
	case o.Children && o.NoChildren:
		return plan, errors.New("--children and --no-children: choose one")
	case o.BranchStack && o.NoBranchStack:
		return plan, errors.New("--branch-stack and --no-branch-stack: choose one")
	case o.Group && o.NoGroup:
		return plan, errors.New("--group and --no-group: choose one")
	case o.JSON && o.Folded:
		return plan, errors.New("--json and --folded both write to stdout (or -o): choose one")
	case o.Tasks && o.exports():
		return plan, errors.New("--tasks lists the threads only: drop --json, --folded, --pprof and --html")
	}
	if err := CheckPercentLimit(o.PercentLimit); err != nil {
		return plan, err
	}
	sort := o.Sort
	if o.Fields != "" {
		var err error
		if sort, err = o.parseFields(&plan); err != nil {
			return plan, err
		}
	}
	for _, k := range strings.Split(sort, ",") {
		if k = strings.TrimSpace(k); k != "" {
			plan.keys = append(plan.keys, k)
		}
	}
	return plan, profile.CheckSort(plan.keys)
}

// parseFields reads -F: perf's output fields, of which pmc shows sort keys, optionally
// after overhead (the samples' own period). It returns the sort keys.
func (o *ReportOptions) parseFields(plan *reportPlan) (string, error) {
	if o.SortGiven {
		return "", errors.New("-F and --sort: give the keys with one of them (-F shows them in its order)")
	}
	keys, overhead := strings.CutPrefix(o.Fields, "overhead,")
	if keys == "" || strings.Contains(","+keys+",", ",overhead") || strings.HasPrefix(keys, "+") {
		return "", fmt.Errorf("-F %s: give sort keys (%s), optionally after overhead", o.Fields, strings.Join(profile.SortKeys, ","))
	}
	plan.selfOnly, plan.keysOnly = overhead, !overhead
	return keys, nil
}

// CheckPercentLimit refuses a --percent-limit outside 0..100, NaN included (it compares false
// with both bounds).
func CheckPercentLimit(v float64) error {
	if !(v >= 0 && v <= 100) {
		return fmt.Errorf("--percent-limit %g: give a percentage from 0 to 100", v)
	}
	return nil
}

// CallGraph is pmc report's -g: perf's "graph,0.5,caller" and its short forms.
type CallGraph struct{ On, Caller bool }

// ParseCallGraph reads -g's value: caller, callee or none, in perf's forms.
func ParseCallGraph(v string) (CallGraph, error) {
	cg := CallGraph{On: true, Caller: true}
	for _, w := range strings.Split(v, ",") {
		switch w {
		case "", "graph", "true", "caller", "function":
		case "callee":
			cg.Caller = false
		case "none", "false":
			cg.On = false
		default:
			if x, err := strconv.ParseFloat(w, 64); err != nil || x != 0.5 {
				return cg, fmt.Errorf("-g %s: give caller, callee or none (perf's graph,0.5,caller form works too; the threshold is 0.5 only)", v)
			}
		}
	}
	return cg, nil
}
