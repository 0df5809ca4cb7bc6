package sim

import (
	"regexp"
	"strconv"
	"strings"
	"sync"
)

// Level is one simulated cache with its name: "I1", "D1" or "LL".
type Level struct {
	Name string
	Cache
}

// Levels are the levels of g that were given (a zero Cache is cachegrind's own choice), in
// the order I1, D1, LL.
func (g Geometry) Levels() []Level {
	var out []Level
	for _, l := range []Level{{"I1", g.I1}, {"D1", g.D1}, {"LL", g.LL}} {
		if l.Size > 0 {
			out = append(out, l)
		}
	}
	return out
}

// set sets the level named I1, D1 or LL; false for another name.
func (g *Geometry) set(level string, c Cache) bool {
	switch level {
	case "I1":
		g.I1 = c
	case "D1":
		g.D1 = c
	case "LL":
		g.LL = c
	default:
		return false
	}
	return true
}

// String is "I1 32768,8,64, D1 16384,4,32, LL 65536,8,32" (size, ways, line), or "" when
// cachegrind chose every level.
func (g Geometry) String() string {
	var parts []string
	for _, l := range g.Levels() {
		parts = append(parts, l.Name+" "+l.Cache.String())
	}
	return strings.Join(parts, ", ")
}

// Note is the note a simulated result carries (pmc stat prints it and keeps it in its JSON
// notes): it says the counts are SIMULATED and with which caches. GeometryOf reads it back.
func Note(g Geometry) string {
	what := "the caches it detected"
	if s := g.String(); s != "" {
		what = "caches " + s + " (size,ways,line)"
	}
	return "SIMULATED: the counts come from valgrind's cachegrind simulating " + what + ", not from hardware counters"
}

// noteLevel matches a cache level of a note, "D1 32768,8,64"; compiled at its first use, not
// at package init (which every launch of pmc pays).
var noteLevel struct {
	once sync.Once
	re   *regexp.Regexp
}

func noteLevelRE() *regexp.Regexp {
	noteLevel.once.Do(func() { noteLevel.re = regexp.MustCompile(`\b(I1|D1|LL) (\d+),(\d+),(\d+)\b`) })
	return noteLevel.re
}

// GeometryOf is the geometry a simulated result's notes name (Note's sentence, as pmc stat
// --sim saves it); ok is false when no note names one (cachegrind chose the caches).
func GeometryOf(notes []string) (g Geometry, ok bool) {
	for _, n := range notes {
		rest, found := strings.CutPrefix(n, "SIMULATED: the counts come from valgrind's cachegrind simulating caches ")
		if !found {
			continue
		}
		for _, m := range noteLevelRE().FindAllStringSubmatch(rest, -1) {
			var c Cache
			c.Size, _ = strconv.Atoi(m[2])
			c.Assoc, _ = strconv.Atoi(m[3])
			c.Line, _ = strconv.Atoi(m[4])
			ok = g.set(m[1], c) || ok
		}
		return g, ok
	}
	return g, false
}
