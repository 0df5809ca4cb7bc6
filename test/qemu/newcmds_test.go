package qemu

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/pmc-tools/pmc/internal/cli"

	"github.com/pmc-tools/pmc/internal/compare"
	"github.com/pmc-tools/pmc/internal/doctor"
	"github.com/pmc-tools/pmc/internal/perfdata"
	"github.com/pmc-tools/pmc/internal/symbol"
)

// recordN and recordPeriod: `pmc record -e cycles:u -c recordPeriod -- loop recordN` takes
// (count(0) + 2*recordN) / recordPeriod samples, about 100.
const recordN, recordPeriod = 5000000, 100000

// compareA, compareB: the loop lengths pmc compare runs side by side.
const compareA, compareB = 1000000, 2000000

// exporterAddr is where the guest's pmc exporter listens (the loopback is up in the guest).
const exporterAddr = "127.0.0.1:9464"

// cgroupDir is the cgroup v2 the exporter counts and the loop runs in.
const cgroupDir = "pmcwork"

// newCmdBatch lists the guest commands of pmc record (issue 10), pmc doctor (13), pmc
// exporter (14) and pmc compare (12).
func newCmdBatch(g Guest) []Cmd {
	cg := "/sys/fs/cgroup/" + cgroupDir
	get := "httpget " + exporterAddr + " /metrics"
	return []Cmd{
		{"record-run", fmt.Sprintf("/bin/pmc record -e cycles:u -c %d -o /tmp/rec.data -- /bin/loop %s", recordPeriod, loopArg(recordN))},
		{"record", "b64 /tmp/rec.data"},
		{"record-report", "/bin/pmc report --json -i /tmp/rec.data"},
		{"doctor", "/bin/pmc doctor --json"},
		{"doctor-text", "/bin/pmc doctor"},
		{"compare-run", fmt.Sprintf("/bin/pmc compare -r 3 -e instructions:u --json -o /tmp/cmp.json '/bin/loop %s' '/bin/loop %s'",
			loopArg(compareA), loopArg(compareB))},
		{"compare", "cat /tmp/cmp.json"},
		// The Cortex-A5 seed's two-system comparison: a saved result per guest, compared on the host.
		{"seed-stat-run", fmt.Sprintf("/bin/pmc stat --json -o /tmp/seed.json -r 3 -e instructions:u,cycles:u -- /bin/loop %s", loopArg(compareA))},
		{"seed-stat", "cat /tmp/seed.json"},
		// The exporter counts system-wide and in the cgroup; the loop runs in the cgroup (from
		// its first instruction: clone3 into the cgroup) between scrapes.
		// Kernel 6.1 gives a new cgroup the implicit perf_event controller only once the
		// root's controllers were recomputed, which a write to cgroup.subtree_control does
		// (systemd does at boot); without it perf_event_open(PERF_FLAG_PID_CGROUP) says ENOENT.
		{"exp-controllers", "write /sys/fs/cgroup/cgroup.subtree_control +pids"},
		{"exp-mkdir", "mkdir " + cg},
		{"exp-spawn", "spawn /bin/pmc exporter --listen " + exporterAddr + " -e instructions:u,cycles:u --cgroup " + cgroupDir},
		{"exp-0", get},
		{"exp-loop0", "incgroup " + cg + " /bin/loop " + loopArg(0)},
		{"exp-1", get},
		{"exp-loopN", "incgroup " + cg + " /bin/loop " + loopArg(1000000)},
		{"exp-2", get},
		{"exp-stop", "stop"},
	}
}

// noPMUBatch is the whole batch of the guest without a PMU node.
func noPMUBatch(files []File) []Cmd {
	if !has(files, "/bin/pmc") || !has(files, "/bin/loop") {
		return nil
	}
	return []Cmd{
		{"doctor", "/bin/pmc doctor --json"},
		{"doctor-text", "/bin/pmc doctor"},
		{"stat-cycles", "/bin/pmc stat -e cycles -- /bin/loop 1000"},
	}
}

// loopTable is the symbol table of the guest's loop binary (static, non-PIE: sample IPs are
// its ELF addresses).
func loopTable(t *testing.T, g Guest) *symbol.Table {
	t.Helper()
	root, err := Root()
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(filepath.Join(root, ".cache", "qemu", "workloads", g.wlDir(), "loop"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	tab, err := symbol.LoadELF(f)
	if err != nil {
		t.Fatal(err)
	}
	if tab.Kind != symbol.KindExec {
		t.Fatalf("loop is %s, want a non-PIE executable (sample IPs are then ELF addresses)", tab.Kind)
	}
	return tab
}

// TestRecordExact (issue 10): pmc record -e cycles:u -c 100000 on the loop writes exactly
// floor(total/period) samples (total = the exact cycles:u count, 2N + overhead), every one of
// them in wl_spin, the loop's function; the file read back on the host says so.
func TestRecordExact(t *testing.T) {
	for _, g := range Guests {
		t.Run(g.Name, func(t *testing.T) {
			needPMC(t, g)
			run := section(t, g, "record-run")
			t.Logf("%s pmc record: exit %d\n%s", g.Name, run.Status, run.Output)
			if run.Status != 0 {
				t.Fatalf("%s: pmc record exited %d", g.Name, run.Status)
			}
			m := regexp.MustCompile(`\((\d+) samples\)`).FindStringSubmatch(run.Output)
			if m == nil {
				t.Fatalf("%s: no '(N samples)' in pmc record's summary", g.Name)
			}
			said, _ := strconv.Atoi(m[1])
			data, err := base64.StdEncoding.DecodeString(strings.Join(strings.Fields(ok(t, g, "record")), ""))
			if err != nil {
				t.Fatalf("%s: perf.data from the console: %v", g.Name, err)
			}
			f, err := perfdata.NewFile(bytes.NewReader(data), int64(len(data)))
			if err != nil {
				t.Fatalf("%s: %v", g.Name, err)
			}
			tab := loopTable(t, g)
			var samples, inSpin int
			outside := map[string]int{}
			periods := map[uint64]int{}
			rs := f.Records()
			for {
				rec, err := rs.Next()
				if errors.Is(err, io.EOF) {
					break
				}
				if err != nil {
					t.Fatalf("%s: %v", g.Name, err)
				}
				s, isSample := rec.(*perfdata.Sample)
				if !isSample {
					continue
				}
				samples++
				period := s.Period
				if a := f.Events[s.Event].Attr; a.SampleType&perfdata.SamplePeriod == 0 {
					period = a.SamplePeriod // -c: the attribute's period, as perf records it
				}
				periods[period]++
				name := fmt.Sprintf("%#x", s.IP)
				if sym := tab.Lookup(s.IP); sym != nil {
					name = sym.Name
				}
				if name == "wl_spin" && s.CPUMode() == perfdata.MiscUser {
					inSpin++
				} else {
					outside[name]++
				}
			}
			total := counts(t, g, fmt.Sprintf("loop-%d", 0), 2)[1].Raw + 2*recordN // exact cycles:u
			want := int(total / recordPeriod)
			t.Logf("%s: %d samples (pmc said %d), %d in wl_spin, outside %v; periods %v; cycles:u %d / %d = %d",
				g.Name, samples, said, inSpin, outside, periods, total, recordPeriod, want)
			if samples != said {
				t.Errorf("%s: the file holds %d samples, pmc record said %d", g.Name, samples, said)
			}
			if samples < want-1 || samples > want+1 {
				t.Errorf("%s: %d samples, want %d (give or take one): cycles:u %d every %d", g.Name, samples, want, total, recordPeriod)
			}
			if inSpin != samples {
				t.Errorf("%s: %d of %d samples in wl_spin; outside: %v", g.Name, inSpin, samples, outside)
			}
			if len(periods) != 1 || periods[recordPeriod] != samples {
				t.Errorf("%s: sample periods %v, want all %d", g.Name, periods, recordPeriod)
			}
			// pmc report in the guest: the same samples, all on wl_spin in loop.
			var rep struct {
				Events []struct {
					Name    string `json:"name"`
					Samples int    `json:"samples"`
					Entries []struct {
						Overhead float64 `json:"overhead"`
						Samples  int     `json:"samples"`
						Comm     string  `json:"comm"`
						Symbol   string  `json:"symbol"`
					} `json:"entries"`
				} `json:"events"`
			}
			if err := json.Unmarshal([]byte(ok(t, g, "record-report")), &rep); err != nil {
				t.Fatalf("%s: pmc report --json: %v", g.Name, err)
			}
			if len(rep.Events) != 1 || rep.Events[0].Samples != samples || len(rep.Events[0].Entries) != 1 {
				t.Fatalf("%s: pmc report: %+v; want one event of %d samples in one entry", g.Name, rep.Events, samples)
			}
			e := rep.Events[0].Entries[0]
			t.Logf("%s pmc report: %s %d samples, %.2f%% %s %s", g.Name, rep.Events[0].Name, rep.Events[0].Samples, e.Overhead, e.Comm, e.Symbol)
			if e.Symbol != "wl_spin" || e.Comm != "loop" || e.Samples != samples || e.Overhead != 100 {
				t.Errorf("%s: pmc report's entry %+v; want loop wl_spin, %d samples, 100%%", g.Name, e, samples)
			}
		})
	}
}

// doctorReport decodes `pmc doctor --json`.
func doctorReport(t *testing.T, g Guest) (*doctor.Report, Section) {
	t.Helper()
	needPMC(t, g)
	s := section(t, g, "doctor")
	var r doctor.Report
	if err := json.Unmarshal([]byte(s.Output), &r); err != nil {
		t.Fatalf("%s: pmc doctor --json (exit %d): %v\n%s", g.Name, s.Status, err, s.Output)
	}
	txt := section(t, g, "doctor-text")
	t.Logf("%s pmc doctor (exit %d):\n%s", g.Name, txt.Status, txt.Output)
	if txt.Status != s.Status {
		t.Errorf("%s: pmc doctor exited %d, with --json %d", g.Name, txt.Status, s.Status)
	}
	return &r, s
}

// checkOf returns the check with the given id, or nil.
func checkOf(r *doctor.Report, id string) *doctor.Check {
	for i := range r.Checks {
		if r.Checks[i].ID == id {
			return &r.Checks[i]
		}
	}
	return nil
}

// TestDoctor (issue 13): in both guests pmc doctor finds the PMU working, with no problem,
// and measures the counters QEMU gives (6 + cycle on arm64, 4 + cycle on armv7).
func TestDoctor(t *testing.T) {
	for _, g := range Guests {
		t.Run(g.Name, func(t *testing.T) {
			r, s := doctorReport(t, g)
			if s.Status != 0 || !r.HardwareCounting || r.Cause != "" {
				t.Errorf("%s: exit %d, hardware_counting %v, cause %q; want 0, true, none", g.Name, s.Status, r.HardwareCounting, r.Cause)
			}
			for _, c := range r.Checks {
				if c.Verdict == doctor.Problem {
					t.Errorf("%s: problem in %s: %s", g.Name, c.ID, c.Found)
				}
			}
			// launch.shim: the guests' kernels run the tiny launch shim from a memfd.
			ids := []string{"pmu.driver", "pmu.counters", "pmu.values", "firmware.devicetree", "launch.shim"}
			if g.Name == "arm64" {
				// QEMU's PMCEID advertises only CPU_CYCLES and INST_RETIRED: the kernel maps no
				// event to the other generic names, a warning.
				const want = "open: cycles, instructions; refused: cache-references (ENOENT)"
				if c := checkOf(r, "pmu.events"); c == nil || c.Verdict != doctor.Warning || !strings.HasPrefix(c.Found, want) {
					t.Errorf("%s: generic events check %+v, want a warning %q...", g.Name, c, want)
				}
			} else {
				ids = append(ids, "pmu.events")
			}
			for _, id := range ids {
				if c := checkOf(r, id); c == nil || c.Verdict != doctor.OK {
					t.Errorf("%s: check %s is %+v, want ok", g.Name, id, c)
				}
			}
			if c := checkOf(r, "pmu.driver"); c != nil && !strings.HasPrefix(c.Found, g.PMU+" ") {
				t.Errorf("%s: cpu PMU found %q, want %s", g.Name, c.Found, g.PMU)
			}
			want := fmt.Sprintf("%d general counters (measured: the kernel took a group of %d), and a cycle counter", g.Counters, g.Counters)
			if c := checkOf(r, "pmu.counters"); c == nil || !strings.HasPrefix(c.Found, want) {
				t.Errorf("%s: counters check %+v, want %q", g.Name, c, want)
			}
		})
	}
}

// TestDoctorNoPMUNode (issue 13): the armv7 guest as QEMU makes it (empty pmu node): pmc
// doctor names the empty node as the cause, with the node to add; pmc stat -e cycles's hint
// names the same cause.
func TestDoctorNoPMUNode(t *testing.T) {
	g := NoPMU
	r, s := doctorReport(t, g)
	const cause = "the device tree's PMU node /pmu is empty (no compatible), so no driver binds to it"
	if s.Status != 1 || r.HardwareCounting || r.Cause != cause {
		t.Errorf("exit %d, hardware_counting %v, cause %q; want 1, false, %q", s.Status, r.HardwareCounting, r.Cause, cause)
	}
	if c := checkOf(r, "firmware.devicetree"); c == nil || c.Verdict != doctor.Problem ||
		len(c.Fix) == 0 || !strings.Contains(c.Fix[0], `compatible = "arm,cortex-a7-pmu"`) {
		t.Errorf("device tree check %+v: want a problem whose fix is the cortex-a7 pmu node", c)
	}
	st := section(t, g, "stat-cycles")
	t.Logf("pmc stat -e cycles (exit %d):\n%s", st.Status, st.Output)
	if !strings.Contains(st.Output, "<not supported>") || !strings.Contains(st.Output, cause) ||
		!strings.Contains(st.Output, "`pmc doctor` says how to fix it") {
		t.Errorf("pmc stat -e cycles does not name the cause %q and pmc doctor:\n%s", cause, st.Output)
	}
}

// TestCompareExact (issue 12): pmc compare -r 3 of loop 1M and loop 2M: each mean is the exact
// count pmc stat gives, stddev 0, and the difference is 2 x 1M.
func TestCompareExact(t *testing.T) {
	for _, g := range Guests {
		t.Run(g.Name, func(t *testing.T) {
			base := counts(t, g, "loop-0", 2)[0].Raw
			if s := section(t, g, "compare-run"); s.Status != 0 {
				t.Fatalf("pmc compare exited %d:\n%s", s.Status, s.Output)
			}
			var c compare.Comparison
			if err := json.Unmarshal([]byte(ok(t, g, "compare")), &c); err != nil {
				t.Fatal(err)
			}
			var row *compare.Row
			for i := range c.Rows {
				if c.Rows[i].Name == "instructions:u" {
					row = &c.Rows[i]
				}
			}
			if row == nil || len(row.Cells) != 2 {
				t.Fatalf("no instructions:u row with 2 cells: %+v", c.Rows)
			}
			a, b := row.Cells[0].Stats, row.Cells[1].Stats
			t.Logf("%s: A mean %.0f stddev %g (n %d), B mean %.0f stddev %g (n %d), B-A %.0f, delta %+v",
				g.Name, a.Mean, a.Stddev, a.N, b.Mean, b.Stddev, b.N, b.Mean-a.Mean, row.Cells[1].Delta)
			slack := float64(userSlack(g))
			for i, w := range []uint64{base + 2*compareA, base + 2*compareB} {
				s := row.Cells[i].Stats
				if s.N != 3 || s.Min < float64(w) || s.Max > float64(w)+slack || (slack == 0 && s.Stddev != 0) {
					t.Errorf("%s command %d: %+v; want 3 runs of exactly %d", g.Name, i, s, w)
				}
			}
			if d := b.Mean - a.Mean; math.Abs(d-2*(compareB-compareA)) > slack {
				t.Errorf("%s: B - A = %.0f, want %d", g.Name, d, 2*(compareB-compareA))
			}
			if d := row.Cells[1].Delta; d == nil || !d.Significant {
				t.Errorf("%s: the exact difference is not reported significant: %+v", g.Name, d)
			}
		})
	}
}

// promCounts returns pmc_events_total by "cgroup/event" ("" cgroup: system-wide).
func promCounts(t *testing.T, text string) map[string]float64 {
	return promSeries(t, text, "pmc_events_total")
}

// promSeries returns the series of metric name by "cgroup/event".
func promSeries(t *testing.T, text, name string) map[string]float64 {
	t.Helper()
	re := regexp.MustCompile(`^` + name + `\{([^}]*)\} (\S+)$`)
	lab := regexp.MustCompile(`(\w+)="([^"]*)"`)
	m := map[string]float64{}
	for _, line := range strings.Split(text, "\n") {
		f := re.FindStringSubmatch(strings.TrimSpace(line))
		if f == nil {
			continue
		}
		l := map[string]string{}
		for _, kv := range lab.FindAllStringSubmatch(f[1], -1) {
			l[kv[1]] = kv[2]
		}
		v, err := strconv.ParseFloat(f[2], 64)
		if err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		m[l["cgroup"]+"/"+l["event"]] = v
	}
	return m
}

// TestExporter (issue 14): pmc exporter scraped from inside the guest: system-wide counts
// present and monotonic; in a cgroup, the loop's exact instructions:u (loop N - loop 0 = 2N;
// cycles:u equal on arm64, never counted on armv7's single cycle counter) and an idle
// cgroup's true 0.
func TestExporter(t *testing.T) {
	for _, g := range Guests {
		t.Run(g.Name, func(t *testing.T) {
			needPMC(t, g)
			ok(t, g, "exp-controllers")
			ok(t, g, "exp-mkdir")
			ok(t, g, "exp-spawn")
			ok(t, g, "exp-loop0")
			ok(t, g, "exp-loopN")
			var scrapes, running, enabled []map[string]float64
			for i := 0; i < 3; i++ {
				text := ok(t, g, fmt.Sprintf("exp-%d", i))
				scrapes = append(scrapes, promCounts(t, text))
				running = append(running, promSeries(t, text, "pmc_event_running_seconds_total"))
				enabled = append(enabled, promSeries(t, text, "pmc_event_enabled_seconds_total"))
				t.Logf("%s scrape %d: %v", g.Name, i, scrapes[i])
			}
			stop := section(t, g, "exp-stop")
			t.Logf("%s exporter output (exit %d):\n%s", g.Name, stop.Status, stop.Output)
			if stop.Status != 0 {
				t.Errorf("%s: pmc exporter exited %d after SIGINT", g.Name, stop.Status)
			}
			keys := []string{"/instructions:u", "/cycles:u", cgroupDir + "/instructions:u", cgroupDir + "/cycles:u"}
			if g.Name == "armv7" {
				// ARMv7 counts cycles only on its one cycle counter: the system-wide cycles:u
				// holds it, so the cgroup's never runs (not counted: no series, never a 0).
				keys = keys[:3]
			}
			for _, k := range keys {
				for i, s := range scrapes {
					if _, ok := s[k]; !ok {
						t.Fatalf("%s scrape %d: no pmc_events_total for %s", g.Name, i, k)
					}
					if i > 0 && s[k] < scrapes[i-1][k] {
						t.Errorf("%s %s: %v then %v: not monotonic", g.Name, k, scrapes[i-1][k], s[k])
					}
				}
			}
			ins := cgroupDir + "/instructions:u"
			if v := scrapes[0][ins]; v != 0 {
				t.Errorf("%s: the idle cgroup counted %v before anything ran in it", g.Name, v)
			}
			loop0 := scrapes[1][ins] - scrapes[0][ins]
			loopN := scrapes[2][ins] - scrapes[1][ins]
			stat0 := float64(counts(t, g, "loop-0", 2)[0].Raw)
			t.Logf("%s cgroup: loop 0 %.0f (pmc stat %.0f, +%.0f before exec), loop 1M %.0f, diff %.0f",
				g.Name, loop0, stat0, loop0-stat0, loopN, loopN-loop0)
			// arm64: exact. armv7: the launcher's Go code between clone and exec (counted in
			// the cgroup, not by pmc stat) varied by one instruction between runs (loop 0 read
			// 16909 and 16910); the loop itself is exact (TestPMCExact), so allow 2 there.
			tol := 0.0
			if g.Name == "armv7" {
				tol = 2
			}
			if d := loopN - loop0 - 2*1000000; d < -tol || d > tol {
				t.Errorf("%s: cgroup count of loop 1M - loop 0 = %.0f, want 2000000 (within %v)", g.Name, loopN-loop0, tol)
			}
			// The cgroup also sees the forked child before its exec (guestinit's Go code):
			// more than pmc stat's count, which starts at exec (measured: +4478 arm64, +5341
			// armv7).
			if loop0 < stat0 || loop0 > stat0+10000 {
				t.Errorf("%s: cgroup count of loop 0 = %.0f, want pmc stat's %.0f plus under 10000 (fork to exec)", g.Name, loop0, stat0)
			}
			for i := 1; i < 3 && g.Name != "armv7"; i++ {
				if c, n := scrapes[i][cgroupDir+"/cycles:u"], scrapes[i][ins]; c != n {
					t.Errorf("%s scrape %d: cgroup cycles:u %v != instructions:u %v under shift=0", g.Name, i, c, n)
				}
			}
			// The system-wide count holds the loop's instructions when it was counted all along.
			// On armv7 the cgroup's cycles:u, which cannot get the one cycle counter, makes the
			// kernel rotate the events while the loop runs, and the system-wide instructions:u
			// may then be off its counter for part of the loop: its count is a scaled estimate
			// (running < enabled says so) that a burst of instructions can leave below the loop's.
			sys := "/instructions:u"
			dRun, dEn := running[2][sys]-running[1][sys], enabled[2][sys]-enabled[1][sys]
			if d := scrapes[2][sys] - scrapes[1][sys]; dRun < dEn-1e-9 {
				t.Logf("%s: system-wide instructions:u multiplexed during the loop (ran %.6fs of %.6fs): grew by an estimated %.0f, the cgroup's loop %.0f",
					g.Name, dRun, dEn, d, loopN)
			} else if d < loopN {
				t.Errorf("%s: system-wide instructions:u grew by %.0f, less than the cgroup's loop %.0f", g.Name, d, loopN)
			}
		})
	}
}

// TestCompareSavedAcrossGuests (issue 12): the Cortex-A5 seed's two-system comparison with
// the two guests as the two boards: pmc stat --json -r 3 of the same loop in the Cortex-A57 and
// in the Cortex-A7 guest, then pmc compare of the two saved files on the host. The header
// names both CPUs and says they differ; each mean is that guest's exact count (3 runs, no
// spread), and the difference is the two guests' exact difference.
func TestCompareSavedAcrossGuests(t *testing.T) {
	dir := t.TempDir()
	var files []string
	var want []float64
	for _, g := range Guests {
		if s := section(t, g, "seed-stat-run"); s.Status != 0 {
			t.Fatalf("%s: pmc stat exited %d:\n%s", g.Name, s.Status, s.Output)
		}
		path := filepath.Join(dir, g.Name+".json")
		if err := os.WriteFile(path, []byte(ok(t, g, "seed-stat")), 0o644); err != nil {
			t.Fatal(err)
		}
		files = append(files, path)
		want = append(want, float64(counts(t, g, "loop-0", 2)[0].Raw+2*compareA))
	}
	var out, errb bytes.Buffer
	if code := cli.Run(append([]string{"compare", "--json"}, files...), &out, &errb); code != 0 {
		t.Fatalf("pmc compare %v: exit %d\n%s", files, code, errb.String())
	}
	var c compare.Comparison
	if err := json.Unmarshal(out.Bytes(), &c); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	var cpus []string
	for _, cmd := range c.Commands {
		if cmd.Machine != nil {
			cpus = append(cpus, cmd.Machine.CPU)
		}
	}
	t.Logf("machines %q, differences %q", cpus, c.Differences)
	if c.Source != "saved" || len(cpus) != 2 || !strings.Contains(cpus[0], "A57") || !strings.Contains(cpus[1], "A7") ||
		!strings.Contains(strings.Join(c.Differences, " "), "CPU") {
		t.Errorf("header: source %q, machines %q, differences %q: want both CPUs named and their difference stated", c.Source, cpus, c.Differences)
	}
	for _, r := range c.Rows {
		if r.Name != "instructions:u" {
			continue
		}
		for i, cell := range r.Cells {
			slack := 0.0
			if i == 1 {
				slack = 1 // the Cortex-A7: see TestPMCRepeat
			}
			if s := cell.Stats; s.N != 3 || s.Min < want[i] || s.Max > want[i]+slack {
				t.Errorf("%s: %+v, want 3 runs of exactly %.0f", c.Commands[i].Label, s, want[i])
			}
		}
		return
	}
	t.Errorf("no instructions:u row: %+v", c.Rows)
}
