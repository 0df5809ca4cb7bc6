package proffmt

import (
	"bufio"
	"fmt"
	"strings"

	"github.com/pmc-tools/pmc/internal/perfdata"
)

// writeAttr writes each non-zero field of a perf_event_attr as perf's
// perf_event_attr__fprintf names it (", name = value"), in the struct's order.
func writeAttr(w *bufio.Writer, a perfdata.Attr) {
	put := func(name string, v uint64, format string) {
		if v != 0 {
			fmt.Fprintf(w, ", %s = "+format, name, v)
		}
	}
	put("type", uint64(a.Type), "%d")
	put("size", uint64(a.Size), "%d")
	put("config", a.Config, "%#x")
	put("{ sample_period, sample_freq }", a.SamplePeriod, "%d")
	if a.SampleType != 0 {
		fmt.Fprintf(w, ", sample_type = %s", bitNames(a.SampleType, sampleTypeNames[:]))
	}
	if a.ReadFormat != 0 {
		fmt.Fprintf(w, ", read_format = %s", bitNames(a.ReadFormat, readFormatNames[:]))
	}
	for i, name := range flagNames {
		switch {
		case name == "precise_ip":
			put(name, a.Flags>>15&3, "%d")
		case name != "" && i != 16:
			put(name, a.Flags>>i&1, "%d")
		}
	}
	put("{ wakeup_events, wakeup_watermark }", uint64(a.WakeupEvents), "%d")
	put("bp_type", uint64(a.BPType), "%d")
	put("{ bp_addr, config1 }", a.Config1, "%#x")
	put("{ bp_len, config2 }", a.Config2, "%#x")
	if a.BranchSampleType != 0 {
		fmt.Fprintf(w, ", branch_sample_type = %s", bitNames(a.BranchSampleType, branchNames[:]))
	}
	put("sample_regs_user", a.SampleRegsUser, "%#x")
	put("sample_stack_user", uint64(a.SampleStackUser), "%d")
	if a.ClockID != 0 {
		fmt.Fprintf(w, ", clockid = %d", a.ClockID)
	}
	put("sample_regs_intr", a.SampleRegsIntr, "%#x")
	put("aux_watermark", uint64(a.AuxWatermark), "%d")
	put("sample_max_stack", uint64(a.SampleMaxStack), "%d")
	put("aux_sample_size", uint64(a.AuxSampleSize), "%d")
	put("sig_data", a.SigData, "%d")
}

// bitNames joins the names of v's bits with '|', unnamed bits after them in hex.
func bitNames(v uint64, names []string) string {
	var parts []string
	for i, n := range names {
		if v&(1<<i) != 0 && n != "" {
			parts = append(parts, n)
			v &^= 1 << i
		}
	}
	if v != 0 {
		parts = append(parts, fmt.Sprintf("%#x", v))
	}
	return strings.Join(parts, "|")
}

// The names perf gives the bits of sample_type, read_format, the flags word (precise_ip
// is two bits, 15 and 16) and branch_sample_type.
var (
	sampleTypeNames = [...]string{"IP", "TID", "TIME", "ADDR", "READ", "CALLCHAIN", "ID", "CPU", "PERIOD",
		"STREAM_ID", "RAW", "BRANCH_STACK", "REGS_USER", "STACK_USER", "WEIGHT", "DATA_SRC", "IDENTIFIER",
		"TRANSACTION", "REGS_INTR", "PHYS_ADDR", "AUX", "CGROUP", "DATA_PAGE_SIZE", "CODE_PAGE_SIZE",
		"WEIGHT_STRUCT"}
	readFormatNames = [...]string{"TOTAL_TIME_ENABLED", "TOTAL_TIME_RUNNING", "ID", "GROUP", "LOST"}
	flagNames       = [...]string{"disabled", "inherit", "pinned", "exclusive", "exclude_user",
		"exclude_kernel", "exclude_hv", "exclude_idle", "mmap", "comm", "freq", "inherit_stat",
		"enable_on_exec", "task", "watermark", "precise_ip", "", "mmap_data", "sample_id_all",
		"exclude_host", "exclude_guest", "exclude_callchain_kernel", "exclude_callchain_user", "mmap2",
		"comm_exec", "use_clockid", "context_switch", "write_backward", "namespaces", "ksymbol",
		"bpf_event", "aux_output", "cgroup", "text_poke", "build_id", "inherit_thread",
		"remove_on_exec", "sigtrap"}
	branchNames = [...]string{"USER", "KERNEL", "HV", "ANY", "ANY_CALL", "ANY_RETURN", "IND_CALL",
		"ABORT_TX", "IN_TX", "NO_TX", "COND", "CALL_STACK", "IND_JUMP", "CALL", "NO_FLAGS",
		"NO_CYCLES", "TYPE_SAVE", "HW_INDEX", "PRIV_SAVE"}
)
