package driver

import (
	"errors"
	"io"
	"path/filepath"

	"github.com/pmc-tools/pmc/internal/outfile"
	"github.com/pmc-tools/pmc/internal/proffmt"
	"github.com/pmc-tools/pmc/internal/profile"
)

// reportOutputs are the files a report writes, all opened before the input is read.
type reportOutputs struct {
	main        io.Writer
	file        *outfile.File // -o
	pprof, html *outfile.File
}

// create opens the report's output files (-o, --pprof, --html).
func (o *ReportOptions) create() (*reportOutputs, error) {
	out := &reportOutputs{main: o.Stdout}
	for _, f := range []struct {
		path string
		file **outfile.File
	}{{o.Output, &out.file}, {o.Pprof, &out.pprof}, {o.HTML, &out.html}} {
		if f.path == "" {
			continue
		}
		var err error
		if *f.file, err = outfile.Create(f.path, outfile.Replace); err != nil {
			out.abort()
			return nil, err
		}
	}
	if out.file != nil {
		out.main = out.file
	}
	return out, nil
}

// abort leaves the files as they were (those closed already stay written).
func (out *reportOutputs) abort() {
	for _, f := range []*outfile.File{out.file, out.pprof, out.html} {
		if f != nil {
			f.Abort()
		}
	}
}

func (out *reportOutputs) close() error {
	var first error
	for _, f := range []*outfile.File{out.file, out.pprof, out.html} {
		if f != nil {
			if err := f.Close(); err != nil && first == nil {
				first = err
			}
		}
	}
	return first
}

// write writes the profile p (its reports aggregated by agg, when any) to the outputs.
func (o *ReportOptions) write(out *reportOutputs, p *profile.Profile, agg *profile.Aggregator, text bool) error {
	var reports []*profile.Report
	if agg != nil {
		all := agg.Reports(p)
		for _, r := range all {
			if r.Event.Samples > 0 || len(all) == 1 { // perf skips events without samples (dummy)
				reports = append(reports, r)
			}
		}
	}
	// Folded stacks and the flame graph show one event: --event's, or the only one.
	var ev int
	if o.Folded || o.HTML != "" {
		var err error
		if ev, err = p.OneEvent(o.Event); err != nil {
			return err
		}
	}
	if !o.NoGroup && (o.Group || p.HasGroups()) && !o.JSON {
		reports = profile.Group(p, reports)
	}
	var err error
	switch {
	case o.JSON:
		err = proffmt.JSON(out.main, p, reports)
	case o.Folded:
		err = proffmt.Folded(out.main, p, proffmt.FoldedOptions{Event: ev, Period: true})
	case text && o.Header:
		err = proffmt.TextAfterHeader(out.main, p, reports)
	case text:
		err = proffmt.Text(out.main, p, reports)
	}
	if err == nil && out.pprof != nil {
		err = proffmt.Pprof(out.pprof, p)
	}
	if err == nil && out.html != nil {
		err = proffmt.HTML(out.html, p, ev, "pmc report "+filepath.Base(o.Load.Path))
	}
	return err
}

// writeStats prints the file's header (--header, --header-only) and perf report --stats's
// counts of its records, no report.
func (o *ReportOptions) writeStats() error {
	if o.Header || o.HeaderOnly {
		if o.Stats && o.Load.Path == "-" {
			return errors.New("--header with --stats and -i -: standard input is read once: give a file")
		}
		if err := writeHeader(o.Load, o.Stdout); err != nil {
			return err
		}
	}
	if !o.Stats {
		return nil
	}
	st, names, aux, err := Stats(o.Load)
	if err != nil {
		return err
	}
	return proffmt.Stats(o.Stdout, st, names, aux)
}

// writeHeader writes perf report --header's lines of the recording.
func writeHeader(lo Options, w io.Writer) error {
	pf, events, captured, err := Header(lo)
	if err != nil {
		return err
	}
	return proffmt.Header(w, pf, proffmt.HeaderInfo{Captured: captured, Events: events})
}

// writeTasks prints the recording's threads (--tasks) to Stdout or Output.
func (o *ReportOptions) writeTasks() error {
	t, err := Tasks(o.Load)
	if err != nil {
		return err
	}
	return writeTo(o.Output, o.Stdout, func(w io.Writer) error { return proffmt.Tasks(w, t) })
}

// writeTo has write write to the file path (replaced when write succeeds, left as it was
// when it fails), or to stdout when path is "".
func writeTo(path string, stdout io.Writer, write func(io.Writer) error) error {
	if path == "" {
		return write(stdout)
	}
	f, err := outfile.Create(path, outfile.Replace)
	if err != nil {
		return err
	}
	defer f.Abort() // nothing once closed
	if err := write(f); err != nil {
		return err
	}
	return f.Close()
}
