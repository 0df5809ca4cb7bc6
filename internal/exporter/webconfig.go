package exporter

import (
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/prometheus/exporter-toolkit/web"
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
	c := web.Config{
		TLSConfig:  web.TLSConfig{MinVersion: tls.VersionTLS12, MaxVersion: tls.VersionTLS13},
		HTTPConfig: web.HTTPConfig{HTTP2: true},
	}
	if err := yaml.UnmarshalStrict(data, &c); err != nil {
		return nil, errors.New(strings.Join(strings.Fields(err.Error()), " ")) // yaml's list of errors on one line
	}
	wc := &webConfig{users: map[string]string{}, headers: c.HTTPConfig.Header, http2: c.HTTPConfig.HTTP2,
		stamp: stamp, loaded: time.Now()}
	for name, v := range c.HTTPConfig.Header {
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
		wc.users[user] = string(hash)
	}
	if c.RateLimiterConfig.Interval > 0 {
		wc.limit = rate.NewLimiter(rate.Every(c.RateLimiterConfig.Interval), c.RateLimiterConfig.Burst)
	}
	if c.TLSConfig.IsEnabled() {
		c.TLSConfig.SetDirectory(filepath.Dir(path))
		if wc.tls, err = loadTLS(&c.TLSConfig, wc.http2); err != nil {
			return nil, err
		}
		wc.files = tlsFiles(&c.TLSConfig)
		for _, f := range wc.files {
			wc.stamp += fileStamp(f)
		}
	}
	return wc, nil
}

// loadTLS builds the server's TLS configuration with exporter-toolkit and loads the certificate
// once: exporter-toolkit reads the certificate files again at every handshake, so a broken file
// would fail every connection; here it fails a reload, and the loaded certificate stays.
func loadTLS(c *web.TLSConfig, http2 bool) (*tls.Config, error) {
	for _, f := range tlsFiles(c) {
		if _, _, err := readWebFile(f); err != nil { // bounded, before exporter-toolkit reads it
			return nil, fmt.Errorf("tls_server_config: %w", err)
		}
	}
	cfg, err := web.ConfigToTLSConfig(c)
	if err != nil {
		return nil, fmt.Errorf("tls_server_config: %w", err)
	}
	if cfg.GetCertificate != nil {
		cert, err := cfg.GetCertificate(nil)
		if err != nil {
			return nil, fmt.Errorf("tls_server_config: %w", err)
		}
		cfg.GetCertificate, cfg.Certificates = nil, []tls.Certificate{*cert}
	}
	cfg.NextProtos = []string{"http/1.1"}
	if http2 {
		cfg.NextProtos = []string{"h2", "http/1.1"}
	}
	return cfg, nil
}

func tlsFiles(c *web.TLSConfig) []string {
	var out []string
	for _, f := range []string{c.TLSCertPath, c.TLSKeyPath, c.ClientCAs} {
		if f != "" {
			out = append(out, f)
		}
	}
	return out
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
