package compare

import (
	"encoding/json"
	"fmt"
)

// Decode reads a pmc.compare/v1 document (pmc compare --json). Only its commands and their
// runs are kept: the rows are computed again by Build.
func Decode(data []byte) (*Comparison, error) {
	var c Comparison
	if err := json.Unmarshal(data, &c); err != nil {
		return nil, fmt.Errorf("%s document: %w", Schema, err)
	}
	if c.Schema != Schema {
		return nil, fmt.Errorf("schema %q: want %s", c.Schema, Schema)
	}
	if len(c.Commands) == 0 {
		return nil, fmt.Errorf("%s document without commands", Schema)
	}
	c.Rows, c.Differences = nil, nil
	for i := range c.Commands {
		c.Commands[i].Failed = 0
		for _, r := range c.Commands[i].Runs {
			if r.Failed() {
				c.Commands[i].Failed++
			}
		}
	}
	return &c, nil
}
