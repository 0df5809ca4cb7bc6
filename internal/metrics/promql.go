package metrics

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// ErrNoPromQL: the expression has no PromQL form (a tool event Prometheus cannot see, or
// min/max/if over numbers alone).
var ErrNoPromQL = errors.New("no PromQL form")

// PromQL translates the named metric into a PromQL expression over per-second rates, for a
// Prometheus recording rule. operand gives the PromQL of one event operand: an instant
// vector of its rate, one series per label set that every operand shares (so that a / b
// matches one to one), e.g.
//
//	sum without (event) (rate(pmc_events_total{event="instructions"}[1m]))
//
// Referenced metrics are inlined. Because every count becomes a rate over the same window,
// a ratio of counts is the ratio of rates; duration_time becomes 1e9 (nanoseconds per
// second). The translation keeps pmc's meaning of undefined: a zero denominator is filtered
// out ("/ (b != 0)"), so Prometheus records no sample rather than an infinity or a NaN.
// Comparisons yield 0 or 1 (bool), min and max of vectors pick per series, and if(c, a, b)
// picks a where c is non-zero and b elsewhere.
func (s *Set) PromQL(name string, operand func(event string) (string, error)) (string, error) {
	i, ok := s.index[name]
	if !ok {
		return "", &Error{Msg: fmt.Sprintf("no metric %q", name), Err: ErrUnknownName}
	}
	tr := &promTranslator{set: s, operand: operand, active: map[int]bool{}}
	q, err := tr.metric(i)
	if err != nil {
		return "", err
	}
	return q.text, nil
}

// promQ is a translated subexpression: its text (parenthesised unless atomic) and whether it
// is a scalar (a number) rather than a vector.
type promQ struct {
	text   string
	scalar bool
}

type promTranslator struct {
	set     *Set
	operand func(string) (string, error)
	active  map[int]bool
}

func (tr *promTranslator) metric(i int) (promQ, error) {
	if tr.active[i] {
		return promQ{}, &Error{Metric: tr.set.defs[i].Name, Msg: "refers to itself", Err: ErrCycle}
	}
	tr.active[i] = true
	defer delete(tr.active, i)
	q, err := tr.node(tr.set.exprs[i].root)
	if err != nil {
		var pe *Error
		if errors.As(err, &pe) && pe.Metric == "" {
			pe.Metric = tr.set.defs[i].Name
		}
		return promQ{}, err
	}
	return q, nil
}

func noProm(n *node, format string, args ...any) error {
	return errAt(n.pos, ErrNoPromQL, format, args...)
}

func (tr *promTranslator) node(n *node) (promQ, error) {
	switch n.kind {
	case nodeNum:
		return promQ{text: strconv.FormatFloat(n.num, 'g', -1, 64), scalar: true}, nil
	case nodeName:
		if j, ok := tr.set.index[n.name]; ok {
			return tr.metric(j)
		}
		if isToolEvent(n.name) {
			if baseName(n.name) == "duration_time" {
				return promQ{text: "1e9", scalar: true}, nil // ns of wall time per second
			}
			return promQ{}, noProm(n, "%s is pmc's own rusage, which Prometheus does not see", n.name)
		}
		q, err := tr.operand(n.name)
		if err != nil {
			return promQ{}, errAt(n.pos, ErrNoPromQL, "event %s: %v", quoteName(n.name), err)
		}
		return promQ{text: "(" + q + ")"}, nil
	case nodeUnary:
		x, err := tr.node(n.args[0])
		return promQ{text: "(-" + x.text + ")", scalar: x.scalar}, err
	case nodeBinary:
		a, err := tr.node(n.args[0])
		if err != nil {
			return promQ{}, err
		}
		b, err := tr.node(n.args[1])
		if err != nil {
			return promQ{}, err
		}
		return binProm(n.op, a, b), nil
	case nodeCall:
		return tr.call(n)
	}
	return promQ{}, noProm(n, "bad expression node")
}

func binProm(op string, a, b promQ) promQ {
	scalar := a.scalar && b.scalar
	switch {
	case op == "/" && !b.scalar:
		return promQ{text: "(" + a.text + " / (" + b.text + " != 0))"} // undefined, not Inf
	case isCompare(op):
		return promQ{text: "(" + a.text + " " + op + " bool " + b.text + ")", scalar: scalar}
	}
	return promQ{text: "(" + a.text + " " + op + " " + b.text + ")", scalar: scalar}
}

func (tr *promTranslator) call(n *node) (promQ, error) {
	args := make([]promQ, len(n.args))
	for i, a := range n.args {
		q, err := tr.node(a)
		if err != nil {
			return promQ{}, err
		}
		args[i] = q
	}
	switch n.op {
	case "ratio":
		return binProm("/", args[0], args[1]), nil
	case "min", "max":
		acc := args[0]
		for _, x := range args[1:] {
			q, err := minMaxProm(n, acc, x)
			if err != nil {
				return promQ{}, err
			}
			acc = q
		}
		return acc, nil
	case "if":
		c, a, b := args[0], args[1], args[2]
		if c.scalar {
			return promQ{}, noProm(n, "if() on a number alone")
		}
		vec := func(x promQ) string {
			if x.scalar {
				return "(0 * " + c.text + " + " + x.text + ")"
			}
			return x.text
		}
		return promQ{text: "(" + vec(a) + " and " + c.text + " != 0 or " + vec(b) + " and " + c.text + " == 0)"}, nil
	}
	return promQ{}, noProm(n, "unknown function %q", n.op)
}

// minMaxProm is min(a, b) or max(a, b): clamp_max/clamp_min against a number, a per-series
// pick between two vectors.
func minMaxProm(n *node, a, b promQ) (promQ, error) {
	cmp, clamp := "<=", "clamp_max"
	if n.op == "max" {
		cmp, clamp = ">=", "clamp_min"
	}
	switch {
	case a.scalar && b.scalar:
		return promQ{}, noProm(n, "%s() of numbers alone", n.op)
	case b.scalar:
		return promQ{text: clamp + "(" + a.text + ", " + b.text + ")"}, nil
	case a.scalar:
		return promQ{text: clamp + "(" + b.text + ", " + a.text + ")"}, nil
	}
	return promQ{text: "(" + a.text + " " + cmp + " " + b.text + " or " + b.text + ")"}, nil
}

// PromName turns a metric name into a Prometheus metric name component: letters, digits and
// underscores ("l1d-miss.ratio" -> "l1d_miss_ratio").
func PromName(name string) string {
	var b strings.Builder
	for i, r := range name {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r == '_', r >= '0' && r <= '9' && i > 0:
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
	}
	return b.String()
}
