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
	conf := fmt.Sprintf(`global:
  scrape_interval: 1s
  evaluation_interval: 1s
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
		if i == 300 {
			t.Fatalf("prometheus not ready after 30s: %v\n%s", err, log.String())
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
		if i == 200 {
			t.Fatalf("no sample for %s after 20s", q)
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

// TestExporterPrometheus: Prometheus scrapes pmc exporter counting system-wide and one cgroup in
// which the test runs a busy loop. up is 1; the system-wide cpu-clock rate is the number of
// online CPUs; the cgroup's task-clock total equals the loop's CPU time (rusage) and its rate
// agrees with the share of a CPU the loop got; every count series is monotonic and has its
// enabled and running seconds; the --rules output passes promtool check rules and Prometheus
// evaluates it to the same number as the expression it records.
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

	// A busy loop in the cgroup for 4 s.
	argv := testenv.InCgroup(cg, "sh", "-c", "while :; do :; done")
	busy := exec.Command(argv[0], argv[1:]...)
	t0 := time.Now()
	if err := busy.Start(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(4 * time.Second)
	t1 := time.Now()
	busy.Process.Kill()
	busy.Wait()
	cpu := (busy.ProcessState.UserTime() + busy.ProcessState.SystemTime()).Seconds()
	share := cpu / t1.Sub(t0).Seconds()
	time.Sleep(2500 * time.Millisecond) // scrapes after the loop's end

	sel := fmt.Sprintf(`{event="task-clock",cgroup=%q}`, name)
	total := one(t, "task-clock total", promQuery(t, base, "pmc_events_total"+sel, time.Time{})) / 1e9
	if math.Abs(total-cpu) > 0.05*cpu+0.02 {
		t.Errorf("cgroup task-clock total %.3fs, the loop used %.3fs of CPU", total, cpu)
	}
	// The rate over a window from 1 s before the loop to 1 s after it, scaled to the loop's
	// run (the count is flat outside it), is the share of a CPU the loop got.
	end := t1.Add(time.Second)
	win := end.Sub(t0.Add(-time.Second))
	q := fmt.Sprintf("rate(pmc_events_total%s[%dms])", sel, win.Milliseconds())
	rate := one(t, "task-clock rate", promQuery(t, base, q, end)) / 1e9 * win.Seconds() / t1.Sub(t0).Seconds()
	if math.Abs(rate-share) > 0.1*share+0.02 {
		t.Errorf("cgroup task-clock rate %.3f CPUs over the loop's run, the loop kept %.3f CPUs busy", rate, share)
	}
	online, _ := host.Live().OnlineNow()
	sys := one(t, "cpu-clock rate", promQuery(t, base, `rate(pmc_events_total{event="cpu-clock",cgroup=""}[3s])`, t1)) / 1e9
	if math.Abs(sys-float64(len(online))) > 0.05*float64(len(online)) {
		t.Errorf("system-wide cpu-clock rate %.3f CPUs, %d are online", sys, len(online))
	}
	t.Logf("loop: %.3fs CPU (%.3f CPUs); cgroup task-clock total %.3fs, rate %.3f CPUs; system cpu-clock %.3f CPUs",
		cpu, share, total, rate, sys)

	// The recording rule as Prometheus evaluated it equals its expression at that time.
	rec := promQuery(t, base, `pmc:cpus_utilized:rate5s{cgroup="`+name+`"}`, t1.Add(2*time.Second))
	if len(rec) != 1 || rec[0].labels["together"] != "true" {
		t.Fatalf("recorded cpus_utilized: %+v", rec)
	}
	stamp := one(t, "timestamp", promQuery(t, base, `timestamp(pmc:cpus_utilized:rate5s{cgroup="`+name+`"})`, t1.Add(2*time.Second)))
	at := time.Unix(0, int64(math.Round(stamp*1e3))*1e6)
	direct := one(t, "direct", promQuery(t, base, `sum without (event) (rate(pmc_events_total`+sel+`[5s])) / 1e9`, at))
	if direct == 0 || math.Abs(rec[0].value-direct) > 1e-9*direct {
		t.Errorf("recorded cpus_utilized %v, its expression gives %v", rec[0].value, direct)
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
