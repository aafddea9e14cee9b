package sentenc

// haveFMA reports whether the processor and the OS support AVX2 and FMA, so
// that matmul and attend can use the assembly kernels (a variable, so that
// a test can run the Go loops too).
var haveFMA = cpuHasFMA()

func cpuHasFMA() bool

// dot4 returns the dot products of the n float32s at w with those at x0,
// x1, x2 and x3. n is a positive multiple of 8.
//
//go:noescape
func dot4(w, x0, x1, x2, x3 *float32, n int) (s0, s1, s2, s3 float32)

// dot1 returns the dot product of the n float32s at w and x. n is a
// positive multiple of 8.
//
//go:noescape
func dot1(w, x *float32, n int) float32

// axpy adds a times the n float32s at x to those at dst. n is a positive
// multiple of 8.
//
//go:noescape
func axpy(dst, x *float32, a float32, n int)

// dot8 sets out[r*4+t] to the dot product of the n float32s at row r (w0,
// w1) and token t (x0 to x3). n is a positive multiple of 8.
//
//go:noescape
func dot8(w0, w1, x0, x1, x2, x3 *float32, n int, out *[8]float32)
