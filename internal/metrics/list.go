package metrics

import (
	"fmt"
	"io"
	"slices"
	"strings"
)

// List writes the metrics of the Set, grouped, for `pmc list metrics`: per group a header,
// then per metric its name, unit and expression, and its description indented below.
// Metrics in several groups are listed under each.
func (s *Set) List(w io.Writer) error {
	var b strings.Builder
	for _, g := range s.Groups() {
		fmt.Fprintf(&b, "%s:\n", g)
		for _, d := range s.defs {
			if !slices.Contains(d.Groups(), g) {
				continue
			}
			unit := d.Unit
			if unit == "" {
				unit = "-"
			}
			fmt.Fprintf(&b, "  %-26s %-16s %s\n", d.Name, unit, d.Expr)
			if d.Description != "" {
				fmt.Fprintf(&b, "      %s\n", d.Description)
			}
		}
	}
	var none []Def
	for _, d := range s.defs {
		if len(d.Groups()) == 0 {
			none = append(none, d)
		}
	}
	if len(none) > 0 {
		b.WriteString("(no group):\n")
		for _, d := range none {
			fmt.Fprintf(&b, "  %-26s %-16s %s\n", d.Name, d.Unit, d.Expr)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}
