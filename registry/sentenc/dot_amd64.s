#include "textflag.h"

// func cpuHasFMA() bool
TEXT ·cpuHasFMA(SB), NOSPLIT, $0-1
	MOVB $0, ret+0(FP)
	// Leaf 1: FMA (ECX bit 12), OSXSAVE (27), AVX (28).
	MOVL $1, AX
	MOVL $0, CX
	CPUID
	MOVL CX, R8
	ANDL $0x18001000, R8
	CMPL R8, $0x18001000
	JNE  done
	// The OS saves the XMM and YMM registers.
	MOVL $0, CX
	XGETBV
	ANDL $6, AX
	CMPL AX, $6
	JNE  done
	// Leaf 7: AVX2 (EBX bit 5).
	MOVL $7, AX
	MOVL $0, CX
	CPUID
	ANDL $0x20, BX
	JZ   done
	MOVB $1, ret+0(FP)
done:
	RET

// func dot4(w, x0, x1, x2, x3 *float32, n int) (s0, s1, s2, s3 float32)
TEXT ·dot4(SB), NOSPLIT, $0-64
	MOVQ w+0(FP), SI
	MOVQ x0+8(FP), AX
	MOVQ x1+16(FP), BX
	MOVQ x2+24(FP), CX
	MOVQ x3+32(FP), DX
	MOVQ n+40(FP), DI
	SHLQ $2, DI
	XORQ R8, R8
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
loop4:
	VMOVUPS     (SI)(R8*1), Y4
	VFMADD231PS (AX)(R8*1), Y4, Y0
	VFMADD231PS (BX)(R8*1), Y4, Y1
	VFMADD231PS (CX)(R8*1), Y4, Y2
	VFMADD231PS (DX)(R8*1), Y4, Y3
	ADDQ        $32, R8
	CMPQ        R8, DI
	JLT         loop4
	VEXTRACTF128 $1, Y0, X4
	VADDPS       X4, X0, X0
	VHADDPS      X0, X0, X0
	VHADDPS      X0, X0, X0
	MOVSS        X0, s0+48(FP)
	VEXTRACTF128 $1, Y1, X4
	VADDPS       X4, X1, X1
	VHADDPS      X1, X1, X1
	VHADDPS      X1, X1, X1
	MOVSS        X1, s1+52(FP)
	VEXTRACTF128 $1, Y2, X4
	VADDPS       X4, X2, X2
	VHADDPS      X2, X2, X2
	VHADDPS      X2, X2, X2
	MOVSS        X2, s2+56(FP)
	VEXTRACTF128 $1, Y3, X4
	VADDPS       X4, X3, X3
	VHADDPS      X3, X3, X3
	VHADDPS      X3, X3, X3
	MOVSS        X3, s3+60(FP)
	VZEROUPPER
	RET

// func dot1(w, x *float32, n int) float32
TEXT ·dot1(SB), NOSPLIT, $0-28
	MOVQ w+0(FP), SI
	MOVQ x+8(FP), AX
	MOVQ n+16(FP), DI
	SHLQ $2, DI
	XORQ R8, R8
	VXORPS Y0, Y0, Y0
loop1:
	VMOVUPS     (SI)(R8*1), Y4
	VFMADD231PS (AX)(R8*1), Y4, Y0
	ADDQ        $32, R8
	CMPQ        R8, DI
	JLT         loop1
	VEXTRACTF128 $1, Y0, X4
	VADDPS       X4, X0, X0
	VHADDPS      X0, X0, X0
	VHADDPS      X0, X0, X0
	MOVSS        X0, ret+24(FP)
	VZEROUPPER
	RET

// func axpy(dst, x *float32, a float32, n int)
TEXT ·axpy(SB), NOSPLIT, $0-32
	MOVQ         dst+0(FP), SI
	MOVQ         x+8(FP), AX
	VBROADCASTSS a+16(FP), Y1
	MOVQ         n+24(FP), DI
	SHLQ         $2, DI
	XORQ         R8, R8
loopa:
	VMOVUPS     (SI)(R8*1), Y0
	VFMADD231PS (AX)(R8*1), Y1, Y0
	VMOVUPS     Y0, (SI)(R8*1)
	ADDQ        $32, R8
	CMPQ        R8, DI
	JLT         loopa
	VZEROUPPER
	RET
