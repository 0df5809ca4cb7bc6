package metrics

import (
	"errors"
	"testing"
)

// FuzzParse checks that no input panics the parser or the evaluator, that every error is a
// positioned *Error, and that the canonical form parses back to itself.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"instructions / cycles", "100 * ratio(L1-dcache-load-misses, L1-dcache-loads)",
		`"armv8_pmuv3_0/inst_retired/" + r03`, "if(a >= 0x10, min(a, 1e3), -b)", `L1\-dcache`,
		"((a))", "a - -b", "1.5e-3 != .5",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		e, err := Parse(src)
		if err != nil {
			var pe *Error
			if !errors.As(err, &pe) || pe.Pos < 1 || pe.Pos > len(src)+1 {
				t.Fatalf("Parse(%q): error %v without a valid position", src, err)
			}
			return
		}
		canon := e.String()
		again, err := Parse(canon)
		if err != nil {
			t.Fatalf("canonical form %q of %q does not parse: %v", canon, src, err)
		}
		if again.String() != canon {
			t.Fatalf("canonical form not stable: %q -> %q", canon, again.String())
		}
		// Every name is 2 and evaluation must not panic; its errors must be sentinel-tagged.
		if _, err := e.Eval(func(string) (float64, error) { return 2, nil }); err != nil &&
			!errors.Is(err, ErrDivZero) && !errors.Is(err, ErrUndefined) {
			t.Fatalf("Eval(%q): unexpected error %v", src, err)
		}
	})
}
