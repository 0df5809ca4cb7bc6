#include "textflag.h"

// func CycleTimedLoad(buf *uint32, i uint32, counter uint32) (next uint32, delta uint64)
// next = buf[i] timed with RDPMC of hardware counter `counter` (the perf page's index - 1):
// LFENCE holds each read until every older instruction, the load included, has completed.
// delta is the raw difference; the caller masks it to the counter's width.
TEXT ·CycleTimedLoad(SB), NOSPLIT, $0-32
	MOVQ buf+0(FP), SI
	MOVL i+8(FP), BX
	MOVL counter+12(FP), CX
	LFENCE
	RDPMC
	SHLQ $32, DX
	ORQ  DX, AX
	MOVQ AX, R8
	LFENCE
	MOVL (SI)(BX*4), BX
	LFENCE
	RDPMC
	SHLQ $32, DX
	ORQ  DX, AX
	SUBQ R8, AX
	MOVL BX, next+16(FP)
	MOVQ AX, delta+24(FP)
	RET

// func CycleTimedNothing(counter uint32) uint64
// CycleTimedLoad without the load: the bias of the timed interval.
TEXT ·CycleTimedNothing(SB), NOSPLIT, $0-16
	MOVL counter+0(FP), CX
	LFENCE
	RDPMC
	SHLQ $32, DX
	ORQ  DX, AX
	MOVQ AX, R8
	LFENCE
	LFENCE
	RDPMC
	SHLQ $32, DX
	ORQ  DX, AX
	SUBQ R8, AX
	MOVQ AX, ret+8(FP)
	RET
