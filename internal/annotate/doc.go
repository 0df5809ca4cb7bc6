// Package annotate lays out a function's instructions with the share of the samples each
// one holds, the way `perf annotate --stdio` does ("percent: local period": percent, address,
// instruction), with the source lines interleaved as objdump -S does, the hottest
// instructions marked, and skid pointed out: a sample that lands on the instruction right
// after a load or a long-latency instruction (divide, square root) most likely belongs to
// that instruction, because the counter overflow is taken when the stalled instruction
// retires and the sampled PC is the next one. The same result is written as JSON (schema
// pmc.annotate/v1, docs/json-schema.md).
//
// It knows nothing of perf.data or ELF: the caller passes decoded instructions
// (internal/disasm), the sample periods per address, a line lookup and the source files.
package annotate
