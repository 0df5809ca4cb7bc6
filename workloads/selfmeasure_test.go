package workloads_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pmc-tools/pmc/internal/result"
)

// selfReport is what pmc_write_json writes: a result.Stat plus the names of the regions.
type selfReport struct {
	result.Stat
	Regions []struct {
		Name    string `json:"name"`
		Run     int    `json:"run"`
		Calls   uint64 `json:"calls"`
		Parent  string `json:"parent"`
		Threads int    `json:"threads"`
		Open    uint64 `json:"open"`
	} `json:"regions"`
	MeasuringThreads int      `json:"measuring_threads"`
	ReadMethod       []string `json:"read_method"`
}

func hasHardwarePMU() bool {
	_, err := os.Stat("/sys/bus/event_source/devices/cpu")
	if err == nil {
		return true
	}
	_, err = os.Stat("/sys/bus/event_source/devices/armv8_pmuv3_0")
	return err == nil
}

func TestSelfMeasure(t *testing.T) {
	path := filepath.Join(t.TempDir(), "self.json")
	out, errOut, code := run(t, "selfmeasure", "--n", "2000000", "--json", path)
	if code != 0 {
		t.Fatalf("selfmeasure: exit %d\n%s%s", code, out, errOut)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var rep selfReport
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&rep); err != nil {
		t.Fatalf("JSON does not decode into result.Stat: %v\n%s", err, data)
	}
	if rep.Schema != result.SelfSchema || rep.Mode != "self" || rep.Backend != "perf_event" {
		t.Errorf("schema %q mode %q backend %q", rep.Schema, rep.Mode, rep.Backend)
	}
	if len(rep.Command) == 0 || !strings.HasSuffix(rep.Command[0], "selfmeasure") {
		t.Errorf("command %q", rep.Command)
	}
	// The machine is identified as pmc stat identifies it (issue 15 item 11).
	host, _ := os.Hostname()
	date, derr := time.Parse(time.RFC3339, rep.Date)
	if rep.Machine == nil || rep.Machine.Host != host || !strings.HasPrefix(rep.Machine.Kernel, "Linux ") ||
		rep.Machine.CPUs < 1 || derr != nil || time.Since(date) > time.Hour || !strings.HasPrefix(rep.PMCVersion, "pmc.h ") {
		t.Errorf("identity: machine %+v date %q version %q", rep.Machine, rep.Date, rep.PMCVersion)
	}

	// Regions: names, passes, nesting, and one Run each in the same order.
	wantRegions := []struct {
		name, parent string
		calls        uint64
	}{{"main", "", 1}, {"empty", "main", 3}, {"loop", "main", 3}, {"touch", "main", 1}}
	if len(rep.Regions) != len(wantRegions) || len(rep.Runs) != len(wantRegions) {
		t.Fatalf("%d regions, %d runs; want %d", len(rep.Regions), len(rep.Runs), len(wantRegions))
	}
	if rep.MeasuringThreads != 1 {
		t.Errorf("measuring_threads %d, want 1", rep.MeasuringThreads)
	}
	runOf := map[string]result.Run{}
	for i, w := range wantRegions {
		r := rep.Regions[i]
		if r.Name != w.name || r.Parent != w.parent || r.Calls != w.calls || r.Run != i || rep.Runs[i].Index != i ||
			r.Threads != 1 || r.Open != 0 {
			t.Errorf("region %d = %+v, want %+v at run %d", i, r, w, i)
		}
		runOf[r.Name] = rep.Runs[i]
	}
	count := func(region, event string) result.Count {
		for _, c := range runOf[region].Counts {
			if c.Event == event {
				return c
			}
		}
		t.Fatalf("region %s has no count for %s", region, event)
		return result.Count{}
	}

	// Hardware events: on a machine without a PMU (the development VMs) they must be reported
	// as not supported with the errno text, and the rest must still be measured.
	for _, ev := range []string{"instructions:u", "cycles:u"} {
		c := count("loop", ev)
		if hasHardwarePMU() {
			if c.Status != result.Counted || c.Raw == 0 {
				t.Errorf("%s with a PMU: status %s raw %d", ev, c.Status, c.Raw)
			}
			continue
		}
		if c.Status != result.NotSupported || !strings.HasPrefix(c.Error, "perf_event_open: ") ||
			!strings.Contains(c.Error, "(errno ") {
			t.Errorf("%s without a PMU: status %q error %q; want not-supported with the errno text", ev, c.Status, c.Error)
		}
		if !strings.Contains(errOut, "pmc: "+ev+": not supported: ") {
			t.Errorf("stderr does not report %s: %q", ev, errOut)
		}
	}
	if !hasHardwarePMU() {
		t.Log("NOT TESTED here (no hardware PMU): instructions:u and cycles:u counted by pmc.h in the regions and the summary (the QEMU guests count them)")
		if !strings.Contains(out, "instructions not counted: no exactness check") {
			t.Errorf("stdout lacks the no-check line:\n%s", out)
		}
	}

	// Software events are real here.
	for _, region := range []string{"main", "empty", "loop", "touch"} {
		tc := count(region, "task-clock")
		if tc.Status != result.Counted || tc.Unit != "msec" || tc.Enabled == 0 || tc.Running != tc.Enabled {
			t.Errorf("%s task-clock: %+v", region, tc)
		}
		if tc.Scaled != float64(tc.Raw) {
			t.Errorf("%s task-clock: scaled %v != raw %d without multiplexing", region, tc.Scaled, tc.Raw)
		}
	}
	// 3 x 4M loop instructions take far longer than 3 empty regions, and task-clock is ns.
	loopTC, emptyTC, mainTC := count("loop", "task-clock").Raw, count("empty", "task-clock").Raw, count("main", "task-clock").Raw
	if loopTC < 10*emptyTC || loopTC < 100000 || mainTC < loopTC {
		t.Errorf("task-clock ns: loop %d, empty %d, main %d", loopTC, emptyTC, mainTC)
	}
	pages := uint64((1 << 20) / os.Getpagesize())
	touchPF, mainPF, loopPF := count("touch", "page-faults").Raw, count("main", "page-faults").Raw, count("loop", "page-faults").Raw
	if touchPF < pages || touchPF > pages+16 || mainPF < touchPF || loopPF > 4 {
		t.Errorf("page-faults: touch %d (want %d..%d), main %d, loop %d", touchPF, pages, pages+16, mainPF, loopPF)
	}

	// The text lines agree with the JSON.
	for _, region := range []string{"loop", "touch"} {
		for _, ev := range []string{"task-clock", "page-faults"} {
			line := fmt.Sprintf("region=%s event=%s value=%d\n", region, ev, count(region, ev).Raw)
			if !strings.Contains(out, line) {
				t.Errorf("stdout lacks %q", line)
			}
		}
	}

	// Summary: one entry per event over the top-level region (main) only.
	if len(rep.Summary) != 4 {
		t.Fatalf("%d summary entries, want 4", len(rep.Summary))
	}
	for _, s := range rep.Summary {
		if strings.HasSuffix(s.Event, ":u") && !hasHardwarePMU() {
			if s.Status != result.NotSupported || s.Runs != 0 {
				t.Errorf("summary %s: %+v", s.Event, s)
			}
			continue
		}
		if s.Status != result.Counted || s.Runs != 1 || s.RawMean != float64(count("main", s.Event).Raw) {
			t.Errorf("summary %s: %+v, want main's value", s.Event, s)
		}
	}
}

func TestSelfMeasureBadEvents(t *testing.T) {
	for _, c := range []struct{ events, want string }{
		{"bogus", "unknown event bogus"},
		{"instructions:x", "unknown modifier"},
		{"task-clock,,page-faults", "event name of 0 characters"},
	} {
		out, errOut, code := run(t, "selfmeasure", "--events", c.events)
		if code != 2 || out != "" || !strings.Contains(errOut, c.want) {
			t.Errorf("--events %q: exit %d, stdout %q, stderr %q; want exit 2 and %q", c.events, code, out, errOut, c.want)
		}
	}
}
