package record

import (
	"fmt"
	"strconv"
	"strings"
)

// parseCallGraph reads pmc record's --call-graph as perf record reads it: fp, or dwarf
// with an optional stack copy size (rounded up to 8 bytes, at most MaxUserStack); it returns
// the stack copy's size, 0 for fp.
func parseCallGraph(v string) (uint32, error) {
	mode, arg, hasArg := strings.Cut(v, ",")
	switch mode {
	case "fp":
		if hasArg {
			return 0, fmt.Errorf("--call-graph %s: fp takes no size (dwarf,SIZE does)", v)
		}
		return 0, nil
	case "dwarf":
		if !hasArg {
			return DefaultUserStack, nil
		}
		n, err := strconv.ParseUint(arg, 0, 32)
		n = (n + 7) &^ 7
		if err != nil || n == 0 || n > MaxUserStack {
			return 0, fmt.Errorf("--call-graph %s: give the stack copy's size in bytes, 8 to %d (default %d)", v, MaxUserStack, DefaultUserStack)
		}
		return uint32(n), nil
	case "lbr":
		return 0, fmt.Errorf("--call-graph lbr: needs Intel's last branch records, which pmc record does not program; use dwarf or fp (pmc report reads perf's LBR call stacks)")
	}
	return 0, fmt.Errorf("--call-graph %s: use fp (frame pointers) or dwarf[,SIZE]", v)
}
