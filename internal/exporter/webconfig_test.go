package exporter

import (
	"crypto/tls"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/pmc-tools/pmc/internal/testenv"
)

// TestWebConfigTLS: tls_server_config's settings (exporter-toolkit's names) become the TLS
// configuration: versions, cipher suites, curves, client authentication with its CAs and
// allowed SANs, HTTP/2 in ALPN; a wrong name or an inconsistent setting is a one-line error
// naming what to give.
func TestWebConfigTLS(t *testing.T) {
	dir := t.TempDir()
	der, _ := testenv.SelfSigned(t, dir)
	path := filepath.Join(dir, "web.yml")
	load := func(tlsPart string) (*webConfig, error) {
		os.WriteFile(path, []byte("tls_server_config:\n  cert_file: cert.pem\n  key_file: key.pem\n"+tlsPart), 0o600)
		return loadWebConfig(path)
	}
	c, err := load("")
	if err != nil {
		t.Fatal(err)
	}
	if c.tls.MinVersion != tls.VersionTLS12 || c.tls.MaxVersion != tls.VersionTLS13 || c.tls.ClientAuth != tls.NoClientCert ||
		!slices.Equal(c.tls.NextProtos, []string{"h2", "http/1.1"}) || len(c.tls.Certificates) != 1 || len(c.files) != 2 {
		t.Errorf("defaults: %+v", c.tls)
	}
	c, err = load("  min_version: TLS13\n  cipher_suites: [TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384]\n" +
		"  curve_preferences: [X25519, CurveP384]\n  client_auth_type: RequireAndVerifyClientCert\n" +
		"  client_ca_file: cert.pem\n  client_allowed_sans: [scraper.example]\n  prefer_server_cipher_suites: true\n" +
		"http_server_config:\n  http2: false\n")
	if err != nil {
		t.Fatal(err)
	}
	if c.tls.MinVersion != tls.VersionTLS13 || !slices.Equal(c.tls.CipherSuites, []uint16{tls.TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384}) ||
		!slices.Equal(c.tls.CurvePreferences, []tls.CurveID{tls.X25519, tls.CurveP384}) ||
		c.tls.ClientAuth != tls.RequireAndVerifyClientCert || c.tls.ClientCAs == nil ||
		!slices.Equal(c.tls.NextProtos, []string{"http/1.1"}) || len(c.files) != 3 {
		t.Errorf("settings: %+v", c.tls)
	}
	if err := c.tls.VerifyPeerCertificate([][]byte{der}, nil); err != nil {
		t.Errorf("a client certificate naming scraper.example: %v", err)
	}
	c, _ = load("  client_auth_type: RequireAnyClientCert\n  client_allowed_sans: [other.example]\n")
	if err := c.tls.VerifyPeerCertificate([][]byte{der}, nil); err == nil || !strings.Contains(err.Error(), "scraper.example") {
		t.Errorf("a client certificate naming only scraper.example, other.example allowed: %v", err)
	}
	for _, b := range []struct{ conf, says string }{
		{"  min_version: TLS14\n", "min_version \"TLS14\": give TLS10, TLS11, TLS12 or TLS13"},
		{"  cipher_suites: [TLS_RSA_WITH_RC4_128_SHA]\n", "not a cipher suite Go offers"},
		{"  curve_preferences: [P256]\n", "give CurveP256"},
		{"  client_auth_type: Always\n", "client_auth_type \"Always\""},
		{"  client_ca_file: cert.pem\n", "without a client_auth_type"},
		{"  client_ca_file: web.yml\n  client_auth_type: RequireAndVerifyClientCert\n", "no PEM certificate"},
		{"  cipher_suitez: []\n", "field cipher_suitez not found"},
	} {
		if _, err := load(b.conf); err == nil || !strings.Contains(err.Error(), b.says) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%q: %v, want one line with %q", b.conf, err, b.says)
		}
	}
	for conf, says := range map[string]string{
		"tls_server_config:\n  key_file: key.pem\n": "give cert_file",
		"tls_server_config:\n  cert: x\n  key: y\n": "certificate and key",
	} {
		os.WriteFile(path, []byte(conf), 0o600)
		if _, err := loadWebConfig(path); err == nil || !strings.Contains(err.Error(), says) {
			t.Errorf("%q: %v, want %q", conf, err, says)
		}
	}
}
