package statrun

import (
	"fmt"

	"github.com/pmc-tools/pmc/internal/driver"
	"github.com/pmc-tools/pmc/internal/host"
	"github.com/pmc-tools/pmc/internal/record"
	"github.com/pmc-tools/pmc/internal/result"
	"github.com/pmc-tools/pmc/internal/stat"
	"github.com/pmc-tools/pmc/internal/statrecord"
)

// statRecording is pmc stat record's perf.data output, open before counting.
type statRecording struct {
	e    *Env
	out  Recording
	pipe bool
}

// openStatRecording opens pmc stat record's output (nil for pmc stat); with - the
// workload's standard output goes to its standard error.
func openStatRecording(e *Env, f *Flags, req *stat.Request) (*statRecording, error) {
	if f.RecordTo == "" {
		return nil, nil
	}
	out, err := e.OpenRecording(f.RecordTo)
	if err != nil {
		return nil, err
	}
	if f.RecordTo == "-" {
		req.Stdout = req.Stderr
	}
	return &statRecording{e: e, out: out, pipe: f.RecordTo == "-"}, nil
}

func (r *statRecording) abort() {
	if r != nil {
		r.out.Abort()
	}
}

// finish writes res's counts of events and closes the output.
func (r *statRecording) finish(res *result.Stat, events []stat.Event) error {
	if r == nil {
		return nil
	}
	if err := statrecord.Write(r.out, r.pipe, res, events, record.HostFeatures(r.e.Machine(), r.e.Args)); err != nil {
		r.out.Abort()
		return fmt.Errorf("writing the recording: %w", err)
	}
	return r.out.Close()
}

// Report prints a perf stat record file with pmc stat's writers and perf's default
// metrics (none of this machine's: the recording's CPU is not known).
func Report(e *Env, f *Flags, input string) error {
	pf, err := driver.Open(driver.Options{Path: input, Stdin: e.Workload[0]})
	if err != nil {
		return err
	}
	defer pf.Close()
	res, err := statrecord.Read(pf)
	if err != nil {
		return fmt.Errorf("%s: %w", input, err)
	}
	plan, err := NewMetricPlan(&MetricFlags{}, host.Empty(), host.Empty(), nil)
	if err != nil {
		return err
	}
	res.Metrics = plan.Result(res)
	out, err := newStatOutput(e, f, &stat.Request{Command: res.Command}, plan)
	if err != nil {
		return usageErr(err)
	}
	return out.final(res)
}
