#include "textflag.h"

// func region(sysno, enA0, enA1, disA0, disA1, n uintptr): see spin_arm64.s; the loop is
// SUB.S+BNE (2 instructions per iteration).
TEXT ·region(SB), NOSPLIT, $0-24
	MOVW enA0+4(FP), R0
	MOVW enA1+8(FP), R1
	MOVW $1, R2
	MOVW sysno+0(FP), R7
	SWI  $0
	MOVW n+20(FP), R4
	CMP  $0, R4
	BEQ  done
loop:
	SUB.S $1, R4, R4
	BNE   loop
done:
	MOVW disA0+12(FP), R0
	MOVW disA1+16(FP), R1
	MOVW $1, R2
	MOVW sysno+0(FP), R7
	SWI  $0
	RET
