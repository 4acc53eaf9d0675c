#include "textflag.h"

// func indexPairBlocks(b []byte, d int, c1, m1, c2, m2 byte) int
// Positions i in [0, len(b)-d), a multiple of 16, sixteen at a time: the
// first i with b[i]|m1 == c1 and b[i+d]|m2 == c2, or -1.
TEXT ·indexPairBlocks(SB), NOSPLIT, $0-48
	MOVQ b_base+0(FP), SI
	MOVQ b_len+8(FP), CX
	MOVQ d+24(FP), DX
	SUBQ DX, CX              // CX = positions to try
	LEAQ (SI)(DX*1), DI      // DI = b[d:]
	MOVQ $0x0101010101010101, R8

	MOVBQZX c1+32(FP), AX
	IMULQ R8, AX
	MOVQ AX, X1
	PUNPCKLQDQ X1, X1
	MOVBQZX m1+33(FP), AX
	IMULQ R8, AX
	MOVQ AX, X2
	PUNPCKLQDQ X2, X2
	MOVBQZX c2+34(FP), AX
	IMULQ R8, AX
	MOVQ AX, X3
	PUNPCKLQDQ X3, X3
	MOVBQZX m2+35(FP), AX
	IMULQ R8, AX
	MOVQ AX, X4
	PUNPCKLQDQ X4, X4

	XORQ BX, BX
loop:
	CMPQ BX, CX
	JAE none
	MOVOU (SI)(BX*1), X5
	POR X2, X5
	PCMPEQB X1, X5
	MOVOU (DI)(BX*1), X6
	POR X4, X6
	PCMPEQB X3, X6
	PAND X6, X5
	PMOVMSKB X5, AX
	ADDQ $16, BX
	TESTL AX, AX
	JZ loop
	BSFL AX, AX
	LEAQ -16(BX)(AX*1), AX
	MOVQ AX, ret+40(FP)
	RET
none:
	MOVQ $-1, ret+40(FP)
	RET
