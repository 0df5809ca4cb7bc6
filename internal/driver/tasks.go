package driver

import (
	"github.com/pmc-tools/pmc/internal/profile"
	"github.com/pmc-tools/pmc/internal/profile/fromperf"
)

// Tasks reads the threads of the recording o.Path (perf report --tasks): its COMM, FORK and
// EXIT records alone, no symbols.
func Tasks(o Options) (*profile.Tasks, error) {
	pf, err := open(o)
	if err != nil {
		return nil, FileError(o.Path, err)
	}
	defer pf.Close()
	t := profile.NewTasks()
	if err := fromperf.Tasks(pf, t); err != nil {
		return nil, FileError(o.Path, err)
	}
	return t, nil
}
