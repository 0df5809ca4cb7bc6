package stat

import (
	"errors"

	"github.com/pmc-tools/pmc/internal/host"
	"github.com/pmc-tools/pmc/internal/perfevent"
	"github.com/pmc-tools/pmc/internal/result"
	"github.com/pmc-tools/pmc/internal/unix"
)

// everyThread is the target list of system mode with PerThread (perf stat --per-thread -a):
// every thread of every process when counting starts, each counted on any CPU, as perf's
// thread map of all tasks. Threads that start later are not counted (perf's neither).
func (k Kernel) everyThread() ([]target, error) {
	pids, threads := k.Pids, k.Threads
	if pids == nil {
		pids = host.Live().Pids
	}
	if threads == nil {
		threads = host.Live().Threads
	}
	all, err := pids()
	if err != nil {
		return nil, err
	}
	var ts []target
	for _, pid := range all {
		tids, err := threads(pid)
		if err != nil {
			continue // gone since the listing
		}
		for _, tid := range tids {
			ts = append(ts, target{pid: tid, cpu: perfevent.AnyCPU, owner: pid})
		}
	}
	if len(ts) == 0 {
		return nil, errors.New("--per-thread -a: no thread found in /proc")
	}
	return ts, nil
}

// systemThreads reports whether req counts every thread of the system one by one.
func systemThreads(req *Request) bool { return req.Mode == System && req.PerThread }

// dropGone forgets the slots opened from first on when their thread exited between the
// listing and the open (ESRCH): a thread that is gone has nothing to count, and is no
// <not supported> row. Only the last target's slots are dropped, so leaders stay valid.
func (s *kernelSession) dropGone(first int) {
	gone := false
	for _, sl := range s.slots[first:] {
		var oe *perfevent.OpenError
		if errors.As(sl.err, &oe) && oe.Errno == unix.ESRCH {
			gone = true
		}
	}
	if !gone {
		return
	}
	for _, sl := range s.slots[first:] {
		if sl.c != nil {
			sl.c.Close()
		}
	}
	s.slots = s.slots[:first]
}

// quietThreads leaves out the rows of threads that counted nothing, as perf stat --per-thread
// -a does ("otherwise it will have too many 0 output"): of the hundreds of threads of a
// system, those the events saw.
func quietThreads(req *Request, cs []result.Count) []result.Count {
	if !systemThreads(req) {
		return cs
	}
	out := cs[:0]
	for _, c := range cs {
		if c.Status == result.Counted && c.Raw > 0 {
			out = append(out, c)
		}
	}
	return out
}
