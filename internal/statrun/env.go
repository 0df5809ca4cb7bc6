package statrun

import (
	"fmt"
	"io"
	"os"
	"time"

	"github.com/pmc-tools/pmc/internal/host"
	"github.com/pmc-tools/pmc/internal/result"
)

// Input size limits of the files a stat run reads: past its limit a file is refused rather
// than read until memory runs out. README lists them.
const (
	LimitMetrics = 4 << 20  // --metrics-file
	LimitFacts   = 1 << 20  // --fake-machine
	LimitFake    = 64 << 20 // --fake
)

// Reader reads a file the flags name ("-": stdin), at most limit bytes; what names the flag
// in errors.
type Reader func(path string, limit int64, what string) ([]byte, error)

// Recording is where pmc stat record writes: a file kept or removed as a whole, or stdout.
type Recording interface {
	io.Writer
	Close() error
	Abort()
}

// Env is what a stat run needs from its caller: its writers, the workload's standard streams,
// the machine, and the caller's ways of reading inputs, opening recordings and stamping
// results.
type Env struct {
	Stdout, Stderr io.Writer
	Workload       [3]*os.File // stdin, stdout, stderr of a launched command
	Args           []string    // pmc's command line, recorded in saved results
	Machine        func() *host.Machine
	Platform       func() *host.Platform
	Read           Reader
	OpenRecording  func(path string) (Recording, error)
	// Stamp records where, when (a zero started: no date) and by what res was measured.
	Stamp func(res *result.Stat, facts *host.Machine, started time.Time)
}

// ExitError carries pmc's exit status: 1 for what the user asked wrong, the workload's own
// status, 126/127 for a command that cannot run. Err is nil when the status says it all.
type ExitError struct {
	Code int
	Err  error
}

func (x *ExitError) Error() string {
	if x.Err == nil {
		return fmt.Sprintf("exit status %d", x.Code)
	}
	return x.Err.Error()
}

func (x *ExitError) Unwrap() error { return x.Err }

// usageErr marks an error in what the user asked for.
func usageErr(err error) error { return &ExitError{Code: 1, Err: err} }
