package result

import "fmt"

// Region is one named region of an include/pmc.h file: its counts are those of run Run.
type Region struct {
	Name   string `json:"name"`
	Run    int    `json:"run"`
	Calls  int    `json:"calls"`
	Parent string `json:"parent"`
}

// Saved is a Stat file with the fields include/pmc.h adds: its runs are regions. Fields
// this reader does not know (a newer pmc.h's per-thread ones) are ignored.
type Saved struct {
	Stat
	Regions []Region `json:"regions"`
}

// RegionStat is the region reg of an include/pmc.h file as a result of its own: its one
// run, its time and its summary. Its metrics are the caller's to compute.
func (s *Saved) RegionStat(reg Region) (*Stat, error) {
	if reg.Run < 0 || reg.Run >= len(s.Runs) {
		return nil, fmt.Errorf("region %q names run %d of %d", Printable(reg.Name), reg.Run, len(s.Runs))
	}
	r := s.Stat
	r.Schema = SchemaVersion // one region alone is an ordinary result of one run
	r.Command = []string{fmt.Sprintf("region %s (%d calls)", Printable(reg.Name), reg.Calls)}
	r.Runs = []Run{s.Runs[reg.Run]}
	r.Repeat, r.Completed, r.Summary, r.Intervals = 1, 1, nil, nil
	r.ElapsedSec, r.ElapsedStd, r.ExitStatus = r.Runs[0].ElapsedSec, 0, 0
	Summarize(&r)
	return &r, nil
}
