package perfdata

import (
	"bytes"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/pmc-tools/pmc/internal/testenv"
)

// pipeCopy writes f's events, features and records in perf's pipe format.
func pipeCopy(t *testing.T, f *File, recs []Record) []byte {
	t.Helper()
	var buf bytes.Buffer
	w, err := NewPipeWriter(&buf, f.Events, f.Features)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range recs {
		if err := w.Write(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// A pipe the PipeWriter wrote reads back (from a stream) as the file it copies: the same
// events with their names, the same records (the build ids at its end aside).
func TestPipeWriterRoundTrip(t *testing.T) {
	for _, name := range []string{"callgraph.data", "multi.data"} {
		t.Run(name, func(t *testing.T) {
			f, recs := readAll(t, filepath.Join("testdata", name))
			g, err := NewPipe(onlyReader{bytes.NewReader(pipeCopy(t, f, recs))})
			if err != nil {
				t.Fatal(err)
			}
			if len(g.Events) != len(f.Events) {
				t.Fatalf("%d events, want %d", len(g.Events), len(f.Events))
			}
			for i := range f.Events {
				if g.Events[i].Name != f.Events[i].Name || !reflect.DeepEqual(g.Events[i].IDs, f.Events[i].IDs) {
					t.Errorf("event %d: %q %v, want %q %v", i, g.Events[i].Name, g.Events[i].IDs, f.Events[i].Name, f.Events[i].IDs)
				}
			}
			if g.Features.Hostname != f.Features.Hostname || !reflect.DeepEqual(g.Features.Cmdline, f.Features.Cmdline) {
				t.Errorf("features %q %q, want %q %q", g.Features.Hostname, g.Features.Cmdline, f.Features.Hostname, f.Features.Cmdline)
			}
			var got []Record
			for _, r := range records(t, g) {
				if u, ok := r.(*Unknown); !ok || u.Type != RecordHeaderBuildID {
					got = append(got, r)
				}
			}
			if !reflect.DeepEqual(withoutOffsets(got), withoutOffsets(recs)) {
				t.Errorf("%d records read back, want the %d written", len(got), len(recs))
			}
			if len(f.Features.BuildIDs) == 0 || !reflect.DeepEqual(g.Features.BuildIDs, f.Features.BuildIDs) {
				t.Errorf("build ids read back %v, want %v", g.Features.BuildIDs, f.Features.BuildIDs)
			}
		})
	}
}

var pipeRows = regexp.MustCompile(`(?m)^(# Samples:.*|# Event count.*|# Overhead.*| +[0-9.]+%.*)$`)

// perf report -i - reads what the PipeWriter writes, and reports what it reports of the
// file the pipe copies (no binaries nor kernel symbols on either side, so the rows are the
// same on any machine).
func TestPipeWriterPerfReads(t *testing.T) {
	testenv.Tool(t, "perf")
	empty := t.TempDir()
	for _, name := range []string{"callgraph.data", "multi.data"} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join("testdata", name)
			f, recs := readAll(t, path)
			args := []string{"--buildid-dir", empty, "report", "--stdio", "--no-children", "--symfs", empty, "--kallsyms", "/dev/null"}
			run := func(in []byte, args ...string) string {
				cmd := exec.Command("perf", args...)
				cmd.Stdin = bytes.NewReader(in)
				var stderr bytes.Buffer
				cmd.Stderr = &stderr
				out, err := cmd.Output()
				if err != nil {
					t.Fatalf("perf %v: %v\n%s", args, err, stderr.String())
				}
				return strings.Join(pipeRows.FindAllString(string(out), -1), "\n")
			}
			want := run(nil, append(args, "-i", path)...)
			got := run(pipeCopy(t, f, recs), append(args, "-i", "-")...)
			if len(want) < 100 || got != want {
				t.Errorf("perf report -i - on the pipe:\n%s\nperf report -i %s:\n%s", got, name, want)
			}
		})
	}
}
