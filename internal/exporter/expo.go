package exporter

import (
	"bufio"
	"cmp"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
)

// The exposition is Prometheus' text format, version 0.0.4: per metric family a # HELP and a
// # TYPE line, then one line per series, `name{label="value",...} value`. Written here rather
// than through client_golang, whose registry, protobuf model and process collector were 7 MB
// of pmc's binary and most of its package inits, for a few dozen lines of text.

// ContentType is the media type of WriteText's output.
const ContentType = "text/plain; version=0.0.4; charset=utf-8"

// Metric types of a Family.
const (
	Counter = "counter"
	Gauge   = "gauge"
)

// Family is one metric: its name, help text, type and series.
type Family struct {
	Name, Help, Type string
	Series           []Series
}

// Series is one sample of a family: its labels (in any order) and value.
type Series struct {
	Labels []Label
	Value  float64
}

// Label is one label pair. A value that is not valid UTF-8 (a cgroup's directory name may be
// any bytes) is written with U+FFFD in place of the bad bytes: Prometheus refuses a whole
// scrape over one such value.
type Label struct{ Name, Value string }

// One is a family of one series without labels.
func One(name, help, typ string, v float64) Family {
	return Family{Name: name, Help: help, Type: typ, Series: []Series{{Value: v}}}
}

// WriteText writes fams in the text format, families sorted by name and each family's series
// by their label values (labels sorted by name), as Prometheus' own libraries order them.
// Families without series are left out. fams is not modified (sources may hand out the same
// families to concurrent scrapes).
func WriteText(w io.Writer, fams []Family) error {
	fams = slices.Clone(fams)
	slices.SortFunc(fams, func(a, b Family) int { return strings.Compare(a.Name, b.Name) })
	bw := bufio.NewWriter(w)
	var line []byte
	for _, f := range fams {
		if len(f.Series) == 0 {
			continue
		}
		series := make([]Series, len(f.Series))
		for i, s := range f.Series {
			series[i] = Series{Labels: slices.Clone(s.Labels), Value: s.Value}
			slices.SortFunc(series[i].Labels, func(a, b Label) int { return strings.Compare(a.Name, b.Name) })
		}
		slices.SortFunc(series, compareSeries)
		line = append(line[:0], "# HELP "...)
		line = append(line, f.Name...)
		line = append(line, ' ')
		line = appendEscaped(line, f.Help, false)
		line = append(line, "\n# TYPE "...)
		line = append(line, f.Name...)
		line = append(line, ' ')
		line = append(line, f.Type...)
		line = append(line, '\n')
		for _, s := range series {
			line = append(line, f.Name...)
			for i, l := range s.Labels {
				sep := byte(',')
				if i == 0 {
					sep = '{'
				}
				line = append(line, sep)
				line = append(line, l.Name...)
				line = append(line, `="`...)
				line = appendEscaped(line, l.Value, true)
				line = append(line, '"')
			}
			if len(s.Labels) > 0 {
				line = append(line, '}')
			}
			line = append(line, ' ')
			line = appendValue(line, s.Value)
			line = append(line, '\n')
		}
		if _, err := bw.Write(line); err != nil {
			return err
		}
		line = line[:0]
	}
	return bw.Flush()
}

// compareSeries orders two series of one family by their label values (labels sorted by name).
func compareSeries(a, b Series) int {
	for i := range min(len(a.Labels), len(b.Labels)) {
		if c := strings.Compare(a.Labels[i].Value, b.Labels[i].Value); c != 0 {
			return c
		}
	}
	return cmp.Compare(len(a.Labels), len(b.Labels))
}

// appendEscaped appends s escaped for a HELP text (backslash, newline) or, when quoted, for
// a label value (also the double quote); invalid UTF-8 becomes U+FFFD.
func appendEscaped(b []byte, s string, quoted bool) []byte {
	s = strings.ToValidUTF8(s, "\uFFFD")
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '\\':
			b = append(b, `\\`...)
		case c == '\n':
			b = append(b, `\n`...)
		case c == '"' && quoted:
			b = append(b, `\"`...)
		default:
			b = append(b, c)
		}
	}
	return b
}

// appendValue appends v as the text format writes numbers: the shortest decimal that reads
// back as v, and NaN, +Inf, -Inf.
func appendValue(b []byte, v float64) []byte {
	switch {
	case math.IsNaN(v):
		return append(b, "NaN"...)
	case math.IsInf(v, 1):
		return append(b, "+Inf"...)
	case math.IsInf(v, -1):
		return append(b, "-Inf"...)
	}
	return strconv.AppendFloat(b, v, 'g', -1, 64)
}
