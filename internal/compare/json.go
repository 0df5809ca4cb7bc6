package compare

import (
	"encoding/json"
	"io"
)

// JSON writes the comparison as one indented pmc.compare/v1 document.
func JSON(w io.Writer, c *Comparison) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(c)
}
