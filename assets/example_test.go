package assets_test

import (
	"fmt"

	"github.com/toolroute/toolroute/assets"
)

// A Go host that drives the module itself hands it the word vectors as
// host.New does (host.ModuleConfig.WordVectors = assets.WordVectors); Vectors
// reads the same bytes for a native index.
func ExampleVectors() {
	v := assets.Vectors()
	r, _ := v.Rank("the")
	fmt.Printf("%d words of %d dimensions, commonest first: %q is %d\n", v.Len(), v.Dim(), "the", r)
	// Output: 10000 words of 46 dimensions, commonest first: "the" is 0
}
