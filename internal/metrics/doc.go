// Package metrics derives ratios and rates (IPC, miss ratios, per-thousand-instruction rates,
// GHz, CPUs utilized...) from counted events, and plans which events must be counted together
// so that a derived number means something.
//
// # Expressions
//
// A metric is an expression over event counts, numbers and other metrics:
//
//	100 * ratio(L1-dcache-load-misses, L1-dcache-loads)
//	if(cycles > 0, instructions / cycles, 0)
//
// Grammar (lowest precedence first):
//
//	expr    = compare
//	compare = sum { ("<" | ">" | "<=" | ">=" | "==" | "!=") sum }   // 1 when true, 0 when false
//	sum     = product { ("+" | "-") product }
//	product = unary { ("*" | "/") unary }
//	unary   = ("-" | "+") unary | primary
//	primary = number | name | quoted | func "(" expr { "," expr } ")" | "(" expr ")"
//
// Numbers are decimal (42, 1.5, 1e3, .5) or hexadecimal (0x10).
//
// Names. A bare name starts with a letter or "_" and continues with letters, digits and
// "_ . :". A "-" belongs to the name only when it sits directly between two name characters,
// so L1-dcache-load-misses and stalled-cycles-frontend are single names while subtraction is
// written with spaces: "cycles - instructions". A backslash takes the next character
// literally (perf's own metric files write L1\-dcache\-load\-misses), and any event string,
// including PMU forms with slashes or commas, may be double-quoted:
// "armv8_pmuv3_0/inst_retired/" or "cpu/event=0x3c,umask=0/". Raw codes such as r03 or r0FF
// are plain names. A name that is the name of another metric in the same Set refers to that
// metric; every other name is an event.
//
// Functions: ratio(a, b) is a / b; min(a, b, ...) and max(a, b, ...); if(cond, a, b) yields a
// when cond is non-zero and b otherwise and evaluates only the branch it picks, so
// if(branches > 0, branch-misses / branches, 0) is how to choose a fallback explicitly.
//
// # Undefined results
//
// Neither "/" nor ratio() ever yields an infinity or a NaN. A zero denominator makes the
// whole metric undefined (ErrDivZero, reported as Valid=false with the reason), so a ratio of
// two counters that both read 0 (as every event but cycles and instructions does under QEMU)
// prints as "undefined", never as a fact such as 0% or Inf%. ratio(a, b) and a / b behave the
// same; ratio exists because perf's metric files use it and it reads well. An arithmetic
// overflow is ErrUndefined. Evaluation never panics.
//
// Errors carry the 1-based column of the offending token: "metrics: at 12: unknown function
// "rato"". Metric definitions are checked when a Set is built: syntax, unknown functions,
// arity, duplicate names and reference cycles (ipc -> cpi -> ipc) are all reported then.
//
// # Co-scheduling
//
// Events in one perf group ({a,b,c}) are put on the PMU together: they share enabled and
// running times, so their ratio is exact even when groups are multiplexed. NewPlan packs the
// operands of each requested metric into one group, within the number of general counters
// (the cycle counter is free where the CPU has a dedicated one), adds cycles and
// instructions to every group where they fit (as rpistat keeps cycles in every event set), and
// reports metrics whose operands can never be counted at once. It judges every operand by
// its resolved encoding (Resolver, Machine.Canon), never by its spelling: on an Armv8 core
// INST_RETIRED, r08 and instructions are one counter, and CPU_CYCLES is the cycle counter's.
//
// # Evaluation
//
// Operands match counted events by the name the user wrote, or one of perf's aliases
// (cpu-cycles, branch-instructions, cs, migrations, faults); failing that, with
// Options.Match, by the event counted, whatever its spelling or privilege filter. The tool
// events duration_time, user_time and system_time (ns) come from the result's wall clock and
// rusage unless counted.
//
// Compute evaluates metrics over a result.Stat. A value is Together only when all its
// counted operands came from one group, or when none of them was multiplexed; otherwise it
// is still computed from scaled counts but flagged, and implausible values (more misses than
// accesses, more instructions per cycle than the core can issue, counts extrapolated from
// under 5% running time) carry warnings. This is the Cortex-A5 seed's "191% of all branches"
// and "12.75 insn per cycle" on a single-issue core, caught instead of printed.
package metrics
