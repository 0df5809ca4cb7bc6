#include "textflag.h"

// func spin(n uint32): n iterations of SUBS+BNE (2 instructions each).
TEXT ·spin(SB), NOSPLIT, $0-4
	MOVWU n+0(FP), R0
	CBZ   R0, done
loop:
	SUBS  $1, R0, R0
	BNE   loop
done:
	RET
