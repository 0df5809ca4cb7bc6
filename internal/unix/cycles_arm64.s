#include "textflag.h"

// func CycleTimedLoad(buf *uint32, i uint32, counter uint32) (next uint32, delta uint64)
// next = buf[i] timed with the dedicated cycle counter PMCCNTR_EL0 (readable at EL0 when
// the kernel sets PMUSERENR_EL0, i.e. perf_user_access=1 and a counter opened with
// config1 bit 1). ISB keeps the first read before the load; DSB SY waits for the load to
// complete and ISB holds the second read until then. counter is unused (always the cycle
// counter).
TEXT ·CycleTimedLoad(SB), NOSPLIT, $0-32
	MOVD  buf+0(FP), R0
	MOVWU i+8(FP), R1
	ISB   $15
	MRS   PMCCNTR_EL0, R2
	ISB   $15
	MOVWU (R0)(R1<<2), R3
	DSB   $15
	ISB   $15
	MRS   PMCCNTR_EL0, R4
	SUB   R2, R4, R4
	MOVW  R3, next+16(FP)
	MOVD  R4, delta+24(FP)
	RET

// func CycleTimedNothing(counter uint32) uint64
// CycleTimedLoad without the load: the bias of the timed interval.
TEXT ·CycleTimedNothing(SB), NOSPLIT, $0-16
	ISB $15
	MRS PMCCNTR_EL0, R2
	ISB $15
	DSB $15
	ISB $15
	MRS PMCCNTR_EL0, R4
	SUB R2, R4, R4
	MOVD R4, ret+8(FP)
	RET
