package assets_test

import (
	"math"
	"testing"

	"github.com/toolroute/toolroute/assets"
	"github.com/toolroute/toolroute/registry/wordvec"
)

// The embedded table reads, and holds common words in frequency order.
func TestDefault(t *testing.T) {
	v := assets.Vectors()
	if v.Len() != 10000 || v.Dim() != 46 {
		t.Fatalf("%d words of %d, want 10000 of 46", v.Len(), v.Dim())
	}
	for _, w := range []string{"weather", "rain", "football", "apartment", "rent"} {
		r, ok := v.Rank(w)
		if !ok || v.Word(r) != w {
			t.Errorf("Rank(%q) = %d, %v", w, r, ok)
		}
	}
	if r, _ := v.Rank("the"); r != 0 {
		t.Errorf("the is %d, want the commonest (0)", r)
	}
	for _, w := range []string{"", "Weather", "zqxv", "the "} {
		if _, ok := v.Rank(w); ok {
			t.Errorf("Rank(%q) found a word", w)
		}
	}
}

// Words used alike are nearer than words that are not: what search relies
// on.
func TestNear(t *testing.T) {
	v := assets.Vectors()
	for _, c := range []struct{ a, near, far string }{
		{"rain", "weather", "football"},
		{"apartment", "rent", "guitar"},
		{"flight", "airport", "recipe"},
	} {
		if cos(v, c.a, c.near) <= cos(v, c.a, c.far) {
			t.Errorf("%s is nearer %s (%.2f) than %s (%.2f)", c.a, c.far, cos(v, c.a, c.far), c.near, cos(v, c.a, c.near))
		}
	}
}

func cos(v *wordvec.Vectors, a, b string) float64 {
	va, vb := vector(v, a), vector(v, b)
	var ab, aa, bb float64
	for i := range va {
		ab, aa, bb = ab+va[i]*vb[i], aa+va[i]*va[i], bb+vb[i]*vb[i]
	}
	return ab / math.Sqrt(aa*bb)
}

func vector(v *wordvec.Vectors, w string) []float64 {
	r, ok := v.Rank(w)
	if !ok {
		panic(w + " has no vector")
	}
	acc := make([]float64, v.Dim())
	v.AddTo(acc, r, 1)
	return acc
}
