package cli

import (
	"bytes"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestCopiesSoftwareGroups (issue 21, item 1): copies of one event named by the user are
// printed one row each, as perf prints them, each the true count. Software events never
// multiplex, so in one run a single page-faults and every copy in a group of 3 or of 120
// count exactly the same faults of the same task. Before, {page-faults x3} printed one row of
// 74 where the count was 49, and 120 copies 2,940 for 47.
func TestCopiesSoftwareGroups(t *testing.T) {
	rowRE := regexp.MustCompile(`(?m)^ +(\d+) +page-faults\b`)
	for _, n := range []int{3, 120} {
		spec := "page-faults,{" + strings.TrimSuffix(strings.Repeat("page-faults,", n), ",") + "}"
		var stdout, stderr bytes.Buffer
		if code := testRun([]string{"stat", "-e", spec, "--", "/bin/true"}, &stdout, &stderr); code != 0 {
			t.Fatalf("%d copies: exit %d\n%s", n, code, stderr.String())
		}
		rows := rowRE.FindAllStringSubmatch(stderr.String(), -1)
		if len(rows) != n+1 {
			t.Fatalf("%d copies and a single count: %d rows, want %d (every event named):\n%s", n, len(rows), n+1, stderr.String())
		}
		single, _ := strconv.Atoi(rows[0][1])
		if single <= 0 {
			t.Fatalf("single page-faults count %q", rows[0][1])
		}
		for i, r := range rows[1:] {
			if v, _ := strconv.Atoi(r[1]); v != single {
				t.Errorf("%d copies: copy %d counted %d, the single count %d", n, i, v, single)
			}
		}
		if strings.Contains(stderr.String(), "%)") {
			t.Errorf("%d copies: a running share printed for software events, which never multiplex:\n%s", n, stderr.String())
		}
		t.Logf("%d copies in a group: each %d, as the single count", n, single)
	}
}
