package symbol

import (
	"os/exec"
	"strings"
	"testing"
)

func TestDemangleAgreesWithCxxfilt(t *testing.T) {
	need(t, "nm", "c++filt")
	bin := compile(t, "g++", "prog.cc", "progxx", "-O1")
	var mangled []string
	for _, l := range strings.Split(run(t, "nm", "--defined-only", bin), "\n") {
		if f := strings.Fields(l); len(f) == 3 && strings.HasPrefix(f[2], "_Z") {
			mangled = append(mangled, f[2])
		}
	}
	if len(mangled) < 5 {
		t.Fatalf("only %d mangled symbols", len(mangled))
	}
	cmd := exec.Command("c++filt")
	cmd.Stdin = strings.NewReader(strings.Join(mangled, "\n") + "\n")
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
	seen := false
	for i, m := range mangled {
		got := Demangle(m)
		if got != want[i] {
			t.Errorf("Demangle(%s) = %q, c++filt %q", m, got, want[i])
		}
		seen = seen || strings.HasPrefix(got, "ns::Box<long>::get(int) const")
	}
	if !seen {
		t.Error("ns::Box<long>::get(int) const not among the demangled names")
	}
}

func TestDemangleRust(t *testing.T) {
	for in, want := range map[string]string{
		"_ZN4core3fmt5write17h0123456789abcdefE":                                   "core::fmt::write",
		"_ZN3std2rt10lang_start28_$u7b$$u7b$closure$u7d$$u7d$17h5e4b4b5d8a6b9f0aE": "std::rt::lang_start::{{closure}}",
		"_RNvCs15kBYyAo9fc_7mycrate7example":                                       "mycrate::example",
		"main":                                                                     "main",
		"_Zgarbage":                                                                "_Zgarbage",
	} {
		if got := Demangle(in); got != want {
			t.Errorf("Demangle(%s) = %q, want %q", in, got, want)
		}
	}
}
