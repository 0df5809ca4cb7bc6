package qemu

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"time"
)

// Guest describes one emulated ARM machine.
type Guest struct {
	Name     string // "arm64" or "armv7": also the workloads build directory (BUILD/<Name>)
	QEMU     string // emulator binary
	CPU      string // -cpu
	Kernel   string // file name in the cache directory (written by kernels.sh)
	GOARCH   string
	GOARM    string
	CC       string // cross compiler for the harness's own C test program
	PMU      string // the PMU's directory in /sys/bus/event_source/devices
	Counters int    // general-purpose counters (the cycle counter is extra)
	PatchDTB bool   // the virt board's pmu node is empty: add one (32-bit CPUs)
	SMP      int
	// Like names the guest whose workload builds this one uses ("": its own Name).
	Like string
}

// wlDir is the guest's directory in the workloads build (BUILD/<dir>).
func (g Guest) wlDir() string {
	if g.Like != "" {
		return g.Like
	}
	return g.Name
}

// Guests are the machines the harness boots. Counter numbers are QEMU's (PMCR_EL0.N).
var Guests = []Guest{
	{Name: "arm64", QEMU: "qemu-system-aarch64", CPU: "cortex-a57", Kernel: "vmlinuz-arm64",
		GOARCH: "arm64", CC: "aarch64-linux-gnu-gcc", PMU: "armv8_pmuv3", Counters: 6, SMP: 1},
	{Name: "armv7", QEMU: "qemu-system-arm", CPU: "cortex-a7", Kernel: "vmlinuz-armmp",
		GOARCH: "arm", GOARM: "7", CC: "arm-linux-gnueabihf-gcc", PMU: "armv7_cortex_a7", Counters: 4,
		PatchDTB: true, SMP: 1},
}

// NoPMU is the armv7 guest as QEMU makes it: the device tree's pmu node left empty, so no
// PMU driver binds. It runs only the commands that must say so (pmc doctor, pmc stat's hint).
var NoPMU = Guest{Name: "armv7-nopmu", QEMU: "qemu-system-arm", CPU: "cortex-a7", Kernel: "vmlinuz-armmp",
	GOARCH: "arm", GOARM: "7", CC: "arm-linux-gnueabihf-gcc", SMP: 1, Like: "armv7"}

// booted are the guests bootAll starts, all at the same time.
func booted() []Guest { return append(append([]Guest{}, Guests...), NoPMU) }

// Memory is the guest RAM; the DTB of the armv7 guest is dumped for exactly this size.
const Memory = "512M"

func (g Guest) machineArgs() []string {
	return []string{"-M", "virt", "-cpu", g.CPU, "-m", Memory, "-smp", fmt.Sprint(g.SMP),
		"-nographic", "-no-reboot", "-nic", "none", "-icount", "shift=0"}
}

// BootArgs returns the QEMU command line (without the binary) for a boot with the given files.
func (g Guest) BootArgs(kernel, initrd, dtb string) []string {
	args := append(g.machineArgs(), "-kernel", kernel, "-initrd", initrd,
		// norandmaps: no address-space randomisation, so every run of a workload takes the
		// same page faults; with it, a run now and then took one more fault and re-executed
		// the faulting instruction, reading 2 instructions:u above the exact count.
		"-append", "console=ttyAMA0 panic=-1 quiet norandmaps")
	if dtb != "" {
		args = append(args, "-dtb", dtb)
	}
	return args
}

var emptyPMU = regexp.MustCompile(`(?m)^(\s*)pmu \{\s*\};`)

// PatchPMUNode fills QEMU's empty `pmu { };` device-tree node (dtc text form) with a
// Cortex-A7 PMU: the PPI 7 the virt board wires to the PMU, level-high, on the first smp CPUs.
// It fails when there is no empty node to fill.
func PatchPMUNode(dts []byte, smp int) ([]byte, error) {
	loc := emptyPMU.FindSubmatchIndex(dts)
	if loc == nil {
		return nil, errors.New("dtb: no empty pmu node in the virt board's device tree")
	}
	indent := string(dts[loc[2]:loc[3]])
	mask := (1<<smp - 1) << 8
	node := fmt.Sprintf("%spmu {\n%s\tcompatible = \"arm,cortex-a7-pmu\";\n%s\tinterrupts = <0x01 0x07 0x%x>;\n%s};",
		indent, indent, indent, mask|4, indent)
	return append(append(append([]byte{}, dts[:loc[0]]...), node...), dts[loc[1]:]...), nil
}

// MakeDTB dumps the virt board's device tree for g into dir, adds the PMU node and compiles it.
func (g Guest) MakeDTB(ctx context.Context, dir string) (string, error) {
	raw := filepath.Join(dir, g.Name+"-virt.dtb")
	args := g.machineArgs()
	args[1] = "virt,dumpdtb=" + raw
	if out, err := exec.CommandContext(ctx, g.QEMU, args...).CombinedOutput(); err != nil {
		return "", fmt.Errorf("dtb: %s -M virt,dumpdtb: %w: %s", g.QEMU, err, out)
	}
	dts, err := exec.CommandContext(ctx, "dtc", "-q", "-I", "dtb", "-O", "dts", raw).Output()
	if err != nil {
		return "", fmt.Errorf("dtb: dtc -O dts: %w", err)
	}
	patched, err := PatchPMUNode(dts, g.SMP)
	if err != nil {
		return "", err
	}
	out := filepath.Join(dir, g.Name+"-virt-pmu.dtb")
	c := exec.CommandContext(ctx, "dtc", "-q", "-I", "dts", "-O", "dtb", "-o", out, "-")
	c.Stdin = bytes.NewReader(patched)
	if b, err := c.CombinedOutput(); err != nil {
		return "", fmt.Errorf("dtb: dtc -O dtb: %w: %s", err, b)
	}
	return out, nil
}

// Boot runs the guest until it powers off and returns its console log. The log is also
// copied to logw as it arrives when logw is not nil. A timeout or a non-zero QEMU exit is an
// error carrying the console tail.
func (g Guest) Boot(ctx context.Context, kernel, initrd, dtb string, timeout time.Duration, logw io.Writer) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var log bytes.Buffer
	var w io.Writer = &log
	if logw != nil {
		w = io.MultiWriter(&log, logw)
	}
	c := exec.CommandContext(ctx, g.QEMU, g.BootArgs(kernel, initrd, dtb)...)
	c.Stdin = nil
	c.Stdout, c.Stderr = w, w
	c.WaitDelay = 5 * time.Second
	err := c.Run()
	if ctx.Err() == context.DeadlineExceeded {
		return log.Bytes(), fmt.Errorf("%s: QEMU killed after %v; console tail:\n%s", g.Name, timeout, Tail(log.Bytes(), 30))
	}
	if err != nil {
		return log.Bytes(), fmt.Errorf("%s: QEMU: %w; console tail:\n%s", g.Name, err, Tail(log.Bytes(), 30))
	}
	return log.Bytes(), nil
}

// CommandLine renders the QEMU command for a human (the console log header).
func (g Guest) CommandLine(kernel, initrd, dtb string) string {
	return g.QEMU + " " + strings.Join(g.BootArgs(kernel, initrd, dtb), " ")
}

// Root is the repository root, found from the working directory upwards (go.mod).
func Root() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		p := filepath.Dir(dir)
		if p == dir {
			return "", errors.New("qemu: go.mod not found above the working directory")
		}
		dir = p
	}
}
