package top

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"time"

	"github.com/pmc-tools/pmc/internal/host"
	"github.com/pmc-tools/pmc/internal/symbol"
	"github.com/pmc-tools/pmc/internal/unix"
)

// Flags are pmc top's options as its command line gives them.
type Flags struct {
	Event      string
	Freq       uint64
	Delay      float64 // seconds between refreshes
	Pids       string  // comma-separated process ids
	Cgroup     string
	Sort       string // comma-separated keys of SortKeys
	Comms      []string
	Callchain  bool
	Stdio      bool
	Entries    int
	Iterations int
}

// Env is what Main needs from its caller.
type Env struct {
	Machine *host.Machine
	// Kernel reads the running kernel's symbols (an error: kernel samples show addresses).
	Kernel func() (*symbol.Table, error)
	Out    io.Writer
	In     *os.File // the keys of the full-screen view
	// Warnf writes one message line (the caller's escaping).
	Warnf func(format string, args ...any)
}

// Main is pmc top: it checks the flags, opens the sampling and runs the view until q, -n
// refreshes, Ctrl-C, SIGTERM or SIGHUP.
func Main(f *Flags, env Env) error {
	if f.Delay <= 0 || f.Delay > 3600 {
		return fmt.Errorf("-d %g: give seconds between refreshes, more than 0", f.Delay)
	}
	if f.Freq == 0 {
		return errors.New("-F 0: give samples per second, e.g. -F 4000")
	}
	if f.Pids != "" && f.Cgroup != "" {
		return errors.New("-p and --cgroup: choose one")
	}
	var pids []int
	for _, p := range strings.Split(f.Pids, ",") {
		if p = strings.TrimSpace(p); p == "" {
			continue
		}
		n, err := strconv.Atoi(p)
		if err != nil || n <= 0 {
			return fmt.Errorf("-p %s: %q is not a process id", f.Pids, p)
		}
		pids = append(pids, n)
	}
	var keys []string
	for _, k := range strings.Split(f.Sort, ",") {
		if k = strings.TrimSpace(k); k != "" {
			keys = append(keys, k)
		}
	}
	m := env.Machine
	kernel, kerr := env.Kernel()
	res := symbol.NewResolver(os.DirFS("/"))
	res.NoLines = true // rows name functions: no DWARF line tables to read
	model, err := NewModel(Options{Sort: keys, Comms: f.Comms, Callchain: f.Callchain}, res, kernel)
	if err != nil {
		return err
	}
	if !f.Stdio && !unix.IsTerminal(int(env.In.Fd())) {
		return errors.New("the full-screen view needs a terminal on stdin: use --stdio")
	}
	src, err := Open(SourceOptions{Target: Target{Pids: pids, Cgroup: f.Cgroup}, Freq: f.Freq,
		Callchain: f.Callchain, Machine: m, Event: f.Event})
	if err != nil {
		return fmt.Errorf("sampling: %w", err)
	}
	defer src.Close()
	for _, n := range src.Notes {
		env.Warnf("pmc top: %s", n)
	}
	if kerr != nil {
		env.Warnf("pmc top: kernel samples show addresses: %v", kerr)
	}
	target := fmt.Sprintf("all, %d CPUs", src.CPUs)
	switch {
	case len(pids) > 0:
		target = "pid " + f.Pids
	case f.Cgroup != "":
		target = "cgroup " + f.Cgroup
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, unix.SIGTERM, unix.SIGHUP)
	defer stop()
	return Run(ctx, src, model, UIOptions{Delay: time.Duration(f.Delay * float64(time.Second)), Stdio: f.Stdio,
		Out: env.Out, In: env.In, Keys: keys, Rows: f.Entries, Target: target, Freq: f.Freq, Count: f.Iterations})
}
