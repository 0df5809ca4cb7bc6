#include "textflag.h"

// func timedHop(buf *uint32, i uint32) (next uint32, ticks uint64)
// One hop of the chase, next = buf[i], timed with the time-stamp counter the way the seed
// timed one load with the ARM cycle counter: read the counter, load, read it again. LFENCE
// before each RDTSC holds the read until every older instruction (the load included) has
// completed, so the difference covers the load plus a fixed bias (measured by timedNothing).
TEXT ·timedHop(SB), NOSPLIT, $0-32
	MOVQ buf+0(FP), SI
	MOVL i+8(FP), BX
	LFENCE
	RDTSC
	SHLQ $32, DX
	ORQ  DX, AX
	MOVQ AX, R8
	LFENCE
	MOVL (SI)(BX*4), BX
	LFENCE
	RDTSC
	SHLQ $32, DX
	ORQ  DX, AX
	SUBQ R8, AX
	MOVL BX, next+16(FP)
	MOVQ AX, ticks+24(FP)
	RET

// func timedNothing() uint64
// timedHop without the load: the bias of the timed interval.
TEXT ·timedNothing(SB), NOSPLIT, $0-8
	LFENCE
	RDTSC
	SHLQ $32, DX
	ORQ  DX, AX
	MOVQ AX, R8
	LFENCE
	LFENCE
	RDTSC
	SHLQ $32, DX
	ORQ  DX, AX
	SUBQ R8, AX
	MOVQ AX, ret+0(FP)
	RET

// func ticks() uint64
TEXT ·ticks(SB), NOSPLIT, $0-8
	LFENCE
	RDTSC
	SHLQ $32, DX
	ORQ  DX, AX
	MOVQ AX, ret+0(FP)
	RET

// func addChain(n uint64) uint64
// n iterations of 8 dependent 64-bit adds: 8n cycles on any x86-64 core (add latency is one
// cycle and nothing can break the chain), so timing it measures the core clock.
TEXT ·addChain(SB), NOSPLIT, $0-16
	MOVQ n+0(FP), CX
	MOVQ CX, AX
loop:
	ADDQ CX, AX
	ADDQ CX, AX
	ADDQ CX, AX
	ADDQ CX, AX
	ADDQ CX, AX
	ADDQ CX, AX
	ADDQ CX, AX
	ADDQ CX, AX
	DECQ CX
	JNZ  loop
	MOVQ AX, ret+8(FP)
	RET
