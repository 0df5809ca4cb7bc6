package exporter

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"sync"
	"time"

	"github.com/pmc-tools/pmc/internal/host"
	"github.com/pmc-tools/pmc/internal/unix"
)

// Options are pmc exporter's: what to serve where, and the counting Config (its Events
// resolved by the caller).
type Options struct {
	Config
	Listen    []string      // addresses to serve /metrics on
	Refresh   time.Duration // how often to look for cgroups and CPU hotplug
	Window    string        // the rate() window of the recording rules
	WebConfig string        // the web configuration file ("": plain HTTP)
	Version   string        // pmc's, in pmc_build_info
	// Warnf writes one message line (the caller's prefix and escaping).
	Warnf func(format string, args ...any)
}

// Check rejects flag values Serve cannot use; emptyEvents: -e was given naming no event.
func (o *Options) Check(emptyEvents bool) error {
	switch {
	case len(o.Listen) == 0 || strings.TrimSpace(strings.Join(o.Listen, "")) == "":
		return errors.New("--listen: give an address, e.g. --listen 127.0.0.1:9464")
	case o.CgroupLimit < 1:
		return fmt.Errorf("--cgroup-limit %d: give a positive number", o.CgroupLimit)
	case o.Refresh < 100*time.Millisecond:
		return fmt.Errorf("--refresh %v: give at least 100ms, e.g. --refresh 5s", o.Refresh)
	case emptyEvents:
		return errors.New("-e: name at least one event")
	}
	for _, p := range o.Cgroups {
		if strings.TrimSpace(p) == "" {
			return errors.New("--cgroup '': give a glob such as 'system.slice/*'")
		}
	}
	if d, err := time.ParseDuration(o.Window); err != nil || d <= 0 || strings.ContainsAny(o.Window, ".µu") || strings.Contains(o.Window, "ns") {
		return fmt.Errorf("--rules-window %q: give a Prometheus duration such as 1m or 30s", o.Window)
	}
	return nil
}

// Serve counts on m and serves the counts on /metrics until ctx ends, Ctrl-C or SIGTERM;
// SIGHUP reloads the web configuration and looks for cgroups and CPUs at once. The line
// saying where it serves goes to stderr.
func Serve(ctx context.Context, m *host.Machine, o Options, stderr io.Writer) error {
	logf := serveLog(o.Warnf)
	web, err := NewWeb(o.WebConfig, logf)
	if err != nil {
		return fmt.Errorf("--web.config.file %s: %v", o.WebConfig, err)
	}
	cfg := o.Config
	cfg.Online = m.OnlineNow
	if len(o.Cgroups) > 0 {
		mount, err := m.Cgroup2Mount()
		if err != nil {
			return fmt.Errorf("--cgroup: %w", err)
		}
		cfg.CgroupMount, cfg.CgroupFS = mount, host.CgroupTree(mount)
	}
	// Listen before counting: a port in use fails at once.
	var listeners []net.Listener
	defer func() {
		for _, l := range listeners {
			l.Close()
		}
	}()
	for _, addr := range o.Listen {
		l, err := net.Listen("tcp", addr)
		if err != nil {
			return fmt.Errorf("--listen %s: %v", addr, err)
		}
		listeners = append(listeners, l)
	}
	exp, err := New(cfg)
	if err != nil {
		return err
	}
	defer exp.Close()
	if ctx == nil {
		ctx = context.Background()
	}
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, unix.SIGTERM)
	defer stop()
	go exp.Run(ctx, o.Refresh)
	go web.Watch(ctx, o.Refresh)
	defer reloadOnHangup(ctx, web, exp, logf)()

	sources := []Source{exp.Families, BuildInfo(o.Version), Process(os.DirFS("/"))}
	if o.WebConfig != "" {
		sources = append(sources, web.Families)
	}
	server := newServer(sources)
	var addrs []string
	for _, l := range listeners {
		addrs = append(addrs, web.Scheme()+"://"+l.Addr().String()+"/metrics")
	}
	fmt.Fprintf(stderr, "pmc exporter: serving %s (%d events on %d CPUs, %d cgroups)\n",
		strings.Join(addrs, " "), len(o.Events), len(m.PMUs.Online), len(exp.Cgroups()))
	go func() {
		<-ctx.Done()
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		server.Shutdown(sctx)
	}()
	return web.Serve(listeners, server)
}

// reloadOnHangup makes SIGHUP reload, as Prometheus exporters do: the web configuration, and
// the cgroups and CPUs at once (rather than at the next refresh). It ended the exporter
// before. The function returned stops listening for SIGHUP.
func reloadOnHangup(ctx context.Context, web *Web, exp *Exporter, logf func(string)) func() {
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, unix.SIGHUP)
	go func() {
		for {
			select {
			case <-ctx.Done():
				return
			case <-hup:
				web.Reload()
				if err := exp.Refresh(); err != nil {
					logf(fmt.Sprintf("SIGHUP: cgroups and CPUs refreshed: %v", err))
				} else {
					logf(fmt.Sprintf("SIGHUP: cgroups and CPUs refreshed (%d cgroups)", len(exp.Cgroups())))
				}
			}
		}
	}()
	return func() { signal.Stop(hup) }
}

// newServer serves sources on /metrics and a line saying so on /.
func newServer(sources []Source) *http.Server {
	mux := http.NewServeMux()
	mux.Handle("/metrics", MetricsHandler(sources...))
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/" {
			http.NotFound(w, r)
			return
		}
		io.WriteString(w, "pmc exporter: the counts are on /metrics\n")
	})
	// A slow or stuck client holds only its own connection: counting never waits for it, and
	// these timeouts close it.
	return &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second, WriteTimeout: 30 * time.Second,
		IdleTimeout: 2 * time.Minute, ErrorLog: nil}
}

// serveLog writes the exporter's messages through warnf, one line each, with pmc exporter's
// prefix (from the reload and signal goroutines: one at a time).
func serveLog(warnf func(format string, args ...any)) func(string) {
	var mu sync.Mutex
	return func(msg string) {
		mu.Lock()
		defer mu.Unlock()
		warnf("pmc exporter: %s", msg)
	}
}
