package driver

import (
	"github.com/pmc-tools/pmc/internal/perfdata"
	"github.com/pmc-tools/pmc/internal/profile"
	"github.com/pmc-tools/pmc/internal/profile/fromperf"
)

// Tasks reads the threads of the recording o.Path (perf report --tasks): its COMM, FORK and
// EXIT records alone, no symbols.
func Tasks(o Options) (*profile.Tasks, error) {
	pf, err := Open(o)
	if err != nil {
		return nil, err
	}
	defer pf.Close()
	t := profile.NewTasks()
	if err := fromperf.Tasks(pf, t); err != nil {
		return nil, FileError(o.Path, err)
	}
	return t, nil
}

// Open opens the recording o.Path ("-": o.Stdin, in perf's pipe format) for a reader of its
// records of its own (pmc stat report's counts); its errors are worded for the user.
func Open(o Options) (*perfdata.File, error) {
	f, err := open(o)
	if err != nil {
		return nil, FileError(o.Path, err)
	}
	return f, nil
}
