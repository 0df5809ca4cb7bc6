package compare

import (
	"regexp"
	"testing"
)

// TestIdentityMatchers: the string code that replaced two regular expressions (compiled at
// every launch of pmc) finds what they found.
func TestIdentityMatchers(t *testing.T) {
	paren := regexp.MustCompile(`\s*\([^()]*\)\s*$`)
	raw := regexp.MustCompile(`= r([0-9a-fA-F]+)\b`)
	for _, s := range []string{
		"", "AMD EPYC 7B13", "ARM Cortex-A57 (cpuinfo architecture 8)", "x (AMD EPYC) ", "x (a (b) c)",
		"x (b) c)", "(only)", "x ()", "x)\t", "a (b)\n(c) ", "no ( close", "x (y)) ",
		"instructions = r8 (INST_RETIRED)", "cycles = r11", "x = r12g = r3f", "= r_ = rAB_", "= r", "= rz = r0 ",
		"x =r8", "= r1a2B,", "= r7é",
	} {
		if got, want := trimRemark(s), paren.ReplaceAllString(s, ""); got != want {
			t.Errorf("trimRemark(%q) = %q, the expression gave %q", s, got, want)
		}
		hex, ok := resolvedRaw(s)
		m := raw.FindStringSubmatch(s)
		if ok != (m != nil) || ok && hex != m[1] {
			t.Errorf("resolvedRaw(%q) = %q %v, the expression found %q", s, hex, ok, m)
		}
	}
}
