package cli

import "testing"

// Each entry of the command table is named as the command it builds, so that a run building
// only the command it names builds the right one.
func TestCommandTableNames(t *testing.T) {
	for _, c := range commands {
		if got := c.new(&env{}).Name(); got != c.name {
			t.Errorf("command table entry %q builds %q", c.name, got)
		}
	}
}
