package sentenc

import (
	"math"
)

// work is one forward pass's scratch, reused through the encoder's pool so
// that embedding allocates only the result.
type work struct {
	x, h, qkv, att, tmp, ffn []float32
	scores                   []float32
	pooled                   []float32
}

func newWork(e *Encoder) any {
	const wide = 512
	return &work{
		x:      make([]float32, MaxTokens*wide),
		h:      make([]float32, MaxTokens*wide),
		qkv:    make([]float32, MaxTokens*3*wide),
		att:    make([]float32, MaxTokens*wide),
		tmp:    make([]float32, MaxTokens*wide),
		ffn:    make([]float32, MaxTokens*e.layers[0].ffnDim),
		scores: make([]float32, MaxTokens),
		pooled: make([]float32, wide),
	}
}

// Embed returns the unit vector of a text: [Dim] values whose dot product
// with another text's vector is their cosine similarity. Only the first
// [MaxTokens] tokens count. A text with no tokens (empty) gets the model's
// vector for an all-zero mean, the same for every such text; the TF.js
// model refuses one.
func (e *Encoder) Embed(text string) []float32 {
	ids := e.tok.encode(text)
	if len(ids) > MaxTokens {
		ids = ids[:MaxTokens]
	}
	w := e.pool.Get().(*work)
	defer e.pool.Put(w)
	return e.forward(w, ids)
}

func (e *Encoder) forward(w *work, ids []int32) []float32 {
	n := len(ids)
	d := e.embDim
	half := d / 2
	// The graph adds the token's embedding to itself plus the timing
	// signal (sin then cos of position × timescale).
	for t, id := range ids {
		row := w.x[t*d : (t+1)*d]
		if e.embFloat != nil {
			copy(row, e.embFloat[int(id)*d:(int(id)+1)*d])
		} else {
			s := e.embScales[id]
			for k, q := range e.emb[int(id)*d : (int(id)+1)*d] {
				row[k] = float32(q) * s
			}
		}
		for k := range half {
			a := float64(float32(t) * e.timescales[k])
			row[k] = 2*row[k] + float32(math.Sin(a))
			row[half+k] = 2*row[half+k] + float32(math.Cos(a))
		}
	}
	for l := range e.layers {
		e.layers[l].forward(w, n, e.eps)
	}
	out := e.layers[len(e.layers)-1].outDim
	pooled := w.pooled[:out]
	clear(pooled)
	for t := range n {
		for k, v := range w.x[t*out : (t+1)*out] {
			pooled[k] += v
		}
	}
	div := float32(max(n, 1))
	for k := range pooled {
		pooled[k] /= div
	}
	v := make([]float32, Dim)
	matmul(v, pooled, 1, &e.hidden)
	var sum float32
	for k, x := range v {
		x = float32(math.Tanh(float64(x)))
		v[k] = x
		sum += x * x
	}
	inv := float32(1 / math.Sqrt(float64(max(sum, 1e-12))))
	for k := range v {
		v[k] *= inv
	}
	return v
}

// forward runs one pre-norm transformer layer on the n rows of w.x.
func (ly *layer) forward(w *work, n int, eps float32) {
	in, out := ly.inDim, ly.outDim
	x := w.x[:n*in]
	h := w.h[:n*in]
	layerNorm(h, x, in, ly.ln1s, ly.ln1b, eps)
	qkv := w.qkv[:n*3*in]
	matmul(qkv, h, n, &ly.qkv)
	att := w.att[:n*in]
	ly.attend(att, qkv, n, w.scores[:n])
	proj := w.tmp[:n*out]
	matmul(proj, att, n, &ly.out)
	if ly.residual != nil {
		// The residual path widens x; the result replaces x.
		matmul(w.h[:n*out], x, n, ly.residual)
		x = w.x[:n*out]
		copy(x, w.h[:n*out])
	} else {
		x = w.x[:n*out]
	}
	for i, v := range proj {
		x[i] += v
	}
	h = w.h[:n*out]
	layerNorm(h, x, out, ly.ln2s, ly.ln2b, eps)
	f := w.ffn[:n*ly.ffnDim]
	matmul(f, h, n, &ly.ffn1)
	for i, v := range f {
		if v < 0 {
			f[i] = 0
		}
	}
	g := w.tmp[:n*out]
	matmul(g, f, n, &ly.ffn2)
	for i, v := range g {
		x[i] += v
	}
}

// attend is multi-head self-attention over n tokens: qkv holds each
// token's queries, keys and values (in wide each), att gets the heads'
// outputs side by side.
func (ly *layer) attend(att, qkv []float32, n int, scores []float32) {
	in, depth := ly.inDim, ly.depth
	fast := haveFMA && depth%8 == 0
	for hd := range ly.heads {
		off := hd * depth
		for t := range n {
			q := qkv[t*3*in+off : t*3*in+off+depth]
			maxS := float32(math.Inf(-1))
			for s := range n {
				k := qkv[s*3*in+in+off : s*3*in+in+off+depth]
				var dot float32
				if fast {
					dot = dot1(&q[0], &k[0], depth)
				} else {
					k = k[:len(q)]
					for i, qv := range q {
						dot += qv * k[i]
					}
				}
				dot *= ly.qscale
				scores[s] = dot
				maxS = max(maxS, dot)
			}
			var sum float32
			for s := range n {
				p := float32(math.Exp(float64(scores[s] - maxS)))
				scores[s] = p
				sum += p
			}
			o := att[t*in+off : t*in+off+depth]
			clear(o)
			for s := range n {
				p := scores[s] / sum
				v := qkv[s*3*in+2*in+off : s*3*in+2*in+off+depth]
				if fast {
					axpy(&o[0], &v[0], p, depth)
					continue
				}
				v = v[:len(o)]
				for i := range o {
					o[i] += p * v[i]
				}
			}
		}
	}
}

// layerNorm normalises each width-long row of x into dst.
func layerNorm(dst, x []float32, width int, scale, bias []float32, eps float32) {
	for r := 0; r+width <= len(x); r += width {
		row := x[r : r+width]
		var mean float64
		for _, v := range row {
			mean += float64(v)
		}
		mean /= float64(width)
		var vr float64
		for _, v := range row {
			d := float64(v) - mean
			vr += d * d
		}
		vr /= float64(width)
		inv := float32(1 / math.Sqrt(vr+float64(eps)))
		m := float32(mean)
		o := dst[r : r+width]
		for i, v := range row {
			o[i] = (v-m)*inv*scale[i] + bias[i]
		}
	}
}

// matmul sets dst's n rows of m.rows values to x's n rows (of m.cols) times
// m's rows, plus the bias. Four tokens at a time share each weight load;
// with AVX2 and FMA the dot products run eight lanes wide.
func matmul(dst, x []float32, n int, m *matrix) {
	cols, rows := m.cols, m.rows
	if n == 0 {
		return
	}
	_ = x[n*cols-1]
	_ = dst[n*rows-1]
	fast := haveFMA && cols%8 == 0
	j0 := 0
	if fast && n >= 2 {
		// Two rows by four tokens: six loads for eight products.
		var out [8]float32
		for ; j0+2 <= rows; j0 += 2 {
			w0, w1 := &m.w[j0*cols], &m.w[(j0+1)*cols]
			b0, b1 := m.bias[j0], m.bias[j0+1]
			// The last group repeats its last token where it has fewer
			// than four, and drops those products.
			for t := 0; t < n; t += 4 {
				t1, t2, t3 := min(t+1, n-1), min(t+2, n-1), min(t+3, n-1)
				dot8(w0, w1, &x[t*cols], &x[t1*cols], &x[t2*cols], &x[t3*cols], cols, &out)
				for i := range min(4, n-t) {
					dst[(t+i)*rows+j0] = out[i] + b0
					dst[(t+i)*rows+j0+1] = out[4+i] + b1
				}
			}
		}
	}
	for j := j0; j < rows; j++ {
		wr := m.w[j*cols : (j+1)*cols]
		b := m.bias[j]
		t := 0
		for ; t+4 <= n; t += 4 {
			var s0, s1, s2, s3 float32
			if fast {
				s0, s1, s2, s3 = dot4(&wr[0], &x[t*cols], &x[(t+1)*cols], &x[(t+2)*cols], &x[(t+3)*cols], cols)
			} else {
				x0 := x[t*cols : (t+1)*cols]
				x1 := x[(t+1)*cols : (t+2)*cols]
				x2 := x[(t+2)*cols : (t+3)*cols]
				x3 := x[(t+3)*cols : (t+4)*cols]
				x0, x1, x2, x3 = x0[:len(wr)], x1[:len(wr)], x2[:len(wr)], x3[:len(wr)]
				for k, wv := range wr {
					s0 += wv * x0[k]
					s1 += wv * x1[k]
					s2 += wv * x2[k]
					s3 += wv * x3[k]
				}
			}
			dst[t*rows+j] = s0 + b
			dst[(t+1)*rows+j] = s1 + b
			dst[(t+2)*rows+j] = s2 + b
			dst[(t+3)*rows+j] = s3 + b
		}
		for ; t < n; t++ {
			var s float32
			if fast {
				s = dot1(&wr[0], &x[t*cols], cols)
			} else {
				xt := x[t*cols : (t+1)*cols]
				xt = xt[:len(wr)]
				for k, wv := range wr {
					s += wv * xt[k]
				}
			}
			dst[t*rows+j] = s + b
		}
	}
}

// Dot returns the dot product of two embeddings: their cosine, since
// [Encoder.Embed] returns unit vectors.
func Dot(a, b []float32) float32 {
	b = b[:len(a)]
	var s float32
	for i, v := range a {
		s += v * b[i]
	}
	return s
}
