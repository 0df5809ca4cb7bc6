package events

import (
	"slices"
	"strings"
)

// maxSuggestions is how many close names an error lists.
const maxSuggestions = 3

// didYouMean returns " (did you mean: a, b?)" for the candidates closest to name by edit
// distance (ignoring case; only those at the smallest distance found), or "" when none is close
// enough to be a plausible typo.
// DidYouMean is " (did you mean: a, b?)" for the candidates closest to name, "" when none is
// close: the same suggestions pmc stat gives for an unknown event.
func DidYouMean(name string, candidates []string) string { return didYouMean(name, candidates) }

// SymbolicNames lists every software, hardware and cache event name and alias perf accepts.
func SymbolicNames() []string { return append(symbolNames(), CacheNames()...) }

func didYouMean(name string, candidates []string) string {
	best := closest(name, candidates)
	if len(best) == 0 {
		return ""
	}
	return " (did you mean: " + strings.Join(best, ", ") + "?)"
}

func closest(name string, candidates []string) []string {
	type scored struct {
		s string
		d int
	}
	limit := max(1, min(3, len(name)/3))
	lname := strings.ToLower(name)
	var hits []scored
	seen := map[string]bool{}
	for _, c := range candidates {
		if seen[c] || c == "" {
			continue
		}
		seen[c] = true
		if d := distance(lname, strings.ToLower(c), limit); d <= limit {
			hits = append(hits, scored{c, d})
		}
	}
	slices.SortFunc(hits, func(a, b scored) int {
		if a.d != b.d {
			return a.d - b.d
		}
		return strings.Compare(a.s, b.s)
	})
	var out []string
	for i := 0; i < len(hits) && i < maxSuggestions && hits[i].d == hits[0].d; i++ {
		out = append(out, hits[i].s)
	}
	return out
}

// distance is the edit distance of a and b counting insertions, deletions, substitutions and
// swaps of adjacent bytes (optimal string alignment), or limit+1 once it must exceed limit.
func distance(a, b string, limit int) int {
	if d := len(a) - len(b); d > limit || -d > limit {
		return limit + 1
	}
	prev2 := make([]int, len(b)+1)
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		rowMin := cur[0]
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
			rowMin = min(rowMin, cur[j])
		}
		if rowMin > limit {
			return limit + 1
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(b)]
}

// knownNames lists every name a bare event could have meant.
func (r *resolver) knownNames() []string {
	names := append(symbolNames(), CacheNames()...)
	for _, pn := range r.sys.Names() {
		p := r.sys.PMUs[pn]
		for _, e := range p.EventNames() {
			names = append(names, e, pn+"/"+e+"/")
		}
	}
	if r.opts.Tables != nil {
		names = append(names, r.opts.Tables.Names()...)
	}
	return names
}
