package profile

import (
	"fmt"
	"strings"
)

// SampledEvents are the events that have samples (perf leaves the others, such as its dummy
// event, out of its reports).
func (p *Profile) SampledEvents() []*Event {
	var out []*Event
	for _, e := range p.Events {
		if e.Samples > 0 {
			out = append(out, e)
		}
	}
	return out
}

// OneEvent chooses the event a one-event export (folded stacks, a flame graph) writes: the
// one named name, else the only event with samples; with several, an error that lists
// them, so no event is dropped without a word.
func (p *Profile) OneEvent(name string) (int, error) {
	var names []string
	for _, e := range p.Events {
		if name != "" && e.Name == name {
			return e.Index, nil
		}
		names = append(names, e.Name)
	}
	if name != "" {
		return 0, fmt.Errorf("no event %q in the file: use one of %s", name, strings.Join(names, ", "))
	}
	sampled := p.SampledEvents()
	switch len(sampled) {
	case 0:
		return 0, nil
	case 1:
		return sampled[0].Index, nil
	}
	names = names[:0]
	for _, e := range sampled {
		names = append(names, e.Name)
	}
	return 0, fmt.Errorf("the file has samples of %d events (%s): choose one with --event NAME", len(sampled), strings.Join(names, ", "))
}
