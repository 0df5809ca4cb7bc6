package stat

import (
	"context"
	"github.com/pmc-tools/pmc/internal/result"
	"os"
	"time"

	"github.com/pmc-tools/pmc/internal/perfevent"
)

// Event is one resolved event to count, in the order the user gave it. Events of one {..}
// group share Group and are opened with the first of them (Leader) as group leader.
type Event struct {
	Name     string // as written, with modifiers
	Group    int
	Leader   bool // first event of a group of two or more
	Planned  bool // added by pmc's metric planner, not named by the user (result.Count.Planned)
	Attr     perfevent.Attr
	PMU      string
	Resolved string // what a generic name resolved to on this CPU, if known
	Unit     string
	Scale    float64 // converts counts to Unit (1e-6 for clocks' ns, a sysfs .scale); 0 = none
	// Weak: the group is perf's {...}:W; when the kernel refuses it as a whole, its events
	// are counted on their own (and their counts are no longer "together").
	Weak bool
}

// Mode says what is counted.
type Mode string

const (
	Launch Mode = "launch" // run Command and count it (and its children unless no-inherit)
	Attach Mode = "attach" // count existing PIDs until Ctrl-C or Duration
	System Mode = "system" // count every task on CPUs until Ctrl-C, Duration or Command's end
)

// Request is a validated plan for one `pmc stat` invocation.
type Request struct {
	Events  []Event
	Mode    Mode
	Command []string // launch (and optionally system) mode
	PIDs    []int    // attach mode: processes (every thread), or threads with Threads
	Threads bool     // -t: PIDs are thread ids, each counted alone
	CPUs    []int    // system mode; empty means every online CPU
	// Cgroup: system mode counts only the tasks of this cgroup v2 directory (an absolute
	// path, perf stat -G), on every CPU of CPUs, with PERF_FLAG_PID_CGROUP.
	Cgroup  string
	AllCPUs bool // system mode on every online CPU (-a without -C)
	PerCPU  bool // -A: keep one row per CPU
	// PerThread (--per-thread): one row per thread, named by ThreadName. In system mode every
	// thread of the system is counted on its own (perf's --per-thread -a) and the threads that
	// counted nothing are left out, as perf leaves them out.
	PerThread  bool
	ThreadName func(tid int) string
	// Aggregation (--per-socket, --per-core, with PerCPU): each CPU's counts are summed into
	// the row of its group's first CPU.
	Aggregation *result.Aggregation
	NoScale     bool
	// NoBound: no periodic reads of the counters, and no error bound on multiplexed counts.
	NoBound       bool
	Repeat        int // >= 1
	Warmup        int
	Interval      time.Duration // -I; 0 = off
	IntervalCount int           // stop after this many intervals; 0 = unlimited
	Duration      time.Duration // stop attach/system counting after this long; 0 = until Ctrl-C
	// Delay (perf stat -D): in launch mode, the counters are enabled this long after the
	// workload's exec instead of at it; the events are then opened without enable_on_exec.
	Delay  time.Duration
	Stdin  *os.File
	Stdout *os.File
	Stderr *os.File
}

// Reading is the cumulative value of one counter slot: event index x CPU.
type Reading struct {
	Event int // index into Request.Events
	CPU   int // -1 when the counter follows a task on any CPU
	TID   int // attach mode: the thread counted (0 elsewhere)
	Value perfevent.Value
	Err   error // set when the event could not be opened; Value is then zero
	// UserOnly: counted in user space only after the kernel refused kernel-mode counting;
	// the count is named with :u, as perf names it.
	UserOnly bool
	// Ungrouped: the event's weak group did not fit, and it was counted on its own.
	Ungrouped bool
	// Mux: how far the scaled value may be off when the counter was multiplexed, from the
	// periodic reads (the final reading of a run, or an interval's); nil when it ran all
	// the time or was not read periodically.
	Mux *Uncertainty
}

// Outcome is how the measured run ended.
type Outcome struct {
	ExitStatus int
	Signal     string
	Elapsed    time.Duration
	User, Sys  time.Duration
	MaxRSSKB   int64 // the workload's peak resident set size (launch mode), 0 when unknown
	// MaxRSSBelowKB: when MaxRSSKB is unknown, the workload's peak is at most this.
	MaxRSSBelowKB int64
	// Stopped: pmc ended the workload (--duration, --interval-count) with SIGTERM.
	Stopped bool
	// Abandoned: pmc stopped waiting for a workload that ignored a terminating signal; it
	// still runs, and the counts are those up to that moment.
	Abandoned bool
}

// Backend opens counters for a Request. The kernel backend talks to perf_event_open; the fake
// backend replays scripted counts so output can be tested exactly.
type Backend interface {
	Name() string
	// Begin opens the counters for run number run (warmups count too) and, in launch mode,
	// starts the workload stopped before exec. Counting begins with Session.Start.
	Begin(ctx context.Context, req *Request, run int) (Session, error)
}

// Session is one run in progress.
type Session interface {
	Start() error                // release the workload / enable the counters
	Read() ([]Reading, error)    // cumulative readings, same slots in the same order every call
	Ticks() <-chan time.Duration // interval ticks carrying the time since Start; nil without -I
	Done() <-chan struct{}       // closed when the workload ended, ctx was cancelled or Duration passed
	Outcome() (Outcome, error)   // valid after Done
	Notes() []string             // what the backend changed to make the count possible
	Close() error                // release every fd; kill the workload if it never started
}
