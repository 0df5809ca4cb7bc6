package events

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	pe "github.com/pmc-tools/pmc/internal/perfevent"
)

// perfAttr is one perf_event_attr block of `perf stat -vv` output, decoded into an Attr.
type perfAttr struct {
	attr pe.Attr
	line int // where the block starts in the file, for messages
}

// perfFlags maps perf's flag names to Attr fields.
func perfFlag(a *pe.Attr, name string) *bool {
	m := map[string]*bool{
		"disabled": &a.Disabled, "inherit": &a.Inherit, "pinned": &a.Pinned,
		"exclusive": &a.Exclusive, "exclude_user": &a.ExcludeUser,
		"exclude_kernel": &a.ExcludeKernel, "exclude_hv": &a.ExcludeHV,
		"exclude_idle": &a.ExcludeIdle, "mmap": &a.Mmap, "comm": &a.Comm, "freq": &a.Freq,
		"inherit_stat": &a.InheritStat, "enable_on_exec": &a.EnableOnExec, "task": &a.Task,
		"watermark": &a.Watermark, "mmap_data": &a.MmapData, "sample_id_all": &a.SampleIDAll,
		"exclude_host": &a.ExcludeHost, "exclude_guest": &a.ExcludeGuest, "mmap2": &a.Mmap2,
		"comm_exec": &a.CommExec, "use_clockid": &a.UseClockID, "context_switch": &a.ContextSwitch,
	}
	return m[name]
}

// parseBits parses perf's A|B|C bit lists with the names perfevent uses.
func parseBits(s string, names map[string]uint64) (uint64, error) {
	var v uint64
	for _, n := range strings.Split(s, "|") {
		bit, ok := names[n]
		if !ok {
			return 0, fmt.Errorf("unknown bit %q", n)
		}
		v |= bit
	}
	return v, nil
}

var perfReadFormat = map[string]uint64{"TOTAL_TIME_ENABLED": pe.FormatTotalTimeEnabled,
	"TOTAL_TIME_RUNNING": pe.FormatTotalTimeRunning, "ID": pe.FormatID, "GROUP": pe.FormatGroup,
	"LOST": pe.FormatLost}

var perfSampleType = map[string]uint64{"IP": pe.SampleIP, "TID": pe.SampleTID, "TIME": pe.SampleTime,
	"ADDR": pe.SampleAddr, "READ": pe.SampleRead, "CALLCHAIN": pe.SampleCallchain, "ID": pe.SampleID,
	"CPU": pe.SampleCPU, "PERIOD": pe.SamplePeriod, "STREAM_ID": pe.SampleStreamID, "RAW": pe.SampleRaw,
	"IDENTIFIER": pe.SampleIdentifier}

// parsePerfVV extracts the attr of every event perf tried to open, in order. perf omits zero
// fields (type 0 included) and names config1/config2 "{ bp_addr, config1 }" and
// "{ bp_len, config2 }". A block that follows a failed open before perf gave up on the event
// (its "Warning:"/"Error:"/"not supported" message) is a retry of the same event with a field
// switched off (perf says so the first time, then silently), not a new event, and is dropped:
// pmc is compared with the attr perf asked for first. In system-wide mode perf opens every event
// once per CPU; only the blocks of the first CPU are kept.
func parsePerfVV(text string) ([]perfAttr, error) {
	var out []perfAttr
	var cur *perfAttr
	retry, failed := false, false
	firstCPU := ""
	sc := bufio.NewScanner(strings.NewReader(text))
	for ln := 1; sc.Scan(); ln++ {
		line := sc.Text()
		switch {
		case line == "perf_event_attr:":
			cur = &perfAttr{line: ln}
			retry = failed
			continue
		case strings.HasPrefix(line, "sys_perf_event_open failed"):
			failed = true
			continue
		case strings.HasPrefix(line, "Warning:") || strings.HasPrefix(line, "Error:") ||
			strings.Contains(line, "not supported"):
			failed = false
			continue
		case strings.HasPrefix(line, "sys_perf_event_open: "):
			if cur == nil {
				return nil, fmt.Errorf("line %d: open without attr", ln)
			}
			f := strings.Fields(line)
			cpu := ""
			for i := range f {
				if f[i] == "cpu" && i+1 < len(f) {
					cpu = f[i+1]
				}
			}
			if firstCPU == "" {
				firstCPU = cpu
			}
			if !retry && cpu == firstCPU {
				out = append(out, *cur)
			}
			cur, failed = nil, false
			continue
		case cur == nil || !strings.HasPrefix(line, "  "):
			continue
		}
		var name, val string
		body := strings.TrimSpace(line)
		if strings.HasPrefix(body, "{") {
			end := strings.Index(body, "}")
			if end < 0 {
				return nil, fmt.Errorf("line %d: unterminated {", ln)
			}
			names := strings.Split(body[1:end], ",")
			name, val = strings.TrimSpace(names[len(names)-1]), strings.TrimSpace(body[end+1:])
		} else {
			f := strings.Fields(body)
			if len(f) != 2 {
				return nil, fmt.Errorf("line %d: cannot read %q", ln, line)
			}
			name, val = f[0], f[1]
		}
		if err := setPerfField(&cur.attr, name, val); err != nil {
			return nil, fmt.Errorf("line %d: %v", ln, err)
		}
	}
	return out, sc.Err()
}

func setPerfField(a *pe.Attr, name, val string) error {
	num := func() (uint64, error) { return strconv.ParseUint(val, 0, 64) }
	var err error
	var n uint64
	switch name {
	case "size":
		// The attr size is not part of Attr: Encode sets it for the kernel layout.
		return nil
	case "type":
		n, err = num()
		a.Type = uint32(n)
	case "config":
		a.Config, err = num()
	case "config1":
		a.Config1, err = num()
	case "config2":
		a.Config2, err = num()
	case "config3":
		a.Config3, err = num()
	case "sample_period", "sample_freq":
		a.SamplePeriod, err = num()
	case "sample_type":
		a.SampleType, err = parseBits(val, perfSampleType)
	case "read_format":
		a.ReadFormat, err = parseBits(val, perfReadFormat)
	case "precise_ip":
		n, err = num()
		a.PreciseIP = uint8(n)
	case "wakeup_events":
		n, err = num()
		a.WakeupEvents = uint32(n)
	case "bp_type":
		n, err = num()
		a.BPType = uint32(n)
	default:
		p := perfFlag(a, name)
		if p == nil {
			return fmt.Errorf("unknown perf attr field %q", name)
		}
		if val != "1" {
			return fmt.Errorf("flag %s = %q", name, val)
		}
		*p = true
	}
	return err
}

// TestPerfVV compares Resolve with the attrs the real perf stat 6.1 printed for the same
// strings on the machine whose sysfs snapshot the case names. Every field is compared (the
// Attr text form covers all of them); perf's size line is the only one skipped.
func TestPerfVV(t *testing.T) {
	compared := 0
	for _, c := range loadCases(t) {
		path := filepath.Join("testdata", "perf-vv", c.name+".txt")
		data, err := os.ReadFile(path)
		if os.IsNotExist(err) {
			if c.machine == "x86_64-kvm-epyc" {
				t.Errorf("%s: no perf recording (run testdata/perf-vv/record.sh)", c.name)
			}
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		t.Run(c.name, func(t *testing.T) {
			text := string(data)
			if first, _, _ := strings.Cut(text, "\n"); first != "# "+c.perfCommand() {
				t.Fatalf("recording is for %q, case wants %q: re-run record.sh", first, c.perfCommand())
			}
			perf, err := parsePerfVV(text)
			if err != nil {
				t.Fatal(err)
			}
			var ours []Event
			for _, g := range resolveCase(t, c) {
				ours = append(ours, g.Events...)
			}
			if len(perf) == 0 || len(perf) > len(ours) {
				t.Fatalf("perf opened %d events, pmc resolved %d", len(perf), len(ours))
			}
			// perf stops opening a group after a member fails (no hardware PMU here), so it may
			// print fewer blocks than pmc resolves; it must never print a different one.
			if len(perf) < len(ours) && !strings.Contains(text, "not supported") {
				t.Fatalf("perf opened %d of %d events without a failure", len(perf), len(ours))
			}
			for i, p := range perf {
				if got, want := ours[i].Attr.String(), p.attr.String(); got != want {
					t.Errorf("event %d %q differs from perf (block at line %d):\n--- pmc\n%s--- perf\n%s",
						i, ours[i].Name, p.line, got, want)
				}
				compared++
			}
		})
	}
	t.Logf("%d events compared with perf", compared)
	if compared < 100 {
		t.Errorf("only %d events compared with perf", compared)
	}
}
