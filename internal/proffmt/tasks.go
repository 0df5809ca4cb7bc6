package proffmt

import (
	"bufio"
	"fmt"
	"io"

	"github.com/pmc-tools/pmc/internal/profile"
)

// Tasks writes perf report --tasks's view of t: a header, then a line per thread (pid,
// tid, the tid it forked from, its name) with each thread's children below it, indented a
// column deeper.
func Tasks(w io.Writer, t *profile.Tasks) error {
	roots, err := t.Tree()
	if err != nil {
		return err
	}
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "# %8s %8s %8s  %s\n", "pid", "tid", "ppid", "comm")
	// Every thread below a root has a parent line up to it: threads whose parents go
	// round in a circle (malformed input) hang from no root and are not printed, as in perf.
	var walk func(k *profile.Task, level int)
	walk = func(k *profile.Task, level int) {
		fmt.Fprintf(bw, "  %8d %8d %8d |%*s%s\n", k.Pid, k.Tid, k.PPid, level, "", k.Comm)
		for _, c := range k.Children {
			walk(c, level+1)
		}
	}
	for _, k := range roots {
		walk(k, 0)
	}
	return bw.Flush()
}
