package exporter

import (
	"context"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"sync"
	"time"

	"github.com/pmc-tools/pmc/internal/host"
	"github.com/pmc-tools/pmc/internal/result"
	"github.com/pmc-tools/pmc/internal/stat"
)

// Config says what an Exporter counts.
type Config struct {
	Events  []stat.Event // resolved for system-wide counting
	PerCPU  bool         // one series per CPU instead of their sum
	Backend stat.Backend // stat.Kernel{} in production
	// Online lists the online CPUs now (host.Machine.OnlineNow); read at every refresh.
	Online func() ([]int, error)
	// Cgroups: the patterns of the cgroups to count (path.Match over paths relative to the
	// cgroup v2 root, "system.slice/*.service"), the root as an fs.FS to walk and its
	// absolute path (for the cgroup fds), and the most cgroups counted at once.
	Cgroups     []string
	CgroupFS    fs.FS
	CgroupMount string
	CgroupLimit int
}

// Exporter counts continuously; Families gives its counts at each scrape.
type Exporter struct {
	cfg    Config
	labels []string // event, then cpu and cgroup when they are used
	names  []string // the event label of each event (unique)

	mu      sync.Mutex
	system  *counting
	cgroups map[string]*counting
	dropped int   // cgroups matched beyond the limit at the last refresh
	lastErr error // the last refresh's error (reported, never fatal)
	cpus    []int
	reopens int // system session reopened after a CPU hotplug
}

// counting is one open session (system-wide or one cgroup) and the totals carried over from
// the sessions it replaced.
type counting struct {
	sess stat.Session
	req  *stat.Request
	base map[key]acc     // per event and CPU, from closed sessions
	last map[key]acc     // the last reading of sess
	err  error           // the last read's error
	high map[key]float64 // the largest count exposed per series: the exposition stays monotonic
}

// key is one counter slot: event index and CPU.
type key struct{ event, cpu int }

// acc is a slot's scaled count and its enabled and running nanoseconds; counted is false
// when the event never ran (or was refused) there.
type acc struct {
	count            float64
	enabled, running float64
	counted          bool
	err              error
}

// New opens the system-wide session and the cgroups' and starts counting.
func New(cfg Config) (*Exporter, error) {
	if cfg.Backend == nil {
		cfg.Backend = stat.Kernel{}
	}
	e := &Exporter{cfg: cfg, cgroups: map[string]*counting{}, labels: []string{"event"}}
	if cfg.PerCPU {
		e.labels = append(e.labels, "cpu")
	}
	if len(cfg.Cgroups) > 0 {
		e.labels = append(e.labels, "cgroup")
	}
	seen := map[string]int{}
	for _, ev := range cfg.Events {
		seen[ev.Name]++
		n := ev.Name
		if seen[ev.Name] > 1 {
			n = fmt.Sprintf("%s#%d", ev.Name, seen[ev.Name])
		}
		e.names = append(e.names, n)
	}
	cpus, err := cfg.Online()
	if err != nil {
		return nil, fmt.Errorf("online CPUs: %w", err)
	}
	e.cpus = cpus
	if e.system, err = e.open("", cpus); err != nil {
		return nil, err
	}
	if len(cfg.Cgroups) > 0 {
		// A bad pattern or an unreadable hierarchy stops the start; a cgroup that cannot be
		// counted later only shows in pmc_cgroups_dropped and pmc_refresh_ok.
		if _, _, err := host.MatchCgroups(cfg.CgroupFS, cfg.Cgroups, 1); err != nil {
			e.Close()
			return nil, err
		}
	}
	e.Refresh()
	return e, nil
}

// open starts a system-wide session on cpus, of one cgroup when cgroup is not "".
func (e *Exporter) open(cgroup string, cpus []int) (*counting, error) {
	// NoBound: the scrapes read the counters; reads every 10 ms for pmc stat's error bound
	// would only cost a long-running exporter.
	req := &stat.Request{Mode: stat.System, Events: e.cfg.Events, CPUs: cpus, Repeat: 1, PerCPU: true, NoBound: true}
	if cgroup != "" {
		req.Cgroup = path.Join(e.cfg.CgroupMount, cgroup)
	}
	s, err := e.cfg.Backend.Begin(context.Background(), req, 0)
	if err != nil {
		return nil, err
	}
	if err := s.Start(); err != nil {
		s.Close()
		return nil, err
	}
	return &counting{sess: s, req: req, base: map[key]acc{}}, nil
}

// Refresh follows the machine: reopens the system session when the online CPUs changed and
// opens and closes cgroup sessions as cgroups come and go. A cgroup that cannot be counted
// is left out and reported through the returned error; counting goes on.
func (e *Exporter) Refresh() error {
	cpus, err := e.cfg.Online()
	e.mu.Lock()
	defer e.mu.Unlock()
	if err == nil && !slices.Equal(cpus, e.cpus) {
		e.cpus = cpus
		if err = e.reopen(e.system, "", cpus); err == nil {
			e.reopens++
		}
		for name, c := range e.cgroups {
			if rerr := e.reopen(c, name, cpus); rerr != nil {
				c.sess.Close()
				delete(e.cgroups, name)
			}
		}
	}
	if len(e.cfg.Cgroups) > 0 {
		if cerr := e.refreshCgroups(); cerr != nil && err == nil {
			err = cerr
		}
	}
	e.lastErr = err
	return err
}

// reopen replaces c's session with one on cpus, carrying its totals over.
func (e *Exporter) reopen(c *counting, cgroup string, cpus []int) error {
	n, err := e.open(cgroup, cpus)
	if err != nil {
		return err
	}
	e.read(c)
	for k, a := range c.last {
		c.base[k] = c.base[k].plus(a)
	}
	c.sess.Close()
	c.sess, c.req, c.last = n.sess, n.req, nil
	return nil
}

func (e *Exporter) refreshCgroups() error {
	names, more, err := host.MatchCgroups(e.cfg.CgroupFS, e.cfg.Cgroups, e.cfg.CgroupLimit)
	if err != nil {
		return fmt.Errorf("listing cgroups: %w", err)
	}
	e.dropped = more
	keep := map[string]bool{}
	var openErr error
	for _, name := range names {
		keep[name] = true
		if _, ok := e.cgroups[name]; ok {
			continue
		}
		c, err := e.open(name, e.cpus)
		if err != nil {
			// Gone between the walk and the open, or refused: not counted, said once.
			if openErr == nil {
				openErr = fmt.Errorf("cgroup %s: %w", name, err)
			}
			e.dropped++
			continue
		}
		e.cgroups[name] = c
	}
	for name, c := range e.cgroups {
		if !keep[name] {
			c.sess.Close()
			delete(e.cgroups, name)
		}
	}
	return openErr
}

// Run refreshes every interval until ctx ends. Errors of a refresh are kept for the
// pmc_refresh_ok series.
func (e *Exporter) Run(ctx context.Context, every time.Duration) {
	tick(ctx, every, func() { e.Refresh() })
}

// tick calls f every interval until ctx ends.
func tick(ctx context.Context, every time.Duration, f func()) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			f()
		}
	}
}

// Close ends every session.
func (e *Exporter) Close() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.system != nil {
		e.system.sess.Close()
		e.system = nil
	}
	for name, c := range e.cgroups {
		c.sess.Close()
		delete(e.cgroups, name)
	}
	return nil
}

// Cgroups lists the cgroups counted now, sorted.
func (e *Exporter) Cgroups() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	var out []string
	for n := range e.cgroups {
		out = append(out, n)
	}
	slices.Sort(out)
	return out
}

func (a acc) plus(b acc) acc {
	return acc{count: a.count + b.count, enabled: a.enabled + b.enabled, running: a.running + b.running,
		counted: a.counted || b.counted, err: b.err}
}

// read reads c's session into c.last (scaled per slot, like pmc stat).
func (e *Exporter) read(c *counting) {
	rs, err := c.sess.Read()
	c.err = err
	if err != nil {
		return
	}
	last := make(map[key]acc, len(rs))
	for _, r := range rs {
		k := key{r.Event, r.CPU}
		a := acc{enabled: float64(r.Value.Enabled), running: float64(r.Value.Running), err: r.Err}
		rd := result.Reading{Raw: r.Value.Raw, Enabled: r.Value.Enabled, Running: r.Value.Running}
		switch {
		case r.Err != nil:
		case rd.Status() == result.Counted:
			a.counted, a.count = true, rd.Scaled()
		case rd.Enabled == 0:
			// Never enabled yet: a cgroup's events run only while its tasks do, and a cgroup
			// that has not run a task has counted nothing, a true 0 for a Prometheus counter.
			// Enabled but never on a counter stays not counted.
			a.counted, a.count = true, float64(rd.Raw)
		}
		last[k] = last[k].plus(a)
	}
	c.last = last
}

// totals is c's totals now: its carried base plus its last reading, per event and CPU.
func (c *counting) totals() map[key]acc {
	out := make(map[key]acc, len(c.base)+len(c.last))
	for k, a := range c.base {
		out[k] = a
	}
	for k, a := range c.last {
		out[k] = out[k].plus(a)
	}
	return out
}
