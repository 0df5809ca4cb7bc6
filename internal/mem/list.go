package mem

import (
	"fmt"
	"math/rand/v2"
)

// LineBytes is the size of one list node: one cache line on every CPU pmc targets.
const LineBytes = 64

// stride is the distance between two nodes in the []uint32 the chase walks.
const stride = LineBytes / 4

// Order is how the nodes are linked.
type Order string

const (
	// Random links the nodes in one random cycle: each hop goes to an unpredictable line,
	// which defeats the hardware prefetchers.
	Random Order = "random"
	// Sequential links node k to node k+1: a constant stride the prefetchers follow.
	Sequential Order = "sequential"
)

// ParseOrder validates an --order value.
func ParseOrder(s string) (Order, error) {
	switch Order(s) {
	case Random, Sequential:
		return Order(s), nil
	}
	return "", fmt.Errorf("--order %q: want random or sequential", s)
}

// seed makes every run link the same permutation, so reruns measure the same walk.
const seed = 0x9E3779B97F4A7C15

// Cycle returns a cyclic permutation of 0..n-1 for order: perm[k] is the node after node k,
// and following it from any node visits all n nodes before coming back. Random uses
// Sattolo's variant of the Fisher-Yates shuffle (j < i strictly), which yields exactly the
// single-cycle permutations, uniformly. perm is reused when it has room.
func Cycle(perm []uint32, n int, order Order) []uint32 {
	if cap(perm) < n {
		perm = make([]uint32, n)
	}
	perm = perm[:n]
	switch order {
	case Sequential:
		for k := range perm {
			perm[k] = uint32((k + 1) % n)
		}
	default:
		for k := range perm {
			perm[k] = uint32(k)
		}
		r := rand.New(rand.NewPCG(seed, uint64(n)))
		for i := n - 1; i > 0; i-- {
			j := r.IntN(i)
			perm[i], perm[j] = perm[j], perm[i]
		}
	}
	return perm
}

// link writes the list into buf: node k's first word holds the index in buf of the next
// node's first word, so one hop is one dependent load, i = buf[i].
func link(buf []uint32, perm []uint32) {
	for k, next := range perm {
		buf[k*stride] = next * stride
	}
}

// sink keeps the chase's final index alive, so the compiler cannot drop the loop.
var sink uint32

// chase follows n hops from i and returns where it ended. The loop compiles to a load, a
// bounds check and a counter per hop (checked with `go build -gcflags=-S`); only the load is
// on the dependency chain.
//
//go:noinline
func chase(buf []uint32, i uint32, n int) uint32 {
	for ; n > 0; n-- {
		i = buf[i]
	}
	return i
}
