package metrics

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Sentinel errors; test with errors.Is.
var (
	ErrSyntax      = errors.New("syntax error")
	ErrUnknownName = errors.New("unknown name")
	ErrDivZero     = errors.New("division by zero")
	ErrUndefined   = errors.New("undefined result")
	ErrCycle       = errors.New("metric reference cycle")
)

// Error is a problem at a column of an expression.
type Error struct {
	Metric string // the metric whose definition or evaluation failed, "" for a bare expression
	Pos    int    // 1-based column (byte offset + 1) in the expression, 0 when not tied to one
	Msg    string // what is wrong, lowercase
	Err    error  // the sentinel it belongs to
	Cause  error  // an underlying error (a resolver's), or nil
}

func (e *Error) Error() string {
	prefix := "metrics: "
	if e.Metric != "" {
		prefix += e.Metric + ": "
	}
	if e.Pos > 0 {
		return fmt.Sprintf("%sat %d: %s", prefix, e.Pos, e.Msg)
	}
	return prefix + e.Msg
}

// Unwrap returns the sentinel and, when there is one, the underlying cause.
func (e *Error) Unwrap() []error {
	if e.Cause != nil {
		return []error{e.Err, e.Cause}
	}
	return []error{e.Err}
}

func errAt(pos int, sentinel error, format string, args ...any) *Error {
	return &Error{Pos: pos + 1, Msg: fmt.Sprintf(format, args...), Err: sentinel}
}

type tokKind int

const (
	tokEOF tokKind = iota
	tokNum
	tokName   // bare name
	tokQuoted // "quoted name"
	tokOp     // + - * / < > <= >= == !=
	tokLParen
	tokRParen
	tokComma
)

type token struct {
	kind tokKind
	pos  int // byte offset
	text string
	num  float64
}

func isNameStart(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

func isNameChar(c byte) bool {
	return isNameStart(c) || c >= '0' && c <= '9' || c == '.' || c == ':'
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// lex splits src into tokens; the last one is tokEOF.
func lex(src string) ([]token, error) {
	var toks []token
	i := 0
	for i < len(src) {
		c := src[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			i++
		case isDigit(c) || c == '.' && i+1 < len(src) && isDigit(src[i+1]):
			t, n, err := lexNumber(src, i)
			if err != nil {
				return nil, err
			}
			toks = append(toks, t)
			i = n
		case isNameStart(c) || c == '\\':
			t, n, err := lexName(src, i)
			if err != nil {
				return nil, err
			}
			toks = append(toks, t)
			i = n
		case c == '"':
			t, n, err := lexQuoted(src, i)
			if err != nil {
				return nil, err
			}
			toks = append(toks, t)
			i = n
		case c == '(':
			toks = append(toks, token{kind: tokLParen, pos: i, text: "("})
			i++
		case c == ')':
			toks = append(toks, token{kind: tokRParen, pos: i, text: ")"})
			i++
		case c == ',':
			toks = append(toks, token{kind: tokComma, pos: i, text: ","})
			i++
		case c == '+' || c == '-' || c == '*' || c == '/':
			toks = append(toks, token{kind: tokOp, pos: i, text: string(c)})
			i++
		case c == '<' || c == '>' || c == '=' || c == '!':
			if i+1 < len(src) && src[i+1] == '=' {
				toks = append(toks, token{kind: tokOp, pos: i, text: src[i : i+2]})
				i += 2
				continue
			}
			if c == '=' {
				return nil, errAt(i, ErrSyntax, "unexpected '='; compare with ==")
			}
			if c == '!' {
				return nil, errAt(i, ErrSyntax, "unexpected '!'; use != to compare")
			}
			toks = append(toks, token{kind: tokOp, pos: i, text: string(c)})
			i++
		default:
			return nil, errAt(i, ErrSyntax, "unexpected character %q; quote event names that contain it", rune(c))
		}
	}
	return append(toks, token{kind: tokEOF, pos: len(src)}), nil
}

func lexNumber(src string, start int) (token, int, error) {
	i := start
	var v float64
	if src[i] == '0' && i+1 < len(src) && (src[i+1] == 'x' || src[i+1] == 'X') {
		i += 2
		for i < len(src) && isHex(src[i]) {
			i++
		}
		u, err := strconv.ParseUint(src[start+2:i], 16, 64)
		if err != nil {
			return token{}, 0, errAt(start, ErrSyntax, "malformed hex number %q", src[start:i])
		}
		v = float64(u)
	} else {
		for i < len(src) && isDigit(src[i]) {
			i++
		}
		if i < len(src) && src[i] == '.' {
			i++
			for i < len(src) && isDigit(src[i]) {
				i++
			}
		}
		if i < len(src) && (src[i] == 'e' || src[i] == 'E') {
			j := i + 1
			if j < len(src) && (src[j] == '+' || src[j] == '-') {
				j++
			}
			if j < len(src) && isDigit(src[j]) {
				for j < len(src) && isDigit(src[j]) {
					j++
				}
				i = j
			}
		}
		f, err := strconv.ParseFloat(src[start:i], 64)
		if err != nil || math.IsInf(f, 0) {
			return token{}, 0, errAt(start, ErrSyntax, "number %q out of range", src[start:i])
		}
		v = f
	}
	if i < len(src) && (isNameChar(src[i]) || src[i] == '\\') {
		return token{}, 0, errAt(start, ErrSyntax, "malformed number %q; names start with a letter", src[start:i+1])
	}
	return token{kind: tokNum, pos: start, text: src[start:i], num: v}, i, nil
}

func isHex(c byte) bool {
	return isDigit(c) || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// lexName reads a bare name: name characters, backslash escapes, and "-" joined between name
// characters.
func lexName(src string, start int) (token, int, error) {
	var b strings.Builder
	i := start
	for i < len(src) {
		c := src[i]
		switch {
		case c == '\\':
			if i+1 >= len(src) {
				return token{}, 0, errAt(i, ErrSyntax, "backslash at end of expression")
			}
			b.WriteByte(src[i+1])
			i += 2
			continue
		case isNameChar(c):
			b.WriteByte(c)
			i++
			continue
		case c == '-' && i > start && i+1 < len(src) && (isNameChar(src[i+1]) || src[i+1] == '\\'):
			b.WriteByte(c)
			i++
			continue
		}
		break
	}
	return token{kind: tokName, pos: start, text: b.String()}, i, nil
}

func lexQuoted(src string, start int) (token, int, error) {
	var b strings.Builder
	for i := start + 1; i < len(src); i++ {
		switch src[i] {
		case '\\':
			if i+1 < len(src) {
				i++
				b.WriteByte(src[i])
			}
		case '"':
			if b.Len() == 0 {
				return token{}, 0, errAt(start, ErrSyntax, "empty quoted name")
			}
			return token{kind: tokQuoted, pos: start, text: b.String()}, i + 1, nil
		default:
			b.WriteByte(src[i])
		}
	}
	return token{}, 0, errAt(start, ErrSyntax, "unterminated quoted name")
}

// quoteName writes name so that lex reads it back as the same single name.
func quoteName(name string) string {
	if bareName(name) {
		return name
	}
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(name); i++ {
		if name[i] == '"' || name[i] == '\\' {
			b.WriteByte('\\')
		}
		b.WriteByte(name[i])
	}
	b.WriteByte('"')
	return b.String()
}

// bareName reports whether name can be written without quotes or escapes.
func bareName(name string) bool {
	if name == "" || !isNameStart(name[0]) {
		return false
	}
	for i := 1; i < len(name); i++ {
		c := name[i]
		if isNameChar(c) {
			continue
		}
		if c == '-' && i+1 < len(name) && isNameChar(name[i+1]) {
			continue
		}
		return false
	}
	return true
}
