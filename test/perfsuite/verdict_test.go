package perfsuite

import (
	"os"
	"strings"
	"testing"
)

func TestClassify(t *testing.T) {
	for _, c := range []struct {
		exit        int
		out         string
		status      Status
		why, inner0 string
	}{
		{0, "Basic stat command test [Success]\n", Passed, "", ""},
		{0, "stat repeat weak groups test [Skipped event parsing failed]\nok\n", Passed, "", "stat repeat weak groups test [Skipped event parsing failed]"},
		{2, "Testing perf lock contention --use-bpf\n[Skip] No BPF support\n", Skipped, "[Skip] No BPF support", "[Skip] No BPF support"},
		{2, "Fail to find libperf-jvmti.so\nCleaning up files...\n", Skipped, "Fail to find libperf-jvmti.so", ""},
		{2, "", Skipped, "(the test printed nothing)", ""},
		{1, "RuntimeError: wrong number of fields\n'\n\n", Failed, "exit 1: RuntimeError: wrong number of fields", ""},
		{139, "all good\n", Failed, "exit 139: all good", ""},
		{1, "a [Failed]\nb [Skipped event parsing failed]\n", Failed, "exit 1: a [Failed]", "b [Skipped event parsing failed]"},
	} {
		st, why, inner := classify(c.exit, []byte(c.out))
		first := ""
		if len(inner) > 0 {
			first = inner[0]
		}
		if st != c.status || why != c.why || first != c.inner0 {
			t.Errorf("classify(%d, %q) = %s, %q, %q; want %s, %q, %q", c.exit, c.out, st, why, first, c.status, c.why, c.inner0)
		}
	}
}

func TestJudge(t *testing.T) {
	pass := Outcome{Status: Passed}
	fail := Outcome{Status: Failed, Why: "exit 1"}
	skip := Outcome{Status: Skipped}
	empty := func(g ...string) Outcome { return Outcome{Status: Vacuous, Empty: g} }
	tt := Test{Name: "x.sh"}
	for _, c := range []struct {
		name      string
		perf, pmc Outcome
		waits     string
		bad       bool
		note      string
	}{
		{"both pass", pass, pass, "", false, ""},
		{"pmc fails what perf passes", pass, fail, "", true, ""},
		{"pmc skips what perf passes", pass, skip, "", true, ""},
		{"a loop over nothing is no pass", pass, empty("list"), "", true, ""},
		{"vacuous for both on the same ground", empty("ipc"), empty("ipc"), "", false, "vacuous here"},
		{"vacuous with pmc on more", empty("ipc"), empty("ipc", "rows"), "", true, ""},
		{"waiting and failing", pass, fail, "issue 29: -z", false, "expected to fail"},
		{"waiting and passing", pass, pass, "issue 29: -z", true, ""},
		{"waiting for what perf does not pass", skip, fail, "issue 29: -z", true, ""},
		{"perf skips: nothing to hold pmc to", skip, fail, "", false, ""},
		{"pmc passes where perf fails", fail, pass, "", false, "pmc passes where perf"},
		{"waiting, but a part that passed no longer does", pass, Outcome{Status: Failed, Missed: []string{"x [Success]"}}, "issue 29: -z", true, ""},
	} {
		v := Judge(tt, c.perf, c.pmc, c.waits)
		if (v.Bad != "") != c.bad || !strings.Contains(v.Note, c.note) {
			t.Errorf("%s: Bad %q, Note %q", c.name, v.Bad, v.Note)
		}
	}
}

// TestSuiteNames keeps the lists consistent: every waiting test is in the suite, no test twice.
func TestSuiteNames(t *testing.T) {
	seen := map[string]bool{}
	for _, tt := range Suite {
		if seen[tt.Name] {
			t.Errorf("%s twice in Suite", tt.Name)
		}
		seen[tt.Name] = true
	}
	for name := range Waiting {
		if !seen[name] {
			t.Errorf("Waiting names %s, which is not in Suite", name)
		}
	}
	if _, err := os.Stat("perf"); err != nil {
		t.Errorf("the shim is missing: %v", err)
	}
}
