//go:build linux

package main

import (
	"bytes"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"sort"
)

// snapshot prints the files pmc reads to discover PMUs and CPUs, so the host can keep a copy
// of a real guest's sysfs as test data. Each file is printed as
//
//	@@ <path> <n>\n<n bytes of content>\n
//
// and an unreadable file as `@@! <path> <error>\n`. Paths are the logical paths below ROOT
// (symbolic links such as /sys/bus/event_source/devices/<pmu> are not resolved).
func snapshot(root string) []byte {
	var files []string
	pmus, _ := filepath.Glob(filepath.Join(root, "sys/bus/event_source/devices/*"))
	for _, p := range pmus {
		for _, name := range []string{"type", "cpus", "cpumask", "perf_event_mux_interval_ms", "nr_addr_filters"} {
			files = append(files, filepath.Join(p, name))
		}
		for _, sub := range []string{"format", "events", "caps"} {
			m, _ := filepath.Glob(filepath.Join(p, sub, "*"))
			files = append(files, m...)
		}
	}
	cpus, _ := filepath.Glob(filepath.Join(root, "sys/devices/system/cpu/cpu[0-9]*/regs/identification/midr_el1"))
	files = append(files, cpus...)
	for _, f := range []string{
		"sys/devices/system/cpu/online",
		"sys/devices/system/cpu/possible",
		"proc/cpuinfo",
		"proc/sys/kernel/perf_event_paranoid",
		"proc/sys/kernel/perf_event_max_sample_rate",
	} {
		files = append(files, filepath.Join(root, f))
	}
	sort.Strings(files)
	var out bytes.Buffer
	for _, f := range files {
		st, err := os.Stat(f)
		if err != nil {
			if !os.IsNotExist(err) {
				fmt.Fprintf(&out, "@@! %s %v\n", rel(root, f), err)
			}
			continue
		}
		if !st.Mode().IsRegular() {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			fmt.Fprintf(&out, "@@! %s %v\n", rel(root, f), err)
			continue
		}
		fmt.Fprintf(&out, "@@ %s %d\n", rel(root, f), len(b))
		out.Write(b)
		out.WriteByte('\n')
	}
	return out.Bytes()
}

func rel(root, f string) string {
	r, err := filepath.Rel(root, f)
	if err != nil {
		return f
	}
	return path.Clean("/" + filepath.ToSlash(r))
}
