#include "textflag.h"

// func region(sysno, enA0, enA1, disA0, disA1, n uintptr)
// syscall(sysno, enA0, enA1, 1) enables the counters (ioctl(fd, ENABLE, PERF_IOC_FLAG_GROUP)
// or prctl(PR_TASK_PERF_EVENTS_ENABLE)); then n iterations of SUBS+BNE (2 instructions each);
// then syscall(sysno, disA0, disA1, 1) disables them. No Go code runs in between, so neither
// the scheduler nor a preemption request can add instructions to the region.
TEXT ·region(SB), NOSPLIT, $0-48
	MOVD enA0+8(FP), R0
	MOVD enA1+16(FP), R1
	MOVD $1, R2
	MOVD sysno+0(FP), R8
	SVC
	MOVD n+40(FP), R4
	CBZ  R4, done
loop:
	SUBS $1, R4, R4
	BNE  loop
done:
	MOVD disA0+24(FP), R0
	MOVD disA1+32(FP), R1
	MOVD $1, R2
	MOVD sysno+0(FP), R8
	SVC
	RET
