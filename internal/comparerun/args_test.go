package comparerun

import (
	"slices"
	"strings"
	"testing"
)

// TestSplitWords: commands split as sh splits words, without running a shell.
func TestSplitWords(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []string
		err  string
	}{
		{in: "sleep 1", want: []string{"sleep", "1"}},
		{in: "  a\tb\nc  ", want: []string{"a", "b", "c"}},
		{in: `echo 'a  b' "c d" e\ f`, want: []string{"echo", "a  b", "c d", "e f"}},
		{in: `printf '%s\n' "x\"y"`, want: []string{"printf", `%s\n`, `x"y`}},
		{in: `a '' ""`, want: []string{"a", "", ""}},
		{in: `echo 'open`, err: "quote is not closed"},
		{in: `echo a\`, err: "ends with a backslash"},
		{in: "  ", err: "an empty command"},
	} {
		got, err := SplitWords(c.in)
		switch {
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
			t.Errorf("%q: error %v, want %q", c.in, err, c.err)
		case c.err == "" && (err != nil || !slices.Equal(got, c.want)):
			t.Errorf("%q: %q %v, want %q", c.in, got, err, c.want)
		}
	}
}

// TestInputs: saved results or commands, never both; names and regions that do not fit.
func TestInputs(t *testing.T) {
	for _, c := range []struct {
		args, names []string
		region      string
		saved       bool
		err         string
	}{
		{args: []string{"a.json", "B.JSON"}, saved: true},
		{args: []string{"a.json"}, names: []string{"x", "y"}, saved: true}, // a pmc.compare/v1 file holds several
		{args: []string{"true", "false"}},
		{args: []string{"cat x.json", "true"}}, // a command that names a file
		{args: []string{"a.json", "true"}, err: "1 of the 2 arguments are .json files"},
		{args: []string{"true"}, names: []string{"x", "y"}, err: "-n: 2 names for 1 commands"},
		{args: []string{"true"}, region: "r", err: "--region names a region"},
	} {
		saved, err := Inputs(c.args, c.names, c.region)
		if c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)) || c.err == "" && (err != nil || saved != c.saved) {
			t.Errorf("%q: %v %v, want %v %q", c.args, saved, err, c.saved, c.err)
		}
	}
	if l := []string{Label(nil, 0), Label([]string{"", "new"}, 1), Label(nil, 25), Label(nil, 26)}; !slices.Equal(l, []string{"A", "new", "Z", "C27"}) {
		t.Errorf("labels %q", l)
	}
	if f, err := FormatOf(false, true, true); err == nil {
		t.Errorf("--csv --markdown: %v, want an error", f)
	}
}
