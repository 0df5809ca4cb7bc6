// Package disasm decodes a function's machine code into instructions for pmc annotate:
// address, length, bytes, text in a GNU objdump-like syntax, and a class (load, store,
// branch, call, return, long-latency) that the annotation uses to point at skid.
//
// Architectures and routes:
//   - x86-64: golang.org/x/arch/x86/x86asm, with its gaps filled here: endbr64/endbr32 (x86asm
//     takes the f3 prefix for a one-byte "rep"), and every sequence it rejects is measured by a
//     length decoder of our own (prefixes, REX, VEX, EVEX, ModRM, SIB, displacement, immediate)
//     and shown as ".byte 0x.." of exactly that length, so the boundaries that follow stay right.
//     That decoder alone agrees with objdump on all 119,463 instructions of a static binary.
//   - arm64: golang.org/x/arch/arm64/arm64asm; undecodable words are ".inst 0x........" as
//     objdump shows them. arm64asm (and armasm) write a package-level coverage table on every
//     decode, a data race when two goroutines decode at once, so every call into them holds one
//     mutex of this package: the decoders' state is never used by two goroutines at a time.
//   - 32-bit ARM (A32): golang.org/x/arch/arm/armasm; undecodable words are ".word".
//   - Thumb-2 (T32, what Debian's armhf compiler emits by default): x/arch cannot decode it, and
//     running objdump would make pmc depend on binutils on the target (perf annotate's weakness).
//     So pmc has its own small Thumb-2 decoder (thumb*.go): instruction length is exact for every
//     halfword (bits 15:11 of the first halfword decide 16 or 32 bits), the common 16-bit and
//     32-bit integer encodings, IT blocks (condition suffixes, flag-setting forms outside IT) and
//     VFP/coprocessor instructions (whose T32 encoding is the A32 one with cond=1110, decoded
//     by armasm) get objdump's mnemonics; anything else is shown as ".short 0x...." or
//     ".word 0x........" of the right size, never as a guess.
//
// Gaps of x/arch filled here, each checked against objdump: x86 endbr64/endbr32,
// vzeroupper/vzeroall (x86asm takes a ModRM byte that is not there), movabs, movslq, the AT&T
// names of cltq & co., the EVEX vpcmp predicates, the BMI size suffixes; arm64 udf, the LSE
// atomics (ldadd, cas, swp... and the st aliases), the hint aliases (paciasp, bti...); A32
// VFP load/store multiple (vpush, vpop, vldmia...), vmov between core and VFP registers,
// vfma/vfms, mrc/mcr, post-indexed register loads and stores.
//
// Agreement with objdump (objdump_test.go; binutils 2.40, gcc 12, Go 1.26): instruction
// boundaries agree for every instruction of every workload function on all four instruction
// sets, and of every function of the static binaries (glibc included) and of pmc itself
// (PMC_DISASM_PMC=1). Mnemonics: workloads 100% (27 NEON words in the A32 build excepted);
// static matmul x86-64 99.991%, arm64 99.661%, A32/T32 99.951%; pmc amd64 100% of 434,828,
// pmc arm64 99.998% of 436,404. Known
// exceptions, shown as data of the right length: A32/T32 Advanced SIMD (NEON) and the old FPA
// (ldfp/stfp), arm64 SVE and MTE, x86 CET shadow-stack instructions (rdssp, incssp).
//
// Literal pools inside ARM and Thumb code are data: callers pass the ELF mapping symbols ($a,
// $t, $d) through Mapping so those words are shown as ".word" as objdump does, and Thumb
// decoding does not run into them. Decoding never panics and always advances by at least one
// byte (x86) or the architecture's minimum (2 for Thumb, 4 otherwise, less only at the end of
// the buffer); the tests compare every instruction of the workloads with objdump.
package disasm
