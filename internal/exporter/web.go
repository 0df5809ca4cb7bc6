package exporter

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/crypto/bcrypt"
)

// Web serves the exporter's HTTP through the last good web configuration (TLS, basic auth,
// headers, rate limit). It fails closed: the configuration is validated at start (an error
// there stops the exporter) and at each reload, on SIGHUP or when a file changes; a reload
// that fails, or that would drop basic auth or switch TLS, keeps the configuration in use and
// says why. Nothing is read from the files between reloads.
type Web struct {
	path string
	log  func(string)
	cur  atomic.Pointer[webConfig]
	ok   atomic.Bool // the last reload succeeded

	mu        sync.Mutex // reloads, one at a time
	lastTried string     // the stamp of the files last loaded or refused

	bcryptMu sync.Mutex // one password check at a time: a flood of guesses takes one CPU
	cacheMu  sync.Mutex
	cache    map[[32]byte]bool
	dummy    []byte // the hash an unknown user's password is checked against
}

// NewWeb loads the web configuration at path ("": plain HTTP, no auth). log receives the
// reload messages.
func NewWeb(path string, log func(string)) (*Web, error) {
	w := &Web{path: path, log: log, cache: map[[32]byte]bool{}}
	w.ok.Store(true)
	if path == "" {
		w.cur.Store(&webConfig{http2: true})
		return w, nil
	}
	c, err := loadWebConfig(path)
	if err != nil {
		return nil, err
	}
	w.cur.Store(c)
	w.lastTried = c.stamp
	return w, nil
}

// Scheme is "https" when the exporter serves TLS, else "http".
func (w *Web) Scheme() string {
	if w.cur.Load().tls != nil {
		return "https"
	}
	return "http"
}

// ReloadOK reports whether the last reload succeeded (true before any).
func (w *Web) ReloadOK() bool { return w.ok.Load() }

// Families is pmc_web_config_last_reload_successful.
func (w *Web) Families() []Family {
	ok := 0.0
	if w.ReloadOK() {
		ok = 1
	}
	return []Family{One("pmc_web_config_last_reload_successful",
		"1 when the last reload of --web.config.file succeeded (or none was tried), 0 while the exporter keeps an older configuration.",
		Gauge, ok)}
}

// Reload reads the configuration again and uses it if it is valid and keeps the protection
// in use; otherwise the configuration in use stays. The outcome is logged.
func (w *Web) Reload() error {
	if w.path == "" {
		return nil
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	old := w.cur.Load()
	next, err := loadWebConfig(w.path)
	if err == nil {
		err = downgrade(old, next)
	}
	w.lastTried = w.stamp(old)
	if err != nil {
		w.ok.Store(false)
		w.log(fmt.Sprintf("--web.config.file %s: %v: keeping the configuration loaded at %s", w.path, err,
			old.loaded.Format(time.DateTime)))
		return err
	}
	w.lastTried = next.stamp
	w.cur.Store(next)
	w.ok.Store(true)
	w.log(fmt.Sprintf("--web.config.file %s reloaded", w.path))
	return nil
}

// downgrade refuses a configuration that would lower the protection in use, or change what
// only a restart can (the listeners' TLS and HTTP/2).
func downgrade(old, next *webConfig) error {
	switch {
	case len(old.users) > 0 && len(next.users) == 0:
		return errors.New("no basic_auth_users: that would serve without basic auth (restart pmc exporter to turn it off)")
	case (old.tls != nil) != (next.tls != nil):
		return errors.New("turning TLS on or off takes a restart of pmc exporter")
	case old.tls != nil && old.http2 != next.http2:
		return errors.New("changing http2 takes a restart of pmc exporter")
	}
	return nil
}

// stamp is what the files of configuration c (its file, and its TLS files) hold now.
func (w *Web) stamp(c *webConfig) string {
	s := fileStamp(w.path)
	for _, f := range c.files {
		s += fileStamp(f)
	}
	return s
}

// Watch reloads whenever the files change, looking every interval until ctx ends; a change
// is tried once (a broken file is reported once, not at every look).
func (w *Web) Watch(ctx context.Context, every time.Duration) {
	if w.path == "" {
		return
	}
	tick(ctx, every, func() {
		w.mu.Lock()
		changed := w.stamp(w.cur.Load()) != w.lastTried
		w.mu.Unlock()
		if changed {
			w.Reload()
		}
	})
}

// Handler puts the configuration in use in front of next: rate limit, headers, basic auth.
func (w *Web) Handler(next http.Handler) http.Handler {
	return http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		c := w.cur.Load()
		if c.limit != nil && !c.limit.Allow() {
			http.Error(rw, http.StatusText(http.StatusTooManyRequests), http.StatusTooManyRequests)
			return
		}
		for k, v := range c.headers {
			rw.Header().Set(k, v)
		}
		if len(c.users) > 0 && !w.authorized(c, r) {
			rw.Header().Set("WWW-Authenticate", `Basic realm="pmc exporter"`)
			http.Error(rw, http.StatusText(http.StatusUnauthorized), http.StatusUnauthorized)
			return
		}
		next.ServeHTTP(rw, r)
	})
}

// authorized checks the request's basic auth against c's users. An unknown user costs a
// bcrypt comparison too, so that timing does not tell users apart; results are remembered
// (keyed by a hash of user, stored hash and password) so that a scrape costs one bcrypt per
// password, not one per scrape.
func (w *Web) authorized(c *webConfig, r *http.Request) bool {
	user, pass, ok := r.BasicAuth()
	if !ok {
		return false
	}
	hash, known := c.users[user]
	key := sha256.Sum256([]byte(user + "\x00" + hash + "\x00" + pass))
	w.cacheMu.Lock()
	res, cached := w.cache[key]
	w.cacheMu.Unlock()
	if cached {
		return res
	}
	w.bcryptMu.Lock()
	if !known {
		if w.dummy == nil {
			w.dummy, _ = bcrypt.GenerateFromPassword([]byte(rand.Text()), bcrypt.DefaultCost)
		}
		hash = string(w.dummy)
	}
	res = bcrypt.CompareHashAndPassword([]byte(hash), []byte(pass)) == nil && known
	w.bcryptMu.Unlock()
	w.cacheMu.Lock()
	if len(w.cache) >= 256 {
		clear(w.cache)
	}
	w.cache[key] = res
	w.cacheMu.Unlock()
	return res
}

// Serve serves srv on every listener, through Handler, with TLS when the configuration has it
// (the certificate of the configuration in use at each handshake), until srv is shut down.
func (w *Web) Serve(listeners []net.Listener, srv *http.Server) error {
	srv.Handler = w.Handler(srv.Handler)
	c := w.cur.Load()
	if c.tls != nil {
		srv.TLSConfig = &tls.Config{GetConfigForClient: func(*tls.ClientHelloInfo) (*tls.Config, error) {
			return w.cur.Load().tls, nil
		}}
		if !c.http2 {
			srv.TLSNextProto = map[string]func(*http.Server, *tls.Conn, http.Handler){}
		}
	}
	errs := make(chan error, len(listeners))
	for _, l := range listeners {
		go func() {
			if c.tls != nil {
				errs <- srv.ServeTLS(l, "", "")
			} else {
				errs <- srv.Serve(l)
			}
		}()
	}
	var first error
	for range listeners {
		if err := <-errs; err != nil && !errors.Is(err, http.ErrServerClosed) && first == nil {
			first = err
			srv.Close()
		}
	}
	return first
}
