package metrics

import (
	"math"
	"strings"
)

// Lookup resolves a name to a value during evaluation. It returns an error wrapping
// ErrUnknownName (or any other reason) when the name has no value.
type Lookup func(name string) (float64, error)

// Eval evaluates the expression. Names are resolved with lookup; a zero denominator yields
// an error wrapping ErrDivZero and an overflow one wrapping ErrUndefined, so the result is
// always a finite number or an error.
func (e *Expr) Eval(lookup Lookup) (float64, error) {
	return eval(e.root, lookup)
}

// Env is a Lookup over a fixed map of values.
func Env(values map[string]float64) Lookup {
	return func(name string) (float64, error) {
		if v, ok := values[name]; ok {
			return v, nil
		}
		return 0, &Error{Msg: "unknown name " + quoteName(name), Err: ErrUnknownName}
	}
}

func eval(n *node, lookup Lookup) (float64, error) {
	switch n.kind {
	case nodeNum:
		return n.num, nil
	case nodeName:
		v, err := lookup(n.name)
		if err != nil {
			if e, ok := err.(*Error); ok && e.Pos == 0 {
				return 0, &Error{Pos: n.pos + 1, Msg: e.Msg, Err: e.Err}
			}
			return 0, err
		}
		return v, nil
	case nodeUnary:
		v, err := eval(n.args[0], lookup)
		return -v, err
	case nodeBinary:
		a, err := eval(n.args[0], lookup)
		if err != nil {
			return 0, err
		}
		b, err := eval(n.args[1], lookup)
		if err != nil {
			return 0, err
		}
		return binop(n, n.op, a, b)
	case nodeCall:
		return call(n, lookup)
	}
	return 0, errAt(n.pos, ErrUndefined, "bad expression node")
}

func binop(n *node, op string, a, b float64) (float64, error) {
	var v float64
	switch op {
	case "+":
		v = a + b
	case "-":
		v = a - b
	case "*":
		v = a * b
	case "/":
		if b == 0 {
			var sb strings.Builder
			format(&sb, n.args[1])
			return 0, errAt(n.pos, ErrDivZero, "division by zero (%s is 0)", sb.String())
		}
		v = a / b
	case "<":
		v = bool01(a < b)
	case ">":
		v = bool01(a > b)
	case "<=":
		v = bool01(a <= b)
	case ">=":
		v = bool01(a >= b)
	case "==":
		v = bool01(a == b)
	case "!=":
		v = bool01(a != b)
	}
	if math.IsInf(v, 0) || math.IsNaN(v) {
		return 0, errAt(n.pos, ErrUndefined, "%q overflows", op)
	}
	return v, nil
}

func bool01(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

func call(n *node, lookup Lookup) (float64, error) {
	if n.op == "if" {
		c, err := eval(n.args[0], lookup)
		if err != nil {
			return 0, err
		}
		if c != 0 {
			return eval(n.args[1], lookup)
		}
		return eval(n.args[2], lookup)
	}
	vals := make([]float64, len(n.args))
	for i, a := range n.args {
		v, err := eval(a, lookup)
		if err != nil {
			return 0, err
		}
		vals[i] = v
	}
	switch n.op {
	case "ratio":
		return binop(&node{kind: nodeBinary, pos: n.pos, op: "/", args: n.args}, "/", vals[0], vals[1])
	case "min":
		m := vals[0]
		for _, v := range vals[1:] {
			m = math.Min(m, v)
		}
		return m, nil
	case "max":
		m := vals[0]
		for _, v := range vals[1:] {
			m = math.Max(m, v)
		}
		return m, nil
	}
	return 0, errAt(n.pos, ErrSyntax, "unknown function %q", n.op)
}
