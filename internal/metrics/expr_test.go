package metrics

import (
	"errors"
	"math"
	"testing"
)

func TestParseCanonical(t *testing.T) {
	tests := []struct {
		src, want string
	}{
		{"instructions / cycles", "(instructions / cycles)"},
		{"instructions/cycles", "(instructions / cycles)"},
		{"L1-dcache-load-misses / L1-dcache-loads", "(L1-dcache-load-misses / L1-dcache-loads)"},
		{`L1\-dcache\-load\-misses`, "L1-dcache-load-misses"},
		{"cycles - instructions", "(cycles - instructions)"},
		{"cycles -instructions", "(cycles - instructions)"},
		{"cycles-instructions", "cycles-instructions"}, // one name: the documented rule
		{"1-2", "(1 - 2)"},
		{"a - -b", "(a - (-b))"},
		{"-a * b", "((-a) * b)"},
		{"+a", "a"},
		{"1 + 2 * 3", "(1 + (2 * 3))"},
		{"(1 + 2) * 3", "((1 + 2) * 3)"},
		{"8 / 4 / 2", "((8 / 4) / 2)"},
		{"1e3 + 0x10 + .5 + 2.5E-1", "(((1000 + 16) + 0.5) + 0.25)"},
		{"r03 + r0B", "(r03 + r0B)"},
		{`"armv8_pmuv3_0/inst_retired/" / cycles`, `("armv8_pmuv3_0/inst_retired/" / cycles)`},
		{`"cpu/event=0x3c,umask=0/"`, `"cpu/event=0x3c,umask=0/"`},
		{`"a\"b"`, `"a\"b"`},
		{"cycles:u / task-clock", "(cycles:u / task-clock)"},
		{"mem_load_retired.l1_miss", "mem_load_retired.l1_miss"},
		{"ratio(branch-misses, branches)", "ratio(branch-misses, branches)"},
		{"min(a, b, c) + max(1, 2)", "(min(a, b, c) + max(1, 2))"},
		{"if(a >= b, a, b)", "if((a >= b), a, b)"},
		{"a < b == c != d", "(((a < b) == c) != d)"},
		{"a <= b + 1", "(a <= (b + 1))"},
		{"if (x > 0, 1, 0)", "if((x > 0), 1, 0)"},
		{"if", "if"}, // a name when no '(' follows
	}
	for _, tt := range tests {
		e, err := Parse(tt.src)
		if err != nil {
			t.Errorf("Parse(%q): %v", tt.src, err)
			continue
		}
		if got := e.String(); got != tt.want {
			t.Errorf("Parse(%q) = %s, want %s", tt.src, got, tt.want)
			continue
		}
		again, err := Parse(e.String())
		if err != nil || again.String() != tt.want {
			t.Errorf("reparse of %q: %v %v", tt.want, again, err)
		}
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct{ src, want string }{
		{"ratio(a, b) + rato(a, b)", `metrics: at 15: unknown function "rato" (known: if, max, min, ratio)`},
		{"", "metrics: at 1: expected a number, name or '(', got end of expression"},
		{"a +", "metrics: at 4: expected a number, name or '(', got end of expression"},
		{"(a + b", "metrics: at 7: expected ')' to close '(' at 1, got end of expression"},
		{"a b", `metrics: at 3: unexpected name "b" after the expression`},
		{"a = b", "metrics: at 3: unexpected '='; compare with =="},
		{"!a", "metrics: at 1: unexpected '!'; use != to compare"},
		{"a % b", "metrics: at 3: unexpected character '%'; quote event names that contain it"},
		{"armv8_pmuv3_0/inst_retired/", "metrics: at 28: expected a number, name or '(', got end of expression"},
		{"ratio(a)", "metrics: at 1: ratio() takes 2 arguments, got 1"},
		{"if(a, b)", "metrics: at 1: if() takes 3 arguments, got 2"},
		{"min(a)", "metrics: at 1: min() takes at least 2 arguments, got 1"},
		{"max(a b)", "metrics: at 7: expected ',' or ')' in max(), got name \"b\""},
		{"12abc", `metrics: at 1: malformed number "12a"; names start with a letter`},
		{"0x", `metrics: at 1: malformed hex number "0x"`},
		{"1e999", `metrics: at 1: number "1e999" out of range`},
		{`"abc`, "metrics: at 1: unterminated quoted name"},
		{`""`, "metrics: at 1: empty quoted name"},
		{`a\`, "metrics: at 2: backslash at end of expression"},
		{"()", "metrics: at 2: expected a number, name or '(', got \")\""},
	}
	for _, tt := range tests {
		_, err := Parse(tt.src)
		if err == nil {
			t.Errorf("Parse(%q) succeeded, want %s", tt.src, tt.want)
			continue
		}
		if err.Error() != tt.want {
			t.Errorf("Parse(%q) error\n got %s\nwant %s", tt.src, err, tt.want)
		}
		if !errors.Is(err, ErrSyntax) {
			t.Errorf("Parse(%q) error %v is not ErrSyntax", tt.src, err)
		}
	}
}

func TestParseDepthLimit(t *testing.T) {
	deep := ""
	for i := 0; i < 500; i++ {
		deep += "("
	}
	if _, err := Parse(deep + "1"); err == nil {
		t.Fatal("500 nested parentheses parsed")
	}
	neg := ""
	for i := 0; i < 500; i++ {
		neg += "-"
	}
	if _, err := Parse(neg + "1"); err == nil {
		t.Fatal("500 nested minus signs parsed")
	}
}

func TestEval(t *testing.T) {
	env := Env(map[string]float64{
		"instructions": 293729707, "cycles": 23028913, "branches": 459661, "branch-misses": 878094,
		"zero": 0, "big": 1e300, "L1-dcache-load-misses": 50, "L1-dcache-loads": 1000,
	})
	tests := []struct {
		src  string
		want float64
	}{
		{"instructions / cycles", 293729707.0 / 23028913},
		{"100 * ratio(L1-dcache-load-misses, L1-dcache-loads)", 5},
		{"1000 * L1-dcache-load-misses / instructions", 1000 * 50 / 293729707.0},
		{"-zero - 2", -2},
		{"2 * 3 + 4", 10},
		{"2 * (3 + 4)", 14},
		{"min(3, 1, 2)", 1},
		{"max(3, 1, 2)", 3},
		{"if(zero > 0, branch-misses / zero, 7)", 7}, // the branch not taken is not evaluated
		{"if(branches, 1, 2)", 1},
		{"(1 < 2) + (2 < 1) + (1 <= 1) + (1 >= 2) + (3 == 3) + (3 != 3)", 3},
		{"0x10 / 1e1", 1.6},
	}
	for _, tt := range tests {
		e, err := Parse(tt.src)
		if err != nil {
			t.Fatalf("Parse(%q): %v", tt.src, err)
		}
		got, err := e.Eval(env)
		if err != nil {
			t.Errorf("Eval(%q): %v", tt.src, err)
			continue
		}
		if math.Abs(got-tt.want) > 1e-12*math.Abs(tt.want) {
			t.Errorf("Eval(%q) = %v, want %v", tt.src, got, tt.want)
		}
	}
}

func TestEvalErrors(t *testing.T) {
	env := Env(map[string]float64{"a": 1, "zero": 0, "big": 1e300})
	tests := []struct {
		src  string
		is   error
		want string
	}{
		{"a / zero", ErrDivZero, "metrics: at 3: division by zero (zero is 0)"},
		{"ratio(a, zero - zero)", ErrDivZero, "metrics: at 1: division by zero ((zero - zero) is 0)"},
		{"zero / zero", ErrDivZero, "metrics: at 6: division by zero (zero is 0)"},
		{"a + nosuch", ErrUnknownName, `metrics: at 5: unknown name nosuch`},
		{"big * big", ErrUndefined, `metrics: at 5: "*" overflows`},
		{"min(a, a / zero)", ErrDivZero, "metrics: at 10: division by zero (zero is 0)"},
		{"if(a / zero, 1, 2)", ErrDivZero, "metrics: at 6: division by zero (zero is 0)"},
	}
	for _, tt := range tests {
		e, err := Parse(tt.src)
		if err != nil {
			t.Fatalf("Parse(%q): %v", tt.src, err)
		}
		v, err := e.Eval(env)
		if err == nil {
			t.Errorf("Eval(%q) = %v, want error %s", tt.src, v, tt.want)
			continue
		}
		if !errors.Is(err, tt.is) || err.Error() != tt.want {
			t.Errorf("Eval(%q) error\n got %v\nwant %s (%v)", tt.src, err, tt.want, tt.is)
		}
	}
}

func TestNames(t *testing.T) {
	e, err := Parse(`ratio(b, a) + a * "x/y/" - if(c > b, d, 1)`)
	if err != nil {
		t.Fatal(err)
	}
	got := e.Names()
	want := []string{"b", "a", "x/y/", "c", "d"}
	if len(got) != len(want) {
		t.Fatalf("Names = %q, want %q", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("Names = %q, want %q", got, want)
		}
	}
}
