package cli

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pmc-tools/pmc/internal/doctor"
	"github.com/pmc-tools/pmc/internal/host"
	"github.com/pmc-tools/pmc/internal/testenv"
)

// TestDoctorThisMachine runs pmc doctor for real. On this project's VMs (KVM guests without
// a PMU) it must name KVM as the cause, give the hypervisor's fix and exit 1.
func TestDoctorThisMachine(t *testing.T) {
	out, errOut, code := runPMC("doctor", "--json")
	var r doctor.Report
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("%v\n%s%s", err, out, errOut)
	}
	if r.Schema != "pmc.doctor/v1" || len(r.Checks) < 8 {
		t.Fatalf("schema %q, %d checks", r.Schema, len(r.Checks))
	}
	if want := map[bool]int{true: 0, false: 1}[r.HardwareCounting]; code != want {
		t.Errorf("exit %d with hardware_counting %v", code, r.HardwareCounting)
	}
	if machine().Core != nil {
		t.Skip("this machine has a PMU: the VM verdicts do not apply")
	}
	if r.HardwareCounting {
		t.Errorf("hardware counting claimed without a cpu PMU")
	}
	byID := map[string]doctor.Check{}
	for _, c := range r.Checks {
		byID[c.ID] = c
	}
	if byID["kernel.syscall"].Verdict != doctor.OK {
		t.Errorf("perf_event_open: %+v (software events work here)", byID["kernel.syscall"])
	}
	if host.LivePlatform().CPUIDVendor == "KVMKVMKVM" {
		v := byID["virt.hypervisor"]
		if v.Verdict != doctor.Problem || !strings.Contains(v.Found, "KVM") || len(v.Fix) == 0 {
			t.Errorf("virt.hypervisor: %+v", v)
		}
		if !strings.Contains(r.Cause, "KVM") || !strings.Contains(r.Cause, "exposes no PMU") {
			t.Errorf("cause %q", r.Cause)
		}
	}
	text, _, code2 := runPMC("doctor")
	if code2 != code || !strings.Contains(text, "hardware counting does NOT work here: "+r.Cause) {
		t.Errorf("text (exit %d):\n%s", code2, text)
	}
}

// TestStatNoPMUHintSaysWhy (issue 15 item 6): on an ARM board without a PMU node, pmc stat's
// hint names the device tree, not VMs, and points to pmc doctor.
func TestStatNoPMUHintSaysWhy(t *testing.T) {
	root, sys, _ := testenv.Snapshot(t, filepath.Join("..", "doctor", "testdata", "cases", "arm-board-no-pmu-node.txt"))
	m, p := host.Probe(root, sys), host.ReadPlatform(root, sys, "")
	oldM, oldP := machine, platform
	machine, platform = func() *host.Machine { return m }, func() *host.Platform { return p }
	t.Cleanup(func() { machine, platform = oldM, oldP })
	_, errOut, _ := runPMC("stat", "-e", "cycles,instructions", "--", "true")
	mustContain(t, errOut, "the device tree has no PMU node", "`pmc doctor`")
	if strings.Contains(errOut, "VM") {
		t.Errorf("the hint blames VMs on a board:\n%s", errOut)
	}
	if n := strings.Count(errOut, "pmc doctor"); n != 1 {
		t.Errorf("pmc doctor named %d times:\n%s", n, errOut)
	}
}

// TestDoctorUnderSeccomp runs pmc doctor in a process whose seccomp filter refuses
// perf_event_open with EPERM (Docker's default profile without CAP_PERFMON does that): the
// cause is the filter, with the container settings as the fix.
func TestDoctorUnderSeccomp(t *testing.T) {
	cmd := pmcCmd(t, "doctor", "--json")
	cmd.Env = append(cmd.Env, seccompDenyEnv+"=1")
	out, err := cmd.Output()
	if code := cmd.ProcessState.ExitCode(); code != 1 {
		t.Fatalf("exit %d (%v)\n%s", code, err, out)
	}
	var r doctor.Report
	if err := json.Unmarshal(out, &r); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if r.HardwareCounting || !strings.Contains(r.Cause, "seccomp filter refuses perf_event_open (EPERM)") {
		t.Errorf("cause %q", r.Cause)
	}
	for _, c := range r.Checks {
		switch c.ID {
		case "kernel.syscall":
			if c.Verdict != doctor.Problem || !strings.Contains(c.Found, "seccomp") {
				t.Errorf("%+v", c)
			}
		case "container.seccomp":
			if c.Verdict != doctor.Problem || !strings.Contains(strings.Join(c.Fix, " "), "--cap-add PERFMON") {
				t.Errorf("%+v", c)
			}
		}
	}
}

// TestMemPointsToDoctor: pmc mem -e with a hardware event on a machine without a PMU names
// the cause and pmc doctor once.
func TestMemPointsToDoctor(t *testing.T) {
	if machine().Core != nil {
		t.Skip("this machine has a PMU")
	}
	out, errOut, code := runPMC("mem", "--min", "4K", "--max", "8K", "--hops", "1000", "--samples", "10", "-e", "L1-dcache-load-misses")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if n := strings.Count(errOut, "`pmc doctor`"); n != 1 || !strings.Contains(errOut, doctor.NoPMUCause(machine(), platform())) {
		t.Errorf("stderr (%d mentions):\n%s\nstdout:\n%s", n, errOut, out)
	}
}
