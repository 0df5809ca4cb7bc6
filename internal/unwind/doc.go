// Package unwind recovers the user-space callers of a sample recorded with --call-graph
// dwarf: from the registers the kernel saved (PERF_SAMPLE_REGS_USER) and the copy of the
// user stack from the stack pointer up (PERF_SAMPLE_STACK_USER), it steps from frame to
// frame with the unwind tables of the code each frame is in:
//
//   - DWARF call frame information: .eh_frame (found through .eh_frame_hdr's sorted table
//     when there is one) and .debug_frame (from the binary or its separate debug file), on
//     x86-64, arm64 and 32-bit ARM: a small CFA interpreter (DWARF 5 section 6.4) with
//     the DWARF expressions CFI uses (the x86-64 PLT's, signal frames');
//   - on 32-bit ARM, the exception tables of the ARM EHABI (.ARM.exidx, .ARM.extab: ARM
//     IHI 0038, section 9 and 10), when no CFI covers an address.
//
// Its stepping follows perf report's (libunwind under perf): the first frame is the
// sampled instruction, each caller the instruction before its return address (the call),
// at most 127 frames (kernel.perf_event_max_stack's default), memory read from the stack
// copy only. Where perf's libunwind guesses (frame pointers where no table covers an
// address), pmc stops: a chain ends where unwinding can go no further and says why (Stop),
// it never invents a caller.
//
// Tables are parsed lazily, once per object (Tables), from the sections package symbol
// reads (symbol.FrameSections: the binary, its debug file, or the symbol archive). Every
// input is distrusted: a corrupt table, a stack copy shorter than claimed or registers that
// do not fit the architecture end the chain with a Stop; nothing panics and every loop is
// bounded (FuzzUnwind).
package unwind
