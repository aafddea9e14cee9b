package sentenc

import "testing"

// A MetaTool-like query (about 15 tokens) and a tool's description for the
// model (about 60 tokens).
const (
	benchQuery = "I'm planning a trip to Tokyo next month; can you find me flights and a hotel?"
	benchTool  = "Plugin for searching flights, hotels and car rentals. Use it whenever a user asks to plan travel, compare prices, or book a trip; give the origin, destination, dates and the number of travellers, and it answers with options sorted by price and a link to book each one."
)

func BenchmarkEmbedQuery(b *testing.B) {
	e := encoder(b)
	b.ReportAllocs()
	for b.Loop() {
		e.Embed(benchQuery)
	}
}

func BenchmarkEmbedTool(b *testing.B) {
	e := encoder(b)
	b.ReportAllocs()
	for b.Loop() {
		e.Embed(benchTool)
	}
}

func BenchmarkTokens(b *testing.B) {
	e := encoder(b)
	b.ReportAllocs()
	for b.Loop() {
		e.Tokens(benchTool)
	}
}

func BenchmarkLoad(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := New(Model); err != nil {
			b.Fatal(err)
		}
	}
}
