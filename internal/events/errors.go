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
)

// SyntaxError is a Parse error with its position in the input.
type SyntaxError struct {
	Input string
	Pos   int // byte offset
	Msg   string
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("event syntax error at column %d of %q: %s", e.Pos+1, e.Input, e.Msg)
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
