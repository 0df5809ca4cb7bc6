package cli

import (
	"bufio"
	"bytes"
	"crypto/tls"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/pmc-tools/pmc/internal/host"
	"github.com/pmc-tools/pmc/internal/testenv"
	"github.com/pmc-tools/pmc/internal/unix"
)

// exporterProc is a running pmc exporter: its URL and the lines of its stderr as they come.
type exporterProc struct {
	url   string
	cmd   *exec.Cmd
	lines chan string
	start string // the start line
}

// runExporterProc runs pmc exporter (the test binary as pmc) on a free port and waits for its
// start line.
func runExporterProc(t *testing.T, args ...string) *exporterProc {
	t.Helper()
	cmd := pmcCmd(t, append([]string{"exporter", "--listen", "127.0.0.1:0"}, args...)...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Signal(os.Interrupt)
		cmd.Wait()
	})
	p := &exporterProc{cmd: cmd, lines: make(chan string, 1000)}
	r := bufio.NewReader(stderr)
	line, err := r.ReadString('\n')
	m := regexp.MustCompile(`serving (https?://\S+/metrics)`).FindStringSubmatch(line)
	if m == nil {
		t.Fatalf("pmc exporter did not say where it serves: %q %v", line, err)
	}
	p.url, p.start = m[1], line
	go func() { // keep reading so the exporter never blocks on its stderr
		b := bufio.NewScanner(r)
		for b.Scan() {
			t.Log("exporter: " + b.Text())
			select {
			case p.lines <- b.Text():
			default:
			}
		}
		close(p.lines)
	}()
	return p
}

// waitLine waits for a line of the exporter's stderr holding want.
func (p *exporterProc) waitLine(t *testing.T, want string) string {
	t.Helper()
	timeout := time.After(time.Minute)
	for {
		select {
		case l, ok := <-p.lines:
			if !ok {
				t.Fatalf("the exporter ended without saying %q", want)
			}
			if strings.Contains(l, want) {
				return l
			}
		case <-timeout:
			t.Fatalf("the exporter did not say %q within a minute", want)
		}
	}
}

// status GETs url with client (nil: the default) and basic auth user:pass (user "": none).
func status(t *testing.T, client *http.Client, url, user, pass string) int {
	t.Helper()
	if client == nil {
		client = http.DefaultClient
	}
	req, _ := http.NewRequest("GET", url, nil)
	if user != "" {
		req.SetBasicAuth(user, pass)
	}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// hashS3cret is the bcrypt hash (cost 10) of "s3cret".
const hashS3cret = "$2a$10$8hXBSSN.uuv3RiX2YfHfiuvUSiMwX3AV6mt4ICUDkdQTT1tW65j36"

// TestExporterWebConfigFailsClosed (issue 25 item 1): with basic auth in --web.config.file,
// emptying the file, breaking its YAML or dropping its users while the exporter runs keeps the
// last good configuration (401 without the password, 200 with it) and says so once; a valid
// change is taken on SIGHUP (or when the file changes). exporter-toolkit re-read the file at
// every request and an empty file meant no auth: an unauthenticated scrape got 200.
func TestExporterWebConfigFailsClosed(t *testing.T) {
	dir := t.TempDir()
	web := filepath.Join(dir, "web.yml")
	write := func(s string) {
		t.Helper()
		// Written in place, as an editor truncating the file does.
		if err := os.WriteFile(web, []byte(s), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write("basic_auth_users:\n  prom: " + hashS3cret + "\n")
	p := runExporterProc(t, "--web.config.file", web, "-e", "cpu-clock", "--refresh", "200ms")
	closed := func(when string) {
		t.Helper()
		// A few scrapes over a second: none may get in without the password.
		for i := 0; i < 5; i++ {
			if s := status(t, nil, p.url, "", ""); s != http.StatusUnauthorized {
				t.Fatalf("%s: a scrape without a password got %d, want 401", when, s)
			}
			time.Sleep(200 * time.Millisecond)
		}
		if s := status(t, nil, p.url, "prom", "s3cret"); s != 200 {
			t.Fatalf("%s: the last good password got %d, want 200", when, s)
		}
	}
	closed("at start")

	for _, c := range []struct{ name, content, says string }{
		{"emptied", "", "is empty"},
		{"broken YAML", "basic_auth_users: [\n", "yaml"},
		{"a bad hash", "basic_auth_users:\n  prom: nothash\n", "hash"},
		{"users dropped", "http_server_config:\n  headers:\n    X-Frame-Options: deny\n", "basic auth"},
	} {
		write(c.content)
		if s := status(t, nil, p.url, "", ""); s != http.StatusUnauthorized {
			t.Fatalf("%s: a scrape without a password got %d at once, want 401", c.name, s)
		}
		l := p.waitLine(t, "keeping the configuration")
		if !strings.Contains(l, c.says) {
			t.Errorf("%s: the log line does not say why: %q", c.name, l)
		}
		closed(c.name)
	}

	// A valid change with another user, taken on SIGHUP; the process lives on.
	write("basic_auth_users:\n  scraper: " + hashS3cret + "\n")
	if err := p.cmd.Process.Signal(unix.SIGHUP); err != nil {
		t.Fatal(err)
	}
	p.waitLine(t, "reloaded")
	if s := status(t, nil, p.url, "scraper", "s3cret"); s != 200 {
		t.Errorf("the new user after the reload: %d, want 200", s)
	}
	if s := status(t, nil, p.url, "prom", "s3cret"); s != http.StatusUnauthorized {
		t.Errorf("the old user after the reload: %d, want 401", s)
	}
	if s := status(t, nil, p.url, "", ""); s != http.StatusUnauthorized {
		t.Errorf("no password after the reload: %d, want 401", s)
	}
}

// TestExporterSIGHUP: SIGHUP makes pmc exporter look for cgroups at once (a new one matching
// --cgroup is counted without waiting for --refresh) and does not end it; it was killed.
func TestExporterSIGHUP(t *testing.T) {
	mount, err := host.Live().Cgroup2Mount()
	name := fmt.Sprintf("pmc-sighup-test-%d", os.Getpid())
	if err == nil {
		if _, err = os.Stat(mount); err == nil {
			// The pattern matches nothing until the cgroup exists.
			_, err = os.Stat(filepath.Join(mount, name))
			if err == nil {
				t.Fatalf("%s exists already", name)
			}
			err = nil
		}
	}
	if err != nil {
		t.Skipf("no cgroup v2: %v", err)
	}
	p := runExporterProc(t, "-e", "cpu-clock", "--cgroup", name, "--refresh", "1h")
	testenv.Cgroup(t, name, mount, nil)
	if err := p.cmd.Process.Signal(unix.SIGHUP); err != nil {
		t.Fatal(err)
	}
	p.waitLine(t, "SIGHUP")
	resp, err := http.Get(p.url)
	if err != nil {
		t.Fatalf("after SIGHUP: %v", err)
	}
	var body bytes.Buffer
	body.ReadFrom(resp.Body)
	resp.Body.Close()
	if !strings.Contains(body.String(), `cgroup="`+name+`"`) {
		t.Errorf("after SIGHUP the new cgroup %s is not counted:\n%s", name, body.String())
	}
}

// TestExporterTLS: with TLS in --web.config.file (files named relative to it) the start line
// says https:// (it said http://), scrapes need TLS and the password, and a certificate file
// emptied while it runs leaves the loaded one in use.
func TestExporterTLS(t *testing.T) {
	dir := t.TempDir()
	_, pool := testenv.SelfSigned(t, dir)
	web := filepath.Join(dir, "web.yml")
	os.WriteFile(web, []byte("tls_server_config:\n  cert_file: cert.pem\n  key_file: key.pem\nbasic_auth_users:\n  prom: "+hashS3cret+"\n"), 0o600)
	p := runExporterProc(t, "--web.config.file", web, "-e", "cpu-clock", "--refresh", "200ms")
	if !strings.HasPrefix(p.url, "https://127.0.0.1:") {
		t.Fatalf("start line %q: want https://", p.start)
	}
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
	if s := status(t, client, p.url, "", ""); s != http.StatusUnauthorized {
		t.Errorf("TLS without a password: %d, want 401", s)
	}
	if s := status(t, client, p.url, "prom", "s3cret"); s != 200 {
		t.Errorf("TLS with the password: %d, want 200", s)
	}
	if s := status(t, nil, strings.Replace(p.url, "https://", "http://", 1), "prom", "s3cret"); s == 200 {
		t.Errorf("plain HTTP got 200 from a TLS exporter")
	}
	if err := os.WriteFile(filepath.Join(dir, "cert.pem"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	p.waitLine(t, "keeping the configuration")
	if s := status(t, client, p.url, "prom", "s3cret"); s != 200 {
		t.Errorf("TLS after the certificate file was emptied: %d, want 200 with the loaded certificate", s)
	}
}

// TestExporterWebConfigBounded: --web.config.file /dev/zero (and any file that is not a regular
// one, or over 1 MiB) is a one-line error at once; /dev/zero was read until memory ran out.
func TestExporterWebConfigBounded(t *testing.T) {
	big := filepath.Join(t.TempDir(), "big.yml")
	os.WriteFile(big, bytes.Repeat([]byte("# comment\n"), 200000), 0o600)
	for _, c := range []struct{ file, want string }{
		{"/dev/zero", "not a regular file"},
		{big, "larger than 1 MiB"},
		{filepath.Join(t.TempDir(), "missing.yml"), "no such file"},
	} {
		args := []string{"exporter", "--listen", "127.0.0.1:0", "-e", "cpu-clock", "--web.config.file", c.file}
		// In a process of its own with its address space bounded (if prlimit is there): an
		// unbounded read ends there, not in this test's memory.
		cmd := pmcCmd(t, args...)
		if prlimit, err := exec.LookPath("prlimit"); err == nil {
			cmd = exec.Command(prlimit, append([]string{"--as=4000000000", cmd.Path}, args...)...)
			cmd.Env = append(os.Environ(), cliModeEnv+"=1")
		}
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		done := make(chan error, 1)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		go func() { done <- cmd.Wait() }()
		select {
		case err := <-done:
			msg := stderr.String()
			ee, _ := err.(*exec.ExitError)
			if ee == nil || ee.ExitCode() != 1 || !strings.Contains(msg, c.want) || strings.Count(strings.TrimSpace(msg), "\n") != 0 {
				t.Errorf("%s: %v, stderr %.300q; want exit 1 and one line with %q", c.file, err, msg, c.want)
			}
		case <-time.After(2 * time.Minute):
			cmd.Process.Kill()
			t.Errorf("%s: pmc exporter still running after 2 minutes", c.file)
		}
	}
}
