package proffmt

import (
	"bytes"
	"testing"

	"github.com/pmc-tools/pmc/internal/profile"
)

func TestTasks(t *testing.T) {
	tk := profile.NewTasks()
	tk.Comm(profile.CommEvent{Pid: 1186, Tid: 1186, Comm: "sh"})
	tk.Fork(profile.ForkEvent{Pid: 1198, PPid: 1186, Tid: 1198, PTid: 1186})
	tk.Comm(profile.CommEvent{Pid: 1198, Tid: 1198, Comm: "ls", Exec: true})
	tk.Fork(profile.ForkEvent{Pid: 1198, PPid: 1198, Tid: 1199, PTid: 1198})
	// A thread that forks itself (malformed input) hangs from no root: not printed, as in
	// perf, and nothing goes round for ever.
	tk.Fork(profile.ForkEvent{Pid: 7, PPid: 7, Tid: 7, PTid: 7})
	var b bytes.Buffer
	if err := Tasks(&b, tk); err != nil {
		t.Fatal(err)
	}
	// perf report --tasks's layout: the same on perf's files (test/perfcorpus).
	want := `#      pid      tid     ppid  comm
         0        0       -1 |swapper
      1186     1186       -1 |sh
      1198     1198     1186 | ls
      1198     1199     1198 |  ls
`
	if b.String() != want {
		t.Errorf("got:\n%s\nwant:\n%s", b.String(), want)
	}
}
