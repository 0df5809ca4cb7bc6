package symbol

import (
	"strings"

	"github.com/ianlancetaylor/demangle"
)

// Demangle returns the readable form of a C++ (Itanium) or Rust (legacy and v0) symbol name,
// or name itself when it is not mangled. Rust's legacy hash suffix (::h and 16 hex digits)
// is dropped, as rustfilt and perf do.
func Demangle(name string) string {
	if !strings.HasPrefix(name, "_Z") && !strings.HasPrefix(name, "_R") && !strings.HasPrefix(name, "__Z") {
		return name
	}
	out, err := demangle.ToString(name)
	if err != nil {
		return name
	}
	return stripRustHash(out)
}

// DemangleShort is the name perf report shows for a symbol: demangled without the
// parameter list ("add_insn", not "add_insn(rtx_insn*)"), as perf does unless verbose.
func DemangleShort(name string) string {
	if !strings.HasPrefix(name, "_Z") && !strings.HasPrefix(name, "_R") && !strings.HasPrefix(name, "__Z") {
		return name
	}
	out, err := demangle.ToString(name, demangle.NoParams)
	if err != nil {
		return name
	}
	return stripRustHash(out)
}

func stripRustHash(s string) string {
	i := strings.LastIndex(s, "::h")
	if i < 0 || len(s)-i != 3+16 {
		return s
	}
	for _, c := range s[i+3:] {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return s
		}
	}
	return s[:i]
}
