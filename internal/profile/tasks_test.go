package profile

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// flat writes a tree as "pid/tid<ppid comm" lines, indented by depth.
func flat(roots []*Task) string {
	var b strings.Builder
	var walk func(k *Task, d int)
	walk = func(k *Task, d int) {
		fmt.Fprintf(&b, "%s%d/%d<%d %s\n", strings.Repeat(" ", d), k.Pid, k.Tid, k.PPid, k.Comm)
		for _, c := range k.Children {
			walk(c, d+1)
		}
	}
	for _, k := range roots {
		walk(k, 0)
	}
	return b.String()
}

func TestTasksAsPerf(t *testing.T) {
	tk := NewTasks()
	tk.Comm(CommEvent{Pid: 300, Tid: 300, Comm: "sh"})
	// A new process from sh: it takes sh's name until its exec says another.
	tk.Fork(ForkEvent{Pid: 301, PPid: 300, Tid: 301, PTid: 300})
	tk.Comm(CommEvent{Pid: 301, Tid: 301, Comm: "ls", Exec: true})
	// A thread of 301 named before its process's leader was: the leader comes with it.
	tk.Comm(CommEvent{Pid: 500, Tid: 557, Comm: "worker"})
	// A thread forked by a thread that is not its process's leader: its parent is that thread.
	tk.Fork(ForkEvent{Pid: 500, PPid: 500, Tid: 558, PTid: 557})
	// A fork of an unnamed thread: the child keeps its own ":tid" name.
	tk.Fork(ForkEvent{Pid: 700, PPid: 600, Tid: 700, PTid: 600})
	// Tid 301 again (the pid came round): the new thread replaces the old one.
	tk.Fork(ForkEvent{Pid: 301, PPid: 0, Tid: 301, PTid: 0})
	tk.Exit(301, 301) // perf keeps exited threads
	roots, err := tk.Tree()
	if err != nil {
		t.Fatal(err)
	}
	// Visiting order: tid%256 then tid: 0, 300 (44), 301 (45), 557 (45, after 301), 558
	// (46), 600 (88), 700 (188), 500 (244).
	want := `0/0<-1 swapper
 301/301<0 swapper
300/300<-1 sh
500/557<-1 worker
 500/558<557 worker
600/600<-1 :600
 700/700<600 :700
500/500<-1 :500
`
	if got := flat(roots); got != want {
		t.Errorf("tree:\n%s\nwant:\n%s", got, want)
	}
	if tk.Len() != 8 {
		t.Errorf("%d threads, want 8", tk.Len())
	}
}

func TestTasksMissingParent(t *testing.T) {
	// Forks always make their parent, so only a table built otherwise lacks one.
	tk := NewTasks()
	tk.byTid[12] = &Task{Pid: 12, Tid: 12, PPid: 42, Comm: ":12"}
	_, err := tk.Tree()
	var mp *MissingParentError
	if !errors.As(err, &mp) || mp.Tid != 12 || mp.PPid != 42 {
		t.Fatalf("err %v, want thread 12's missing parent 42", err)
	}
}

func TestTasksParentOfAnotherProcess(t *testing.T) {
	tk := NewTasks()
	tk.Comm(CommEvent{Pid: 900, Tid: 901, Comm: "old"})
	// The fork says 901 is a thread of 950: the table's 901 (of 900) is dropped, unnamed.
	tk.Fork(ForkEvent{Pid: 960, PPid: 950, Tid: 960, PTid: 901})
	roots, err := tk.Tree()
	if err != nil {
		t.Fatal(err)
	}
	want := `0/0<-1 swapper
900/900<-1 :900
950/901<-1 :901
 960/960<901 :960
950/950<-1 :950
`
	if got := flat(roots); got != want {
		t.Errorf("tree:\n%s\nwant:\n%s", got, want)
	}
}
