package qemu

import (
	"fmt"
	"os"
	"strings"
)

// probeNs are the loop lengths the probe measures; 0 twice shows the overhead is repeatable.
var probeNs = []uint64{0, 0, 1, 1000, 100000, 1000000, 3000000, 10000000, 30000000}

// batch lists every command a guest runs in its one boot. Tests look commands up by name.
func batch(g Guest, files []File) []Cmd {
	if g.Name == NoPMU.Name {
		return only(append(noPMUBatch(files), extraCmds()...))
	}
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
	// Launchers independent of pmc (perf's method in C, and Go with a readiness handshake),
	// 8 inherited counters multiplexed over a 100M-instruction loop.
	ev8 := "0:1,0:1,0:1,0:1,0:1,0:1,0:1,0:1"
	if has(files, "/bin/loop") {
		cmds = append(cmds,
			Cmd{"clauncher-mux", "/bin/clauncher -k -i 8 /bin/loop 0050000000"},
			Cmd{"probe-launch-mux", "/bin/probe -x -k -i -e " + ev8 + " /bin/loop 0050000000"})
	}
	if g.Name == "armv7" {
		// 0xff is the ARMv7 driver's own code for its dedicated cycle counter.
		cmds = append(cmds, Cmd{"probe-raw-ff", "/bin/probe -e 4:0x08,4:0xff" + ns})
	}
	if has(files, "/bin/pmc") && has(files, "/bin/loop") {
		cmds = append(cmds, pmcBatch(g)...)
	}
	return only(append(cmds, extraCmds()...))
}

// only keeps the commands whose names start with PMC_QEMU_ONLY (when set; several prefixes
// separated by commas), so that one test's commands can be run on a loaded machine without
// the whole batch: PMC_QEMU_ONLY=mem- ./test/qemu/run.sh -run TestMemTimer.
func only(cmds []Cmd) []Cmd {
	prefixes := os.Getenv("PMC_QEMU_ONLY")
	if prefixes == "" {
		return cmds
	}
	var out []Cmd
	for _, c := range cmds {
		for _, p := range strings.Split(prefixes, ",") {
			if p != "" && strings.HasPrefix(c.Name, p) {
				out = append(out, c)
				break
			}
		}
	}
	return out
}

// extraCmds reads PMC_QEMU_EXTRA, a file of additional guest command lines (one per line, as
// in /cmds) for exploring: TestExtra prints their outputs. Example:
//
//	echo "/bin/pmc stat -e instructions:u -- /bin/loop 5" >/tmp/x
//	PMC_QEMU=1 PMC_QEMU_EXTRA=/tmp/x go test -v -run Extra ./test/qemu
//
// With PMC_QEMU_ONLY=extra- the guests run nothing else (a quicker boot).
func extraCmds() []Cmd {
	b, err := os.ReadFile(os.Getenv("PMC_QEMU_EXTRA"))
	if err != nil {
		return nil
	}
	var cmds []Cmd
	for _, line := range strings.Split(string(b), "\n") {
		if line = strings.TrimSpace(line); line != "" && !strings.HasPrefix(line, "#") {
			cmds = append(cmds, Cmd{fmt.Sprintf("extra-%d", len(cmds)), line})
		}
	}
	return cmds
}
