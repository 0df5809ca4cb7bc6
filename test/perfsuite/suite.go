package perfsuite

// Test is one of perf's shell tests and what makes its pass mean something.
type Test struct {
	Name string // the script's file name in perf's tests directory
	// Guards are shell commands run (by bash, with the same PATH as the test) after a pass: each
	// must print something, or the pass was vacuous (a loop over nothing, a check of no lines).
	// $LOG names the test's own output, for guards that look at what the test checked.
	Guards []Guard
	// Passing are lines pmc's run must print whatever the test's status: the parts of a
	// test that pass with pmc while another part waits (Waiting), so that the wait hides no
	// regression in them.
	Passing []string
}

// Guard is a command whose standard output must not be empty.
type Guard struct {
	What string // what an empty output means, for the report
	Cmd  string
}

// Suite is every shell test of perf 6.1 that runs one of the subcommands the shim hands to
// pmc. Left out: daemon.sh (perf daemon starts its own perf record by its own path, never
// through PATH), lock_contention.sh's counterparts that use only perf lock, probe or trace
// (probe_vfs_getname.sh, test_uprobe_from_different_cu.sh, trace+probe_vfs_getname.sh),
// test_data_symbol.sh (perf mem).
var Suite = []Test{
	{Name: "stat.sh", Passing: []string{"Basic stat command test [Success]", "stat record and report test [Success]", "stat repeat weak groups test [Success]"}},
	{Name: "stat+csv_output.sh", Guards: []Guard{
		{"perf stat -x, printed no CSV line", `perf stat -x, true 2>&1 | grep ,`},
		{"perf stat -x, -I printed no CSV line", `perf stat -x, -I 1000 true 2>&1 | grep ,`},
		{"perf stat -x, --per-thread -a printed no CSV line", `perf stat -x, --per-thread -a true 2>&1 | grep ,`},
		{"perf stat -x, --per-node -a printed no CSV line", `perf stat -x, --per-node -a true 2>&1 | grep ,`},
		{"perf stat -x, --per-die -a printed no CSV line", `perf stat -x, --per-die -a true 2>&1 | grep ,`},
	}},
	{Name: "stat+csv_summary.sh", Guards: []Guard{
		{"--summary printed no summary line for the loop to check",
			`perf stat -e cycles -x' ' -I1000 --interval-count 1 --summary 2>&1 | grep -e summary`},
		{"--no-csv-summary printed nothing (so no line could carry a summary)",
			`perf stat -e cycles -x' ' -I1000 --interval-count 1 --summary --no-csv-summary 2>&1 | grep cycles`},
	}},
	{Name: "stat+json_output.sh", Guards: []Guard{
		{"perf stat -j printed no counter", `perf stat -j true 2>&1 | grep counter-value`},
		{"perf stat -j -I printed no interval", `perf stat -j -I 1000 true 2>&1 | grep '"interval"'`},
		{"perf stat -j --per-thread -a printed no thread", `perf stat -j --per-thread -a true 2>&1 | grep '"thread"'`},
		{"perf stat -j --per-node -a printed no node", `perf stat -j --per-node -a true 2>&1 | grep '"node"'`},
		{"perf stat -j --per-die -a printed no die", `perf stat -j --per-die -a true 2>&1 | grep '"die"'`},
	}},
	{Name: "stat+shadow_stat.sh", Guards: []Guard{
		{"no cycles/instructions rows for the IPC loop", `perf stat -a --no-big-num -e cycles,instructions sleep 1 2>&1 | grep -e cycles -e instructions`},
		{"no per-CPU rows for the -A IPC loop", `perf stat -a -A --no-big-num -e cycles,instructions sleep 1 2>&1 | grep ^CPU`},
		{"no counted cycles and instructions: the IPC checks compared nothing", `perf stat -a --no-big-num -e cycles,instructions sleep 1 2>&1 | grep -e cycles -e instructions | grep -v '<not'`},
	}},
	{Name: "stat_all_pmu.sh", Guards: []Guard{
		{"perf list --raw-dump pmu listed no event to test", `perf list --raw-dump pmu | sed 's/[[:graph:]]\+?[[:graph:]]\+[[:space:]]//g' | grep '[^[:space:]]'`},
	}},
	{Name: "stat_all_metrics.sh", Guards: []Guard{
		{"perf list --raw-dump metrics listed no metric to test", `perf list --raw-dump metrics | grep '[^[:space:]]'`},
	}},
	{Name: "stat_all_metricgroups.sh", Guards: []Guard{
		{"perf list --raw-dump metricgroups listed no group to test", `perf list --raw-dump metricgroups | grep '[^[:space:]]'`},
	}},
	{Name: "stat_bpf_counters.sh"},
	{Name: "stat_bpf_counters_cgrp.sh"},
	{Name: "lock_contention.sh"},
	{Name: "record.sh"},
	{Name: "pipe_test.sh"},
	{Name: "record+zstd_comp_decomp.sh", Guards: []Guard{
		// The test pipes each report into head, whose status hides a report that failed:
		// two empty outputs would diff equal.
		{"pmc report -F comm,dso,sym printed no row of the -z recording for the test's diff",
			`f=$(mktemp /tmp/pmc-guard.XXX) && perf record -o $f -g -z -F 5000 -- dd count=500 if=/dev/urandom of=/dev/null >/dev/null 2>&1 && perf report -i $f --stdio -F comm,dso,sym | grep '^  dd'; rm -f $f`},
		{"pmc report -F comm,dso,sym printed no row of the decompressed twin (perf inject) for the test's diff",
			`f=$(mktemp /tmp/pmc-guard.XXX) && perf record -o $f -g -z -F 5000 -- dd count=500 if=/dev/urandom of=/dev/null >/dev/null 2>&1 && perf inject -i $f -o $f.d && perf report -i $f.d --stdio -F comm,dso,sym | grep '^  dd'; rm -f $f $f.d`},
	}},
	{Name: "buildid.sh"},
	{Name: "record_offcpu.sh"},
	{Name: "record+probe_libc_inet_pton.sh", Guards: []Guard{
		{"perf script printed no sample of ping for the backtrace check", `grep -E '^ *ping ' "$LOG"`},
	}},
	{Name: "record+script_probe_vfs_getname.sh"},
	{Name: "test_brstack.sh"},
	{Name: "test_java_symbol.sh"},
	{Name: "test_arm_callgraph_fp.sh"},
	{Name: "test_arm_coresight.sh"},
	{Name: "test_arm_spe.sh"},
	{Name: "test_arm_spe_fork.sh"},
	{Name: "test_intel_pt.sh"},
}

// Waiting lists the tests that perf passes here and pmc does not yet, each with what it waits
// on (an item of issue 29 or the branch doing it). The run fails when one of them passes:
// then it leaves this list.
var Waiting = map[string]string{}
