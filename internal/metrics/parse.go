package metrics

import (
	"strconv"
	"strings"
)

// maxDepth bounds nesting so a hostile expression cannot exhaust the stack.
const maxDepth = 100

type nodeKind int

const (
	nodeNum nodeKind = iota
	nodeName
	nodeUnary  // op "-"
	nodeBinary // op + - * / < > <= >= == !=
	nodeCall   // op is the function name
)

type node struct {
	kind nodeKind
	pos  int // byte offset of the token that starts (or, for operators, names) the node
	num  float64
	name string
	op   string
	args []*node
}

// funcArity says whether name is a function and how many arguments it takes (-1: two or
// more). A switch, not a map: no work at package init.
func funcArity(name string) (int, bool) {
	switch name {
	case "ratio":
		return 2, true
	case "min", "max":
		return -1, true
	case "if":
		return 3, true
	}
	return 0, false
}

// Expr is a parsed expression.
type Expr struct {
	src  string
	root *node
}

// Parse parses one expression.
func Parse(src string) (*Expr, error) {
	toks, err := lex(src)
	if err != nil {
		return nil, err
	}
	p := &parser{toks: toks}
	n, err := p.expr(0)
	if err != nil {
		return nil, err
	}
	if t := p.peek(); t.kind != tokEOF {
		return nil, errAt(t.pos, ErrSyntax, "unexpected %s after the expression", describe(t))
	}
	return &Expr{src: src, root: n}, nil
}

// Source is the text the expression was parsed from.
func (e *Expr) Source() string { return e.src }

// String is a canonical, fully parenthesised form that Parse reads back to the same tree.
func (e *Expr) String() string {
	var b strings.Builder
	format(&b, e.root)
	return b.String()
}

// Names lists the names the expression refers to, in order of first appearance.
func (e *Expr) Names() []string {
	var out []string
	seen := map[string]bool{}
	walk(e.root, func(n *node) {
		if n.kind == nodeName && !seen[n.name] {
			seen[n.name] = true
			out = append(out, n.name)
		}
	})
	return out
}

func walk(n *node, f func(*node)) {
	f(n)
	for _, a := range n.args {
		walk(a, f)
	}
}

type parser struct {
	toks []token
	i    int
}

func (p *parser) peek() token { return p.toks[p.i] }

func (p *parser) next() token {
	t := p.toks[p.i]
	if t.kind != tokEOF {
		p.i++
	}
	return t
}

func describe(t token) string {
	switch t.kind {
	case tokEOF:
		return "end of expression"
	case tokNum:
		return "number " + t.text
	case tokName, tokQuoted:
		return "name " + strconv.Quote(t.text)
	}
	return strconv.Quote(t.text)
}

func isCompare(op string) bool {
	switch op {
	case "<", ">", "<=", ">=", "==", "!=":
		return true
	}
	return false
}

// expr parses a comparison chain (the lowest precedence level).
func (p *parser) expr(depth int) (*node, error) {
	if depth > maxDepth {
		return nil, errAt(p.peek().pos, ErrSyntax, "expression nested more than %d deep", maxDepth)
	}
	return p.binary(depth, 0)
}

// levels of binary operators, loosest first.
var levels = []func(string) bool{
	isCompare,
	func(op string) bool { return op == "+" || op == "-" },
	func(op string) bool { return op == "*" || op == "/" },
}

func (p *parser) binary(depth, level int) (*node, error) {
	if level == len(levels) {
		return p.unary(depth)
	}
	left, err := p.binary(depth, level+1)
	if err != nil {
		return nil, err
	}
	for {
		t := p.peek()
		if t.kind != tokOp || !levels[level](t.text) {
			return left, nil
		}
		p.next()
		right, err := p.binary(depth, level+1)
		if err != nil {
			return nil, err
		}
		left = &node{kind: nodeBinary, pos: t.pos, op: t.text, args: []*node{left, right}}
	}
}

func (p *parser) unary(depth int) (*node, error) {
	t := p.peek()
	if t.kind == tokOp && (t.text == "-" || t.text == "+") {
		if depth > maxDepth {
			return nil, errAt(t.pos, ErrSyntax, "expression nested more than %d deep", maxDepth)
		}
		p.next()
		x, err := p.unary(depth + 1)
		if err != nil {
			return nil, err
		}
		if t.text == "+" {
			return x, nil
		}
		return &node{kind: nodeUnary, pos: t.pos, op: "-", args: []*node{x}}, nil
	}
	return p.primary(depth)
}

func (p *parser) primary(depth int) (*node, error) {
	t := p.next()
	switch t.kind {
	case tokNum:
		return &node{kind: nodeNum, pos: t.pos, num: t.num}, nil
	case tokQuoted:
		return &node{kind: nodeName, pos: t.pos, name: t.text}, nil
	case tokName:
		if p.peek().kind == tokLParen {
			return p.call(t, depth)
		}
		return &node{kind: nodeName, pos: t.pos, name: t.text}, nil
	case tokLParen:
		x, err := p.expr(depth + 1)
		if err != nil {
			return nil, err
		}
		if c := p.next(); c.kind != tokRParen {
			return nil, errAt(c.pos, ErrSyntax, "expected ')' to close '(' at %d, got %s", t.pos+1, describe(c))
		}
		return x, nil
	}
	return nil, errAt(t.pos, ErrSyntax, "expected a number, name or '(', got %s", describe(t))
}

func (p *parser) call(name token, depth int) (*node, error) {
	arity, ok := funcArity(name.text)
	if !ok {
		return nil, errAt(name.pos, ErrSyntax, "unknown function %q (known: if, max, min, ratio)", name.text)
	}
	p.next() // (
	n := &node{kind: nodeCall, pos: name.pos, op: name.text}
	for {
		a, err := p.expr(depth + 1)
		if err != nil {
			return nil, err
		}
		n.args = append(n.args, a)
		t := p.next()
		if t.kind == tokRParen {
			break
		}
		if t.kind != tokComma {
			return nil, errAt(t.pos, ErrSyntax, "expected ',' or ')' in %s(), got %s", name.text, describe(t))
		}
	}
	switch {
	case arity > 0 && len(n.args) != arity:
		return nil, errAt(name.pos, ErrSyntax, "%s() takes %d arguments, got %d", name.text, arity, len(n.args))
	case arity < 0 && len(n.args) < 2:
		return nil, errAt(name.pos, ErrSyntax, "%s() takes at least 2 arguments, got %d", name.text, len(n.args))
	}
	return n, nil
}

func format(b *strings.Builder, n *node) {
	switch n.kind {
	case nodeNum:
		b.WriteString(strconv.FormatFloat(n.num, 'g', -1, 64))
	case nodeName:
		b.WriteString(quoteName(n.name))
	case nodeUnary:
		b.WriteString("(-")
		format(b, n.args[0])
		b.WriteByte(')')
	case nodeBinary:
		b.WriteByte('(')
		format(b, n.args[0])
		b.WriteString(" " + n.op + " ")
		format(b, n.args[1])
		b.WriteByte(')')
	case nodeCall:
		b.WriteString(n.op + "(")
		for i, a := range n.args {
			if i > 0 {
				b.WriteString(", ")
			}
			format(b, a)
		}
		b.WriteByte(')')
	}
}
