package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/pmc-tools/pmc/internal/host"
	"github.com/pmc-tools/pmc/internal/testenv"
)

// These tests run a real Prometheus server (Debian's prometheus package, scripts/deps.sh) on a
// free port with a temporary configuration and storage, scraping pmc exporter every second.

func needPrometheus(t *testing.T) {
	t.Helper()
	for _, bin := range []string{"prometheus", "promtool"} { // Debian's prometheus package
		testenv.Tool(t, bin)
	}
}

// startExporter runs pmc exporter (the test binary as pmc) and returns its /metrics URL.
func startExporter(t *testing.T, args ...string) string {
	t.Helper()
	return runExporterProc(t, args...).url
}

func freePort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// startPrometheus runs /usr/bin/prometheus scraping target every second, with rules loaded,
// and returns its base URL once it is ready.
func startPrometheus(t *testing.T, target, rules string) string {
	t.Helper()
	dir := t.TempDir()
	u, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	// Rules are evaluated every 700 ms against scrapes every second, so that some evaluations
	// fall well clear of a scrape in flight (see ruleClearOfScrapes).
	conf := fmt.Sprintf(`global:
  scrape_interval: 1s
  evaluation_interval: 700ms
rule_files: [%q]
scrape_configs:
  - job_name: pmc
    static_configs:
      - targets: [%q]
`, rules, u.Host)
	if err := os.WriteFile(filepath.Join(dir, "prometheus.yml"), []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	addr := freePort(t)
	var log bytes.Buffer
	cmd := exec.Command("prometheus", "--config.file="+filepath.Join(dir, "prometheus.yml"),
		"--storage.tsdb.path="+filepath.Join(dir, "data"), "--web.listen-address="+addr,
		"--log.level=warn")
	cmd.Stdout, cmd.Stderr = &log, &log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Signal(os.Interrupt)
		cmd.Wait()
		if t.Failed() {
			t.Logf("prometheus log:\n%s", log.String())
		}
	})
	base := "http://" + addr
	for i := 0; ; i++ {
		resp, err := http.Get(base + "/-/ready")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				return base
			}
		}
		if i == 600 {
			t.Fatalf("prometheus not ready after 60s: %v\n%s", err, log.String())
		}
		time.Sleep(100 * time.Millisecond)
	}
}

type promSample struct {
	labels map[string]string
	ts     float64
	value  float64
}

// promQuery runs an instant query at time at (zero: now) through the HTTP API.
func promQuery(t *testing.T, base, q string, at time.Time) []promSample {
	t.Helper()
	v := url.Values{"query": {q}}
	if !at.IsZero() {
		v.Set("time", strconv.FormatFloat(float64(at.UnixNano())/1e9, 'f', 3, 64))
	}
	resp, err := http.Get(base + "/api/v1/query?" + v.Encode())
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var body struct {
		Status string
		Error  string
		Data   struct {
			Result []struct {
				Metric map[string]string
				Value  [2]any
			}
		}
	}
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil || body.Status != "success" {
		t.Fatalf("query %s: %v %s", q, err, body.Error)
	}
	var out []promSample
	for _, r := range body.Data.Result {
		f, _ := strconv.ParseFloat(r.Value[1].(string), 64)
		out = append(out, promSample{labels: r.Metric, ts: r.Value[0].(float64), value: f})
	}
	return out
}

// waitQuery polls q until it returns at least one sample.
func waitQuery(t *testing.T, base, q string) []promSample {
	t.Helper()
	for i := 0; ; i++ {
		if s := promQuery(t, base, q, time.Time{}); len(s) > 0 {
			return s
		}
		if i == 600 {
			t.Fatalf("no sample for %s after 60s", q)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func one(t *testing.T, q string, s []promSample) float64 {
	t.Helper()
	if len(s) != 1 {
		t.Fatalf("%s: %d samples, want 1: %+v", q, len(s), s)
	}
	return s[0].value
}

// promTime is a time stamp of Prometheus (seconds, to the millisecond) as a time.
func promTime(sec float64) time.Time { return time.Unix(0, int64(math.Round(sec*1e3))*1e6) }

// scrape is one scrape of pmc exporter as Prometheus stored it: its time stamp (when it
// began) and its duration; the exporter read its counters between the two.
type scrape struct {
	at  time.Time
	dur time.Duration
}

func (s scrape) end() time.Time { return s.at.Add(s.dur) }

// lastScrape is the last scrape of series q at or before at.
func lastScrape(t *testing.T, base, q string, at time.Time) scrape {
	t.Helper()
	ts := promTime(one(t, "timestamp of "+q, promQuery(t, base, "timestamp("+q+")", at)))
	dur := one(t, "scrape duration", promQuery(t, base, `scrape_duration_seconds{job="pmc"}`, ts))
	return scrape{ts, time.Duration(dur * 1e9)}
}

// scrapeAfter waits for the first scrape of series q that began at or after t0 (they come
// every second on an idle machine, late or skipped on a loaded one).
func scrapeAfter(t *testing.T, base, q string, t0 time.Time) scrape {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if s := promQuery(t, base, "timestamp("+q+")", time.Time{}); len(s) == 1 && !promTime(s[0].value).Before(t0) {
			return lastScrape(t, base, q, promTime(s[0].value))
		}
	}
	t.Fatalf("no scrape of %s within a minute after %v", q, t0)
	return scrape{}
}

// ruleClearOfScrapes steps back from the recording rule's last evaluation at or before at
// to the latest one with a value other than 0 that began 100 ms or more after the end of
// the last scrape of series q before it. Prometheus 2.42 evaluates rules without waiting for
// a scrape in flight: one stamped before the evaluation but stored after it is missing from
// the evaluation and present in a later query at the same time, so only an evaluation clear
// of scrapes can be compared with its expression expr. It returns the evaluation's time, the
// recorded value and expr's value at that time.
func ruleClearOfScrapes(t *testing.T, base, rule, expr, q string, at time.Time) (time.Time, float64, float64) {
	t.Helper()
	for i := 0; i < 40; i++ {
		rec := promQuery(t, base, rule, at)
		if len(rec) != 1 || rec[0].labels["together"] != "true" {
			t.Fatalf("recorded %s at %v: %+v", rule, at, rec)
		}
		eval := promTime(one(t, "timestamp", promQuery(t, base, "timestamp("+rule+")", at)))
		s := lastScrape(t, base, q, eval)
		if rec[0].value != 0 {
			direct := one(t, "direct", promQuery(t, base, expr, eval))
			if eval.Sub(s.end()) >= 100*time.Millisecond {
				return eval, rec[0].value, direct
			}
			if direct != rec[0].value {
				t.Logf("evaluation %v ran %v after a scrape's end: recorded %v, %v with that scrape", eval, eval.Sub(s.end()), rec[0].value, direct)
			}
		}
		at = eval.Add(-time.Millisecond)
	}
	t.Fatalf("none of 40 evaluations of %s before %v was clear of scrapes with a value", rule, at)
	return time.Time{}, 0, 0
}

// waitBlocked waits until process pid runs the shell that reads "go" (exec'd by the one
// that put it in the cgroup) and sleeps (in that read: it blocks nowhere else).
func waitBlocked(t *testing.T, pid int) {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		cmdline, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
		b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if _, state, _ := strings.Cut(string(b), ") "); strings.HasPrefix(string(cmdline), "sh\x00-c\x00read go") && strings.HasPrefix(state, "S") {
			return
		}
	}
	t.Fatalf("process %d did not wait on its stdin within a minute", pid)
}

// TestExporterPrometheus: Prometheus scrapes pmc exporter counting system-wide and one cgroup in
// which the test runs a busy loop. up is 1; the system-wide cpu-clock counts the time its
// counters were enabled, the number of online CPUs times the time between two scrapes; the
// cgroup's task-clock total equals the loop's CPU time (rusage) and its rate agrees with the
// share of a CPU the loop got; every count series is monotonic and has its enabled and
// running seconds; the --rules output passes promtool check rules and Prometheus evaluates it
// to the same number as the expression it records. Times come from Prometheus's own scrapes
// (their time stamps and durations), never from an expected schedule: on a loaded machine
// scrapes come late and take long.
func TestExporterPrometheus(t *testing.T) {
	needPrometheus(t)
	mount, err := host.Live().Cgroup2Mount()
	name := fmt.Sprintf("pmc-exporter-test-%d", os.Getpid())
	cg := testenv.Cgroup(t, name, mount, err)
	dir := t.TempDir()

	// The recording rules, checked by promtool.
	rules := filepath.Join(dir, "rules.yml")
	var stdout, stderr bytes.Buffer
	if code := testRun([]string{"exporter", "--rules", "--rules-window", "5s", "-M", "cpus_utilized,page_faults_per_sec"}, &stdout, &stderr); code != 0 {
		t.Fatalf("--rules: exit %d: %s", code, stderr.String())
	}
	if err := os.WriteFile(rules, stdout.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("promtool", "check", "rules", rules).CombinedOutput(); err != nil {
		t.Fatalf("promtool check rules: %v\n%s\n%s", err, out, stdout.String())
	}

	target := startExporter(t, "--cgroup", name, "--refresh", "200ms")
	resp, err := http.Get(target)
	if err != nil {
		t.Fatal(err)
	}
	expo := new(bytes.Buffer)
	expo.ReadFrom(resp.Body)
	resp.Body.Close()
	check := exec.Command("promtool", "check", "metrics")
	check.Stdin = bytes.NewReader(expo.Bytes())
	if out, err := check.CombinedOutput(); err != nil || len(bytes.TrimSpace(out)) > 0 {
		t.Errorf("promtool check metrics: %v\n%s", err, out)
	}
	if !strings.Contains(expo.String(), `cgroup="`+name+`"`) {
		t.Fatalf("the exposition has no series of cgroup %s:\n%s", name, expo.String())
	}

	base := startPrometheus(t, target, rules)
	if up := one(t, "up", waitQuery(t, base, `up{job="pmc"} == 1`)); up != 1 {
		t.Fatalf("up %v", up)
	}
	started := time.Now()

	// A busy loop in the cgroup for 4 s. Its shell first waits on stdin, so that the cgroup's
	// count exists (a cgroup that never ran has none) and stays flat until the loop starts:
	// s0 is a scrape of that flat count, s1 the first scrape that began after the loop ended.
	sel := fmt.Sprintf(`{event="task-clock",cgroup=%q}`, name)
	argv := testenv.InCgroup(cg, "sh", "-c", "read go; while :; do :; done")
	busy := exec.Command(argv[0], argv[1:]...)
	release, err := busy.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := busy.Start(); err != nil {
		t.Fatal(err)
	}
	defer busy.Process.Kill()
	waitBlocked(t, busy.Process.Pid)
	s0 := scrapeAfter(t, base, "pmc_events_total"+sel, time.Now())
	t0 := time.Now()
	fmt.Fprintln(release, "go")
	time.Sleep(4 * time.Second)
	t1 := time.Now()
	busy.Process.Kill()
	busy.Wait()
	ended := time.Now()
	cpu := (busy.ProcessState.UserTime() + busy.ProcessState.SystemTime()).Seconds()
	share := cpu / t1.Sub(t0).Seconds()
	s1 := scrapeAfter(t, base, "pmc_events_total"+sel, ended)
	total := one(t, "task-clock total", promQuery(t, base, "pmc_events_total"+sel, s1.at)) / 1e9
	if math.Abs(total-cpu) > 0.05*cpu+0.02 {
		t.Errorf("cgroup task-clock total %.3fs, the loop used %.3fs of CPU", total, cpu)
	}
	// The rate over the window from s0 to s1, scaled to the loop's run, is the share of a CPU
	// the loop got. (The window starts 1 ms before s0: Prometheus extrapolates by that 1 ms.
	// The few ms the shell ran before s0 are in the rusage and not in the rate.)
	span := s1.at.Sub(s0.at)
	q := fmt.Sprintf("rate(pmc_events_total%s[%dms])", sel, span.Milliseconds()+1)
	rate := one(t, "task-clock rate", promQuery(t, base, q, s1.at)) / 1e9 * span.Seconds() / t1.Sub(t0).Seconds()
	if math.Abs(rate-share) > 0.1*share+0.02 {
		t.Errorf("cgroup task-clock rate %.3f CPUs over the loop's run, the loop kept %.3f CPUs busy", rate, share)
	}
	// System-wide cpu-clock counts every CPU's time while enabled (idle included): between
	// s0 and s1 it grows as the enabled time does, the online CPUs times the time between the
	// two reads, which lies between the scrapes' starts and ends.
	online, _ := host.Live().OnlineNow()
	n := float64(len(online))
	sysq := `{event="cpu-clock",cgroup=""}`
	grew := func(series string) float64 {
		return one(t, series, promQuery(t, base, series+sysq, s1.at)) - one(t, series, promQuery(t, base, series+sysq, s0.at))
	}
	clock, enabled := grew("pmc_events_total")/1e9, grew("pmc_event_enabled_seconds_total")
	if lo, hi := n*(s1.at.Sub(s0.end()).Seconds()-0.005), n*(s1.end().Sub(s0.at).Seconds()+0.005); !within(clock, enabled, 0.01) || enabled < lo || enabled > hi {
		t.Errorf("system-wide cpu-clock %.3f s, enabled %.3f s between two scrapes: want equal, and %d online CPUs x %.3f s to %.3f s",
			clock, enabled, len(online), lo/n, hi/n)
	}
	t.Logf("loop: %.3fs CPU (%.3f CPUs); cgroup task-clock total %.3fs, rate %.3f CPUs; system cpu-clock %.3f CPUs over %v (scrapes took %v and %v)",
		cpu, share, total, rate, clock/span.Seconds(), span, s0.dur, s1.dur)

	// The recording rule as Prometheus evaluated it equals its expression at that time.
	rule := `pmc:cpus_utilized:rate5s{cgroup="` + name + `"}`
	expr := `sum without (event) (rate(pmc_events_total` + sel + `[5s])) / 1e9`
	at, rec, direct := ruleClearOfScrapes(t, base, rule, expr, "pmc_events_total"+sel, s1.at)
	if direct == 0 || math.Abs(rec-direct) > 1e-9*direct {
		t.Errorf("recorded cpus_utilized %v at %v, its expression gives %v", rec, at, direct)
	}

	// Every count series is monotonic over the test, with enabled >= running > 0 seconds.
	series := promQuery(t, base, `pmc_events_total`, time.Time{})
	if len(series) < 10 {
		t.Fatalf("%d pmc_events_total series: %+v", len(series), series)
	}
	window := fmt.Sprintf("[%ds]", int(time.Since(started).Seconds())+1)
	if dec := promQuery(t, base, "resets(pmc_events_total"+window+") > 0", time.Time{}); len(dec) > 0 {
		t.Errorf("counts went down: %+v", dec)
	}
	for _, q := range []string{
		`pmc_events_total unless on (event, cgroup) pmc_event_enabled_seconds_total`,
		`pmc_events_total unless on (event, cgroup) pmc_event_running_seconds_total`,
		`pmc_event_running_seconds_total > on (event, cgroup) pmc_event_enabled_seconds_total`,
		`pmc_event_running_seconds_total{cgroup=""} == 0`,
	} {
		if s := promQuery(t, base, q, time.Time{}); len(s) > 0 {
			t.Errorf("%s: %+v", q, s)
		}
	}
	if got := one(t, "pmc_cgroups", promQuery(t, base, "pmc_cgroups", time.Time{})); got != 1 {
		t.Errorf("pmc_cgroups %v, want 1", got)
	}
}
