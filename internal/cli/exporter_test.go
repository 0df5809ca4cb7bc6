package cli

import (
	"bytes"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestExporterWebConfig: with --web.config.file requiring basic auth (exporter-toolkit), /metrics
// refuses a scrape without the password (401) and serves one with it.
func TestExporterWebConfig(t *testing.T) {
	web := filepath.Join(t.TempDir(), "web.yml")
	// bcrypt of "s3cret", cost 10.
	conf := "basic_auth_users:\n  prom: $2a$10$8hXBSSN.uuv3RiX2YfHfiuvUSiMwX3AV6mt4ICUDkdQTT1tW65j36\n"
	if err := os.WriteFile(web, []byte(conf), 0o600); err != nil {
		t.Fatal(err)
	}
	target := startExporter(t, "--web.config.file", web, "-e", "cpu-clock")
	resp, err := http.Get(target)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("without a password: %s, want 401", resp.Status)
	}
	req, _ := http.NewRequest("GET", target, nil)
	req.SetBasicAuth("prom", "s3cret")
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var body bytes.Buffer
	body.ReadFrom(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(body.String(), `pmc_events_total{event="cpu-clock"}`) {
		t.Errorf("with the password: %s\n%s", resp.Status, body.String())
	}
}

// TestExporterBadInput: mistakes are one-line errors naming the fix, exit 1, before counting.
func TestExporterBadInput(t *testing.T) {
	bad := filepath.Join(t.TempDir(), "web.yml")
	os.WriteFile(bad, []byte("tls_server_config: [\n"), 0o600)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--cgroup-limit", "0"}, "--cgroup-limit 0: give a positive number"},
		{[]string{"--refresh", "1ms"}, "--refresh 1ms: give at least 100ms"},
		{[]string{"--rules-window", "1.5m"}, `--rules-window "1.5m": give a Prometheus duration`},
		{[]string{"--listen", "nonsense"}, "--listen nonsense:"},
		{[]string{"-e", "no-such-event"}, "no-such-event"},
		{[]string{"--rules", "-M", "nope"}, `no metric or metric group "nope"`},
		{[]string{"--web.config.file", bad}, "--web.config.file " + bad},
		{[]string{"--cgroup", "["}, `cgroup pattern "["`},
	} {
		var stdout, stderr bytes.Buffer
		code := testRun(append([]string{"exporter", "--listen", "127.0.0.1:0"}, c.args...), &stdout, &stderr)
		msg := stderr.String()
		if code != 1 || !strings.Contains(msg, c.want) || strings.Count(strings.TrimSpace(msg), "\n") > 0 {
			t.Errorf("%v: exit %d, stderr %q; want exit 1 and one line with %q", c.args, code, msg, c.want)
		}
	}
}
