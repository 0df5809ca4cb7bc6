package stat

import (
	"errors"
	"slices"
	"strings"

	"github.com/pmc-tools/pmc/internal/perfevent"
)

// openApart opens events i..j-1, a weak group ({...}:W) the kernel refused as a whole, each on
// its own, as perf stat does (evlist__reset_weak_group): the slots opened for the group from
// first on are closed and dropped, and every event becomes the leader of a group of one,
// disabled until the exec (or Start) like any leader. Their counts are no longer taken
// together: Reading.Ungrouped says so, and Notes names the group.
func (s *kernelSession) openApart(i, j int, t target, first int) error {
	for _, sl := range s.slots[first:] {
		if sl.c != nil {
			sl.c.Close()
		}
	}
	s.slots = s.slots[:first]
	evs := s.req.Events
	names := make([]string, 0, j-i)
	for e := i; e < j; e++ {
		names = append(names, evs[e].Name)
	}
	if g := "{" + strings.Join(names, ",") + "}"; !slices.Contains(s.apart, g) {
		s.apart = append(s.apart, g)
	}
	for e := i; e < j; e++ {
		ev := alone(evs[e], evs[i])
		s.slots = append(s.slots, slot{event: e, cpu: t.cpu, tid: attachedTID(s.req, t), leader: -1, ungrouped: true})
		sl := &s.slots[len(s.slots)-1]
		c, userOnly, err := s.openEvent(ev, t, nil)
		sl.c, sl.err, sl.userOnly = c, err, userOnly
		if err != nil && (errors.Is(err, perfevent.ErrPermission) || errors.Is(err, perfevent.ErrTooManyFiles)) {
			return err
		}
	}
	return nil
}

// alone is ev made the leader of a group of its own: read alone, and disabled until the
// exec as its group's leader was.
func alone(ev, leader Event) Event {
	ev.Attr.ReadFormat &^= perfevent.FormatGroup
	ev.Attr.Disabled, ev.Attr.EnableOnExec = leader.Attr.Disabled, leader.Attr.EnableOnExec
	ev.Leader = false
	return ev
}

// ungroupedGroup is the group number a count of an event counted apart from its weak group
// is given: one of its own, past every real group, so metrics do not take it as counted
// together with the others.
func ungroupedGroup(req *Request, event int) int { return len(req.Events) + event }
