package profile

import (
	"cmp"
	"slices"
	"strconv"
)

// Tasks is the table of threads a recording's COMM and FORK records describe, kept as
// perf's machine keeps its threads (tools/perf/util/machine.c) for perf report --tasks:
//   - a thread first named by a record gets the name ":TID" until a COMM names it, and a
//     thread of another process than its own (pid != tid) brings its process's leader;
//   - a FORK replaces any thread of the child's tid by a new one whose parent (PPid) is
//     the forking thread (its tid), named as that thread is, if it was named;
//   - a FORK whose forking thread is known as another process's drops that thread first;
//   - an EXIT removes nothing;
//   - the idle task (0/0 "swapper") is there from the start.
//
// Fed in perf report's order (fromperf.Tasks), Tree lists them as perf report --tasks does.
type Tasks struct {
	byTid map[int]*Task
}

// Task is one thread of a Tasks table.
type Task struct {
	Pid, Tid int
	PPid     int // the tid of the thread it forked from; -1: none known
	Comm     string
	named    bool
	Children []*Task // in Tree's order
	listed   bool
}

// NewTasks returns a table holding the idle task.
func NewTasks() *Tasks {
	t := &Tasks{byTid: map[int]*Task{}}
	t.findnew(0, 0).setComm("swapper")
	return t
}

func (k *Task) setComm(c string) { k.Comm, k.named = c, true }

// findnew is perf's machine__findnew_thread: the thread tid, made if not known.
func (t *Tasks) findnew(pid, tid int) *Task {
	if k := t.byTid[tid]; k != nil {
		if k.Pid == -1 && pid != -1 && pid != k.Pid {
			k.Pid = pid
			if pid != tid {
				t.findnew(pid, pid)
			}
		}
		return k
	}
	k := &Task{Pid: pid, Tid: tid, PPid: -1, Comm: ":" + strconv.Itoa(tid)}
	t.byTid[tid] = k
	if pid != -1 && pid != tid {
		t.findnew(pid, pid) // the process's leader, whose maps the thread shares
	}
	return k
}

// Comm names thread tid of process pid.
func (t *Tasks) Comm(e CommEvent) { t.findnew(e.Pid, e.Tid).setComm(e.Comm) }

// Fork starts thread Tid of process Pid from thread PTid of process PPid.
func (t *Tasks) Fork(e ForkEvent) {
	parent := t.findnew(e.PPid, e.PTid)
	if parent.Pid != e.PPid { // an earlier thread of that tid, whose end was not seen
		delete(t.byTid, parent.Tid)
		parent = t.findnew(e.PPid, e.PTid)
	}
	delete(t.byTid, e.Tid)
	child := t.findnew(e.Pid, e.Tid)
	if parent.named {
		child.setComm(parent.Comm)
	}
	child.PPid = parent.Tid
}

// Exit ends a thread; perf keeps it in the table.
func (t *Tasks) Exit(pid, tid int) {}

// Len is the number of threads.
func (t *Tasks) Len() int { return len(t.byTid) }

// Tree returns the threads without a known parent, each with its children, in perf
// report --tasks's order: perf 6.1 visits its threads by tid modulo 256 (its hash table's buckets), then by tid, and lists
// a thread (and each ancestor not yet listed, as its parent's next child) when first
// visited. A thread whose parent is not in the table is an error, as in perf.
func (t *Tasks) Tree() ([]*Task, error) {
	all := make([]*Task, 0, len(t.byTid))
	for _, k := range t.byTid {
		k.Children, k.listed = nil, false
		all = append(all, k)
	}
	slices.SortFunc(all, func(a, b *Task) int {
		return cmp.Or(cmp.Compare(uint32(a.Tid)%threadBuckets, uint32(b.Tid)%threadBuckets), cmp.Compare(a.Tid, b.Tid))
	})
	var roots []*Task
	for _, k := range all {
		for !k.listed {
			if k.PPid == -1 {
				k.listed = true
				roots = append(roots, k)
				break
			}
			parent := t.byTid[k.PPid]
			if parent == nil {
				return nil, &MissingParentError{Tid: k.Tid, PPid: k.PPid}
			}
			k.listed = true
			parent.Children = append(parent.Children, k)
			k = parent
		}
	}
	return roots, nil
}

// MissingParentError is a thread whose parent the recording never named.
type MissingParentError struct{ Tid, PPid int }

func (e *MissingParentError) Error() string {
	return "thread " + strconv.Itoa(e.Tid) + " forked from thread " + strconv.Itoa(e.PPid) + ", which the recording does not name"
}

// threadBuckets is the size of perf 6.1's thread table (THREADS__TABLE_SIZE), whose order
// --tasks lists.
const threadBuckets = 256
