package exporter

import (
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/pmc-tools/pmc/internal/metrics"
	"github.com/pmc-tools/pmc/internal/stat"
)

// Rule is one recording rule: a pmc metric computed in Prometheus.
type Rule struct {
	Metric      string // pmc's metric name
	Record      string // the recorded series: pmc:<metric>:rate<window>
	Expr        string // PromQL
	Unit        string
	Description string
	// Together: every counter operand is counted in one group (or none needs a counter), so
	// the ratio is exact; otherwise the rule says so in its together label.
	Together bool
}

// Operand is the PromQL of one event's rate over window: summed over the event label only,
// so the operands of one metric match series for series (per instance, CPU, cgroup).
func Operand(event, window string) string {
	return fmt.Sprintf("sum without (event) (rate(%s{event=%s}[%s]))", nameCount, strconv.Quote(event), window)
}

// NewRule translates metric name of set; counted maps an operand to the event label it is
// exposed under ("" when it is not counted).
func NewRule(set *metrics.Set, name, window string, counted func(operand string) string, together bool) (Rule, error) {
	def, _ := set.Def(name)
	expr, err := set.PromQL(name, func(ev string) (string, error) {
		label := counted(ev)
		if label == "" {
			return "", fmt.Errorf("not counted (add it with -e, or choose the metric with -M)")
		}
		return Operand(label, window), nil
	})
	if err != nil {
		return Rule{}, err
	}
	return Rule{Metric: name, Record: "pmc:" + metrics.PromName(name) + ":rate" + window, Expr: expr,
		Unit: def.Unit, Description: def.Description, Together: together}, nil
}

// WriteRules writes rules as a Prometheus rule file (YAML; strings JSON-quoted, which YAML
// reads as double-quoted scalars), one group evaluated every interval (empty: the evaluation_interval of Prometheus).
func WriteRules(w io.Writer, rules []Rule, interval string) error {
	var b strings.Builder
	b.WriteString("# Recording rules of pmc exporter: pmc's metrics computed from the rates of pmc_events_total.\n")
	b.WriteString("# together=\"false\": the operands were not counted in one group, so the value mixes\n")
	b.WriteString("# multiplexed estimates (pmc stat flags the same metric).\n")
	b.WriteString("groups:\n  - name: pmc\n")
	if interval != "" {
		b.WriteString("    interval: " + interval + "\n")
	}
	b.WriteString("    rules:\n")
	for _, r := range rules {
		if r.Description != "" {
			b.WriteString("      # " + r.Metric + ": " + r.Description + "\n")
		}
		fmt.Fprintf(&b, "      - record: %s\n        expr: %s\n        labels:\n", r.Record, strconv.Quote(r.Expr))
		if r.Unit != "" {
			fmt.Fprintf(&b, "          unit: %s\n", strconv.Quote(r.Unit))
		}
		fmt.Fprintf(&b, "          together: %s\n", strconv.Quote(strconv.FormatBool(r.Together)))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// WriteMetricRules writes the recording rules of the metrics names of set (or, when names is
// empty, of every metric whose operands evs count); match finds an operand's event by
// encoding (nil: by spelling only).
func WriteMetricRules(w io.Writer, set *metrics.Set, match *metrics.Matcher, names []string, window string, evs []stat.Event) error {
	counted := func(op string) string {
		k, ok := match.OperandKey(op)
		for _, ev := range evs {
			if ev.Name == op || ok && match.Key(metrics.EncodingOf(ev.Attr)) == k {
				return ev.Name
			}
		}
		return ""
	}
	explicit := len(names) > 0
	if !explicit {
		for _, d := range set.Defs() {
			names = append(names, d.Name)
		}
	}
	var rules []Rule
	for _, n := range names {
		r, err := NewRule(set, n, window, counted, together(set, n, counted, evs))
		if err != nil {
			if explicit {
				return fmt.Errorf("--rules: %w", err)
			}
			continue // a metric the default events cannot compute
		}
		rules = append(rules, r)
	}
	if len(rules) == 0 {
		return errors.New("--rules: no metric can be computed from these events; choose metrics with -M (pmc stat --list-metrics)")
	}
	return WriteRules(w, rules, "")
}

// together reports whether the counter operands of metric name are counted in one group.
func together(set *metrics.Set, name string, counted func(string) string, evs []stat.Event) bool {
	group := -1
	for _, op := range set.Events(name) {
		if !metrics.NeedsCounter(op) {
			continue
		}
		label := counted(op)
		for _, ev := range evs {
			if ev.Name != label {
				continue
			}
			if group >= 0 && ev.Group != group {
				return false
			}
			group = ev.Group
			break
		}
	}
	return true
}
