package wordvec_test

import (
	"fmt"
	"log"
	"math"

	"github.com/toolroute/toolroute/assets"
	"github.com/toolroute/toolroute/registry/wordvec"
)

// The English table every host hands the module: words used alike have
// vectors pointing alike, which is how search finds a weather tool for a
// question about rain.
func Example() {
	vecs, err := wordvec.Parse(assets.WordVectors)
	if err != nil {
		log.Fatal(err)
	}
	vector := func(word string) []float64 {
		acc := make([]float64, vecs.Dim())
		if rank, ok := vecs.Rank(word); ok {
			vecs.AddTo(acc, rank, 1)
		}
		return acc
	}
	cosine := func(a, b []float64) float64 {
		var ab, aa, bb float64
		for i := range a {
			ab, aa, bb = ab+a[i]*b[i], aa+a[i]*a[i], bb+b[i]*b[i]
		}
		return ab / math.Sqrt(aa*bb)
	}
	rain := vector("rain")
	fmt.Println(vecs.Len(), "words")
	fmt.Println("rain is nearer weather than rent:", cosine(rain, vector("weather")) > cosine(rain, vector("rent")))
	// Output:
	// 10000 words
	// rain is nearer weather than rent: true
}
