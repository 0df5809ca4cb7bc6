package record

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/pmc-tools/pmc/internal/pmu"
)

// DefaultFreq is the sampling frequency without -F or -c, perf record's.
const DefaultFreq = 4000

// Options are pmc record's flags as given; the Set fields say a flag was on the command
// line (a given -c 0 is refused, an absent one is not).
type Options struct {
	Events      []string // -e, each comma-separated
	Period      uint64   // -c
	PeriodSet   bool
	Freq        int // -F
	FreqSet     bool
	Callchain   bool   // -g
	CallGraph   string // --call-graph MODE
	PIDs        string // -p, comma-separated
	AllCPUs     bool   // -a
	CPUs        string // -C, a CPU list
	Output      string // -o; - is perf's pipe format on standard output
	Embed       bool   // --embed-symbols
	Compress    int    // -z's level
	CompressSet bool
	OffCPU      bool // --off-cpu, refused
	Quiet       bool // -q
	Command     []string
}

// Plan is a validated pmc record invocation, before anything is resolved on the machine.
type Plan struct {
	Mode      Mode
	Command   []string
	PIDs      []int
	CPUs      []int // explicit -C list
	Spec      string
	Defaulted bool // no -e: cycles, or cpu-clock without a PMU
	Period    uint64
	Freq      uint64
	Callchain bool
	UserStack uint32 // --call-graph dwarf's stack copy
	Output    string
	Embed     bool
	Compress  int // zstd level; 0: none
	Quiet     bool
}

// Plan checks the flags (each refusal names the fix) and picks the mode: -p, -a/-C or a
// command.
func (o *Options) Plan() (*Plan, error) {
	p := &Plan{Command: o.Command, Spec: strings.Join(o.Events, ","), Output: o.Output, Callchain: o.Callchain,
		Embed: o.Embed, Quiet: o.Quiet}
	if p.Spec == "" {
		p.Spec, p.Defaulted = "cycles", true
	}
	switch {
	case o.OffCPU:
		return nil, errors.New("--off-cpu samples where tasks sleep with BPF programs, and pmc has no BPF " +
			"(perf needs its BUILD_BPF_SKEL=1 build for it): record it with such a perf")
	case o.PeriodSet && o.FreqSet:
		return nil, errors.New("-c and -F both set the sampling rate: choose one")
	case o.PeriodSet && o.Period == 0:
		return nil, errors.New("-c 0: give a positive period, e.g. -c 100000")
	case o.FreqSet && o.Freq <= 0:
		return nil, fmt.Errorf("-F %d: give a positive frequency, e.g. -F 999", o.Freq)
	case o.Output == "":
		return nil, errors.New("-o: name a file")
	case o.CompressSet && (o.Compress < 1 || o.Compress > 22):
		return nil, fmt.Errorf("--compression-level=%d: give a zstd level from 1 (fastest) to 22 (-z alone is 1)", o.Compress)
	case o.Output == "-" && o.Embed:
		return nil, errors.New("--embed-symbols writes FILE.pmcsym beside the recording: give -o a file, not -")
	}
	p.Compress = o.Compress
	if o.CallGraph != "" {
		size, err := parseCallGraph(o.CallGraph)
		if err != nil {
			return nil, err
		}
		p.Callchain, p.UserStack = size == 0, size
	}
	p.Freq = DefaultFreq
	if o.FreqSet {
		p.Freq = uint64(o.Freq)
	}
	if o.PeriodSet {
		p.Period, p.Freq = o.Period, 0
	}
	if err := o.target(p); err != nil {
		return nil, err
	}
	return p, nil
}

// target sets p's mode and what it samples: -p's processes, -a or -C's CPUs, or the command.
func (o *Options) target(p *Plan) error {
	switch {
	case o.PIDs != "":
		if o.AllCPUs || o.CPUs != "" {
			return errors.New("-p and -a/-C are different modes: choose one")
		}
		if len(o.Command) > 0 {
			return fmt.Errorf("-p samples existing processes: drop the command %q", o.Command[0])
		}
		for _, s := range strings.Split(o.PIDs, ",") {
			pid, err := strconv.Atoi(strings.TrimSpace(s))
			if err != nil || pid <= 0 {
				return fmt.Errorf("-p %q: %q is not a process id", o.PIDs, s)
			}
			p.PIDs = append(p.PIDs, pid)
		}
		p.Mode = Attach
	case o.AllCPUs || o.CPUs != "":
		p.Mode = System
		if o.CPUs != "" {
			cpus, err := pmu.ParseCPUFlag(o.CPUs)
			if err != nil {
				return err
			}
			p.CPUs = cpus
		}
	default:
		if len(o.Command) == 0 {
			return errors.New("no command to sample: pmc record [-e EVENT] -- COMMAND [ARGS...] (or -p PID, or -a)")
		}
		p.Mode = Launch
	}
	return nil
}
