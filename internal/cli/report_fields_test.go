package cli

import (
	"bytes"
	"strings"
	"testing"
)

// TestReportFieldsErrors: -F takes sort keys, optionally after overhead; anything else is
// refused in one line that says what it takes.
func TestReportFieldsErrors(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-F", "overhead"}, "give sort keys"},
		{[]string{"-F", "sym,overhead"}, "give sort keys"},
		{[]string{"-F", "+sym"}, "give sort keys"},
		{[]string{"-F", "comm,bogus"}, "unknown sort key"},
		{[]string{"-F", "comm", "--sort", "sym"}, "-F and --sort"},
	} {
		var stdout, stderr bytes.Buffer
		args := append([]string{"report", "-i", "testdata/none.data"}, c.args...)
		if code := testRun(args, &stdout, &stderr); code == 0 || !strings.Contains(stderr.String(), c.want) ||
			strings.Count(stderr.String(), "\n") != 1 {
			t.Errorf("%q: exit %d, %q (want one line with %q)", c.args, code, stderr.String(), c.want)
		}
	}
}

// TestReportHeaderStdin: standard input is read once, so --header with a report (or with
// --stats) needs a file; --header-only reads a pipe's header.
func TestReportHeaderStdin(t *testing.T) {
	for _, args := range [][]string{{"--header"}, {"--header", "--stats"}, {"--header", "--json"}} {
		var stdout, stderr bytes.Buffer
		all := append([]string{"report", "-i", "-"}, args...)
		if args[len(args)-1] == "--json" {
			all[2] = "perf.data"
		}
		if code := testRun(all, &stdout, &stderr); code == 0 || !strings.Contains(stderr.String(), "--header") ||
			strings.Count(stderr.String(), "\n") != 1 {
			t.Errorf("%q: exit %d, %q", all, code, stderr.String())
		}
	}
}
