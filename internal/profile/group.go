package profile

import (
	"sort"
	"strings"
)

// Grouped reports: perf report's group view (--group), one report per event group with a
// column per member.

// GroupDesc is perf's description of a group from its members' events, the leader first:
// "anon group { a, b }" (the group's name in place of "anon group" when it has one), or
// the one event's name.
func GroupDesc(members []*Event) string {
	if len(members) == 0 {
		return ""
	}
	if len(members) < 2 {
		return members[0].Name
	}
	var b strings.Builder
	if g := members[0].Group; g != "" {
		b.WriteString(g)
	} else {
		b.WriteString("anon group")
	}
	b.WriteString(" { ")
	for i, e := range members {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(e.Name)
	}
	b.WriteString(" }")
	return b.String()
}

// HasGroups says whether some event of p leads a group of two or more: perf's group view
// is then its default.
func (p *Profile) HasGroups() bool {
	for _, e := range p.Events {
		if e.Members > 1 {
			return true
		}
	}
	return false
}

// Group merges the reports of each event group into its leader's: an entry per key found
// in any member, with each member's periods (Entry.Group), sorted as perf sorts a group
// (the leader's period, then each member's in order). Reports of events outside groups
// are kept; those of members are merged away.
func Group(p *Profile, reports []*Report) []*Report {
	byEvent := map[int]*Report{}
	for _, r := range reports {
		byEvent[r.Event.Index] = r
	}
	var out []*Report
	for _, r := range reports {
		ev := r.Event
		switch {
		case ev.Leader != ev.Index:
			continue // merged into its leader's
		case ev.Members < 2:
			out = append(out, r)
			continue
		}
		var members []*Report
		for i := ev.Index; i < ev.Index+ev.Members && i < len(p.Events); i++ {
			m := byEvent[i]
			if m == nil {
				m = &Report{Event: p.Events[i], Sort: r.Sort, Options: r.Options}
			}
			members = append(members, m)
		}
		out = append(out, mergeGroup(r, members))
	}
	return out
}

// GroupMember is one member's share of a grouped entry.
type GroupMember struct {
	Self, Children uint64
}

func mergeGroup(leader *Report, members []*Report) *Report {
	g := &Report{Event: leader.Event, Sort: leader.Sort, Options: leader.Options, Members: members}
	byKey := map[string]*Entry{}
	for i, m := range members {
		g.Total += m.Total
		g.Dropped = append(g.Dropped, m.Dropped...)
		for _, e := range m.Entries {
			k := strings.Join(e.Values, "\x00")
			x, ok := byKey[k]
			if !ok {
				c := *e
				c.Self, c.Children, c.Samples = 0, 0, 0
				c.Callers, c.Callees, c.SelfPaths = nil, nil, nil
				c.Group = make([]GroupMember, len(members))
				x = &c
				byKey[k] = x
				g.Entries = append(g.Entries, x)
			}
			x.Group[i] = GroupMember{Self: e.Self, Children: e.Children}
			if i == 0 {
				x.Self, x.Children, x.Samples = e.Self, e.Children, e.Samples
				x.Callers, x.Callees, x.SelfPaths = e.Callers, e.Callees, e.SelfPaths
				x.depth = e.depth
			}
		}
	}
	children := g.Options.Children
	sort.SliceStable(g.Entries, func(i, j int) bool {
		a, b := g.Entries[i], g.Entries[j]
		for k := range a.Group {
			x, y := a.Group[k].Self, b.Group[k].Self
			if children {
				x, y = a.Group[k].Children, b.Group[k].Children
			}
			if x != y {
				return x > y
			}
		}
		if children && a.Thread == b.Thread && a.depth != b.depth {
			return a.depth > b.depth
		}
		return keyLess(g.Sort, a, b)
	})
	return g
}
