package profile

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"
)

// The call trees built by several workers are the ones built by one, node for node and in
// the same order.
func TestTreesByWorkers(t *testing.T) {
	build := func(work int) string {
		old := treeWork
		treeWork = work
		defer func() { treeWork = old }()
		b := NewBuilder(nil)
		b.Comm(CommEvent{Pid: 1, Tid: 1, Comm: "a"})
		b.Comm(CommEvent{Pid: 1, Tid: 2, Comm: "b"})
		a, err := NewAggregator(Options{Children: true, CallGraph: true})
		if err != nil {
			t.Fatal(err)
		}
		b.Stream(a, false)
		rng := rand.New(rand.NewPCG(3, 4))
		for i := 0; i < 3000; i++ {
			chain := []uint64{ctxUser}
			for d := 1 + rng.IntN(12); d > 0; d-- {
				chain = append(chain, 0x1000+uint64(rng.IntN(40))*0x10)
			}
			b.Sample(SampleEvent{Pid: 1, Tid: 1 + i%2, IP: chain[1], Callchain: chain, Period: 1}) // equal periods: ties keep the order paths came in
		}
		var out strings.Builder
		for _, r := range a.Reports(b.Profile()) {
			for _, e := range r.Entries {
				fmt.Fprintf(&out, "%v %d %d\n", e.Values, e.Self, e.Children)
				dump(&out, e.Callees, "  ")
			}
		}
		return out.String()
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	one, many := build(math.MaxInt), build(0)
	if one != many {
		t.Errorf("trees differ: one worker\n%.2000s\nfour\n%.2000s", one, many)
	}
	if !strings.Contains(one, "\n    ") {
		t.Errorf("no call trees:\n%.500s", one)
	}
}

func dump(w *strings.Builder, n *Node, indent string) {
	if n == nil {
		return
	}
	fmt.Fprintf(w, "%s%s %d\n", indent, n.Name, n.Period)
	for _, c := range n.Children {
		dump(w, c, indent+"  ")
	}
}
