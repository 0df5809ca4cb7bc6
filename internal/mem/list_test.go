package mem

import "testing"

// TestCycleSingle: from node 0 the permutation visits every node exactly once and returns to
// 0 after exactly n hops, for both orders and sizes around powers of two.
func TestCycleSingle(t *testing.T) {
	for _, order := range []Order{Random, Sequential} {
		for _, n := range []int{1, 2, 3, 64, 511, 512, 513, 4096, 65536} {
			perm := Cycle(nil, n, order)
			seen := make([]bool, n)
			k := uint32(0)
			for hop := 0; hop < n; hop++ {
				if seen[k] {
					t.Fatalf("%s n=%d: node %d visited twice after %d hops", order, n, k, hop)
				}
				seen[k] = true
				k = perm[k]
			}
			if k != 0 {
				t.Fatalf("%s n=%d: after n hops at node %d, not back at 0", order, n, k)
			}
		}
	}
}

// TestCycleRandomIsShuffled: the random order is not the sequential one and has few
// next-line neighbours (a prefetcher-friendly list would have many).
func TestCycleRandomIsShuffled(t *testing.T) {
	n := 4096
	perm := Cycle(nil, n, Random)
	adjacent := 0
	for k, next := range perm {
		if int(next) == (k+1)%n {
			adjacent++
		}
	}
	if adjacent > 10 {
		t.Errorf("%d of %d hops go to the next line: not random", adjacent, n)
	}
	again := Cycle(make([]uint32, 10), n, Random)
	for k := range perm {
		if perm[k] != again[k] {
			t.Fatalf("the permutation is not reproducible at node %d", k)
		}
	}
}

// TestChaseFollowsList: chase over a linked buffer ends where walking perm ends.
func TestChaseFollowsList(t *testing.T) {
	n := 1000
	perm := Cycle(nil, n, Random)
	buf := make([]uint32, n*stride)
	link(buf, perm)
	k := uint32(0)
	for range 2500 {
		k = perm[k]
	}
	if got := chase(buf, 0, 2500); got != k*stride {
		t.Errorf("chase ended at word %d, want %d", got, k*stride)
	}
}
