//go:build !amd64

package sentenc

// haveFMA is false where there is no assembly: matmul and attend use their
// loops in Go.
var haveFMA = false

func dot4(w, x0, x1, x2, x3 *float32, n int) (s0, s1, s2, s3 float32) {
	panic("sentenc: dot4 without FMA")
}

func dot1(w, x *float32, n int) float32 { panic("sentenc: dot1 without FMA") }

func axpy(dst, x *float32, a float32, n int) { panic("sentenc: axpy without FMA") }

func dot8(w0, w1, x0, x1, x2, x3 *float32, n int, out *[8]float32) {
	panic("sentenc: dot8 without FMA")
}
