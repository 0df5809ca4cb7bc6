package doctor

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/pmc-tools/pmc/internal/host"
)

// Schema is the JSON schema of pmc doctor --json.
const Schema = "pmc.doctor/v1"

// Verdict is a check's outcome.
type Verdict string

const (
	OK      Verdict = "ok"
	Warning Verdict = "warning"
	Problem Verdict = "problem"
)

// Check is one line of pmc doctor.
type Check struct {
	ID      string   `json:"id"`    // stable: "kernel.syscall", "pmu.driver", ...
	Title   string   `json:"check"` // what is checked, a few words
	Verdict Verdict  `json:"verdict"`
	Found   string   `json:"found"`         // what pmc found, one line
	Fix     []string `json:"fix,omitempty"` // for a problem (and some warnings): one or two lines
}

// Report is everything pmc doctor says.
type Report struct {
	Schema     string `json:"schema"`
	Host       string `json:"host"`
	Kernel     string `json:"kernel"`
	CPU        string `json:"cpu"`
	Hypervisor string `json:"hypervisor,omitempty"`
	// HardwareCounting: a hardware event opened (pmc doctor exits 0 then, 1 otherwise).
	HardwareCounting bool    `json:"hardware_counting"`
	Cause            string  `json:"cause,omitempty"` // why not, one line
	Checks           []Check `json:"checks"`
}

// input is one machine's facts as the checks read them.
type input struct {
	m  *host.Machine
	p  *host.Platform
	pr Probes
	hv Hypervisor
}

func (in *input) arm() bool {
	a := in.p.Arch
	return strings.HasPrefix(a, "arm") || a == "aarch64" || (in.m.CPUErr == nil && in.m.CPU.ISA == "arm")
}

func (in *input) x86() bool {
	return in.p.Arch == "x86_64" || strings.HasPrefix(in.p.Arch, "i") && strings.HasSuffix(in.p.Arch, "86") ||
		(in.m.CPUErr == nil && in.m.CPU.ISA == "x86")
}

func (in *input) privileged() bool {
	return in.p.UID == 0 || in.p.HasCap(host.CapPerfmon) || in.p.HasCap(host.CapSysAdmin)
}

// Diagnose runs every check on a machine, its platform facts and the probe results.
func Diagnose(m *host.Machine, p *host.Platform, pr Probes) *Report {
	in := &input{m: m, p: p, pr: pr, hv: DetectHypervisor(p)}
	r := &Report{Schema: Schema, Host: m.Hostname, Kernel: m.Kernel, CPU: m.CPUString(),
		Hypervisor: in.hv.Name, HardwareCounting: pr.Hardware == "" && !pr.implausible()}
	for _, c := range []func(*input) *Check{
		checkSyscall, checkConfig, checkDriver, checkCounters, checkValues, checkGeneric, checkRDPMC,
		checkVirt, checkDeviceTree, checkACPI,
		checkParanoid, checkCaps, checkLockdown, checkSeccomp,
		checkWatchdog, checkPerfUsers, checkSampling, checkLaunch,
	} {
		if ch := c(in); ch != nil {
			r.Checks = append(r.Checks, *ch)
		}
	}
	if !r.HardwareCounting {
		r.Cause = cause(in)
	}
	return r
}

// Problems counts the checks with a problem.
func (r *Report) Problems() int {
	n := 0
	for _, c := range r.Checks {
		if c.Verdict == Problem {
			n++
		}
	}
	return n
}

// NoPMUCause says in one line why this machine has no core PMU, from the platform facts
// alone (no probes): what pmc stat's hint prints when every hardware event is <not supported>.
func NoPMUCause(m *host.Machine, p *host.Platform) string {
	in := &input{m: m, p: p, hv: DetectHypervisor(p), pr: Probes{Hardware: "ENOENT"}}
	return cause(in)
}

// cause is the first reason found for hardware counting not to work, most specific first.
func cause(in *input) string {
	p := in.p
	switch {
	case in.pr.Software == "ENOSYS" && p.Emulated():
		return emulated(p)
	case in.pr.Software == "ENOSYS" && p.Seccomp != 2:
		return "the kernel has no perf_event_open (built without CONFIG_PERF_EVENTS)"
	case (in.pr.Software == "EPERM" || in.pr.Software == "ENOSYS") && p.Seccomp == 2:
		return "a seccomp filter refuses perf_event_open (" + in.pr.Software + ")" + containerName(p)
	case in.pr.Software == "EACCES" || in.pr.Hardware == "EACCES":
		return "perf_event_paranoid is " + p.Sysctl["perf_event_paranoid"] + " and this user has no CAP_PERFMON"
	}
	if in.m.Core != nil && in.pr.implausible() {
		return fmt.Sprintf("the cpu PMU %s opens hardware events but its counters read %.0f GHz cycles: they do not count (an emulator that does not model this PMU?)",
			in.m.Core.Name, in.pr.Clock)
	}
	if in.m.Core != nil {
		return "the cpu PMU " + in.m.Core.Name + " refuses hardware events (" + in.pr.Hardware + ")"
	}
	// The configuration can only say CONFIG_PERF_EVENTS=n when a software event does not
	// open either; not reading it otherwise spares pmc stat's hint decompressing it.
	if in.pr.Software != "" {
		if config, from := p.KernelConfig(); config["CONFIG_PERF_EVENTS"] == "n" {
			return "the kernel was built without CONFIG_PERF_EVENTS (" + from + ")"
		}
	}
	if in.arm() {
		if driverMissing(in) {
			_, from := p.KernelConfig()
			return "the kernel was built without the ARM PMU driver (CONFIG_HW_PERF_EVENTS/CONFIG_ARM_PMU not set in " + from + ")"
		}
		if dt := p.DeviceTree; dt != nil {
			if msg, _ := dtProblem(in); msg != "" {
				return msg
			}
		}
		if p.MADTPMUIRQs != nil && allZero(p.MADTPMUIRQs) {
			return "the ACPI MADT gives no PMU interrupt for the CPUs, so the kernel registers no PMU"
		}
	}
	if in.hv.Name != "" {
		return "this is a " + in.hv.Name + " guest and the hypervisor exposes no PMU to it"
	}
	if in.x86() {
		return "no cpu PMU in sysfs and no hypervisor found: the kernel's PMU driver does not know this CPU (see the boot log: dmesg | grep -i perf)"
	}
	return "no cpu PMU in sysfs: the kernel registered no PMU driver for this CPU (see dmesg | grep -i pmu)"
}

// emulated is the cause when pmc runs under a user-mode emulator.
func emulated(p *host.Platform) string {
	return "pmc (linux/" + p.BinaryArch + ") runs under a user-mode emulator on a " + p.Arch +
		" kernel, which does not pass perf_event_open through (ENOSYS)"
}

func containerName(p *host.Platform) string {
	if p.Container != "" {
		return " in a " + p.Container + " container"
	}
	return ""
}

func allZero(v []uint32) bool {
	for _, x := range v {
		if x != 0 {
			return false
		}
	}
	return true
}

func checkSyscall(in *input) *Check {
	c := &Check{ID: "kernel.syscall", Title: "perf_event_open"}
	switch e := in.pr.Software; {
	case e == "":
		c.Verdict, c.Found = OK, "present: a software event (cpu-clock) opens"
	case e == "ENOSYS" && in.p.Emulated():
		c.Verdict, c.Found = Problem, emulated(in.p)
		c.Fix = []string{"run the " + in.p.Arch + " build of pmc here, or this build on a " + in.p.BinaryArch + " machine (or a QEMU system guest)"}
	case e == "ENOSYS" && in.p.Seccomp != 2:
		c.Verdict, c.Found = Problem, "ENOSYS: this kernel has no perf_event_open"
		c.Fix = []string{"rebuild the kernel with CONFIG_PERF_EVENTS=y (and, on ARM, CONFIG_HW_PERF_EVENTS=y)"}
	case in.p.Seccomp == 2 && (e == "EPERM" || e == "ENOSYS"):
		c.Verdict, c.Found = Problem, e+": refused by this process's seccomp filter (see the seccomp check)"
	case e == "EACCES" || e == "EPERM":
		c.Verdict, c.Found = Problem, e+": refused by kernel.perf_event_paranoid = "+in.p.Sysctl["perf_event_paranoid"]
		c.Fix = []string{"sysctl -w kernel.perf_event_paranoid=2 (or run as root / with CAP_PERFMON)"}
	default:
		c.Verdict, c.Found = Problem, "a software event does not open: "+e
	}
	return c
}

func checkConfig(in *input) *Check {
	p := in.p
	c := &Check{ID: "kernel.config", Title: "kernel configuration"}
	config, from := p.KernelConfig()
	if config == nil {
		c.Verdict, c.Found = OK, "no /proc/config.gz or /boot/config-"+p.Release+" to read (not checked)"
		if !in.pr.hardwareOK() {
			c.Verdict = Warning
			c.Fix = []string{"modprobe configs (then /proc/config.gz exists) to let pmc check CONFIG_PERF_EVENTS and the PMU driver"}
		}
		return c
	}
	keys := []string{"CONFIG_PERF_EVENTS"}
	if in.arm() {
		keys = append(keys, "CONFIG_HW_PERF_EVENTS", "CONFIG_ARM_PMU")
	}
	var found, missing []string
	for _, k := range keys {
		v := config[k]
		if v == "" {
			v = "absent"
		}
		found = append(found, k+"="+v)
		if v != "y" && v != "m" && !(k == "CONFIG_HW_PERF_EVENTS" && v == "absent") {
			missing = append(missing, k)
		}
	}
	c.Found = strings.Join(found, ", ") + " (" + from + ")"
	if len(missing) == 0 {
		c.Verdict = OK
		return c
	}
	c.Verdict = Problem
	c.Fix = []string{"rebuild the kernel with " + strings.Join(missing, "=y, ") + "=y (e.g. make menuconfig: General setup > Kernel Performance Events" +
		map[bool]string{true: "; Device Drivers > Performance monitor support > ARM PMU framework", false: ""}[in.arm()] + ")"}
	return c
}

func (pr Probes) hardwareOK() bool { return pr.Hardware == "" }

func checkDriver(in *input) *Check {
	c := &Check{ID: "pmu.driver", Title: "cpu PMU"}
	if core := in.m.Core; core != nil {
		c.Verdict = OK
		c.Found = fmt.Sprintf("%s (type %d) in /sys/bus/event_source/devices", core.Name, core.Type)
		if in.m.Table != nil {
			c.Found += "; pmc's table " + in.m.Table.Name
		}
		switch e := in.pr.Hardware; {
		case e == "EACCES" || e == "EPERM" || e == "ENOSYS":
			c.Found += "; opening is refused (" + e + "): see the permission checks"
		case e != "":
			c.Verdict = Problem
			c.Found += "; but a hardware event does not open: " + e
			c.Fix = []string{"the driver refuses generic events: see dmesg | grep -i pmu, and pmc list for this CPU's own events"}
		}
		return c
	}
	c.Verdict, c.Found = Problem, "no cpu PMU in /sys/bus/event_source/devices: "+cause(in)
	c.Fix = []string{"the check that names the cause gives the fix; meanwhile software events count (-e task-clock,page-faults) and pmc stat --sim simulates caches and branches"}
	if in.pr.Software != "" {
		c.Fix = []string{"the check that names the cause gives the fix (no event of any kind opens here, software events included)"}
	}
	return c
}

func checkCounters(in *input) *Check {
	if in.m.Core == nil || !in.pr.hardwareOK() {
		return nil
	}
	c := &Check{ID: "pmu.counters", Title: "counters"}
	if in.pr.Counters == 0 {
		c.Verdict, c.Found = Warning, "could not measure the number of counters"
		return c
	}
	cyc := "no separate cycle counter (cycles takes a general counter)"
	if in.pr.CycleCounter {
		cyc = "and a cycle counter (cycles fits beside them)"
	}
	c.Verdict = OK
	c.Found = fmt.Sprintf("%d general counters (measured: the kernel took a group of %d), %s", in.pr.Counters, in.pr.Counters, cyc)
	if t := in.m.Table; t != nil && t.Counters != nil && t.Counters.General != in.pr.Counters {
		c.Verdict = Warning
		c.Found += fmt.Sprintf("; the %s documentation says %d", t.Name, t.Counters.General)
		if in.p.Sysctl["nmi_watchdog"] == "1" && in.x86() {
			c.Fix = []string{"the NMI watchdog holds one counter: sysctl -w kernel.nmi_watchdog=0"}
		}
	}
	return c
}

// checkValues: the counters that open also count (cycles at a clock a CPU can run at).
func checkValues(in *input) *Check {
	if in.m.Core == nil || !in.pr.hardwareOK() || in.pr.Clock == 0 {
		return nil
	}
	c := &Check{ID: "pmu.values", Title: "counter values"}
	if in.pr.implausible() {
		c.Verdict = Problem
		c.Found = fmt.Sprintf("cycles read %.0f GHz over a short busy loop (no CPU runs above %d GHz): the counters open but do not count", in.pr.Clock, maxClockGHz)
		c.Fix = []string{"hardware counts on this machine cannot be trusted (an emulator that does not model the PMU?): count software events (-e task-clock,page-faults) or simulate with pmc stat --sim"}
		return c
	}
	c.Verdict, c.Found = OK, fmt.Sprintf("cycles at %.2f GHz over a short busy loop", in.pr.Clock)
	return c
}

func checkGeneric(in *input) *Check {
	if len(in.pr.Generic) == 0 || in.m.Core == nil {
		return nil // without a PMU none opens: the cpu PMU check says why
	}
	c := &Check{ID: "pmu.events", Title: "generic events"}
	var open, refused []string
	for _, g := range genericNames {
		e, ok := in.pr.Generic[g.name]
		switch {
		case !ok:
		case e == "":
			open = append(open, g.name)
		default:
			refused = append(refused, g.name+" ("+e+")")
		}
	}
	switch {
	case len(refused) == 0:
		c.Verdict, c.Found = OK, "all open: "+strings.Join(open, ", ")
	case len(open) == 0:
		c.Verdict, c.Found = Problem, "none opens: "+strings.Join(refused, ", ")
	default:
		c.Verdict, c.Found = Warning, "open: "+strings.Join(open, ", ")+"; refused: "+strings.Join(refused, ", ")
		c.Fix = []string{"this CPU's driver maps no event to the refused names: pmc list shows the CPU's own events"}
	}
	return c
}

func checkRDPMC(in *input) *Check {
	if in.m.Core == nil {
		return nil
	}
	c := &Check{ID: "pmu.rdpmc", Title: "user-space counter reads"}
	switch {
	case in.x86() && in.p.RDPMC != "":
		c.Found = "rdpmc = " + in.p.RDPMC + map[string]string{"0": " (off)", "1": " (for a process's own mmap'ed events)", "2": " (any counter)"}[in.p.RDPMC]
		c.Verdict = OK
		if in.p.RDPMC == "0" {
			c.Verdict = Warning
			c.Fix = []string{"echo 1 > /sys/bus/event_source/devices/cpu/rdpmc"}
		}
	case in.p.Arch == "aarch64" && in.p.Sysctl["perf_user_access"] != "":
		v := in.p.Sysctl["perf_user_access"]
		c.Found, c.Verdict = "kernel.perf_user_access = "+v, OK
		if v == "0" {
			c.Verdict = Warning
			c.Fix = []string{"sysctl -w kernel.perf_user_access=1 (lets pmc mem read the cycle counter directly)"}
		}
	default:
		c.Verdict, c.Found = OK, "not offered by this kernel (reads go through read(2))"
	}
	return c
}

func checkVirt(in *input) *Check {
	c := &Check{ID: "virt.hypervisor", Title: "virtual machine"}
	if in.hv.Name == "" {
		c.Verdict, c.Found = OK, "no hypervisor found (bare metal)"
		return c
	}
	c.Found = in.hv.Name + " guest (" + strings.Join(in.hv.Evidence, "; ") + ")"
	if in.m.Core != nil {
		c.Verdict = OK
		c.Found += "; the hypervisor exposes a PMU (" + in.m.Core.Name + ")"
		return c
	}
	if _, stops := dtProblem(in); stops || (in.arm() && driverMissing(in)) {
		c.Verdict = Warning
		c.Found += "; no PMU registered, for the reason the device tree or kernel configuration check gives"
		return c
	}
	c.Verdict = Problem
	c.Found += "; the hypervisor exposes no PMU"
	c.Fix = hypervisorFix(in.hv, in.p.Arch)
	return c
}

func checkParanoid(in *input) *Check {
	v, ok := in.p.Sysctl["perf_event_paranoid"]
	if !ok {
		return nil
	}
	c := &Check{ID: "perm.paranoid", Title: "perf_event_paranoid"}
	n, _ := strconv.Atoi(v)
	meaning := map[bool]string{true: "no restriction", false: ""}[n < 0]
	switch {
	case n == 0:
		meaning = "CPU-wide counting for everyone, no raw tracepoint data"
	case n == 1:
		meaning = "kernel and user counting of own processes; no CPU-wide counting without CAP_PERFMON"
	case n == 2:
		meaning = "user space only, own processes only (pmc counts :u)"
	case n >= 3:
		meaning = "no perf_event_open at all without CAP_PERFMON (Debian/Android patch)"
	}
	c.Found = fmt.Sprintf("%d: %s", n, meaning)
	switch {
	case in.privileged():
		c.Verdict = OK
		c.Found += "; does not apply: this process is privileged"
	case n >= 3:
		c.Verdict = Problem
		c.Fix = []string{"sysctl -w kernel.perf_event_paranoid=2 (user space) or 1 (with kernel), or grant CAP_PERFMON: setcap cap_perfmon+ep $(which pmc)"}
	case n == 2:
		c.Verdict = Warning
		c.Fix = []string{"kernel-mode counts and -a need sysctl -w kernel.perf_event_paranoid=1 (or -1), or CAP_PERFMON"}
	default:
		c.Verdict = OK
	}
	return c
}

func checkCaps(in *input) *Check {
	c := &Check{ID: "perm.caps", Title: "privileges", Verdict: OK}
	switch {
	case in.p.UID == 0 && in.p.HasCap(host.CapSysAdmin):
		c.Found = "root with CAP_SYS_ADMIN"
	case in.p.HasCap(host.CapPerfmon):
		c.Found = "CAP_PERFMON"
	case in.p.HasCap(host.CapSysAdmin):
		c.Found = "CAP_SYS_ADMIN"
	case in.p.UID == 0:
		c.Found = "root without CAP_SYS_ADMIN or CAP_PERFMON (a container drops them): perf_event_paranoid applies"
	case in.p.UID < 0:
		return nil
	default:
		c.Found = fmt.Sprintf("uid %d without CAP_PERFMON: perf_event_paranoid applies", in.p.UID)
	}
	return c
}

func checkLockdown(in *input) *Check {
	if in.p.Lockdown == "" {
		return nil
	}
	c := &Check{ID: "perm.lockdown", Title: "kernel lockdown", Verdict: OK, Found: in.p.Lockdown}
	if in.p.Lockdown == "confidentiality" {
		c.Verdict = Warning
		c.Found += ": kernel addresses and kprobe/tracepoint data are withheld; counting works"
		c.Fix = []string{"lockdown is set at boot (lockdown= on the kernel command line, or Secure Boot): boot without it for kernel profiling"}
	}
	return c
}

func checkSeccomp(in *input) *Check {
	p := in.p
	if p.Seccomp < 0 {
		return nil
	}
	c := &Check{ID: "container.seccomp", Title: "seccomp"}
	blocked := p.Seccomp == 2 && (in.pr.Software == "EPERM" || in.pr.Software == "ENOSYS")
	switch {
	case p.Seccomp == 0:
		c.Verdict, c.Found = OK, "no seccomp filter"
	case blocked:
		c.Verdict = Problem
		c.Found = fmt.Sprintf("mode 2 with %d filter(s), and perf_event_open fails with %s%s: the filter refuses it", p.SeccompFilters, in.pr.Software, containerName(p))
		c.Fix = []string{"docker/podman run --cap-add PERFMON (their default profiles then allow perf_event_open) or --security-opt seccomp=PROFILE allowing it;",
			"Kubernetes: securityContext.seccompProfile {type: Localhost} with perf_event_open allowed, and capabilities.add [PERFMON]"}
	default:
		c.Verdict, c.Found = OK, fmt.Sprintf("mode %d with %d filter(s); perf_event_open passes it", p.Seccomp, p.SeccompFilters)
	}
	return c
}

func checkWatchdog(in *input) *Check {
	v, ok := in.p.Sysctl["nmi_watchdog"]
	if !ok || !in.x86() {
		return nil
	}
	c := &Check{ID: "counters.nmi_watchdog", Title: "NMI watchdog", Verdict: OK}
	switch {
	case v == "0":
		c.Found = "off: every counter is free"
	case in.m.Core == nil:
		c.Found = "on, but without a PMU it holds no counter"
	default:
		c.Verdict, c.Found = Warning, "on: it holds one general counter, so groups get one counter fewer"
		c.Fix = []string{"sysctl -w kernel.nmi_watchdog=0 while measuring"}
	}
	return c
}

func checkPerfUsers(in *input) *Check {
	c := &Check{ID: "counters.users", Title: "other perf users", Verdict: OK, Found: "none found"}
	if n := len(in.p.PerfUsers()); n > 0 {
		pids := append([]int(nil), in.p.PerfUsers()...)
		sort.Ints(pids)
		var s []string
		for _, p := range pids {
			s = append(s, strconv.Itoa(p))
		}
		c.Verdict = Warning
		c.Found = "processes holding perf events (they may take counters): " + strings.Join(s, ", ")
	}
	return c
}

func checkSampling(in *input) *Check {
	rate, mlock := in.p.Sysctl["perf_event_max_sample_rate"], in.p.Sysctl["perf_event_mlock_kb"]
	if rate == "" && mlock == "" {
		return nil
	}
	c := &Check{ID: "sampling.limits", Title: "sampling limits", Verdict: OK,
		Found: fmt.Sprintf("perf_event_max_sample_rate %s/s, perf_event_mlock_kb %s KiB per user", rate, mlock)}
	if r, err := strconv.Atoi(rate); err == nil && r < 1000 {
		c.Verdict = Warning
		c.Fix = append(c.Fix, "the kernel lowered the sample rate (slow interrupts): sysctl -w kernel.perf_event_max_sample_rate=100000")
	}
	if k, err := strconv.Atoi(mlock); err == nil && k < 516 {
		c.Verdict = Warning
		c.Fix = append(c.Fix, "sampling buffers need more locked memory: sysctl -w kernel.perf_event_mlock_kb=516")
	}
	return c
}

// checkLaunch says how pmc starts a workload: its tiny shim, or pmc itself re-executed, which
// costs a Go runtime's start per launch and hides the peak RSS of programs smaller than pmc.
func checkLaunch(in *input) *Check {
	if in.pr.Launch == "" {
		return nil // not probed (recorded machines, pmc stat's hint)
	}
	c := &Check{ID: "launch.shim", Title: "workload launch", Verdict: OK,
		Found: "pmc's tiny shim: a launch costs one page, and a workload's peak RSS is its own"}
	if in.pr.Launch != LaunchTiny {
		c.Verdict = Warning
		c.Found = "pmc re-executes itself to launch a workload (" + in.pr.Launch + "): each launch costs a Go start-up, " +
			"and a workload's peak RSS is known only above pmc's own"
		c.Fix = []string{"allow executable memfds (sysctl vm.memfd_noexec=0) and mount /proc"}
		if strings.Contains(in.pr.Launch, "PMC_LAUNCH=") {
			c.Fix = []string{"unset PMC_LAUNCH"}
		}
	}
	return c
}
