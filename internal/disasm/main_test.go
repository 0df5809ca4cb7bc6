package disasm

import (
	"os"
	"testing"
)

// TestMain removes the workload builds the objdump comparisons shared.
func TestMain(m *testing.M) {
	code := m.Run()
	buildMu.Lock()
	for _, dir := range builtAt {
		os.RemoveAll(dir)
	}
	buildMu.Unlock()
	os.Exit(code)
}
