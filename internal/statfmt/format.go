package statfmt

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/pmc-tools/pmc/internal/result"
)

// Marker strings perf prints in the value column of a count that has no value.
const (
	notCounted   = "<not counted>"
	notSupported = "<not supported>"
)

// countDecimals is how many decimals a count is printed with: two for anything with a unit
// (perf's "0.61 msec", "12.34 Joules"), none for plain counts.
func countDecimals(unit string) int {
	if unit != "" {
		return 2
	}
	return 0
}

// formatCount prints a count value without grouping ('.' decimal point, any locale).
func formatCount(v float64, unit string) string {
	return strconv.FormatFloat(v, 'f', countDecimals(unit), 64)
}

// GroupDigits inserts sep between groups of three digits of the integer part of a number
// printed by formatCount. sep == 0 leaves s unchanged.
func GroupDigits(s string, sep rune) string {
	if sep == 0 {
		return s
	}
	sign := ""
	if strings.HasPrefix(s, "-") {
		sign, s = "-", s[1:]
	}
	intPart, frac := s, ""
	if i := strings.IndexByte(s, '.'); i >= 0 {
		intPart, frac = s[:i], s[i:]
	}
	if len(intPart) <= 3 {
		return sign + s
	}
	var b strings.Builder
	b.WriteString(sign)
	head := len(intPart) % 3
	if head > 0 {
		b.WriteString(intPart[:head])
	}
	for i := head; i < len(intPart); i += 3 {
		if b.Len() > len(sign) {
			b.WriteRune(sep)
		}
		b.WriteString(intPart[i : i+3])
	}
	b.WriteString(frac)
	return b.String()
}

// ThousandsFromEnv returns the digit-group separator perf would use for the locale named by
// the environment (LC_ALL, then LC_NUMERIC, then LANG), for TextOptions.Thousands. It knows
// the common cases only: C, POSIX and unset mean no grouping (perf under the C locale);
// English locales group with ','; German, Spanish, Italian, Dutch, Portuguese, Danish,
// Indonesian and Turkish ones with '.'. Any other locale gets no grouping rather than a
// guess. perf also needs the locale installed; this function does not check that.
func ThousandsFromEnv(getenv func(string) string) rune {
	loc := ""
	for _, k := range []string{"LC_ALL", "LC_NUMERIC", "LANG"} {
		if v := getenv(k); v != "" {
			loc = v
			break
		}
	}
	lang, _, _ := strings.Cut(loc, "_")
	switch lang {
	case "en":
		return ','
	case "de", "es", "it", "nl", "pt", "da", "id", "tr":
		return '.'
	}
	return 0
}

// rateUnit scales a per-second rate the way perf does ("84.939 K/sec", "0.000 /sec").
func rateUnit(v float64) (float64, string) {
	switch a := math.Abs(v); {
	case a >= 1e9:
		return v / 1e9, "G/sec"
	case a >= 1e6:
		return v / 1e6, "M/sec"
	case a >= 1e3:
		return v / 1e3, "K/sec"
	}
	return v, "/sec"
}

// metricText is how one metric reads: its number (fixed width for text, trimmed for CSV)
// and the words after it.
type metricText struct {
	num   string // text column: 8 characters when it fits, e.g. "   1.23 ", "   0.470", "  12.34%"
	value string // CSV: the same number without padding or '%', "" when undefined
	unit  string // "insn per cycle", "K/sec", "L1D_miss_ratio" (after a '%' number)
}

// describeMetric applies perf's conventions: IPC with two decimals, percentages with two
// decimals and a '%', rates scaled to K/M/G per second, everything else with three
// decimals. Units that are not self-describing ("%", "PTI", none) are followed by the
// metric's name so the number can be told apart from the others, and so is every metric
// asked for by name (as perf names the metrics of -M: "2.512 GHz ghz"). An undefined metric
// (Valid false) prints "undefined" in the number's place and "" in CSV.
func describeMetric(m result.Metric) metricText {
	v, unit := m.Value, m.Unit
	var t metricText
	switch {
	case unit == "/sec":
		v, unit = rateUnit(v)
		t.num, t.value = fmt.Sprintf("%8.3f", v), strconv.FormatFloat(v, 'f', 3, 64)
	case strings.HasPrefix(unit, "%"):
		t.num, t.value = fmt.Sprintf("%7.2f%%", v), strconv.FormatFloat(v, 'f', 2, 64)
	case strings.Contains(unit, "per cycle") || strings.Contains(unit, "per insn"):
		t.num, t.value = fmt.Sprintf("%7.2f ", v), strconv.FormatFloat(v, 'f', 2, 64)
	default:
		t.num, t.value = fmt.Sprintf("%8.3f", v), strconv.FormatFloat(v, 'f', 3, 64)
	}
	t.unit = unit
	if (!selfDescribing(unit) || m.Asked) && m.Name != "" {
		t.unit = strings.TrimSpace(unit + " " + m.Name)
	}
	if !m.Valid {
		t.num, t.value = "undefined", ""
	} else if strings.HasPrefix(t.unit, "%") { // the '%' is already part of the text number
		t.unit = strings.TrimSpace(t.unit[1:])
	}
	return t
}

// csvUnit is the metric-unit field: the unit with its '%' (CSV numbers carry none).
func csvUnit(m result.Metric) string {
	unit := m.Unit
	if unit == "/sec" {
		_, unit = rateUnit(m.Value)
	}
	if !selfDescribing(unit) && m.Name != "" {
		unit = strings.TrimSpace(unit + " " + m.Name)
	}
	return unit
}

// selfDescribing reports whether a metric unit says on its own what was measured.
func selfDescribing(unit string) bool {
	return strings.Contains(unit, " ") || strings.HasSuffix(unit, "/sec") || unit == "GHz"
}

// MetricValue prints a metric's value as the report file and --metric-only text do: three
// decimals, digits grouped with ','.
func MetricValue(v float64) string { return GroupDigits(strconv.FormatFloat(v, 'f', 3, 64), ',') }

// notTogether is how package metrics starts the warning of a metric whose operands were
// multiplexed apart; the text output shows it as a short flag.
const notTogether = "not measured together"

// metricNotes lists why a metric should not be taken at face value: "undefined" (an
// operand has no value), "not measured together" (operands multiplexed apart), then the
// warning. With short, the warning's own "not measured together: ..." part (package
// metrics lists the operands' running shares, which the rows show anyway) gives way to
// the flag.
func metricNotes(m result.Metric, short bool) []string {
	var keep []string
	said := map[string]bool{}
	for _, p := range strings.Split(m.Warning, "; ") {
		if strings.TrimSpace(p) == "" {
			continue
		}
		for _, k := range []string{"undefined", notTogether} {
			if strings.HasPrefix(p, k) {
				said[k] = true
			}
		}
		if short && strings.HasPrefix(p, notTogether) {
			continue
		}
		keep = append(keep, p)
	}
	var notes []string
	if !m.Valid && !said["undefined"] {
		notes = append(notes, "undefined")
	}
	if m.Valid && !m.Together && (short || !said[notTogether]) { // undefined has nothing to be together about
		notes = append(notes, notTogether)
	}
	if len(keep) > 0 {
		notes = append(notes, strings.Join(keep, "; "))
	}
	return notes
}

// perfPrecision is the number of decimals perf gives the elapsed time with -r: two more
// than the first significant digit of its uncertainty.
func perfPrecision(sem float64) int {
	if sem <= 0 || math.IsNaN(sem) {
		return 9
	}
	if sem > 1 {
		return 2
	}
	return int(math.Ceil(-math.Log10(sem))) + 2
}

// pctRunning is perf's running percentage: 100 when the counter was never enabled.
func pctRunning(enabled, running uint64) float64 {
	if enabled == 0 {
		return 100
	}
	return 100 * float64(running) / float64(enabled)
}
