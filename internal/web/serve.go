package web

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/google/pprof/driver"
	pprof "github.com/google/pprof/profile"

	pmcdriver "github.com/pmc-tools/pmc/internal/driver"
	"github.com/pmc-tools/pmc/internal/proffmt"
	"github.com/pmc-tools/pmc/internal/result"
)

// Options say where the views are served and who is told.
type Options struct {
	// Listener is where to serve (Listen's); it is closed when serving ends.
	Listener net.Listener
	// Cmd names the command in messages ("report": "pmc report: serving ...").
	Cmd    string
	Stderr io.Writer
}

// Recording is a loaded recording and the file it was loaded from.
type Recording struct {
	Path   string
	Result *pmcdriver.Result
}

// Listen listens on addr, --http's value: "" is 127.0.0.1 on a free port, "PORT" and ":PORT"
// are 127.0.0.1's port, "HOST:PORT" is HOST's (":0" and "HOST:0": a free port).
func Listen(addr string) (net.Listener, error) {
	switch {
	case addr == "":
		addr = "127.0.0.1:0"
	case !strings.Contains(addr, ":"):
		addr = "127.0.0.1:" + addr
	case strings.HasPrefix(addr, ":"):
		addr = "127.0.0.1" + addr
	}
	if _, _, err := net.SplitHostPort(addr); err != nil {
		return nil, fmt.Errorf("--http %s: give HOST:PORT, :PORT or PORT (%v)", addr, err)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("--http %s: %v", addr, err)
	}
	return ln, nil
}

// Report serves the recording's profile (every sampled event) until ctx is done; event, when
// not "", is the one shown first (else the one perf report shows first).
func Report(ctx context.Context, rec Recording, event string, o Options) error {
	first, err := pmcdriver.PickEvent(rec.Result.Profile, event)
	if err != nil {
		return fmt.Errorf("%s: %v", rec.Path, err) // an empty view would look like a bug
	}
	events := []int{first}
	for _, e := range rec.Result.Profile.Events {
		if e.Samples > 0 && e.Index != first {
			events = append(events, e.Index)
		}
	}
	p, err := proffmt.PprofProfile(rec.Result.Profile, proffmt.PprofOptions{Events: events, DSOAddresses: true})
	if err != nil {
		return err
	}
	p.Comments = append(p.Comments, "pmc report -i "+rec.Path)
	obj := &objTool{}
	code := rec.Result.Code()
	defer code.Close()
	addObjects(obj, rec.Result, code, p)
	return serve(ctx, o, obj, map[string]*pprof.Profile{rec.Path: p}, []string{rec.Path}, nil)
}

// Diff serves the difference between recording cur and the baseline base in event (""
// the baseline's first event with samples) until ctx is done: pprof's -diff_base with
// -normalize, so a function's percentage is its share in cur minus its share in base
// (pmc diff's Delta Abs).
func Diff(ctx context.Context, base, cur Recording, event string, o Options) error {
	if base.Path == cur.Path {
		return fmt.Errorf("%s against itself: give two recordings", base.Path)
	}
	profiles := map[string]*pprof.Profile{}
	obj := &objTool{}
	for _, rec := range []Recording{base, cur} {
		ev, err := pmcdriver.PickEvent(rec.Result.Profile, event)
		if err != nil {
			return fmt.Errorf("%s: %v", rec.Path, err)
		}
		event = rec.Result.Profile.Events[ev].Name
		p, err := proffmt.PprofProfile(rec.Result.Profile, proffmt.PprofOptions{Events: []int{ev}, DSOAddresses: true})
		if err != nil {
			return err
		}
		p.Comments = append(p.Comments, "pmc diff "+base.Path+" "+cur.Path)
		code := rec.Result.Code()
		defer code.Close()
		addObjects(obj, rec.Result, code, p)
		profiles[rec.Path] = p
	}
	return serve(ctx, o, obj, profiles, []string{cur.Path}, map[string]string{"diff_base": base.Path, "normalize": "true"})
}

// addObjects gives obj the DSOs of r's profile under the names and ranges of p's mappings
// (p is r's profile converted).
func addObjects(obj *objTool, r *pmcdriver.Result, code *pmcdriver.Code, p *pprof.Profile) {
	for _, m := range p.Mapping {
		for _, d := range r.Profile.Sampled {
			if d.Name == m.File && d.BuildID == m.BuildID {
				obj.add(d, code, m.Start, m.Limit)
				break
			}
		}
	}
}

// serve runs pprof's web interface on the profiles (args are pprof's sources; set are
// flags for pprof beyond the web server's).
func serve(ctx context.Context, o Options, obj *objTool, profiles map[string]*pprof.Profile, args []string, set map[string]string) error {
	defer o.Listener.Close()
	if _, err := os.UserConfigDir(); err != nil {
		return fmt.Errorf("the web view keeps its saved settings under $HOME/.config/pprof: %v", err)
	}
	u := &ui{w: o.Stderr, prefix: "pmc " + o.Cmd + ": "}
	flags := map[string]string{"http": o.Listener.Addr().String(), "no_browser": "true", "symbolize": "none"}
	for k, v := range set {
		flags[k] = v
	}
	fs := newFlagSet(args, flags)
	s := &server{ctx: ctx, o: o, ui: u}
	return driver.PProf(&driver.Options{
		Flagset:    fs,
		Fetch:      fetcher{profiles: profiles, flags: fs},
		Sym:        noSymbolizer{},
		Obj:        obj,
		UI:         u,
		HTTPServer: s.serve,
	})
}

// fetcher hands pprof the converted profiles by name.
type fetcher struct {
	profiles map[string]*pprof.Profile
	flags    *flagSet
}

func (f fetcher) Fetch(src string, _, _ time.Duration) (*pprof.Profile, string, error) {
	if err := f.flags.unknown(); err != nil {
		return nil, "", err
	}
	p, ok := f.profiles[src]
	if !ok {
		return nil, "", fmt.Errorf("%s: not a recording of this command", src)
	}
	return p.Copy(), "", nil
}

// noSymbolizer leaves the profile as pmc symbolized it.
type noSymbolizer struct{}

func (noSymbolizer) Symbolize(string, driver.MappingSources, *pprof.Profile) error { return nil }

// ui never prompts, opens no browser, and says pprof's messages on stderr as pmc's.
type ui struct {
	mu     sync.Mutex
	w      io.Writer
	prefix string
}

func (u *ui) ReadLine(string) (string, error)     { return "", io.EOF }
func (u *ui) IsTerminal() bool                    { return false }
func (u *ui) WantBrowser() bool                   { return false }
func (u *ui) SetAutoComplete(func(string) string) {}

func (u *ui) Print(args ...any) {
	msg := fmt.Sprint(args...)
	if strings.HasPrefix(msg, "Serving web UI on ") {
		return // the server says where it listens, once it does
	}
	u.say(msg)
}

func (u *ui) PrintErr(args ...any) { u.say(fmt.Sprint(args...)) }

func (u *ui) say(msg string) {
	u.mu.Lock()
	defer u.mu.Unlock()
	for _, l := range strings.Split(strings.TrimRight(msg, "\n"), "\n") {
		fmt.Fprintln(u.w, u.prefix+result.Printable(l))
	}
}

// server serves pprof's handlers on the listener until its context is done.
type server struct {
	ctx context.Context
	o   Options
	ui  *ui
}

func (s *server) serve(args *driver.HTTPServerArgs) error {
	ln := s.o.Listener
	local := isLoopback(ln.Addr())
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if local && !localRequest(r) {
			http.Error(w, "pmc serves this recording to the local machine only", http.StatusForbidden)
			return
		}
		if hd := args.Handlers[r.URL.Path]; hd != nil {
			hd.ServeHTTP(w, r)
			return
		}
		http.NotFound(w, r)
	})
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 30 * time.Second}
	done := make(chan struct{})
	defer close(done)
	go func() {
		select {
		case <-s.ctx.Done():
			srv.Close()
		case <-done:
		}
	}()
	if !local {
		s.ui.say("anyone who reaches " + ln.Addr().String() + " can read this recording: the web view has no authentication")
	}
	if _, err := exec.LookPath("dot"); err != nil {
		s.ui.say("the graph view needs graphviz's dot (apt install graphviz); the flame graph, top, peek, source and disassembly views work without it")
	}
	url := "http://" + ln.Addr().String() + "/"
	s.ui.say("serving on " + url + " (Ctrl-C stops)")
	err := srv.Serve(ln)
	if errors.Is(err, http.ErrServerClosed) {
		return nil
	}
	return err
}

func isLoopback(a net.Addr) bool {
	t, ok := a.(*net.TCPAddr)
	return ok && t.IP.IsLoopback()
}

// localRequest says whether r comes from this machine and names it as such: a page of
// another site that resolves its name to 127.0.0.1 (DNS rebinding) sends its own Host.
func localRequest(r *http.Request) bool {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if ip := net.ParseIP(host); err != nil || ip == nil || !ip.IsLoopback() {
		return false
	}
	name := r.Host
	if h, _, err := net.SplitHostPort(r.Host); err == nil {
		name = h
	}
	if name == "localhost" {
		return true
	}
	ip := net.ParseIP(strings.Trim(name, "[]"))
	return ip != nil && ip.IsLoopback()
}
