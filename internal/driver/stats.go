package driver

import (
	"github.com/pmc-tools/pmc/internal/perfdata"
	"github.com/pmc-tools/pmc/internal/profile/fromperf"
)

// Stats counts the records of the recording o.Path (perf report --stats), names its events
// as perf report does and says whether it holds an AUX area trace.
func Stats(o Options) (st *perfdata.Stats, events []string, aux bool, err error) {
	pf, err := open(o)
	if err != nil {
		return nil, nil, false, FileError(o.Path, err)
	}
	defer pf.Close()
	if st, err = pf.Stats(); err != nil {
		return nil, nil, false, FileError(o.Path, err)
	}
	events = make([]string, len(pf.Events)) // a pipe's are known once its records are read
	for i := range pf.Events {
		events[i] = fromperf.EventName(pf, i)
	}
	return st, events, pf.Features.Has(perfdata.FeatAuxtrace), nil
}
