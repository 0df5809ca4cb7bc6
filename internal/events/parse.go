package events

import (
	"fmt"
	"strconv"
	"strings"
)

// maxEvents bounds how many events one list may name.
const maxEvents = 4096

type parser struct {
	input string
	toks  []token
	i     int
	count int
}

// Parse parses a perf event list: comma-separated events and {braced} groups, each with
// optional :modifiers. It checks syntax and modifiers only; names are resolved by Resolve.
func Parse(s string) ([]GroupSpec, error) {
	toks, err := lex(s)
	if err != nil {
		return nil, err
	}
	p := &parser{input: s, toks: toks}
	if p.peek().kind == tokEOF {
		return nil, p.errAt(0, "empty event list")
	}
	var groups []GroupSpec
	for {
		g, err := p.item()
		if err != nil {
			return nil, err
		}
		groups = append(groups, g)
		t := p.next()
		if t.kind == tokEOF {
			return groups, nil
		}
		if t.text != "," || t.kind != tokPunct {
			return nil, p.errAt(t.pos, fmt.Sprintf("unexpected %s after event (want ',' or end)", t))
		}
	}
}

func (p *parser) peek() token { return p.toks[p.i] }

func (p *parser) next() token {
	t := p.toks[p.i]
	if t.kind != tokEOF {
		p.i++
	}
	return t
}

func (p *parser) isPunct(c string) bool {
	t := p.peek()
	return t.kind == tokPunct && t.text == c
}

func (p *parser) errAt(pos int, msg string) error {
	return &SyntaxError{Input: p.input, Pos: pos, Msg: msg}
}

// item := '{' event (',' event)* '}' [':' modifiers] | event
func (p *parser) item() (GroupSpec, error) {
	start := p.peek().pos
	if !p.isPunct("{") {
		e, err := p.event()
		if err != nil {
			return GroupSpec{}, err
		}
		return GroupSpec{Events: []EventSpec{e}, Pos: start}, nil
	}
	p.next()
	g := GroupSpec{Braced: true, Pos: start}
	for {
		if p.isPunct("{") {
			return g, p.errAt(p.peek().pos, "groups cannot be nested")
		}
		e, err := p.event()
		if err != nil {
			return g, err
		}
		g.Events = append(g.Events, e)
		t := p.next()
		if t.kind == tokPunct && t.text == "}" {
			break
		}
		if t.kind != tokPunct || t.text != "," {
			return g, p.errAt(t.pos, fmt.Sprintf("unexpected %s in group (want ',' or '}')", t))
		}
	}
	if p.isPunct(":") {
		p.next()
		t := p.next()
		if t.kind != tokName {
			return g, p.errAt(t.pos, fmt.Sprintf("want group modifiers after ':', got %s", t))
		}
		if err := checkModifiers(t.text); err != nil {
			return g, p.errAt(t.pos, err.Error())
		}
		g.Modifiers = t.text
	}
	return g, nil
}

// event := NAME '/' [term (',' term)*] '/' [[':'] modifiers] | NAME [':' NAME [':' NAME]]
func (p *parser) event() (EventSpec, error) {
	t := p.next()
	if t.kind != tokName {
		return EventSpec{}, p.errAt(t.pos, fmt.Sprintf("want an event name, got %s", t))
	}
	if p.count++; p.count > maxEvents {
		return EventSpec{}, p.errAt(t.pos, fmt.Sprintf("more than %d events", maxEvents))
	}
	e := EventSpec{Name: t.text, Pos: t.pos}
	var err error
	if p.isPunct("/") {
		err = p.pmuEvent(&e)
	} else {
		err = p.colonEvent(&e)
	}
	if err != nil {
		return e, err
	}
	e.Text = strings.TrimSpace(p.input[e.Pos:p.toks[p.i].pos])
	return e, nil
}

func (p *parser) pmuEvent(e *EventSpec) error {
	e.Kind = KindPMU
	p.next() // '/'
	for !p.isPunct("/") {
		t := p.next()
		if t.kind != tokName {
			return p.errAt(t.pos, fmt.Sprintf("want a term of pmu %s, got %s", e.Name, t))
		}
		term := Term{Key: t.text, Pos: t.pos}
		if p.isPunct("=") {
			p.next()
			v := p.next()
			if v.kind != tokName {
				return p.errAt(v.pos, fmt.Sprintf("want a value for term %q, got %s", term.Key, v))
			}
			term.Value, term.HasValue = v.text, true
		}
		e.Terms = append(e.Terms, term)
		if p.isPunct(",") {
			p.next()
			if p.isPunct("/") {
				return p.errAt(p.peek().pos, "empty term before '/'")
			}
		} else if !p.isPunct("/") {
			t := p.peek()
			return p.errAt(t.pos, fmt.Sprintf("unexpected %s in terms of pmu %s (want ',' or '/')", t, e.Name))
		}
	}
	closing := p.next()
	// Modifiers may follow the closing slash directly (perf's msr/tsc/u) or after a colon.
	t := p.peek()
	if t.kind == tokPunct && t.text == ":" {
		p.next()
		t = p.peek()
		if t.kind != tokName {
			return p.errAt(t.pos, fmt.Sprintf("want modifiers after ':', got %s", t))
		}
	}
	if t.kind == tokName && (t.pos == closing.pos+1 || p.toks[p.i-1].text == ":") {
		p.next()
		if err := checkModifiers(t.text); err != nil {
			return p.errAt(t.pos, err.Error())
		}
		e.Modifiers = t.text
	}
	return nil
}

// colonEvent handles name, name:mods, subsys:tracepoint[:mods] and type:config[:mods].
func (p *parser) colonEvent(e *EventSpec) error {
	var parts []token
	for len(parts) < 3 && p.isPunct(":") {
		p.next()
		t := p.next()
		if t.kind != tokName {
			return p.errAt(t.pos, fmt.Sprintf("want a name after ':', got %s", t))
		}
		parts = append(parts, t)
	}
	if len(parts) == 3 {
		return p.errAt(parts[2].pos-1, "too many ':' in event")
	}
	typ, typOK := parseNumber(e.Name)
	if len(parts) >= 1 {
		if cfg, ok := parseNumber(parts[0].text); ok && typOK {
			if typ > 0xffffffff {
				return p.errAt(e.Pos, fmt.Sprintf("event type %s does not fit in 32 bits", e.Name))
			}
			e.Kind, e.Type, e.Config = KindNumeric, uint32(typ), cfg
			parts = parts[1:]
		} else if len(parts) == 2 || !isModifierWord(parts[0].text) {
			if notTracepoint(e.Name) {
				return p.errAt(parts[0].pos, badModifier(parts[0].text, e.Name))
			}
			e.Kind, e.Event = KindTracepoint, parts[0].text
			parts = parts[1:]
		}
	}
	if len(parts) == 1 {
		if err := checkModifiers(parts[0].text); err != nil {
			return p.errAt(parts[0].pos, err.Error())
		}
		e.Modifiers = parts[0].text
	}
	return nil
}

// parseNumber parses a decimal or 0x-prefixed hexadecimal number, as perf's lexer does (a
// leading zero does not mean octal).
func parseNumber(s string) (uint64, bool) {
	if h, ok := strings.CutPrefix(s, "0x"); ok || strings.HasPrefix(s, "0X") {
		if !ok {
			h = s[2:]
		}
		if h == "" || strings.ContainsAny(h, "_+-") {
			return 0, false
		}
		v, err := strconv.ParseUint(h, 16, 64)
		return v, err == nil
	}
	if s == "" || strings.ContainsAny(s, "_+-") {
		return 0, false
	}
	v, err := strconv.ParseUint(s, 10, 64)
	return v, err == nil
}
