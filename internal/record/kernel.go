package record

import (
	"github.com/pmc-tools/pmc/internal/host"
	"github.com/pmc-tools/pmc/internal/launch"
	"github.com/pmc-tools/pmc/internal/perfevent"
)

// Counter is what a recording needs of an open sampling event; the kernel's is a
// *perfevent.Counter. The Session that opened it closes it.
type Counter interface {
	KernelID() (uint64, error) // the id its samples carry (PERF_EVENT_IOC_ID)
	MapRing(pages int) (Ring, error)
	SetOutput(to Counter) error // send its records to to's ring (same CPU)
	Enable() error
	Disable() error
	Close() error
}

// Ring is a counter's ring buffer. Drain hands over the records written since the last
// Drain and gives their space back; FD is what the poller watches (readable at the wakeup
// mark, hung up when the sampled task is gone). Close unmaps it.
type Ring interface {
	Drain(fn func(rec []byte) error) (int, error)
	FD() int
	Close() error
}

// Opener opens one event on pid/cpu, in leader's group when leader is not nil: the same
// seam as stat.Opener, for sampling counters.
type Opener func(name string, attr perfevent.Attr, pid, cpu int, leader Counter) (Counter, error)

// Kernel is where a recording samples: the machine it reads tasks and limits from, and the
// seams that tests replace.
type Kernel struct {
	// Machine lists threads, process states, names and maps, and gives the kernel's text,
	// its build-id notes and the sampling-rate limit. Required.
	Machine *host.Machine
	// Open opens one event. Defaults to perf_event_open(2).
	Open Opener
	// Gone watches a process's exit (-p). Defaults to launch.Gone.
	Gone func(pid int) (<-chan struct{}, error)
}

// kernelCounter is a perf_event_open(2) counter behind the Counter interface.
type kernelCounter struct{ *perfevent.Counter }

func (c kernelCounter) MapRing(pages int) (Ring, error) {
	r, err := c.Counter.MapRing(pages)
	if err != nil {
		return nil, err // not a typed nil in the interface
	}
	return r, nil
}

func (c kernelCounter) SetOutput(to Counter) error {
	return c.Counter.SetOutput(to.(kernelCounter).Counter)
}

// openKernel is the Opener of perf_event_open(2).
func openKernel(name string, attr perfevent.Attr, pid, cpu int, leader Counter) (Counter, error) {
	var l *perfevent.Counter
	if leader != nil {
		l = leader.(kernelCounter).Counter
	}
	c, err := perfevent.Open(name, attr, pid, cpu, l)
	if err != nil {
		return nil, err
	}
	return kernelCounter{c}, nil
}

func (k Kernel) withDefaults() Kernel {
	if k.Open == nil {
		k.Open = openKernel
	}
	if k.Gone == nil {
		k.Gone = launch.Gone
	}
	return k
}
