package events

import "fmt"

type tokKind int

const (
	tokEOF tokKind = iota
	tokName
	tokPunct // one of { } , / : =
)

type token struct {
	kind tokKind
	text string
	pos  int
}

func (t token) String() string {
	switch t.kind {
	case tokEOF:
		return "end of input"
	case tokName:
		return fmt.Sprintf("%q", t.text)
	}
	return fmt.Sprintf("'%s'", t.text)
}

// isNameByte reports the bytes names, numbers and term values are made of ('*' and '?' for
// tracepoint globs).
func isNameByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' ||
		c == '_' || c == '-' || c == '.' || c == '*' || c == '?'
}

// lex splits s into tokens. Blanks between tokens are skipped; any other byte that is neither
// a name byte nor punctuation is an error.
func lex(s string) ([]token, error) {
	var toks []token
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n':
			i++
		case isNameByte(c):
			j := i
			for j < len(s) && isNameByte(s[j]) {
				j++
			}
			toks = append(toks, token{tokName, s[i:j], i})
			i = j
		case c == '{' || c == '}' || c == ',' || c == '/' || c == ':' || c == '=':
			toks = append(toks, token{tokPunct, s[i : i+1], i})
			i++
		default:
			return nil, &SyntaxError{Input: s, Pos: i, Msg: fmt.Sprintf("unexpected character %q", s[i:i+1])}
		}
	}
	return append(toks, token{tokEOF, "", len(s)}), nil
}
