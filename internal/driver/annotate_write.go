package driver

import (
	"errors"
	"io"

	"github.com/pmc-tools/pmc/internal/annotate"
)

// AnnotateReport is pmc annotate: which recording, which functions, which output.
type AnnotateReport struct {
	Load Options // the recording and its symbols (only sampled addresses are resolved)
	AnnotateOptions
	// Stdio and JSON choose text (the default) or JSON (pmc.annotate/v1); SourceGiven and
	// NoSource are --source and --no-source (Source is set from them).
	Stdio, JSON           bool
	SourceGiven, NoSource bool
	Output                string // the file to write ("": Stdout)
	Stdout                io.Writer
	Warn                  func(warnings []string) // told about symbols and functions left out
}

// WriteAnnotate loads the recording and writes its chosen functions annotated. The output
// file is opened before the recording is read.
func WriteAnnotate(o AnnotateReport) error {
	switch {
	case o.SourceGiven && o.NoSource:
		return errors.New("--source and --no-source: choose one")
	case o.JSON && o.Stdio:
		return errors.New("--json and --stdio: choose one")
	}
	if err := CheckPercentLimit(o.MinPercent); err != nil {
		return err
	}
	return writeTo(o.Output, o.Stdout, func(out io.Writer) error {
		// Annotate counts each sample where it hit: call chains are not resolved.
		lo := o.Load
		lo.IPOnly = true
		r, err := Load(lo)
		if err != nil {
			return err
		}
		o.Warn(r.Warnings)
		o.Source = !o.NoSource
		a, err := r.Annotate(o.AnnotateOptions)
		if a != nil {
			o.Warn(a.Notes)
		}
		if err != nil {
			return err
		}
		return annotate.WriteAll(out, a.Results, o.JSON, annotate.TextOptions{NoSource: o.NoSource})
	})
}
