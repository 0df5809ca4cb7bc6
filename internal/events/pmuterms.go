package events

import (
	"errors"
	"fmt"
	"strings"

	pe "github.com/pmc-tools/pmc/internal/perfevent"
	"github.com/pmc-tools/pmc/internal/pmu"
)

// maxAliasDepth bounds sysfs events whose terms name other sysfs events.
const maxAliasDepth = 4

// pmuEvent resolves pmu/terms/.
func (r *resolver) pmuEvent(spec EventSpec) (resolved, error) {
	p, ok := r.sys.PMUs[spec.Name]
	if !ok {
		p, ok = r.numbered(spec.Name)
	}
	if !ok {
		names := r.sys.Names()
		have := strings.Join(names, ", ")
		if have == "" {
			have = "none"
		}
		return resolved{}, r.errAt(spec, errf(ErrUnknownPMU, "pmu %s not found (have: %s)", Short(spec.Name), have).hint(didYouMean(spec.Name, names)))
	}
	return r.pmuTerms(spec, p, spec.Terms)
}

// pmuTerms builds the attr of an event on PMU p from terms: config words, format fields,
// sysfs events (expanded in place, their unit and scale kept) and name=.
func (r *resolver) pmuTerms(spec EventSpec, p *pmu.PMU, terms []Term) (resolved, error) {
	e := resolved{Event: Event{PMU: p.Name, Attr: pe.Attr{Type: p.Type}}}
	if err := r.applyTerms(spec, p, terms, &e, 0); err != nil {
		return resolved{}, r.errAt(spec, err)
	}
	words := []string{fmt.Sprintf("config=%#x", e.Attr.Config)}
	for i, w := range []uint64{e.Attr.Config1, e.Attr.Config2, e.Attr.Config3} {
		if w != 0 {
			words = append(words, fmt.Sprintf("config%d=%#x", i+1, w))
		}
	}
	e.Resolved = p.Name + "/" + strings.Join(words, ",") + "/"
	return e, nil
}

func (r *resolver) applyTerms(spec EventSpec, p *pmu.PMU, terms []Term, e *resolved, depth int) error {
	for _, t := range terms {
		key := t.Key
		if key == "name" {
			if !t.HasValue {
				return errf(ErrValue, "term \"name\" needs a value (name=NAME)")
			}
			e.Name = t.Value
			continue
		}
		var v uint64 = 1
		if t.HasValue {
			n, ok := parseNumber(t.Value)
			if !ok {
				return errf(ErrValue, "bad value %s for term %s of pmu %s (want a decimal or 0x-hex number)", Short(t.Value), Short(key), p.Name)
			}
			v = n
		}
		switch key {
		case "config":
			e.Attr.Config = v
			continue
		case "config1":
			e.Attr.Config1 = v
			continue
		case "config2":
			e.Attr.Config2 = v
			continue
		case "config3":
			e.Attr.Config3 = v
			continue
		}
		if f, ok := p.Formats[key]; ok {
			if err := f.Apply(&e.Attr, v); err != nil {
				if errors.Is(err, pmu.ErrValueRange) {
					return errf(ErrValue, "%s=%#x does not fit in %s/format/%s (%s, max %#x)", key, v, p.Name, key, f, f.Max())
				}
				return err
			}
			continue
		}
		if alias, ok := p.Events[key]; ok && !t.HasValue {
			if depth >= maxAliasDepth {
				return errf(ErrValue, "sysfs event %s/%s/ nests too deep", p.Name, key)
			}
			sub, err := aliasTerms(alias)
			if err != nil {
				return errf(ErrUnsupported, "sysfs event %s/%s/: %v", p.Name, key, err)
			}
			if err := r.applyTerms(spec, p, sub, e, depth+1); err != nil {
				return err
			}
			if alias.Unit != "" {
				e.Unit = alias.Unit
			}
			e.Scale = alias.Scale
			continue
		}
		if cfg, ok := r.tableTerm(p, t); ok {
			e.Attr.Config = cfg
			continue
		}
		return unknownTerm(p, t)
	}
	return nil
}

// numbered finds the one PMU named name_N (armv8_pmuv3 for armv8_pmuv3_0), as perf accepts
// a PMU's name without its instance number.
func (r *resolver) numbered(name string) (*pmu.PMU, bool) {
	var found *pmu.PMU
	for n, p := range r.sys.PMUs {
		rest, ok := strings.CutPrefix(n, name+"_")
		if !ok || rest == "" || strings.Trim(rest, "0123456789") != "" {
			continue
		}
		if found != nil {
			return nil, false // several instances: the user must say which
		}
		found = p
	}
	return found, found != nil
}

// tableTerm resolves a bare term on the core PMU that sysfs does not list (the kernel lists
// only the events the CPU advertises) from the CPU's event table: armv8_pmuv3/l1d_cache_refill/
// counts what l1d_cache_refill alone counts.
func (r *resolver) tableTerm(p *pmu.PMU, t Term) (uint64, bool) {
	if t.HasValue || r.opts.Tables == nil || r.sys.Core() != p {
		return 0, false
	}
	if e, ok := r.table(t.Key); ok && e.Attr.Type == p.Type {
		return e.Attr.Config, true
	}
	return 0, false
}

// aliasTerms parses the term list of a sysfs event file.
func aliasTerms(a pmu.Alias) ([]Term, error) {
	var terms []Term
	for _, part := range strings.Split(a.Terms, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		k, v, has := strings.Cut(part, "=")
		if has && v == "?" {
			return nil, fmt.Errorf("term %q needs a value from the user, which pmc does not support", k)
		}
		terms = append(terms, Term{Key: k, Value: v, HasValue: has})
	}
	return terms, nil
}

// unknownTerm explains a term that is neither a config word, a format field nor a sysfs event.
func unknownTerm(p *pmu.PMU, t Term) error {
	formats := append(p.FormatNames(), "config", "config1", "config2", "config3")
	if t.HasValue && len(p.Formats) == 0 {
		// No format folder: only the raw attr words exist, and the message says so.
		return errf(ErrUnknownField, "pmu %s has no format fields: give its event by name (pmc list %s) or as config=N",
			p.Name, p.Name).hint(didYouMean(t.Key, formats))
	}
	if t.HasValue {
		return errf(ErrUnknownField, "format field %s not in %s/format (have: %s)",
			Short(t.Key), p.Name, strings.Join(formats, ", ")).hint(didYouMean(t.Key, formats))
	}
	known := append(p.EventNames(), formats...)
	events := "none"
	if len(p.Events) > 0 {
		events = strings.Join(p.EventNames(), ", ")
	}
	if len(p.Events) > 12 {
		events = strings.Join(p.EventNames()[:12], ", ") + ", ..."
	}
	return errf(ErrUnknownField, "%s is neither a sysfs event nor a format field of pmu %s (events: %s)",
		Short(t.Key), p.Name, events).hint(didYouMean(t.Key, known))
}
