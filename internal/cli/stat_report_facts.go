package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing/fstest"
	"time"

	"github.com/pmc-tools/pmc/internal/catalog"
	"github.com/pmc-tools/pmc/internal/metrics"
	"github.com/pmc-tools/pmc/internal/statreport"
)

// hostFacts is what `pmc stat` knows about the machine it counts on: the CPU identity and
// core PMU (for metric formulas, the co-scheduling planner and plausibility checks) and the
// facts the report header prints. On a live run they come from the machine; the hidden
// --fake-machine FILE replaces them so that golden tests do not depend on the host.
type hostFacts struct {
	host       string
	kernel     string
	date       time.Time
	processors int
	cpu        catalog.CPU
	cpuErr     error
	pmu        string // core PMU name in sysfs ("armv6_1176", "cpu"), "" when there is none
	core       metrics.Core
	knownCore  bool // core came from the table of known Arm cores
}

// fakeMachine is the JSON form of --fake-machine FILE: each field replaces one fact.
//
//	{"host": "raspberrypi", "kernel": "Linux 3.6.11+ #474 PREEMPT armv6l",
//	 "date": "2013-06-27T09:58:08Z", "processors": 1, "pmu": "armv6_1176",
//	 "cpuinfo": "CPU implementer\t: 0x41\nCPU architecture: 7\nCPU part\t: 0xb76\n"}
//
// cpuinfo is the text of /proc/cpuinfo; it goes through the same identification as the
// machine's own file.
type fakeMachine struct {
	Host       string    `json:"host"`
	Kernel     string    `json:"kernel"`
	Date       time.Time `json:"date"`
	Processors int       `json:"processors"`
	PMU        string    `json:"pmu"`
	CPUInfo    string    `json:"cpuinfo"`
}

// loadFacts returns the facts of this machine, or those scripted by path when it is set.
func loadFacts(path string) (*hostFacts, error) {
	if path == "" {
		return liveFacts(), nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("--fake-machine: %w", err)
	}
	var fm fakeMachine
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&fm); err != nil {
		return nil, fmt.Errorf("--fake-machine %s: %w", filepath.Base(path), err)
	}
	h := &hostFacts{host: fm.Host, kernel: fm.Kernel, date: fm.Date, processors: fm.Processors, pmu: fm.PMU}
	h.identify(fstest.MapFS{"proc/cpuinfo": &fstest.MapFile{Data: []byte(fm.CPUInfo)}})
	return h, nil
}

// liveFacts reads the running machine: hostname, kernel (from /proc/sys/kernel, as uname
// prints it), the clock, the CPU count, /proc/cpuinfo and the core PMU in sysfs.
func liveFacts() *hostFacts {
	h := &hostFacts{date: time.Now(), processors: runtime.NumCPU()}
	h.host, _ = os.Hostname()
	h.kernel = kernelString(os.DirFS("/proc/sys/kernel"))
	if core := discover().Core(); core != nil {
		h.pmu = core.Name
	}
	root, _ := hostFS()
	h.identify(root)
	return h
}

// kernelString is uname's "-s -r -v -m" from procfs: "Linux 6.1.0-18-amd64 #1 SMP ... x86_64".
func kernelString(fsys fs.FS) string {
	var parts []string
	for _, name := range []string{"ostype", "osrelease", "version", "arch"} {
		if b, err := fs.ReadFile(fsys, name); err == nil {
			if s := strings.TrimSpace(string(b)); s != "" {
				parts = append(parts, s)
			}
		}
	}
	return strings.Join(parts, " ")
}

// identify sets the CPU identity and, for Arm cores pmc knows, the core's counters and
// issue width.
func (h *hostFacts) identify(root fs.FS) {
	h.cpu, h.cpuErr = catalog.Identify(root)
	if h.cpuErr == nil && h.cpu.ISA == "arm" {
		h.core, h.knownCore = metrics.CoreByPart(uint64(h.cpu.Implementer), uint64(h.cpu.Part))
	}
}

// arch is the built-in metric architecture: from the PMU name, else from the known core.
func (h *hostFacts) arch() string {
	if a := metrics.Arch(h.pmu); a != metrics.ArchGeneric {
		return a
	}
	if h.knownCore {
		return h.core.Arch
	}
	return metrics.ArchGeneric
}

// machine is the planner's view of the counters. Known Arm cores bring their own; other CPUs
// get an assumption that holds on the common ones: Intel has 4 general counters per thread
// (with SMT) plus fixed ones for cycles, instructions and ref-cycles; AMD Zen has 6 general
// counters and no fixed ones; anything else is taken as 4 general counters plus cycles and
// instructions on counters of their own.
func (h *hostFacts) machine() (m metrics.Machine, assumed bool) {
	switch {
	case h.knownCore:
		return h.core.Machine(), false
	case h.cpu.ISA == "x86" && h.cpu.Vendor == "GenuineIntel":
		return metrics.Machine{Counters: 4, CycleCounter: true, Fixed: []string{"instructions", "ref-cycles"}, Arch: h.arch()}, true
	case h.cpu.ISA == "x86" && h.cpu.Vendor == "AuthenticAMD":
		return metrics.Machine{Counters: 6, Arch: h.arch()}, true
	}
	return metrics.Machine{Counters: 4, CycleCounter: true, Fixed: []string{"instructions"}, Arch: h.arch()}, true
}

// issueWidth is the plausibility bound for IPC, 0 (no check) on cores pmc does not know.
func (h *hostFacts) issueWidth() float64 {
	if h.knownCore {
		return h.core.IssueWidth
	}
	return 0
}

// cpuModel is the CPU line of the report: the event table's title when pmc has one for this
// CPU, else the model name, with the identity Linux reports.
func (h *hostFacts) cpuModel() string {
	if h.cpuErr != nil {
		return "unidentified (" + h.cpuErr.Error() + ")"
	}
	id := h.cpu.String()
	if h.cpu.ISA == "x86" {
		id = fmt.Sprintf("%s family 0x%x model 0x%x", h.cpu.Vendor, h.cpu.Family, h.cpu.Model)
	}
	name := h.cpu.ModelName
	if cat, err := catalog.Load(); err == nil {
		if t, ok := cat.ForCPU(h.cpu); ok && h.cpu.ISA == "arm" {
			name = t.Title
		}
	}
	if name == "" {
		return id
	}
	return name + "; " + id
}

// pmuLine describes the core PMU and its counters for the report.
func (h *hostFacts) pmuLine() string {
	if h.pmu == "" {
		return "none (no hardware PMU in sysfs: only software events can be counted)"
	}
	m, assumed := h.machine()
	s := fmt.Sprintf("%s, %d general counters", h.pmu, m.Counters)
	if m.CycleCounter {
		s += " + cycle counter"
	}
	for _, f := range m.Fixed {
		s += " + " + f
	}
	if assumed {
		s += " (assumed for planning)"
	} else if h.knownCore {
		s += fmt.Sprintf(" (%s, issues up to %g per cycle)", h.core.Name, h.core.IssueWidth)
	}
	return s
}

// reportMachine is the header of the report file.
func (h *hostFacts) reportMachine() statreport.Machine {
	return statreport.Machine{Host: h.host, Kernel: h.kernel, Date: h.date, Processors: h.processors,
		CPU: h.cpuModel(), PMU: h.pmuLine()}
}
