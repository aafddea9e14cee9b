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

// func dot8(w0, w1, x0, x1, x2, x3 *float32, n int, out *[8]float32)
// out[r*4+t] is row r's dot product with token t.
TEXT ·dot8(SB), NOSPLIT, $0-64
	MOVQ w0+0(FP), SI
	MOVQ w1+8(FP), R9
	MOVQ x0+16(FP), AX
	MOVQ x1+24(FP), BX
	MOVQ x2+32(FP), CX
	MOVQ x3+40(FP), DX
	MOVQ n+48(FP), DI
	MOVQ out+56(FP), R10
	SHLQ $2, DI
	XORQ R8, R8
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	VXORPS Y4, Y4, Y4
	VXORPS Y5, Y5, Y5
	VXORPS Y6, Y6, Y6
	VXORPS Y7, Y7, Y7
loop8:
	VMOVUPS     (SI)(R8*1), Y8
	VMOVUPS     (R9)(R8*1), Y9
	VMOVUPS     (AX)(R8*1), Y10
	VFMADD231PS Y10, Y8, Y0
	VFMADD231PS Y10, Y9, Y4
	VMOVUPS     (BX)(R8*1), Y11
	VFMADD231PS Y11, Y8, Y1
	VFMADD231PS Y11, Y9, Y5
	VMOVUPS     (CX)(R8*1), Y12
	VFMADD231PS Y12, Y8, Y2
	VFMADD231PS Y12, Y9, Y6
	VMOVUPS     (DX)(R8*1), Y13
	VFMADD231PS Y13, Y8, Y3
	VFMADD231PS Y13, Y9, Y7
	ADDQ        $32, R8
	CMPQ        R8, DI
	JLT         loop8
	VEXTRACTF128 $1, Y0, X8
	VADDPS       X8, X0, X0
	VHADDPS      X0, X0, X0
	VHADDPS      X0, X0, X0
	MOVSS        X0, 0(R10)
	VEXTRACTF128 $1, Y1, X8
	VADDPS       X8, X1, X1
	VHADDPS      X1, X1, X1
	VHADDPS      X1, X1, X1
	MOVSS        X1, 4(R10)
	VEXTRACTF128 $1, Y2, X8
	VADDPS       X8, X2, X2
	VHADDPS      X2, X2, X2
	VHADDPS      X2, X2, X2
	MOVSS        X2, 8(R10)
	VEXTRACTF128 $1, Y3, X8
	VADDPS       X8, X3, X3
	VHADDPS      X3, X3, X3
	VHADDPS      X3, X3, X3
	MOVSS        X3, 12(R10)
	VEXTRACTF128 $1, Y4, X8
	VADDPS       X8, X4, X4
	VHADDPS      X4, X4, X4
	VHADDPS      X4, X4, X4
	MOVSS        X4, 16(R10)
	VEXTRACTF128 $1, Y5, X8
	VADDPS       X8, X5, X5
	VHADDPS      X5, X5, X5
	VHADDPS      X5, X5, X5
	MOVSS        X5, 20(R10)
	VEXTRACTF128 $1, Y6, X8
	VADDPS       X8, X6, X6
	VHADDPS      X6, X6, X6
	VHADDPS      X6, X6, X6
	MOVSS        X6, 24(R10)
	VEXTRACTF128 $1, Y7, X8
	VADDPS       X8, X7, X7
	VHADDPS      X7, X7, X7
	VHADDPS      X7, X7, X7
	MOVSS        X7, 28(R10)
	VZEROUPPER
	RET
