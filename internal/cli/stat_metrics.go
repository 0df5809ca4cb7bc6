package cli

import (
	"github.com/spf13/pflag"

	"github.com/pmc-tools/pmc/internal/launch"
	"github.com/pmc-tools/pmc/internal/statrun"
)

func registerMetric(fl *pflag.FlagSet, m *statrun.MetricFlags) {
	fl.StringSliceVarP(&m.Metrics, "metrics", "M", nil, "compute these metrics or metric groups (comma-separated); their events are counted in groups")
	fl.StringSliceVar(&m.Groups, "metric-group", nil, "compute the metrics of these groups (pmc stat --list-metrics lists them)")
	fl.StringVar(&m.File, "metrics-file", "", "add the metric definitions of this JSON file (a list of {name, expr, unit, group...})")
	fl.BoolVar(&m.Only, "metric-only", false, "print only the metrics, not the counts (text, --csv, -x or --json)")
	fl.BoolVar(&m.List, "list-metrics", false, "list the built-in metrics and groups for this CPU (and --metrics-file ones) and exit")
	fl.StringVar(&m.Report, "report", "", "also write an rpistat-style report to FILE (default "+statrun.DefaultReportFile+"), even when the command is interrupted")
	fl.Lookup("report").NoOptDefVal = statrun.DefaultReportFile
	fl.StringVar(&m.FakeMachine, "fake-machine", "", "take the CPU, PMU and host facts from FILE (tests)")
	fl.MarkHidden("fake-machine")
}

// reportArg takes the report file from the arguments in `--report FILE [FLAGS] [--]
// COMMAND`: --report's value is optional, so the flag parser stops at FILE and leaves it
// among the arguments, where it would run as the command. A first argument that is not a
// command is taken as the file, and the flags after it are parsed (fl) as if it were not
// there. A first argument that is a command stays the command (--report alone).
func reportArg(fl *pflag.FlagSet, m *statrun.MetricFlags, args []string) ([]string, error) {
	if !fl.Changed("report") || m.Report != statrun.DefaultReportFile || len(args) == 0 || fl.ArgsLenAtDash() == 0 {
		return args, nil // "--report -- CMD": the -- says where the command starts
	}
	if _, err := launch.LookPath(args[0]); err == nil {
		return args, nil
	}
	m.Report = args[0]
	rest := args[1:]
	if len(rest) > 0 && rest[0] == "--" {
		return rest[1:], nil
	}
	if err := fl.Parse(rest); err != nil {
		return nil, err
	}
	return fl.Args(), nil
}
