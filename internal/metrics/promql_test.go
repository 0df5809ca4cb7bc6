package metrics

import (
	"errors"
	"testing"
)

func TestPromQL(t *testing.T) {
	set, err := NewSet(
		Def{Name: "ipc", Expr: "instructions / cycles"},
		Def{Name: "miss", Expr: "100 * ratio(cache-misses, cache-references)"},
		Def{Name: "cpus", Expr: "task-clock / duration_time"},
		Def{Name: "guarded", Expr: "if(cycles > 0, ipc, 0)"},
		Def{Name: "capped", Expr: "min(ipc, 4)"},
		Def{Name: "larger", Expr: "max(instructions, cycles)"},
		Def{Name: "user", Expr: "task-clock / user_time"},
		Def{Name: "nums", Expr: "min(1, 2) + cycles"},
	)
	if err != nil {
		t.Fatal(err)
	}
	op := func(ev string) (string, error) {
		if ev == "unknown" {
			return "", errors.New("not counted")
		}
		return "r{e=\"" + ev + "\"}", nil
	}
	for _, c := range []struct{ name, want string }{
		{"ipc", `((r{e="instructions"}) / ((r{e="cycles"}) != 0))`},
		{"miss", `(100 * ((r{e="cache-misses"}) / ((r{e="cache-references"}) != 0)))`},
		{"cpus", `((r{e="task-clock"}) / 1e9)`},
		{"guarded", `(((r{e="instructions"}) / ((r{e="cycles"}) != 0)) and ((r{e="cycles"}) > bool 0) != 0 or (0 * ((r{e="cycles"}) > bool 0) + 0) and ((r{e="cycles"}) > bool 0) == 0)`},
		{"capped", `clamp_max(((r{e="instructions"}) / ((r{e="cycles"}) != 0)), 4)`},
		{"larger", `((r{e="instructions"}) >= (r{e="cycles"}) or (r{e="cycles"}))`},
	} {
		got, err := set.PromQL(c.name, op)
		if err != nil || got != c.want {
			t.Errorf("%s:\n got %s (%v)\nwant %s", c.name, got, err, c.want)
		}
	}
	for _, name := range []string{"user", "nums"} {
		if got, err := set.PromQL(name, op); !errors.Is(err, ErrNoPromQL) {
			t.Errorf("%s: %q %v, want ErrNoPromQL", name, got, err)
		}
	}
	// Every built-in metric of every architecture has a PromQL form.
	for _, arch := range []string{ArchGeneric, ArchARM1176} {
		s := Builtin(arch)
		for _, d := range s.Defs() {
			if _, err := s.PromQL(d.Name, op); err != nil {
				t.Errorf("%s %s: %v", arch, d.Name, err)
			}
		}
	}
	if got := PromName("l1d-miss.ratio"); got != "l1d_miss_ratio" {
		t.Errorf("PromName: %q", got)
	}
}
