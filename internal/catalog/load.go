package catalog

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"sort"
	"strconv"
	"strings"
)

// ErrFormat marks an event file pmc cannot read.
var ErrFormat = errors.New("bad event table")

// jsonEvent is one entry of a pmu-events (kernel) or Intel perfmon event file.
type jsonEvent struct {
	EventName         string
	EventCode         flexString
	UMask             flexString
	BriefDescription  string
	PublicDescription string
	ArchStdEvent      string
	Unit              string
}

// flexString accepts "0x3c", "60" or a bare JSON number.
type flexString string

func (f *flexString) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if len(b) > 0 && b[0] == '"' {
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		*f = flexString(s)
		return nil
	}
	var n json.Number
	if err := json.Unmarshal(b, &n); err != nil {
		return fmt.Errorf("want a string or number, got %s", b)
	}
	*f = flexString(n.String())
	return nil
}

// genericEntry is one line of a table's generic.json.
type genericEntry struct {
	Generic     string
	EventName   string
	Unsupported bool
	Caveat      string
}

// mapEntry is one table of data/mapfile.json.
type mapEntry struct {
	Name, Dir, Title, Arch, Std string
	CodeBits                    int
	Counters                    *Counters
	IssueWidth                  float64
	Match                       []matchRule
}

// matchRule is one CPU identity a table applies to. Arm rules match implementer and part
// (and Architecture when set); x86 rules match vendor, and family and a model range when set.
type matchRule struct {
	Implementer, Part string
	Architecture      int
	Vendor, Family    string
	Models            string // "0x00-0x0f"
}

// Load returns the built-in catalog: the tables of data/, parsed when pmc was built
// (tables_gen.go), so nothing is read or parsed at run time. Every call returns the same
// Catalog, which nothing modifies (LoadExtra builds a new Table and leaves it as it is).
// The error is always nil; it stays for the callers written when the tables were parsed
// at run time.
func Load() (*Catalog, error) { return &builtin, nil }

// load parses the JSON tables of root (data/: mapfile.json and a folder per table): what
// go generate turns into tables_gen.go.
func load(root fs.FS) (*Catalog, error) {
	raw, err := fs.ReadFile(root, "mapfile.json")
	if err != nil {
		return nil, fmt.Errorf("catalog: %w", err)
	}
	var entries []mapEntry
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&entries); err != nil {
		return nil, fmt.Errorf("catalog: mapfile.json: %w: %v", ErrFormat, err)
	}
	c := &Catalog{}
	for _, m := range entries {
		t := &Table{Name: m.Name, Title: m.Title, Arch: m.Arch, Std: m.Std, CodeBits: m.CodeBits,
			Counters: m.Counters, IssueWidth: m.IssueWidth, match: m.Match}
		var std *Table
		if m.Std != "" {
			if std = c.byName(foldName(m.Std)); std == nil {
				return nil, fmt.Errorf("catalog: table %s: standard table %q must come earlier in mapfile.json", m.Name, m.Std)
			}
		}
		sub, err := fs.Sub(root, m.Dir)
		if err != nil {
			return nil, err
		}
		if err := t.readEvents(sub, std); err != nil {
			return nil, fmt.Errorf("catalog: %s: %w", m.Dir, err)
		}
		if err := t.readGeneric(sub); err != nil {
			return nil, fmt.Errorf("catalog: %s: %w", m.Dir, err)
		}
		if errs := t.check(); len(errs) > 0 {
			return nil, fmt.Errorf("catalog: %s: %w", m.Dir, errors.Join(errs...))
		}
		if c.byName(foldName(t.Name)) != nil {
			return nil, fmt.Errorf("catalog: table %s listed twice", t.Name)
		}
		c.tables = append(c.tables, t)
	}
	return c, nil
}

// readEvents reads every *.json file of fsys (except generic.json), sorted by path, resolving
// ArchStdEvent references against std.
func (t *Table) readEvents(fsys fs.FS, std *Table) error {
	var files []string
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && strings.HasSuffix(p, ".json") && path.Base(p) != "generic.json" {
			files = append(files, p)
		}
		return nil
	})
	if err != nil {
		return err
	}
	if len(files) == 0 {
		return fmt.Errorf("%w: no .json event files", ErrFormat)
	}
	sort.Strings(files)
	seen := map[string]bool{}
	for _, f := range files {
		raw, err := readLimited(fsys, f)
		if err != nil {
			return err
		}
		evs, err := parseEventFile(raw)
		if err != nil {
			return fmt.Errorf("%s: %w", f, err)
		}
		for i, je := range evs {
			e, err := t.convert(je, std)
			if err != nil {
				return fmt.Errorf("%s: entry %d: %w", f, i+1, err)
			}
			if e == nil {
				continue
			}
			key := foldName(e.Name)
			if seen[key] {
				return fmt.Errorf("%s: %w: event %s defined twice", f, ErrFormat, e.Name)
			}
			seen[key] = true
			t.names = append(t.names, nameKey{Key: key, Index: len(t.events)})
			t.events = append(t.events, *e)
		}
	}
	sort.Slice(t.names, func(i, j int) bool { return t.names[i].Key < t.names[j].Key })
	return nil
}

// parseEventFile accepts a pmu-events array or an Intel perfmon {"Header":..,"Events":[..]} object.
func parseEventFile(raw []byte) ([]jsonEvent, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return nil, fmt.Errorf("%w: empty file", ErrFormat)
	}
	var evs []jsonEvent
	switch raw[0] {
	case '[':
		if err := json.Unmarshal(raw, &evs); err != nil {
			return nil, fmt.Errorf("%w: %v", ErrFormat, err)
		}
	case '{':
		var doc struct {
			Header json.RawMessage
			Events []jsonEvent
		}
		if err := json.Unmarshal(raw, &doc); err != nil {
			return nil, fmt.Errorf("%w: %v", ErrFormat, err)
		}
		if doc.Events == nil {
			return nil, fmt.Errorf("%w: object without an \"Events\" list (want a pmu-events array or Intel perfmon JSON)", ErrFormat)
		}
		evs = doc.Events
	default:
		return nil, fmt.Errorf("%w: want a JSON array or object", ErrFormat)
	}
	return evs, nil
}

func (t *Table) convert(je jsonEvent, std *Table) (*Event, error) {
	if je.ArchStdEvent != "" {
		if std == nil {
			return nil, fmt.Errorf("%w: ArchStdEvent %s but the table has no standard table", ErrFormat, je.ArchStdEvent)
		}
		base, ok := std.Lookup(je.ArchStdEvent)
		if !ok {
			return nil, fmt.Errorf("%w: ArchStdEvent %s is not in table %s", ErrFormat, je.ArchStdEvent, std.Name)
		}
		base.ArchStd = true
		if je.BriefDescription != "" {
			base.Brief = je.BriefDescription
		}
		if je.PublicDescription != "" {
			base.Public = je.PublicDescription
		}
		if je.EventName != "" && !strings.EqualFold(je.EventName, base.Name) {
			return nil, fmt.Errorf("%w: ArchStdEvent %s renamed to %s", ErrFormat, je.ArchStdEvent, je.EventName)
		}
		return &base, nil
	}
	if je.EventName == "" {
		return nil, fmt.Errorf("%w: entry without EventName or ArchStdEvent", ErrFormat)
	}
	if je.EventCode == "" {
		return nil, fmt.Errorf("%w: event %s has no EventCode", ErrFormat, je.EventName)
	}
	code, err := parseCode(string(je.EventCode))
	if err != nil {
		return nil, fmt.Errorf("%w: event %s: EventCode %q: %v", ErrFormat, je.EventName, je.EventCode, err)
	}
	e := &Event{Name: je.EventName, Code: code, Brief: je.BriefDescription, Public: je.PublicDescription, Unit: je.Unit}
	if je.UMask != "" {
		if e.UMask, err = parseCode(string(je.UMask)); err != nil {
			return nil, fmt.Errorf("%w: event %s: UMask %q: %v", ErrFormat, je.EventName, je.UMask, err)
		}
		e.HasUMask = true
	}
	return e, nil
}

// parseCode reads "0x3c", "3c"-less decimal "60", or Intel's "0xB7, 0xBB" (first code kept).
func parseCode(s string) (uint64, error) {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, ','); i >= 0 {
		s = strings.TrimSpace(s[:i])
	}
	return strconv.ParseUint(s, 0, 64)
}

func (t *Table) readGeneric(fsys fs.FS) error {
	t.generic = nil
	raw, err := fs.ReadFile(fsys, "generic.json")
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	var entries []genericEntry
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&entries); err != nil {
		return fmt.Errorf("generic.json: %w: %v", ErrFormat, err)
	}
	for _, g := range entries {
		canon, ok := CanonicalGeneric(g.Generic)
		if !ok || canon != g.Generic {
			return fmt.Errorf("generic.json: %w: %q is not a canonical perf generic name", ErrFormat, g.Generic)
		}
		if _, dup := t.mapping(canon); dup {
			return fmt.Errorf("generic.json: %w: %s listed twice", ErrFormat, canon)
		}
		m := Mapping{Generic: canon, Kind: GenericKind(canon), Caveat: g.Caveat}
		switch {
		case g.Unsupported && g.EventName != "":
			return fmt.Errorf("generic.json: %w: %s is both unsupported and mapped to %s", ErrFormat, canon, g.EventName)
		case g.Unsupported:
		default:
			e, ok := t.Lookup(g.EventName)
			if !ok {
				return fmt.Errorf("generic.json: %w: %s maps to %q, which is not in the table", ErrFormat, canon, g.EventName)
			}
			m.Supported, m.Event = true, e
		}
		// Insert in order: mapping's binary search (and the dup check above) needs it.
		i := sort.Search(len(t.generic), func(i int) bool { return t.generic[i].Generic >= canon })
		t.generic = append(t.generic, Mapping{})
		copy(t.generic[i+1:], t.generic[i:])
		t.generic[i] = m
	}
	return nil
}

// maxEventFile bounds the size of one event file (Intel's largest perfmon file is ~3 MB):
// --event-file /dev/zero must end with an error, not with pmc out of memory.
const maxEventFile = 32 << 20

// readLimited reads a file of fsys, at most maxEventFile bytes.
func readLimited(fsys fs.FS, name string) ([]byte, error) {
	f, err := fsys.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	raw, err := io.ReadAll(io.LimitReader(f, maxEventFile+1))
	if err != nil {
		return nil, err
	}
	if len(raw) > maxEventFile {
		return nil, fmt.Errorf("%s is larger than %d MiB: not an event file", name, maxEventFile>>20)
	}
	return raw, nil
}
