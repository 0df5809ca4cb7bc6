package driver

import (
	"os"
	"time"

	"github.com/pmc-tools/pmc/internal/perfdata"
	"github.com/pmc-tools/pmc/internal/profile/fromperf"
)

// Header opens the recording o.Path for its header alone (perf report --header): the
// file, its events' names as the report names them and its modification time (standard
// input's: now). Standard input is read up to its records, which are then lost.
func Header(o Options) (f *perfdata.File, events []string, captured time.Time, err error) {
	captured = time.Now()
	if o.Path != "-" || o.Stdin == nil {
		fi, err := os.Stat(o.Path)
		if err != nil {
			return nil, nil, time.Time{}, FileError(o.Path, err)
		}
		captured = fi.ModTime()
	}
	if f, err = open(o); err != nil {
		return nil, nil, time.Time{}, FileError(o.Path, err)
	}
	f.Close() // the header and features are read; the records are not needed
	for i := range f.Events {
		events = append(events, fromperf.EventName(f, i))
	}
	return f, events, captured, nil
}
