package exporter

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// hashS3cret is the bcrypt hash (cost 10) of "s3cret".
const hashS3cret = "$2a$10$8hXBSSN.uuv3RiX2YfHfiuvUSiMwX3AV6mt4ICUDkdQTT1tW65j36"

// TestWebReload: every reload that fails or lowers the protection keeps the configuration in
// use (the handler still answers 401 without the password) and marks the reload failed; a
// valid one is used. The end-to-end version (a real exporter process, real requests, SIGHUP)
// is internal/cli's TestExporterWebConfigFailsClosed.
func TestWebReload(t *testing.T) {
	path := filepath.Join(t.TempDir(), "web.yml")
	write := func(s string) { os.WriteFile(path, []byte(s), 0o600) }
	write("basic_auth_users:\n  prom: " + hashS3cret + "\n")
	var logs []string
	w, err := NewWeb(path, func(s string) { logs = append(logs, s) })
	if err != nil {
		t.Fatal(err)
	}
	h := w.Handler(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {}))
	get := func(user, pass string) int {
		r := httptest.NewRequest("GET", "/metrics", nil)
		if user != "" {
			r.SetBasicAuth(user, pass)
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, r)
		return rec.Code
	}
	for _, c := range []struct{ name, content, says string }{
		{"empty", "", "empty"},
		{"comments only", "# nothing\n\n", "empty"},
		{"bad YAML", "basic_auth_users: [\n", "yaml"},
		{"unknown key", "basic_auth_userz:\n  prom: x\n", "field basic_auth_userz not found"},
		{"bad hash", "basic_auth_users:\n  prom: x\n", "not a bcrypt hash"},
		{"no users", "rate_limit:\n  burst: 1\n  interval: 1s\n", "without basic auth"},
		{"bad header", "basic_auth_users:\n  prom: " + hashS3cret + "\nhttp_server_config:\n  headers:\n    Authorization: x\n", "cannot be set"},
		{"TLS on", "basic_auth_users:\n  prom: " + hashS3cret + "\ntls_server_config:\n  cert_file: /nonexistent\n  key_file: /nonexistent\n", "nonexistent"},
		{"a device as certificate", "basic_auth_users:\n  prom: " + hashS3cret + "\ntls_server_config:\n  cert_file: /dev/zero\n  key_file: /dev/zero\n", "not a regular file"},
	} {
		write(c.content)
		err := w.Reload()
		if err == nil || !strings.Contains(err.Error(), c.says) || w.ReloadOK() {
			t.Errorf("%s: reload %v (ok %v), want an error with %q", c.name, err, w.ReloadOK(), c.says)
		}
		if got := get("", ""); got != http.StatusUnauthorized {
			t.Errorf("%s: without a password %d, want 401", c.name, got)
		}
		if got := get("prom", "s3cret"); got != 200 {
			t.Errorf("%s: with the password %d, want 200", c.name, got)
		}
		if l := logs[len(logs)-1]; !strings.Contains(l, "keeping the configuration") {
			t.Errorf("%s: logged %q", c.name, l)
		}
	}
	write("basic_auth_users:\n  other: " + hashS3cret + "\n")
	if err := w.Reload(); err != nil || !w.ReloadOK() {
		t.Fatalf("valid reload: %v", err)
	}
	if get("prom", "s3cret") != http.StatusUnauthorized || get("other", "s3cret") != 200 || get("other", "wrong") != http.StatusUnauthorized {
		t.Errorf("after the reload: prom %d, other %d, wrong password %d", get("prom", "s3cret"), get("other", "s3cret"), get("other", "wrong"))
	}
}

// FuzzWebConfig: any bytes as --web.config.file load or fail with an error; what loads has
// valid users (bcrypt hashes) and, when it serves TLS, a certificate.
func FuzzWebConfig(f *testing.F) {
	f.Add([]byte("basic_auth_users:\n  prom: " + hashS3cret + "\n"))
	f.Add([]byte("tls_server_config:\n  cert_file: c.pem\n  key_file: k.pem\n  client_auth_type: RequireAndVerifyClientCert\n"))
	f.Add([]byte("http_server_config:\n  http2: false\n  headers:\n    X-Frame-Options: deny\nrate_limit:\n  burst: 2\n  interval: 1s\n"))
	f.Add([]byte(""))
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(dir, "web.yml")
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		c, err := loadWebConfig(path)
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("a multi-line error: %q", err)
			}
			return
		}
		if c.tls != nil && len(c.tls.Certificates) != 1 {
			t.Fatalf("TLS without its certificate loaded: %+v", c.tls)
		}
		if c.stamp == "" {
			t.Fatal("no stamp")
		}
	})
}
