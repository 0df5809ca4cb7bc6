package record

import (
	"errors"
	"io"

	"github.com/pmc-tools/pmc/internal/perfdata"
)

// newWriter starts the recording's output: a perf.data file, or with Request.Pipe perf's
// pipe format, whose features (all but the build-ids, which come at the end) go first.
func (s *Session) newWriter(w io.Writer, evs []perfdata.Event) (*perfdata.Writer, error) {
	if s.req.Pipe {
		return perfdata.NewPipeWriter(w, evs, s.features())
	}
	ws, ok := w.(io.WriteSeeker)
	if !ok {
		return nil, errors.New("a perf.data file is written in place: give a seekable file, or write the pipe format (Request.Pipe)")
	}
	return perfdata.NewWriter(ws, evs)
}
