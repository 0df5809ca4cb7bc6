package qemu

import "fmt"

// probeNs are the loop lengths the probe measures; 0 twice shows the overhead is repeatable.
var probeNs = []uint64{0, 0, 1, 1000, 100000, 1000000, 3000000}

// batch lists every command a guest runs in its one boot. Tests look commands up by name.
func batch(g Guest, files []File) []Cmd {
	ns := ""
	for _, n := range probeNs {
		ns += fmt.Sprintf(" %d", n)
	}
	cmds := []Cmd{
		{"snapshot", "snapshot"},
		{"probe", "/bin/probe" + ns},
		// Raw architectural codes: 0x08 INST_RETIRED, 0x11 CPU_CYCLES (both PMU versions).
		{"probe-raw", "/bin/probe -e 4:0x08,4:0x11" + ns},
		{"probe-kernel", "/bin/probe -k 0 1000000"},
	}
	if g.Name == "armv7" {
		// 0xff is the ARMv7 driver's own code for its dedicated cycle counter.
		cmds = append(cmds, Cmd{"probe-raw-ff", "/bin/probe -e 4:0x08,4:0xff" + ns})
	}
	if has(files, "/bin/pmc") && has(files, "/bin/loop") {
		cmds = append(cmds, pmcBatch(g)...)
	}
	return cmds
}
