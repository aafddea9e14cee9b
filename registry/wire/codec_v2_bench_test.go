//go:build goexperiment.jsonv2

package wire

import jsonv2 "encoding/json/v2"

// With GOEXPERIMENT=jsonv2, BenchmarkCodec sets encoding/json/v2 beside the
// others.
func init() {
	codecs = append(codecs, codec{"encoding-json-v2",
		func(r oaRequest) ([]byte, error) { return jsonv2.Marshal(r) },
		func(b []byte, c *oaChunk) error { return jsonv2.Unmarshal(b, c) }})
}
