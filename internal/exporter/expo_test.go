package exporter

import (
	"compress/gzip"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/fstest"
)

// TestWriteText: families sorted by name, series by label values with labels sorted by name;
// HELP and label values escaped as the text format says (a label value's invalid UTF-8 as
// U+FFFD); numbers in their shortest form with NaN and the infinities spelt out; a family
// without series left out; the input left as it was.
func TestWriteText(t *testing.T) {
	fams := []Family{
		{Name: "z_total", Help: "last", Type: Counter, Series: []Series{
			{Labels: []Label{{"event", "b"}, {"cgroup", "x"}}, Value: 2},
			{Labels: []Label{{"event", "a"}, {"cgroup", "x"}}, Value: 1.5e9},
			{Labels: []Label{{"event", "c"}, {"cgroup", ""}}, Value: 0.1},
		}},
		{Name: "empty", Help: "no series", Type: Gauge},
		One("a_gauge", "back\\slash and\nnewline \"kept\"", Gauge, math.NaN()),
		{Name: "m", Help: "escapes", Type: Gauge, Series: []Series{
			{Labels: []Label{{"v", "q\"uote \\ new\nline"}}, Value: math.Inf(1)},
			{Labels: []Label{{"v", "bad\xffbyte"}}, Value: math.Inf(-1)},
			{Labels: []Label{{"v", "plain"}}, Value: -3},
		}},
	}
	var b strings.Builder
	if err := WriteText(&b, fams); err != nil {
		t.Fatal(err)
	}
	want := `# HELP a_gauge back\\slash and\nnewline "kept"
# TYPE a_gauge gauge
a_gauge NaN
# HELP m escapes
# TYPE m gauge
m{v="bad\ufffdbyte"} -Inf
m{v="plain"} -3
m{v="q\"uote \\ new\nline"} +Inf
# HELP z_total last
# TYPE z_total counter
z_total{cgroup="",event="c"} 0.1
z_total{cgroup="x",event="a"} 1.5e+09
z_total{cgroup="x",event="b"} 2
`
	want = strings.Replace(want, `\ufffd`, "\uFFFD", 1)
	if b.String() != want {
		t.Errorf("got:\n%s\nwant:\n%s", b.String(), want)
	}
	if fams[0].Name != "z_total" || fams[0].Series[0].Labels[0].Name != "event" {
		t.Errorf("the input was reordered: %+v", fams[0])
	}
}

// TestMetricsHandler: the exposition's media type, gzip when the client accepts it (as
// Prometheus does) and plain text when it does not or refuses it with q=0.
func TestMetricsHandler(t *testing.T) {
	h := MetricsHandler(BuildInfo("1.2.3"), func() []Family { return []Family{One("x", "x", Gauge, 7)} })
	for _, c := range []struct {
		accept string
		gzip   bool
	}{{"", false}, {"gzip", true}, {"identity, gzip;q=0.5", true}, {"gzip;q=0", false}, {"br", false}} {
		r := httptest.NewRequest("GET", "/metrics", nil)
		if c.accept != "" {
			r.Header.Set("Accept-Encoding", c.accept)
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, r)
		res := rec.Result()
		if res.StatusCode != http.StatusOK || res.Header.Get("Content-Type") != ContentType {
			t.Fatalf("%q: %d %q", c.accept, res.StatusCode, res.Header.Get("Content-Type"))
		}
		var body io.Reader = res.Body
		if got := res.Header.Get("Content-Encoding") == "gzip"; got != c.gzip {
			t.Errorf("Accept-Encoding %q: gzipped %v, want %v", c.accept, got, c.gzip)
		} else if got {
			zr, err := gzip.NewReader(res.Body)
			if err != nil {
				t.Fatal(err)
			}
			body = zr
		}
		text, err := io.ReadAll(body)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(text), `pmc_build_info{goarch="`) || !strings.Contains(string(text), `,version="1.2.3"} 1`) ||
			!strings.HasSuffix(string(text), "# TYPE x gauge\nx 7\n") {
			t.Errorf("Accept-Encoding %q: %s", c.accept, text)
		}
	}
}

// TestProcess: the process metrics from a /proc/self/stat whose command name holds spaces
// and parentheses, /proc/stat's btime and /proc/self/fd; without those files, only the Go
// runtime's.
func TestProcess(t *testing.T) {
	stat := "4242 (a) b (c) S 1 4242 4242 0 -1 4194560 1000 0 0 0 250 50 0 0 20 0 9 0 12345 700000000 1500 18446744073709551615\n"
	root := fstest.MapFS{
		"proc/self/stat": {Data: []byte(stat)},
		"proc/stat":      {Data: []byte("cpu  1 2 3\nbtime 1700000000\nprocesses 9\n")},
		"proc/self/fd/0": {}, "proc/self/fd/1": {}, "proc/self/fd/7": {},
	}
	got := map[string]float64{}
	for _, f := range Process(root)() {
		got[f.Name] = f.Series[0].Value
	}
	page := got["process_resident_memory_bytes"] / 1500
	for name, want := range map[string]float64{
		"process_cpu_seconds_total":    3,
		"process_virtual_memory_bytes": 700000000,
		"process_start_time_seconds":   1700000000 + 123.45,
		"process_open_fds":             3,
	} {
		if got[name] != want {
			t.Errorf("%s %v, want %v", name, got[name], want)
		}
	}
	if page != 4096 && page != 16384 && page != 65536 {
		t.Errorf("resident memory %v: not 1500 pages", got["process_resident_memory_bytes"])
	}
	if got["go_goroutines"] < 1 || got["process_max_fds"] < 1 {
		t.Errorf("go_goroutines %v, process_max_fds %v", got["go_goroutines"], got["process_max_fds"])
	}
	fams := Process(fstest.MapFS{})()
	for _, f := range fams {
		if strings.HasPrefix(f.Name, "process_") && f.Name != "process_max_fds" {
			t.Errorf("%s without /proc", f.Name)
		}
	}
}
