package cli

import (
	"strings"
	"testing"
)

func TestExplainCacheMissesOnCortexA7(t *testing.T) {
	onHost(t, "x86-vm")
	out, errs, code := runPMC("explain", "cache-misses", "--cpu", "cortex-a7")
	if code != 0 {
		t.Fatal(errs)
	}
	first := strings.SplitN(out, "\n", 3)
	if !strings.Contains(first[1], "raw event 0x03 L1D_CACHE_REFILL") || !strings.Contains(out, "an L1 data cache refill") {
		t.Errorf("explain does not say L1 data cache refill, 0x03:\n%s", out)
	}
	mustContain(t, out,
		"same hardware event as L1-dcache-load-misses, L1-dcache-store-misses on this CPU",
		"intel-arch   LONGEST_LAT_CACHE.MISS (0x2e/0x41)",
		"amd-zen3     l2_cache_req_stat.ic_dc_miss_in_l2 (0x64/0x09)",
		"Counters on cortex-a7: 4 + cycle counter.",
		"On this machine: not counted (--cpu cortex-a7 is not this machine's CPU); on cortex-a7: supported.",
	)
	checkGolden(t, "explain-cache-misses-cortex-a7.golden", out)
}

func TestExplainForms(t *testing.T) {
	onHost(t, "qemu-a57")
	cases := []struct {
		args []string
		want []string
	}{
		{[]string{"explain", "L1-dcache-stores", "--cpu", "cortex-a7"}, []string{"raw event 0x04 L1D_CACHE", "same hardware event as cache-references, L1-dcache-loads on this CPU"}},
		{[]string{"explain", "branches"}, []string{"branch-instructions on cortex-a57", "raw event 0x0c PC_WRITE_RETIRED", "with the cortex-a57 driver it would be: not supported", "not advertised by armv8_pmuv3 (PMCEID lacks 0x0c)"}},
		{[]string{"explain", "branches", "--cpu", "cortex-a72"}, []string{"Not supported", "PC_WRITE_RETIRED (0x0C)", "on cortex-a72: not supported on cortex-a72."}},
		{[]string{"explain", "cycles"}, []string{"raw event 0x11 CPU_CYCLES", "On this machine: countable."}},
		{[]string{"explain", "r11"}, []string{"CPU_CYCLES on cortex-a57", "perf syntax r11", "Generic names counted with it on cortex-a57: cpu-cycles."}},
		{[]string{"explain", "l1d_cache_wr"}, []string{"L1D_CACHE_WR on cortex-a57", "raw event 0x41", "L1-dcache-stores"}},
		{[]string{"explain", "0x4000", "--cpu", "neoverse-n1"}, []string{"SAMPLE_POP", "perf syntax r4000"}},
		{[]string{"explain", "cs"}, []string{"context-switches: software event"}},
		{[]string{"explain", "MEM_LOAD_RETIRED.L1_MISS", "--event-file", "../catalog/testdata/extra/perfmon"}, []string{"raw event 0xd1/0x08", "cpu/event=0xd1,umask=0x8/"}},
	}
	for _, tc := range cases {
		out, errs, code := runPMC(tc.args...)
		if code != 0 {
			t.Errorf("%v: exit %d %s", tc.args, code, errs)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(out, w) {
				t.Errorf("%v: missing %q in\n%s", tc.args, w, out)
			}
		}
	}
	checkGoldenRun(t, "explain-r11-qemu-a57.golden", "explain", "r11")

	onHost(t, "x86-vm")
	for args, want := range map[string]string{
		"msr/tsc/":           "msr/tsc/: sysfs event of PMU msr",
		"sched:sched_switch": "sched:sched_switch: kernel tracepoint (perf_event_attr.type 2, config ",
	} {
		out, errs, code := runPMC("explain", args)
		if code != 0 || !strings.HasPrefix(out, want) {
			t.Errorf("explain %s: exit %d %q %q", args, code, out, errs)
		}
	}
}

func checkGoldenRun(t *testing.T, golden string, args ...string) {
	t.Helper()
	out, errs, code := runPMC(args...)
	if code != 0 {
		t.Fatalf("%v: %s", args, errs)
	}
	checkGolden(t, golden, out)
}

func TestExplainErrors(t *testing.T) {
	onHost(t, "qemu-a57")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"explain", "l1d_cache_rfill"}, "unknown event"},
		{[]string{"explain", "refill"}, "did you mean"},
		{[]string{"explain", "r77777"}, "no event in table cortex-a57 counts r77777 (config 0x77777, event 0x77777)"},
		{[]string{"explain", "cycles", "--cpu", "pentium"}, "unknown --cpu"},
		{[]string{"explain"}, "accepts 1 arg"},
	} {
		_, errs, code := runPMC(tc.args...)
		if code != 1 || strings.Count(errs, "\n") != 1 || !strings.Contains(errs, tc.want) {
			t.Errorf("%v: exit %d, stderr %q, want one line with %q", tc.args, code, errs, tc.want)
		}
	}
}

// TestExplainRawX86: a raw x86 config is decoded as the hardware reads it (event select and
// unit mask): r03 on Zen 3 is event 0x03 with umask 0, which no event of the table is (it used
// to name fp_ret_sse_avx_ops.all, umask 0xff); rff03 is that event; r013c on Intel is
// CPU_CLK_UNHALTED.REF_XCLK (it found nothing).
func TestExplainRawX86(t *testing.T) {
	for _, c := range []struct{ args, want string }{
		{"r03 --cpu zen3", "no event in table amd-zen3 counts r03 (config 0x3, event 0x03, umask 0x00); the same event with a unit mask: fp_ret_sse_avx_ops.all (rff03)"},
		{"rff03 --cpu zen3", "fp_ret_sse_avx_ops.all on amd-zen3"},
		{"r013c --cpu intel-arch", "CPU_CLK_UNHALTED.REF_XCLK on intel-arch"},
		{"r03 --cpu cortex-a7", "L1D_CACHE_REFILL on cortex-a7"},
	} {
		out, errs, _ := runPMC(append([]string{"explain"}, strings.Fields(c.args)...)...)
		if !strings.Contains(out+errs, c.want) {
			t.Errorf("explain %s:\n%s%s", c.args, out, errs)
		}
	}
}
