package doctor

import (
	"bytes"
	"encoding/json"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pmc-tools/pmc/internal/golden"
	"github.com/pmc-tools/pmc/internal/host"
	"github.com/pmc-tools/pmc/internal/perfevent"
	"github.com/pmc-tools/pmc/internal/testenv"
)

// diagnoseCase runs the doctor on testdata/cases/NAME.txt: a machine snapshot with the
// CPUID signature and the perf_event_open results recorded in its header.
func diagnoseCase(t *testing.T, name string) *Report {
	t.Helper()
	root, sys, hdr := testenv.Snapshot(t, filepath.Join("testdata/cases", name+".txt"))
	var pr Probes
	if err := json.Unmarshal([]byte(hdr["probes"]), &pr); err != nil {
		t.Fatalf("%s: probes: %v", name, err)
	}
	m := host.Probe(root, sys)
	return Diagnose(m, host.ReadPlatform(root, sys, hdr["cpuid"]), pr)
}

func verdicts(r *Report) map[string]Verdict {
	out := map[string]Verdict{}
	for _, c := range r.Checks {
		out[c.ID] = c.Verdict
	}
	return out
}

// TestDoctorGoldens: every case's text and JSON.
func TestDoctorGoldens(t *testing.T) {
	files, _ := filepath.Glob("testdata/cases/*.txt")
	if len(files) < 10 {
		t.Fatalf("%d cases", len(files))
	}
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".txt")
		t.Run(name, func(t *testing.T) {
			r := diagnoseCase(t, name)
			var text, js bytes.Buffer
			if err := r.Text(&text); err != nil {
				t.Fatal(err)
			}
			if err := r.JSON(&js); err != nil {
				t.Fatal(err)
			}
			golden.Check(t, filepath.Join("testdata/golden", name+".txt"), text.Bytes())
			golden.Check(t, filepath.Join("testdata/golden", name+".json"), js.Bytes())
		})
	}
}

// TestDoctorVerdicts pins each case's cause and the verdicts that carry it.
func TestDoctorVerdicts(t *testing.T) {
	for _, c := range []struct {
		name     string
		works    bool
		cause    string
		verdicts map[string]Verdict
		fix      string // in the fix of some check
	}{
		{"this-vm", false, "Firecracker (KVM) guest and the hypervisor exposes no PMU",
			map[string]Verdict{"virt.hypervisor": Problem, "pmu.driver": Problem, "kernel.syscall": OK, "kernel.config": OK, "perm.paranoid": OK}, "pmc stat --sim"},
		{"vmware-guest", false, "VMware guest",
			map[string]Verdict{"virt.hypervisor": Problem, "perm.paranoid": OK, "counters.nmi_watchdog": OK}, "vpmc.enable"},
		{"arm-board-no-pmu-node", false, "the device tree has no PMU node",
			map[string]Verdict{"firmware.devicetree": Problem, "kernel.config": OK, "virt.hypervisor": OK}, `compatible = "arm,cortex-a7-pmu"`},
		{"qemu-a7-empty-pmu", false, "PMU node /pmu is empty",
			map[string]Verdict{"firmware.devicetree": Problem, "virt.hypervisor": Warning}, `compatible = "arm,cortex-a7-pmu"`},
		{"qemu-a7-pmu", true, "",
			map[string]Verdict{"firmware.devicetree": OK, "pmu.driver": OK, "pmu.counters": OK, "pmu.events": OK, "virt.hypervisor": OK}, ""},
		{"qemu-raspi0-armv6", false, "armv6_1176 opens hardware events but its counters read 312 GHz",
			map[string]Verdict{"pmu.driver": OK, "pmu.values": Problem}, "cannot be trusted"},
		{"arm-no-hw-perf-events", false, "without the ARM PMU driver",
			map[string]Verdict{"kernel.config": Problem, "firmware.devicetree": OK}, "CONFIG_HW_PERF_EVENTS=y"},
		{"no-perf-events-kernel", false, "no perf_event_open",
			map[string]Verdict{"kernel.syscall": Problem, "kernel.config": Problem}, "CONFIG_PERF_EVENTS=y"},
		{"juno-user-paranoid3", false, "perf_event_paranoid is 3",
			map[string]Verdict{"perm.paranoid": Problem, "kernel.syscall": Problem, "virt.hypervisor": OK}, "setcap cap_perfmon+ep"},
		{"juno-user-paranoid2", true, "",
			map[string]Verdict{"perm.paranoid": Warning, "pmu.counters": OK, "pmu.rdpmc": Warning, "firmware.devicetree": OK}, "perf_user_access=1"},
		{"docker-seccomp", false, "seccomp filter refuses perf_event_open (EPERM) in a docker container",
			map[string]Verdict{"container.seccomp": Problem, "kernel.syscall": Problem}, "--cap-add PERFMON"},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := diagnoseCase(t, c.name)
			if r.HardwareCounting != c.works || !strings.Contains(r.Cause, c.cause) {
				t.Errorf("hardware counting %v, cause %q; want %v, %q", r.HardwareCounting, r.Cause, c.works, c.cause)
			}
			got := verdicts(r)
			for id, want := range c.verdicts {
				if got[id] != want {
					t.Errorf("%s: %q, want %q", id, got[id], want)
				}
			}
			var fixes []string
			for _, ch := range r.Checks {
				fixes = append(fixes, ch.Fix...)
				if ch.Verdict == Problem && len(ch.Fix) == 0 && ch.ID != "kernel.syscall" {
					t.Errorf("%s: a problem without a fix", ch.ID)
				}
			}
			if c.fix != "" && !strings.Contains(strings.Join(fixes, "\n"), c.fix) {
				t.Errorf("no fix mentions %q:\n%s", c.fix, strings.Join(fixes, "\n"))
			}
		})
	}
}

// TestNoPMUCause: what pmc stat's hint says without probes.
func TestNoPMUCause(t *testing.T) {
	for name, want := range map[string]string{
		"arm-board-no-pmu-node": "the device tree has no PMU node",
		"arm-no-hw-perf-events": "CONFIG_HW_PERF_EVENTS",
		"this-vm":               "Firecracker (KVM) guest",
	} {
		root, sys, hdr := testenv.Snapshot(t, filepath.Join("testdata/cases", name+".txt"))
		got := NoPMUCause(host.Probe(root, sys), host.ReadPlatform(root, sys, hdr["cpuid"]))
		if !strings.Contains(got, want) {
			t.Errorf("%s: %q, want %q", name, got, want)
		}
	}
}

// openLog is an fs.FS that records every name opened in it.
type openLog struct {
	fs.FS
	names []string
}

func (o *openLog) Open(name string) (fs.File, error) {
	o.names = append(o.names, name)
	return o.FS.Open(name)
}

// TestNoPMUCauseReadsLittle: pmc stat's hint on an x86 VM without a PMU neither decompresses
// the kernel configuration nor lists the open files of every process (pmc doctor does both);
// on an Arm board, where a missing PMU driver is a cause, it reads the configuration.
func TestNoPMUCauseReadsLittle(t *testing.T) {
	for name, wantConfig := range map[string]bool{"this-vm": false, "arm-no-hw-perf-events": true} {
		root, sys, hdr := testenv.Snapshot(t, filepath.Join("testdata/cases", name+".txt"))
		log := &openLog{FS: root}
		NoPMUCause(host.Probe(root, sys), host.ReadPlatform(log, sys, hdr["cpuid"]))
		var config bool
		for _, n := range log.names {
			config = config || n == "proc/config.gz" || strings.HasPrefix(n, "boot/config-")
			if n == "proc" || strings.HasSuffix(n, "/fd") {
				t.Errorf("%s: the hint read %s (other processes' open files)", name, n)
			}
		}
		if config != wantConfig {
			t.Errorf("%s: kernel configuration read: %v, want %v (opened %v)", name, config, wantConfig, log.names)
		}
	}
}

// TestUserModeEmulation: an arm pmc on an x86_64 kernel (qemu-arm, as make test runs the
// armv6 build) gets ENOSYS from perf_event_open; the doctor names the emulator, not a kernel
// built without CONFIG_PERF_EVENTS (the configuration says =y), and does not promise that
// software events count.
func TestUserModeEmulation(t *testing.T) {
	root, sys, hdr := testenv.Snapshot(t, filepath.Join("testdata/cases", "this-vm.txt"))
	p := host.ReadPlatform(root, sys, hdr["cpuid"])
	p.BinaryArch = "arm"
	r := Diagnose(host.Probe(root, sys), p, Probes{Software: "ENOSYS", Hardware: "ENOSYS"})
	var out bytes.Buffer
	if err := r.Text(&out); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"pmc (linux/arm) runs under a user-mode emulator on a x86_64 kernel", "run the x86_64 build of pmc",
		"no event can be counted, software events included"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("missing %q:\n%s", want, out.String())
		}
	}
	if strings.Contains(out.String(), "built without CONFIG_PERF_EVENTS") {
		t.Errorf("blames the kernel configuration:\n%s", out.String())
	}
	p.BinaryArch = "amd64"
	if p.Emulated() {
		t.Error("amd64 on x86_64 counted as emulated")
	}
}

// measureClock on a software clock that counts nanoseconds (cpu-clock, in place of cycles,
// which this machine may not have) reads one count per nanosecond of task-clock: the
// measurement counts the busy loop on its own thread.
func TestMeasureClock(t *testing.T) {
	v := measureClock(perfevent.Attr{Type: perfevent.TypeSoftware, Config: perfevent.SWCPUClock, Disabled: true})
	if v < 0.5 || v > 1.5 {
		t.Errorf("cpu-clock per task-clock ns = %v, want 1", v)
	}
}

// TestLaunchCheck: the launch check is there only when probed, ok with the tiny shim and a
// warning with the reason otherwise.
func TestLaunchCheck(t *testing.T) {
	for _, tc := range []struct {
		launch  string
		verdict Verdict
		found   string
	}{
		{"", "", ""},
		{LaunchTiny, OK, "pmc's tiny shim"},
		{"exec: permission denied", Warning, "pmc re-executes itself to launch a workload (exec: permission denied)"},
	} {
		c := checkLaunch(&input{pr: Probes{Launch: tc.launch}})
		switch {
		case tc.launch == "" && c != nil:
			t.Errorf("not probed: %+v", c)
		case tc.launch != "" && (c == nil || c.Verdict != tc.verdict || !strings.HasPrefix(c.Found, tc.found)):
			t.Errorf("%q: %+v, want %s %q...", tc.launch, c, tc.verdict, tc.found)
		}
	}
}
