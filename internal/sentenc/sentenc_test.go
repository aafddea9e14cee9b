package sentenc

import (
	"encoding/json"
	"errors"
	"math"
	"os"
	"slices"
	"testing"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// reference is testdata/reference.json, written by testdata/reference.js
// with the TF.js implementation (@energetic-ai/embeddings 0.2.0).
type reference struct {
	Text string    `json:"text"`
	IDs  []int     `json:"ids"`
	Vec  []float64 `json:"vec"`
}

func loadReference(t *testing.T) []reference {
	t.Helper()
	raw, err := os.ReadFile("testdata/reference.json")
	if err != nil {
		t.Fatal(err)
	}
	var refs []reference
	if err := json.Unmarshal(raw, &refs); err != nil {
		t.Fatal(err)
	}
	return refs
}

func encoder(t testing.TB) *Encoder {
	t.Helper()
	e, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func TestTokensMatchReference(t *testing.T) {
	e := encoder(t)
	for _, r := range loadReference(t) {
		t.Run(r.Text, func(t *testing.T) {
			got := e.Tokens(r.Text)
			if len(r.IDs) == 0 {
				r.IDs = []int{}
			}
			if !slices.Equal(got, r.IDs) {
				t.Errorf("Tokens(%q)\n got %v\nwant %v", r.Text, got, r.IDs)
			}
		})
	}
}

// The int8 weights move each value by at most about 0.012 from the float32
// model's (whose vectors match TF.js's to 1e-6; see internal/usegen -f32).
func TestEmbedMatchesReference(t *testing.T) {
	e := encoder(t)
	n := 0
	for _, r := range loadReference(t) {
		if r.Vec == nil {
			continue
		}
		n++
		t.Run(r.Text, func(t *testing.T) {
			v := e.Embed(r.Text)
			if len(v) != len(r.Vec) {
				t.Fatalf("len %d, want %d", len(v), len(r.Vec))
			}
			var cos, maxDiff float64
			for i, want := range r.Vec {
				cos += want * float64(v[i])
				maxDiff = math.Max(maxDiff, math.Abs(want-float64(v[i])))
			}
			if cos < 0.998 || maxDiff > 0.02 {
				t.Errorf("cosine with the reference %.5f (want ≥ 0.998), largest difference %.4f (want ≤ 0.02)", cos, maxDiff)
			}
		})
	}
	if n < 5 {
		t.Fatalf("only %d reference vectors", n)
	}
}

func TestEmbedIsUnitAndFinite(t *testing.T) {
	e := encoder(t)
	for _, text := range []string{"", " ", "\x00", "\xff\xfe", "a", "one two three"} {
		v := e.Embed(text)
		if len(v) != Dim {
			t.Fatalf("Embed(%q): len %d", text, len(v))
		}
		var sum float64
		for _, x := range v {
			if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
				t.Fatalf("Embed(%q) has %v", text, x)
			}
			sum += float64(x) * float64(x)
		}
		if math.Abs(sum-1) > 1e-4 {
			t.Errorf("Embed(%q): squared norm %v, want 1", text, sum)
		}
	}
}

// A text of many tokens is read up to MaxTokens: what follows changes
// nothing.
func TestEmbedKeepsMaxTokens(t *testing.T) {
	e := encoder(t)
	long := ""
	for len(e.Tokens(long)) < MaxTokens+10 {
		long += "tool search by meaning, "
	}
	a, b := e.Embed(long), e.Embed(long+" and something else entirely about weather")
	if !slices.Equal(a, b) {
		t.Errorf("words after the first %d tokens changed the vector", MaxTokens)
	}
}

func TestCloserInMeaningScoresHigher(t *testing.T) {
	e := encoder(t)
	tests := []struct{ query, near, far string }{
		{"send a note to my boss", "compose and send an email", "get the weather forecast for a city"},
		{"will it rain tomorrow in Oslo", "get the weather forecast for a city", "convert an amount between currencies"},
		{"how many euros is 20 dollars", "convert an amount between currencies", "search for flights between airports"},
	}
	for _, tt := range tests {
		q := e.Embed(tt.query)
		near, far := Dot(q, e.Embed(tt.near)), Dot(q, e.Embed(tt.far))
		if near <= far {
			t.Errorf("%q: %q scores %.3f, not above %q at %.3f", tt.query, tt.near, near, tt.far, far)
		}
	}
}

func TestNewRefusesBadFiles(t *testing.T) {
	tests := []struct {
		name string
		data []byte
	}{
		{"empty", nil},
		{"wrong magic", []byte("NOTUSE01\x00\x00\x00\x00")},
		{"truncated", Model[:len(Model)/2]},
		{"no records", []byte("USELITE1\x00\x00\x00\x00")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := New(tt.data); !errors.Is(err, ErrModel) {
				t.Errorf("New: %v, want ErrModel", err)
			}
		})
	}
}

func nfkcOf(t testing.TB) *nfkc { return encoder(t).tok.nfkc }

// The tables come from golang.org/x/text; each code point alone and some
// sequences normalise as x/text does.
func TestNFKCMatchesXText(t *testing.T) {
	n := nfkcOf(t)
	for r := rune(0); r <= utf8.MaxRune; r++ {
		if r >= 0xD800 && r <= 0xDFFF {
			continue
		}
		s := string(r)
		if got, want := n.normalize(s), norm.NFKC.String(s); got != want {
			t.Fatalf("normalize(%U) = %+q, want %+q", r, got, want)
		}
	}
	for _, s := range []string{
		"e\u0301", "a\u0323\u0307", "q\u0307\u0323", "o\u0308\u0301", "\u1100\u1161\u11a8",
		"\u1112\u1161\u11ab\u1100", "A\u030a\u0301", "ﬃ ① Ⅻ ㍿", "\u0301a", "e\u0301\u0301", "\u0344",
	} {
		if got, want := n.normalize(s), norm.NFKC.String(s); got != want {
			t.Errorf("normalize(%+q) = %+q, want %+q", s, got, want)
		}
	}
}

func FuzzNFKC(f *testing.F) {
	for _, s := range []string{"e\u0301", "Ǖ ǖ ṩ ḉ", "한국어", "\xff", "ﬁ"} {
		f.Add(s)
	}
	n := nfkcOf(f)
	f.Fuzz(func(t *testing.T, s string) {
		if !utf8.ValidString(s) {
			return
		}
		if got, want := n.normalize(s), norm.NFKC.String(s); got != want {
			t.Errorf("normalize(%+q) = %+q, want %+q", s, got, want)
		}
	})
}

func FuzzEmbed(f *testing.F) {
	for _, s := range []string{"", "hello", "\xff\xfe", "▁▁", "a\tb"} {
		f.Add(s)
	}
	e := encoder(f)
	f.Fuzz(func(t *testing.T, s string) {
		if len(s) > 2000 {
			return
		}
		v := e.Embed(s)
		if len(v) != Dim {
			t.Fatalf("len %d", len(v))
		}
		for _, x := range v {
			if math.IsNaN(float64(x)) {
				t.Fatalf("NaN for %q", s)
			}
		}
	})
}

// The assembly kernels and the Go loops give the same vectors, to float32
// rounding (they add in a different order).
func TestGoLoopsMatchKernels(t *testing.T) {
	if !haveFMA {
		t.Skip("no AVX2 and FMA here: only the Go loops run")
	}
	e := encoder(t)
	text := "Plan a trip: flights, hotels & car rental for five people"
	fast := e.Embed(text)
	haveFMA = false
	slow := e.Embed(text)
	haveFMA = true
	for i := range fast {
		if d := math.Abs(float64(fast[i] - slow[i])); d > 1e-5 {
			t.Fatalf("value %d: kernels %v, Go loops %v", i, fast[i], slow[i])
		}
	}
}

// With float32 weights (go run ./internal/usegen -f32 -pkg DIR -out FILE,
// then SENTENC_F32_MODEL=FILE) the vectors are TF.js's to its rounding.
// Skipped without the file, which is not committed (28 MB).
func TestFloat32ModelMatchesReference(t *testing.T) {
	path := os.Getenv("SENTENC_F32_MODEL")
	if path == "" {
		t.Skip("SENTENC_F32_MODEL is not set")
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	e, err := New(data)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range loadReference(t) {
		if r.Vec == nil {
			continue
		}
		v := e.Embed(r.Text)
		for i, want := range r.Vec {
			if d := math.Abs(want - float64(v[i])); d > 2e-5 {
				t.Errorf("%q: value %d is %v, want %v", r.Text, i, v[i], want)
				break
			}
		}
	}
}
