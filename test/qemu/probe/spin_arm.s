#include "textflag.h"

// func spin(n uint32): n iterations of SUB.S+BNE (2 instructions each).
TEXT ·spin(SB), NOSPLIT, $0-4
	MOVW n+0(FP), R0
	CMP  $0, R0
	BEQ  done
loop:
	SUB.S $1, R0, R0
	BNE   loop
done:
	RET
