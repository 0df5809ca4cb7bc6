package sim

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/pmc-tools/pmc/internal/launch"

	"github.com/pmc-tools/pmc/internal/perfevent"
	"github.com/pmc-tools/pmc/internal/result"
	"github.com/pmc-tools/pmc/internal/stat"
	"github.com/pmc-tools/pmc/internal/unix"
)

// BackendName is the result's backend: every writer labels such counts SIMULATED.
const BackendName = result.SimulatedPrefix + "cachegrind"

// Cache is one simulated cache level: cachegrind's --I1/--D1/--LL=size,assoc,line.
type Cache struct{ Size, Assoc, Line int }

func (c Cache) String() string { return fmt.Sprintf("%d,%d,%d", c.Size, c.Assoc, c.Line) }

// Geometry is the simulated hierarchy; a zero Cache leaves cachegrind's own choice.
type Geometry struct{ I1, D1, LL Cache }

// check says why cachegrind cannot simulate c: its number of sets, size / (ways x line),
// must be a whole power of two, and its line at least 32 bytes (cachegrind's largest register).
func (c Cache) check() error {
	if c.Line < 32 {
		return fmt.Errorf("a line of %d bytes: cachegrind needs lines of at least 32 bytes", c.Line)
	}
	if sets := c.Size / (c.Assoc * c.Line); c.Size%(c.Assoc*c.Line) != 0 || sets&(sets-1) != 0 {
		return fmt.Errorf("%d bytes / (%d ways x %d-byte lines) is not a power-of-two number of sets, which cachegrind needs",
			c.Size, c.Assoc, c.Line)
	}
	return nil
}

// Simulable is c itself when cachegrind can simulate it; otherwise the same size and line
// with the associativity nearest c's that gives a power-of-two number of sets (many
// last-level caches have 12, 20 or 30 ways, or 480 MiB), and false when there is none.
func (c Cache) Simulable() (Cache, bool) {
	if c.check() == nil {
		return c, true
	}
	if c.Line < 32 || c.Size%c.Line != 0 {
		return c, false
	}
	lines := c.Size / c.Line
	best := 0
	for sets := 1; sets <= lines; sets *= 2 {
		if lines%sets != 0 {
			break
		}
		if a := lines / sets; best == 0 || abs(a-c.Assoc) < abs(best-c.Assoc) {
			best = a
		}
	}
	return Cache{Size: c.Size, Assoc: best, Line: c.Line}, best > 0
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// ParseGeometry reads "D1=8192,4,64;LL=1048576,16,64" (any of I1, D1, LL) over g.
func ParseGeometry(spec string, g Geometry) (Geometry, error) {
	for _, part := range strings.Split(spec, ";") {
		if part = strings.TrimSpace(part); part == "" {
			continue
		}
		name, val, ok := strings.Cut(part, "=")
		f := strings.Split(val, ",")
		var c Cache
		var errs []error
		if ok && len(f) == 3 {
			for i, p := range []*int{&c.Size, &c.Assoc, &c.Line} {
				n, err := strconv.Atoi(strings.TrimSpace(f[i]))
				*p, errs = n, append(errs, err)
				if err == nil && n <= 0 {
					errs = append(errs, errors.New("not positive"))
				}
			}
		}
		if !ok || len(f) != 3 || errors.Join(errs...) != nil {
			return g, fmt.Errorf("--sim-cache %q: give LEVEL=SIZE,WAYS,LINE with LEVEL I1, D1 or LL, e.g. D1=32768,8,64", part)
		}
		if err := c.check(); err != nil {
			return g, fmt.Errorf("--sim-cache %q: %v", part, err)
		}
		if !g.set(strings.ToUpper(strings.TrimSpace(name)), c) {
			return g, fmt.Errorf("--sim-cache %q: the level is I1, D1 or LL", part)
		}
	}
	return g, nil
}

// Cachegrind is the simulated Backend.
type Cachegrind struct {
	Geometry Geometry
	Valgrind string   // path; "" finds valgrind on PATH
	Notes    []string // how the geometry was chosen, printed with the counts
}

// ErrNoValgrind: valgrind is not installed.
var ErrNoValgrind = errors.New("--sim needs valgrind on PATH: install it (apt-get install valgrind, dnf install valgrind)")

func (Cachegrind) Name() string { return BackendName }

// Args is valgrind's command line for out and the workload cmd.
func (c Cachegrind) Args(out string, cmd []string) []string {
	args := []string{"--tool=cachegrind", "--cache-sim=yes", "--branch-sim=yes", "-q", "--cachegrind-out-file=" + out,
		"--log-file=" + filepath.Join(filepath.Dir(out), "valgrind.log")}
	for _, l := range c.Geometry.Levels() {
		args = append(args, "--"+l.Name+"="+l.Cache.String())
	}
	return append(append(args, "--"), cmd...)
}

func (c Cachegrind) Begin(ctx context.Context, req *stat.Request, run int) (stat.Session, error) {
	if req.Mode != stat.Launch {
		return nil, errors.New("--sim simulates a command it runs: -p and -a/-C cannot be simulated")
	}
	if req.Interval > 0 {
		return nil, errors.New("--sim gives totals at the end of the run: -I is not available")
	}
	if len(req.Command) == 0 {
		return nil, errors.New("--sim needs a command to run")
	}
	if _, err := launch.LookPath(req.Command[0]); err != nil {
		return nil, err // as without --sim: exit 127 not found, 126 not executable
	}
	vg := c.Valgrind
	if vg == "" {
		p, err := exec.LookPath("valgrind")
		if err != nil {
			return nil, ErrNoValgrind
		}
		vg = p
	}
	dir, err := os.MkdirTemp("", "pmc-sim-")
	if err != nil {
		return nil, err
	}
	out := filepath.Join(dir, "cachegrind.out")
	cmd := exec.CommandContext(ctx, vg, c.Args(out, req.Command)...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = req.Stdin, req.Stdout, req.Stderr
	return &session{req: req, cmd: cmd, dir: dir, out: out, geometry: c.Geometry, notes: c.Notes, done: make(chan struct{})}, nil
}

type session struct {
	req      *stat.Request
	geometry Geometry
	cmd      *exec.Cmd
	dir      string
	out      string
	notes    []string
	done     chan struct{}
	start    time.Time
	elapsed  time.Duration
	waitErr  error
}

func (s *session) Start() error {
	s.start = time.Now()
	if err := s.cmd.Start(); err != nil {
		close(s.done)
		return fmt.Errorf("--sim: starting valgrind: %w", err)
	}
	go func() {
		s.waitErr = s.cmd.Wait()
		s.elapsed = time.Since(s.start)
		close(s.done)
	}()
	return nil
}

func (s *session) Ticks() <-chan time.Duration { return nil }
func (s *session) Done() <-chan struct{}       { return s.done }
func (s *session) Notes() []string {
	return append([]string{Note(s.geometry)}, s.notes...)
}

func (s *session) Outcome() (stat.Outcome, error) {
	o := stat.Outcome{Elapsed: s.elapsed}
	if ps := s.cmd.ProcessState; ps != nil {
		o.User, o.Sys = ps.UserTime(), ps.SystemTime()
		o.ExitStatus = ps.ExitCode()
		// valgrind ends with the workload's own fatal signal: 128+N and its name, as pmc
		// stat without --sim reports them (ExitCode is -1 for any signal).
		type waitStatus interface {
			Signaled() bool
			Signal() unix.Signal
		}
		if ws, ok := ps.Sys().(waitStatus); ok && ws.Signaled() {
			o.ExitStatus, o.Signal = 128+int(ws.Signal()), unix.SignalName(ws.Signal())
			if o.Signal == "" {
				o.Signal = fmt.Sprintf("signal %d", int(ws.Signal()))
			}
		} else if o.ExitStatus < 0 {
			o.ExitStatus, o.Signal = 128+9, strings.TrimPrefix(ps.String(), "signal: ")
		}
	}
	if s.waitErr != nil && s.cmd.ProcessState == nil {
		return o, s.waitErr
	}
	return o, nil
}

func (s *session) Close() error {
	select {
	case <-s.done:
	default:
		if s.cmd.Process != nil {
			s.cmd.Process.Kill()
			<-s.done
		}
	}
	return os.RemoveAll(s.dir)
}

// Read returns the simulated totals once valgrind ended (zeros before).
func (s *session) Read() ([]stat.Reading, error) {
	var totals map[string]uint64
	select {
	case <-s.done:
		data, err := os.ReadFile(s.out)
		if err != nil {
			msg := "did the command run?"
			if log, lerr := os.ReadFile(filepath.Join(s.dir, "valgrind.log")); lerr == nil {
				if lines := strings.Split(strings.TrimSpace(string(log)), "\n"); lines[len(lines)-1] != "" {
					msg = "valgrind: " + strings.TrimLeft(lines[len(lines)-1], "=-0123456789 ")
				}
			}
			return nil, fmt.Errorf("--sim: cachegrind wrote no results: %s", msg)
		}
		if totals, err = ParseOutput(data); err != nil {
			return nil, fmt.Errorf("--sim: %w", err)
		}
	default:
		totals = map[string]uint64{}
	}
	ns := uint64(s.elapsed.Nanoseconds())
	out := make([]stat.Reading, 0, len(s.req.Events))
	for i, ev := range s.req.Events {
		names, reason := Counters(ev.Attr)
		if reason != "" {
			out = append(out, stat.Reading{Event: i, CPU: -1, Err: fmt.Errorf("%w: %s", ErrNotSimulated, reason)})
			continue
		}
		var v uint64
		for _, n := range names {
			v += totals[n]
		}
		out = append(out, stat.Reading{Event: i, CPU: -1, Value: perfevent.Value{Raw: v, Enabled: ns, Running: ns}})
	}
	return out, nil
}

// ErrNotSimulated: cachegrind has no model of the event.
var ErrNotSimulated = errors.New("not simulated")
