package events

import (
	"fmt"
	"strings"

	"github.com/pmc-tools/pmc/internal/perfevent"
)

// modifierChars are the modifiers pmc accepts: u k h (privilege levels), G H (guest, host),
// p (precise, up to 3), I (exclude idle), D (pinned), e (exclusive), W (a weak group: counted
// as separate events when it does not fit the counters; Group.Weak).
const modifierChars = "ukhGHpIDeW"

// perfOnlyModifiers are perf modifiers pmc does not implement.
const perfOnlyModifiers = "PSb"

// isModifierWord reports whether s is made only of modifier characters (perf's included), so
// that "cycles:u" reads as a modifier and "sched:sched_switch" as a tracepoint.
func isModifierWord(s string) bool {
	for i := 0; i < len(s); i++ {
		if !strings.ContainsRune(modifierChars+perfOnlyModifiers, rune(s[i])) {
			return false
		}
	}
	return s != ""
}

// checkModifiers applies perf's rules: known characters only, none repeated except p, at most
// three p.
func checkModifiers(s string) error {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case strings.IndexByte(perfOnlyModifiers, c) >= 0:
			return fmt.Errorf("modifier '%c' is not supported by pmc (supported: %s)", c, modifierChars)
		case strings.IndexByte(modifierChars, c) < 0:
			return fmt.Errorf("bad modifier %q: unknown modifier '%c' (supported: %s)", s, c, modifierChars)
		case c != 'p' && strings.IndexByte(s[i+1:], c) >= 0:
			return fmt.Errorf("bad modifier %q: '%c' repeated", s, c)
		}
	}
	if strings.Count(s, "p") > 3 {
		return fmt.Errorf("bad modifier %q: at most 3 'p' (precise levels 0-3)", s)
	}
	return nil
}

// modState is perf's event_modifier: the exclude bits, precision and placement flags, plus
// excludeGH, which remembers that G or H was given (and so that u and p must not add
// exclude_guest).
type modState struct {
	eu, ek, eh, eH, eG, eI bool
	precise                int
	excludeGH              bool
	pinned, exclusive      bool
}

// stateOf reads the current modifier state of an attr (perf's "add" mode for group modifiers).
func stateOf(a *perfevent.Attr, excludeGH bool) modState {
	return modState{eu: a.ExcludeUser, ek: a.ExcludeKernel, eh: a.ExcludeHV, eH: a.ExcludeHost,
		eG: a.ExcludeGuest, eI: a.ExcludeIdle, precise: int(a.PreciseIP), excludeGH: excludeGH,
		pinned: a.Pinned, exclusive: a.Exclusive}
}

// apply runs perf 6.1's get_event_modifier over s starting from m (perf_guest is false).
func (m modState) apply(s string) modState {
	exclude := m.eu || m.ek || m.eh
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case 'u', 'k', 'h':
			if !exclude {
				exclude, m.eu, m.ek, m.eh = true, true, true, true
			}
			switch s[i] {
			case 'u':
				if !m.excludeGH {
					m.eG = true
				}
				m.eu = false
			case 'k':
				m.ek = false
			case 'h':
				m.eh = false
			}
		case 'G', 'H':
			if !m.excludeGH {
				m.excludeGH, m.eG, m.eH = true, true, true
			}
			if s[i] == 'G' {
				m.eG = false
			} else {
				m.eH = false
			}
		case 'I':
			m.eI = true
		case 'p':
			m.precise++
			if !m.excludeGH {
				m.eG = true
			}
		case 'D':
			m.pinned = true
		case 'e':
			m.exclusive = true
		}
	}
	return m
}

// store writes the state into attr. Pinned and exclusive only land on group leaders, as perf
// sets them only when the event leads its group at the time the modifier is applied.
func (m modState) store(a *perfevent.Attr, leader bool) {
	a.ExcludeUser, a.ExcludeKernel, a.ExcludeHV = m.eu, m.ek, m.eh
	a.ExcludeHost, a.ExcludeGuest, a.ExcludeIdle = m.eH, m.eG, m.eI
	a.PreciseIP = uint8(m.precise)
	if leader {
		a.Pinned, a.Exclusive = m.pinned, m.exclusive
	}
}
