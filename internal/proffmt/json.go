package proffmt

import (
	"encoding/json"
	"io"

	"github.com/pmc-tools/pmc/internal/profile"
)

// JSONSchema names the layout JSON writes (docs/json-schema.md).
const JSONSchema = "pmc.report/v1"

type jsonDoc struct {
	Schema   string      `json:"schema"`
	Sort     []string    `json:"sort"`
	Children bool        `json:"children"`
	Lost     uint64      `json:"lost_samples"`
	Warnings []string    `json:"warnings"`
	Events   []jsonEvent `json:"events"`
}

type jsonEvent struct {
	Name    string      `json:"name"`
	Samples uint64      `json:"samples"`
	Period  uint64      `json:"period"`
	Entries []jsonEntry `json:"entries"`
}

type jsonEntry struct {
	Overhead        float64           `json:"overhead"`
	ChildrenPercent *float64          `json:"children_overhead,omitempty"`
	Self            uint64            `json:"self_period"`
	ChildrenPeriod  *uint64           `json:"children_period,omitempty"`
	Samples         uint64            `json:"samples"`
	Keys            map[string]string `json:"keys"`
	Comm            string            `json:"comm"`
	Pid             int               `json:"pid"`
	Tid             int               `json:"tid"`
	DSO             string            `json:"dso"`
	BuildID         string            `json:"build_id,omitempty"`
	Symbol          string            `json:"symbol"`
	Mangled         string            `json:"mangled,omitempty"`
	Resolved        bool              `json:"resolved"`
	Kernel          bool              `json:"kernel"`
	Address         uint64            `json:"address"`
	File            string            `json:"file,omitempty"`
	Line            int               `json:"line,omitempty"`
	Callers         *jsonNode         `json:"callers,omitempty"`
	Callees         *jsonNode         `json:"callees,omitempty"`
}

type jsonNode struct {
	Name     string      `json:"name"`
	DSO      string      `json:"dso"`
	Period   uint64      `json:"period"`
	Percent  float64     `json:"percent"`
	Children []*jsonNode `json:"children,omitempty"`
}

// JSON writes the reports as one pmc.report/v1 document.
func JSON(w io.Writer, p *profile.Profile, reports []*profile.Report) error {
	doc := jsonDoc{Schema: JSONSchema, Lost: p.Lost, Warnings: p.Warnings, Events: []jsonEvent{}}
	if doc.Warnings == nil {
		doc.Warnings = []string{}
	}
	for _, r := range reports {
		doc.Sort, doc.Children = r.Sort, r.Options.Children
		ev := jsonEvent{Name: r.Event.Name, Samples: r.Event.Samples, Period: r.Total, Entries: []jsonEntry{}}
		for _, e := range r.Entries {
			je := jsonEntry{Overhead: round2(r.Percent(e.Self)), Self: e.Self, Samples: e.Samples, Keys: map[string]string{},
				Comm: e.Thread.Comm, Pid: e.Thread.Pid, Tid: e.Thread.Tid, DSO: e.DSO.Name, BuildID: e.DSO.BuildID,
				Symbol: e.Sym.Name, Resolved: !e.Sym.Unknown, Kernel: e.Kernel, Address: e.Sym.Start,
				File: e.Sym.File, Line: e.Sym.Line}
			if e.Sym.Raw != e.Sym.Name {
				je.Mangled = e.Sym.Raw
			}
			if r.Options.Children {
				c, cp := round2(r.Percent(e.Children)), e.Children
				je.ChildrenPercent, je.ChildrenPeriod = &c, &cp
			}
			for i, k := range r.Sort {
				je.Keys[k] = e.Values[i]
			}
			je.Callers, je.Callees = jsonTree(r, e.Callers), jsonTree(r, e.Callees)
			ev.Entries = append(ev.Entries, je)
		}
		doc.Events = append(doc.Events, ev)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(doc)
}

func jsonTree(r *profile.Report, n *profile.Node) *jsonNode {
	if n == nil {
		return nil
	}
	j := &jsonNode{Name: n.Name, DSO: n.DSO, Period: n.Period, Percent: round2(r.Percent(n.Period))}
	for _, c := range n.Children {
		j.Children = append(j.Children, jsonTree(r, c))
	}
	return j
}

func round2(v float64) float64 {
	return float64(int64(v*100+0.5)) / 100
}
