package host

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Facts are the recorded facts of a machine (pmc stat --fake-machine FILE): a board pmc
// never ran on, or a golden test's fixed host. Each field stands for the file Probe would
// read it from.
//
//	{"host": "raspberrypi", "kernel": "Linux 3.6.11+ #474 PREEMPT armv6l",
//	 "date": "2013-06-27T09:58:08Z", "processors": 1, "pmu": "armv6_1176",
//	 "cpuinfo": "CPU implementer\t: 0x41\nCPU architecture: 7\nCPU part\t: 0xb76\n"}
type Facts struct {
	Host       string    `json:"host"`       // proc/sys/kernel/hostname
	Kernel     string    `json:"kernel"`     // proc/sys/kernel/{ostype,osrelease,...}
	Date       time.Time `json:"date"`       // when they were recorded (not a file)
	Processors int       `json:"processors"` // sys/devices/system/cpu/online
	PMU        string    `json:"pmu"`        // the core PMU's sysfs name, "" for none
	CPUInfo    string    `json:"cpuinfo"`    // proc/cpuinfo
}

// corePMUType is the perf_event_attr.type a recorded core PMU gets (a dynamic type, as the
// kernel gives the first registered PMU after the fixed ones).
const corePMUType = 8

// Load rebuilds a machine from recorded facts (JSON, unknown fields refused): the facts are
// written as a root and a sysfs snapshot, and Probe reads those.
func Load(data []byte) (*Machine, error) {
	var f Facts
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		return nil, fmt.Errorf("machine facts: %w", err)
	}
	if f.Processors < 0 || f.Processors > 1<<16 {
		return nil, fmt.Errorf("machine facts: processors %d is not a CPU count", f.Processors)
	}
	root, sys := memFS{}, memFS{}
	root.add("proc/cpuinfo", f.CPUInfo)
	root.add("proc/sys/kernel/hostname", f.Host)
	if ostype, rest, ok := strings.Cut(f.Kernel, " "); ok {
		root.add("proc/sys/kernel/ostype", ostype)
		root.add("proc/sys/kernel/osrelease", rest)
	} else if f.Kernel != "" {
		root.add("proc/sys/kernel/ostype", f.Kernel)
	}
	if f.Processors > 0 {
		sys.add("devices/system/cpu/online", "0-"+strconv.Itoa(f.Processors-1))
	}
	if f.PMU != "" {
		dir := "bus/event_source/devices/" + f.PMU
		sys.add(dir+"/type", strconv.Itoa(corePMUType))
		sys.add(dir+"/format/event", "config:0-15")
	}
	m := Probe(root, sys)
	m.Date = f.Date
	return m, nil
}
