package mem

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// Show prints a saved pmc.mem/v1 document (pmc show) as pmc mem printed it, with the
// histograms asked for (tiers, all, none), or its JSON again, normalised (asJSON).
func Show(w io.Writer, data []byte, asJSON bool, histograms string) error {
	switch histograms {
	case "tiers", "all", "none":
	default:
		return fmt.Errorf("--histograms %q: want tiers, all or none", histograms)
	}
	var r Result
	if err := json.Unmarshal(data, &r); err != nil {
		return fmt.Errorf("not a pmc.mem/v1 file: %w", err)
	}
	if len(r.Points) == 0 {
		return errors.New("the pmc.mem/v1 file holds no points")
	}
	if asJSON {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(&r)
	}
	WriteText(w, &r, histograms)
	return nil
}
