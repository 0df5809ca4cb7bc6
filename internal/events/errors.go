package events

import (
	"errors"
	"fmt"
)

// Sentinel errors, matched with errors.Is.
var (
	ErrSyntax       = errors.New("event syntax error")
	ErrUnknownEvent = errors.New("unknown event")
	ErrUnknownPMU   = errors.New("unknown pmu")
	ErrUnknownField = errors.New("unknown format field")
	ErrValue        = errors.New("bad value")
	ErrUnsupported  = errors.New("not supported")
	ErrPermission   = errors.New("permission denied")
)

// SyntaxError is a Parse error with its position in the input.
type SyntaxError struct {
	Input string
	Pos   int // byte offset
	Msg   string
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("event syntax error at column %d of %s: %s", e.Pos+1, excerpt(e.Input, e.Pos), e.Msg)
}

// excerptWidth is how much of an event list an error quotes on each side of the problem.
const excerptWidth = 40

// excerpt quotes s around byte pos, eliding what lies further than excerptWidth away: a
// 100 KB event list must not come back whole in a one-line error.
func excerpt(s string, pos int) string {
	lo, hi := max(pos-excerptWidth, 0), min(pos+excerptWidth, len(s))
	q := fmt.Sprintf("%q", s[lo:hi])
	if lo > 0 {
		q = "..." + q
	}
	if hi < len(s) {
		q += fmt.Sprintf("... (%d bytes)", len(s))
	}
	return q
}

// Short quotes a name for an error: whole when short, its start and length when long.
func Short(name string) string {
	if len(name) <= 2*excerptWidth {
		return fmt.Sprintf("%q", name)
	}
	return excerpt(name, excerptWidth)
}

// Unwrap makes errors.Is(err, ErrSyntax) true.
func (e *SyntaxError) Unwrap() error { return ErrSyntax }

// Error is a Resolve error: a one-line message, the sentinel it matches, and optionally the
// column of the event in the list and a "did you mean" hint.
type Error struct {
	Kind error  // one of the sentinels
	Msg  string // what is wrong
	Col  int    // 1-based column of the event; 0 when it is the first
	Hint string // " (did you mean: ...?)" or ""
}

func (e *Error) Error() string {
	s := e.Msg
	if e.Col > 1 {
		s += fmt.Sprintf(" (event at column %d)", e.Col)
	}
	return s + e.Hint
}

// Unwrap makes errors.Is match the sentinel.
func (e *Error) Unwrap() error { return e.Kind }

func errf(kind error, format string, args ...any) *Error {
	return &Error{Kind: kind, Msg: fmt.Sprintf(format, args...)}
}

func (e *Error) hint(h string) *Error {
	e.Hint = h
	return e
}
