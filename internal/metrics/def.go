package metrics

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
)

// Def defines one metric. It is also the JSON form of a user metrics file entry.
type Def struct {
	Name        string `json:"name"`                  // how -M and other expressions refer to it
	Expr        string `json:"expr"`                  // see the package documentation
	Unit        string `json:"unit,omitempty"`        // printed after the value: "insn per cycle", "%", "PTI", "GHz", "/sec"
	Description string `json:"description,omitempty"` // one line, for listings and reports
	Group       string `json:"group,omitempty"`       // metric group names, comma-separated ("cache,rpistat")
	// Event is the counted event whose row the text output prints the metric beside (perf
	// prints IPC beside instructions). Empty: the first event operand.
	Event string `json:"event,omitempty"`
	// Max is the largest plausible value (100 for a share of a whole in percent); a larger one
	// gets a warning. 0 means no bound.
	Max float64 `json:"max,omitempty"`
	// Issue ties the value to the core's issue width: "ipc" (at most the width) or "cpi" (at
	// least its inverse). A value beyond it cannot be a measurement and gets a warning.
	Issue string `json:"issue,omitempty"`
}

// Groups splits Group into names.
func (d Def) Groups() []string {
	var out []string
	for _, g := range strings.Split(d.Group, ",") {
		if g = strings.TrimSpace(g); g != "" {
			out = append(out, g)
		}
	}
	return out
}

// Set is a validated collection of metric definitions: every expression parses, names are
// unique and reference cycles are ruled out. A Set is immutable.
type Set struct {
	defs   []Def
	exprs  []*Expr
	index  map[string]int
	events [][]string // event operands of each metric, including through referenced metrics
}

// NewSet validates defs and builds a Set. Errors name the metric and, for expressions, the
// column: "metrics: ipc: at 14: unknown function "rato"".
func NewSet(defs ...Def) (*Set, error) {
	s := &Set{index: map[string]int{}}
	for _, d := range defs {
		if err := checkDef(d); err != nil {
			return nil, err
		}
		if _, dup := s.index[d.Name]; dup {
			return nil, &Error{Metric: d.Name, Msg: "defined twice", Err: ErrSyntax}
		}
		e, err := Parse(d.Expr)
		if err != nil {
			var pe *Error
			if errors.As(err, &pe) {
				pe.Metric = d.Name
			}
			return nil, err
		}
		s.index[d.Name] = len(s.defs)
		s.defs = append(s.defs, d)
		s.exprs = append(s.exprs, e)
	}
	if err := s.checkCycles(); err != nil {
		return nil, err
	}
	s.events = make([][]string, len(s.defs))
	done := make([]bool, len(s.defs))
	for i := range s.defs {
		s.events[i] = s.collectEvents(i, s.events, done)
	}
	return s, nil
}

func checkDef(d Def) error {
	bad := func(format string, args ...any) error {
		return &Error{Metric: d.Name, Msg: fmt.Sprintf(format, args...), Err: ErrSyntax}
	}
	switch {
	case d.Name == "":
		return &Error{Msg: fmt.Sprintf("metric with expression %q has no name", d.Expr), Err: ErrSyntax}
	case !bareName(d.Name) || strings.ContainsAny(d.Name, ":"):
		return bad("invalid metric name; use letters, digits, '_', '.' and inner '-'")
	case IsEventName(d.Name):
		return bad("metric name is also an event name; rename the metric")
	case strings.TrimSpace(d.Expr) == "":
		return bad("empty expression")
	case d.Issue != "" && d.Issue != "ipc" && d.Issue != "cpi":
		return bad(`issue must be "ipc" or "cpi", not %q`, d.Issue)
	case d.Max < 0:
		return bad("max must not be negative")
	}
	for _, g := range d.Groups() {
		if !bareName(g) {
			return bad("invalid group name %q", g)
		}
	}
	return nil
}

// checkCycles rejects a metric that refers to itself, directly or through others.
func (s *Set) checkCycles() error {
	const (
		white = iota
		grey
		black
	)
	color := make([]int, len(s.defs))
	var path []string
	var visit func(i int) error
	visit = func(i int) error {
		color[i] = grey
		path = append(path, s.defs[i].Name)
		for _, n := range s.exprs[i].Names() {
			j, ok := s.index[n]
			if !ok {
				continue
			}
			switch color[j] {
			case grey:
				start := 0
				for k, p := range path {
					if p == n {
						start = k
					}
				}
				chain := append(append([]string{}, path[start:]...), n)
				return &Error{Metric: s.defs[i].Name, Msg: "reference cycle " + strings.Join(chain, " -> "), Err: ErrCycle}
			case white:
				if err := visit(j); err != nil {
					return err
				}
			}
		}
		path = path[:len(path)-1]
		color[i] = black
		return nil
	}
	for i := range s.defs {
		if color[i] == white {
			if err := visit(i); err != nil {
				return err
			}
		}
	}
	return nil
}

// collectEvents returns the event operands of metric i, through the metrics it refers to,
// in order of first appearance. Each metric's list is computed once (memo), so a chain of n
// references costs O(n), not O(n^2); checkCycles has ruled out reference cycles.
func (s *Set) collectEvents(i int, memo [][]string, done []bool) []string {
	if done[i] {
		return memo[i]
	}
	var out []string
	for _, n := range s.exprs[i].Names() {
		names := []string{n}
		if j, ok := s.index[n]; ok {
			names = s.collectEvents(j, memo, done)
		}
		for _, ev := range names {
			if !slices.Contains(out, ev) {
				out = append(out, ev)
			}
		}
	}
	memo[i], done[i] = out, true
	return out
}

// Merge returns a new Set with defs added; a def named like an existing metric replaces it
// (a user metrics file may redefine a built-in).
func (s *Set) Merge(defs ...Def) (*Set, error) {
	all := append([]Def{}, s.defs...)
	for _, d := range defs {
		if i, ok := s.index[d.Name]; ok && d.Name != "" {
			all[i] = d
			continue
		}
		all = append(all, d)
	}
	return NewSet(all...)
}

// Defs returns the definitions in the order they were given.
func (s *Set) Defs() []Def { return append([]Def{}, s.defs...) }

// Def returns the definition of the named metric.
func (s *Set) Def(name string) (Def, bool) {
	i, ok := s.index[name]
	if !ok {
		return Def{}, false
	}
	return s.defs[i], true
}

// Events lists the events the named metric needs, following references to other metrics,
// in order of first appearance. Nil for an unknown metric.
func (s *Set) Events(name string) []string {
	i, ok := s.index[name]
	if !ok {
		return nil
	}
	return append([]string{}, s.events[i]...)
}

// Groups lists the metric group names, sorted.
func (s *Set) Groups() []string {
	seen := map[string]bool{}
	var out []string
	for _, d := range s.defs {
		for _, g := range d.Groups() {
			if !seen[g] {
				seen[g] = true
				out = append(out, g)
			}
		}
	}
	sort.Strings(out)
	return out
}

// Select expands metric and group names (as given to -M or --metric-group) into metric
// names, in order, without duplicates. An unknown name is an error that lists what exists.
func (s *Set) Select(names ...string) ([]string, error) {
	var out []string
	add := func(n string) {
		if !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	for _, n := range names {
		n = strings.TrimSpace(n)
		if n == "" {
			continue
		}
		if _, ok := s.index[n]; ok {
			add(n)
			continue
		}
		found := false
		for _, d := range s.defs {
			if slices.Contains(d.Groups(), n) {
				add(d.Name)
				found = true
			}
		}
		if !found {
			return nil, &Error{Msg: fmt.Sprintf("no metric or metric group %q (groups: %s; metrics: %s)",
				n, strings.Join(s.Groups(), ", "), strings.Join(s.names(), ", ")), Err: ErrUnknownName}
		}
	}
	return out, nil
}

func (s *Set) names() []string {
	out := make([]string, len(s.defs))
	for i, d := range s.defs {
		out[i] = d.Name
	}
	return out
}

// Eval evaluates the named metric; lookup supplies event values, and referenced metrics are
// evaluated from the same lookup. Errors carry the metric name.
func (s *Set) Eval(name string, lookup Lookup) (float64, error) {
	i, ok := s.index[name]
	if !ok {
		return 0, &Error{Msg: fmt.Sprintf("no metric %q", name), Err: ErrUnknownName}
	}
	memo := map[int]float64{}
	var evalMetric func(i int) (float64, error)
	evalMetric = func(i int) (float64, error) {
		if v, ok := memo[i]; ok {
			return v, nil
		}
		v, err := s.exprs[i].Eval(func(n string) (float64, error) {
			if j, ok := s.index[n]; ok {
				return evalMetric(j)
			}
			return lookup(n)
		})
		if err != nil {
			var pe *Error
			if errors.As(err, &pe) && pe.Metric == "" {
				pe.Metric = s.defs[i].Name
			}
			return 0, err
		}
		memo[i] = v
		return v, nil
	}
	return evalMetric(i)
}

// CheckEvents resolves every event the named metrics use (through referenced metrics too)
// with resolve, typically the event parser of the CPU being measured, and reports the first
// failure at its column: "metrics: l1d_mpki: at 8: event "L1-dcahce-load-misses": <why>".
// The error wraps ErrUnknownName and resolve's error.
func (s *Set) CheckEvents(names []string, resolve func(event string) error) error {
	for _, name := range names {
		i, ok := s.index[name]
		if !ok {
			return &Error{Msg: fmt.Sprintf("no metric %q", name), Err: ErrUnknownName}
		}
		if err := s.checkEvents(i, resolve, map[int]bool{}); err != nil {
			return err
		}
	}
	return nil
}

func (s *Set) checkEvents(i int, resolve func(string) error, seen map[int]bool) error {
	if seen[i] {
		return nil
	}
	seen[i] = true
	var err error
	walk(s.exprs[i].root, func(n *node) {
		if err != nil || n.kind != nodeName {
			return
		}
		if j, ok := s.index[n.name]; ok {
			err = s.checkEvents(j, resolve, seen)
			return
		}
		if isToolEvent(n.name) {
			return
		}
		if rerr := resolve(n.name); rerr != nil {
			err = &Error{Metric: s.defs[i].Name, Pos: n.pos + 1,
				Msg: fmt.Sprintf("event %s: %v", quoteName(n.name), rerr), Err: ErrUnknownName, Cause: rerr}
		}
	})
	return err
}
