package mem

import (
	"os/exec"
	"regexp"
	"runtime"
	"strings"
	"testing"
)

// TestChaseCompiledLoop compiles this package with -S and checks that chase is still a loop
// around one indexed 32-bit load (MOVL (base)(index*4) on amd64): the compiler has neither
// removed the chase nor added memory traffic to the hop's dependency chain.
func TestChaseCompiledLoop(t *testing.T) {
	if runtime.GOARCH != "amd64" {
		t.Skip("the expected instruction is written for amd64")
	}
	if testing.Short() {
		t.Skip("compiles the package")
	}
	out, err := exec.Command("go", "build", "-gcflags=-S", ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go build -gcflags=-S: %v\n%s", err, out)
	}
	_, body, ok := strings.Cut(string(out), "internal/mem.chase STEXT")
	if !ok {
		t.Fatal("no chase function in the compiler output (inlined or renamed?)")
	}
	body, _, _ = strings.Cut(body, "STEXT") // up to the next function
	var code []string
	for _, l := range strings.Split(body, "\n") {
		if strings.Contains(l, "list.go") && !strings.Contains(l, "FUNCDATA") && !strings.Contains(l, "PCDATA") {
			code = append(code, l)
		}
	}
	loads := regexp.MustCompile(`MOVL\s+\(\w+\)\(\w+\*4\), \w+`)
	memOps := regexp.MustCompile(`\(\w+\)`)
	nLoads, nMem, backJump := 0, 0, false
	for _, l := range code {
		if loads.MatchString(l) {
			nLoads++
		} else if memOps.MatchString(l) && !strings.Contains(l, "(FP)") && !strings.Contains(l, "TEXT") && !strings.Contains(l, "CALL") {
			nMem++
		}
		if regexp.MustCompile(`\tJ\w+\s+\d+$`).MatchString(l) {
			backJump = true
		}
	}
	if nLoads != 1 || nMem != 0 || !backJump {
		t.Errorf("chase compiles to %d indexed loads, %d other memory operands, loop jump %v; want 1, 0, true:\n%s",
			nLoads, nMem, backJump, strings.Join(code, "\n"))
	}
}
