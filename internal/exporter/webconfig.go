package exporter

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"go.yaml.in/yaml/v2"
	"golang.org/x/crypto/bcrypt"
	"golang.org/x/time/rate"

	"github.com/pmc-tools/pmc/internal/unix"
)

// maxWebFile bounds the web configuration file and each TLS file it names: a web.yml is a few
// hundred bytes, a certificate chain a few KB.
const maxWebFile = 1 << 20

// webConfig is one validated reading of a --web.config.file (exporter-toolkit's format:
// tls_server_config, http_server_config, basic_auth_users, rate_limit), with its certificate
// loaded: nothing of it is read again until the next reload.
type webConfig struct {
	users   map[string]string // user -> bcrypt hash; empty: no basic auth
	headers map[string]string
	tls     *tls.Config // nil: plain HTTP
	http2   bool
	limit   *rate.Limiter // nil: no rate limit
	files   []string      // the TLS files it names
	stamp   string        // what its files held when they were read (fileStamp of each)
	loaded  time.Time
}

// configurableHeader says whether exporter-toolkit lets a web configuration set response
// header name, and the values it allows (none listed: any value). A function, not a map: no
// work at package init.
func configurableHeader(name string) (allowed []string, ok bool) {
	switch name {
	case "Strict-Transport-Security", "X-XSS-Protection", "Content-Security-Policy":
		return nil, true
	case "X-Content-Type-Options":
		return []string{"nosniff"}, true
	case "X-Frame-Options":
		return []string{"deny", "sameorigin"}, true
	}
	return nil, false
}

// webFile is the layout of a --web.config.file (exporter-toolkit's documented format), read
// strictly: an unknown key is an error. Versions, cipher suites and curves are names.
type webFile struct {
	TLS   webTLS            `yaml:"tls_server_config"`
	HTTP  webHTTP           `yaml:"http_server_config"`
	Rate  webRate           `yaml:"rate_limit"`
	Users map[string]string `yaml:"basic_auth_users"`
}

// webTLS is tls_server_config.
type webTLS struct {
	Cert         string   `yaml:"cert"`
	Key          string   `yaml:"key"`
	ClientCA     string   `yaml:"client_ca"`
	CertFile     string   `yaml:"cert_file"`
	KeyFile      string   `yaml:"key_file"`
	ClientCAFile string   `yaml:"client_ca_file"`
	ClientAuth   string   `yaml:"client_auth_type"`
	CipherSuites []string `yaml:"cipher_suites"`
	Curves       []string `yaml:"curve_preferences"`
	MinVersion   string   `yaml:"min_version"`
	MaxVersion   string   `yaml:"max_version"`
	AllowedSANs  []string `yaml:"client_allowed_sans"`
	// Accepted for old files; Go has ignored the setting since 1.17.
	PreferServerCipherSuites bool `yaml:"prefer_server_cipher_suites"`
}

// webHTTP is http_server_config.
type webHTTP struct {
	HTTP2   bool              `yaml:"http2"`
	Headers map[string]string `yaml:"headers"`
}

// webRate is rate_limit.
type webRate struct {
	Burst    int           `yaml:"burst"`
	Interval time.Duration `yaml:"interval"`
}

// loadWebConfig reads and validates the web configuration at path as exporter-toolkit reads
// it (strict YAML, the same defaults, TLS file names relative to the file), but bounded, and
// refusing an empty file: a file named on the command line that says nothing is a truncated
// one, not a request for an open exporter.
func loadWebConfig(path string) (*webConfig, error) {
	data, stamp, err := readWebFile(path)
	if err != nil {
		return nil, err
	}
	var keys map[string]any
	if yaml.Unmarshal(data, &keys) == nil && len(keys) == 0 {
		return nil, errors.New("the file is empty: give TLS or basic auth settings (or leave --web.config.file out)")
	}
	var c webFile
	c.HTTP.HTTP2 = true
	if err := yaml.UnmarshalStrict(data, &c); err != nil {
		return nil, errors.New(strings.Join(strings.Fields(err.Error()), " ")) // yaml's list of errors on one line
	}
	wc := &webConfig{users: map[string]string{}, headers: c.HTTP.Headers, http2: c.HTTP.HTTP2,
		stamp: stamp, loaded: time.Now()}
	for name, v := range c.HTTP.Headers {
		allowed, ok := configurableHeader(name)
		if !ok {
			return nil, fmt.Errorf("http_server_config: header %q cannot be set", name)
		}
		if len(allowed) > 0 && !slices.Contains(allowed, v) {
			return nil, fmt.Errorf("http_server_config: header %s: %q is not one of %q", name, v, allowed)
		}
	}
	for user, hash := range c.Users {
		if _, err := bcrypt.Cost([]byte(hash)); err != nil {
			return nil, fmt.Errorf("basic_auth_users: %s: not a bcrypt hash (%v)", user, err)
		}
		wc.users[user] = hash
	}
	if c.Rate.Interval > 0 {
		wc.limit = rate.NewLimiter(rate.Every(c.Rate.Interval), c.Rate.Burst)
	}
	t := &c.TLS
	if t.Cert != "" || t.CertFile != "" || t.Key != "" || t.KeyFile != "" || t.ClientCA != "" ||
		t.ClientCAFile != "" || t.ClientAuth != "" {
		dir := filepath.Dir(path)
		for _, f := range []*string{&t.CertFile, &t.KeyFile, &t.ClientCAFile} {
			if *f != "" && !filepath.IsAbs(*f) {
				*f = filepath.Join(dir, *f)
			}
			if *f != "" {
				wc.files = append(wc.files, *f)
			}
		}
		if wc.tls, err = loadTLS(&c, wc.http2); err != nil {
			return nil, fmt.Errorf("tls_server_config: %w", err)
		}
		for _, f := range wc.files {
			wc.stamp += fileStamp(f)
		}
	}
	return wc, nil
}

// loadTLS builds the server's TLS configuration and loads the certificate once (files read
// bounded): exporter-toolkit read the certificate files again at every handshake, so a broken
// file failed every connection; here it fails a reload, and the loaded certificate stays.
func loadTLS(c *webFile, http2 bool) (*tls.Config, error) {
	t := &c.TLS
	pem := func(inline, file, key string) ([]byte, error) {
		if file == "" {
			return []byte(inline), nil
		}
		b, _, err := readWebFile(file)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", key, err)
		}
		return b, nil
	}
	switch {
	case t.Cert == "" && t.CertFile == "":
		return nil, errors.New("give cert_file (or cert)")
	case t.Key == "" && t.KeyFile == "":
		return nil, errors.New("give key_file (or key)")
	}
	certPEM, err := pem(t.Cert, t.CertFile, "cert_file")
	if err != nil {
		return nil, err
	}
	keyPEM, err := pem(t.Key, t.KeyFile, "key_file")
	if err != nil {
		return nil, err
	}
	cert, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		return nil, fmt.Errorf("certificate and key: %w", err)
	}
	cfg := &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12, MaxVersion: tls.VersionTLS13,
		NextProtos: []string{"http/1.1"}}
	if http2 {
		cfg.NextProtos = []string{"h2", "http/1.1"}
	}
	for _, v := range []struct {
		name, key string
		to        *uint16
	}{{t.MinVersion, "min_version", &cfg.MinVersion}, {t.MaxVersion, "max_version", &cfg.MaxVersion}} {
		if v.name == "" {
			continue
		}
		n, ok := strings.CutPrefix(v.name, "TLS1")
		if !ok || len(n) != 1 || n[0] < '0' || n[0] > '3' {
			return nil, fmt.Errorf("%s %q: give TLS10, TLS11, TLS12 or TLS13", v.key, v.name)
		}
		*v.to = tls.VersionTLS10 + uint16(n[0]-'0')
	}
	for _, name := range t.CipherSuites {
		i := slices.IndexFunc(tls.CipherSuites(), func(s *tls.CipherSuite) bool { return s.Name == name })
		if i < 0 {
			return nil, fmt.Errorf("cipher_suites: %q is not a cipher suite Go offers (e.g. TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256)", name)
		}
		cfg.CipherSuites = append(cfg.CipherSuites, tls.CipherSuites()[i].ID)
	}
	for _, name := range t.Curves {
		id, ok := map[string]tls.CurveID{"CurveP256": tls.CurveP256, "CurveP384": tls.CurveP384,
			"CurveP521": tls.CurveP521, "X25519": tls.X25519}[name]
		if !ok {
			return nil, fmt.Errorf("curve_preferences: %q: give CurveP256, CurveP384, CurveP521 or X25519", name)
		}
		cfg.CurvePreferences = append(cfg.CurvePreferences, id)
	}
	switch t.ClientAuth {
	case "", "NoClientCert":
		cfg.ClientAuth = tls.NoClientCert
	case "RequestClientCert":
		cfg.ClientAuth = tls.RequestClientCert
	case "RequireAnyClientCert", "RequireClientCert":
		cfg.ClientAuth = tls.RequireAnyClientCert
	case "VerifyClientCertIfGiven":
		cfg.ClientAuth = tls.VerifyClientCertIfGiven
	case "RequireAndVerifyClientCert":
		cfg.ClientAuth = tls.RequireAndVerifyClientCert
	default:
		return nil, fmt.Errorf("client_auth_type %q: give RequireAndVerifyClientCert, VerifyClientCertIfGiven, RequireAnyClientCert, RequestClientCert or NoClientCert", t.ClientAuth)
	}
	if t.ClientCA != "" || t.ClientCAFile != "" {
		if cfg.ClientAuth == tls.NoClientCert {
			return nil, errors.New("client CAs without a client_auth_type: give one, e.g. RequireAndVerifyClientCert")
		}
		caPEM, err := pem(t.ClientCA, t.ClientCAFile, "client_ca_file")
		if err != nil {
			return nil, err
		}
		cfg.ClientCAs = x509.NewCertPool()
		if !cfg.ClientCAs.AppendCertsFromPEM(caPEM) {
			return nil, errors.New("client CAs: no PEM certificate in them")
		}
	}
	if t.AllowedSANs != nil {
		allowed := slices.Clone(t.AllowedSANs)
		cfg.VerifyPeerCertificate = func(raw [][]byte, _ [][]*x509.Certificate) error {
			return checkClientSANs(raw, allowed)
		}
	}
	return cfg, nil
}

// checkClientSANs accepts a client whose certificate (the first one sent) names one of the
// allowed subject alternative names: a DNS name, email address, IP address or URI.
func checkClientSANs(raw [][]byte, allowed []string) error {
	if len(raw) == 0 {
		return errors.New("no client certificate")
	}
	cert, err := x509.ParseCertificate(raw[0])
	if err != nil {
		return fmt.Errorf("client certificate: %w", err)
	}
	names := slices.Concat(cert.DNSNames, cert.EmailAddresses)
	for _, ip := range cert.IPAddresses {
		names = append(names, ip.String())
	}
	for _, u := range cert.URIs {
		names = append(names, u.String())
	}
	for _, n := range names {
		if slices.Contains(allowed, n) {
			return nil
		}
	}
	return fmt.Errorf("client certificate names %q, none of client_allowed_sans", names)
}

// readWebFile reads a regular file of at most maxWebFile bytes, without blocking on a FIFO,
// and returns its stamp with it.
func readWebFile(path string) ([]byte, string, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|unix.O_NONBLOCK, 0)
	if err != nil {
		return nil, "", err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, "", err
	}
	if !fi.Mode().IsRegular() {
		return nil, "", fmt.Errorf("%s: not a regular file (%v)", path, fi.Mode().Type())
	}
	data, err := io.ReadAll(io.LimitReader(f, maxWebFile+1))
	if err != nil {
		return nil, "", err
	}
	if len(data) > maxWebFile {
		return nil, "", fmt.Errorf("%s: larger than %d MiB: not a web configuration", path, maxWebFile>>20)
	}
	return data, stampOf(path, fi), nil
}

// fileStamp identifies what path holds now (size and modification time): a change is a reason
// to reload.
func fileStamp(path string) string {
	fi, err := os.Stat(path)
	if err != nil {
		return path + ":" + err.Error() + ";"
	}
	return stampOf(path, fi)
}

func stampOf(path string, fi os.FileInfo) string {
	return fmt.Sprintf("%s:%d:%d;", path, fi.Size(), fi.ModTime().UnixNano())
}
