package tokens

import (
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/tiktoken-go/tokenizer/codec"
)

// O200kBase names the encoding of GPT-4o, GPT-4.1, GPT-5 and the o-series.
const O200kBase = "o200k_base"

// Cl100kBase names the encoding of GPT-4 and GPT-3.5 Turbo.
const Cl100kBase = "cl100k_base"

// encodings lists the supported encodings with their constructors; a Counter
// keeps one codec per entry, at the same index. Calling the constructors
// directly, rather than through tokenizer.Get, links in only these two
// vocabularies.
var encodings = [...]encodingSpec{
	{O200kBase, codec.NewO200kBase},
	{Cl100kBase, codec.NewCl100kBase},
}

// encodingSpec names an encoding and constructs its codec.
type encodingSpec struct {
	name string
	load func() *codec.Codec
}

// Encodings lists the supported encodings: "o200k_base", "cl100k_base".
func Encodings() []string {
	names := make([]string, len(encodings))
	for i, e := range encodings {
		names[i] = e.name
	}
	return names
}

// A Counter caches the loaded encodings; the package-level Count uses a shared
// one. Each encoding is loaded once, on its first use, so a program pays in
// memory only for the encodings it counts with. The zero Counter is ready to
// use, and a Counter is safe for concurrent use; it must not be copied after
// first use.
type Counter struct {
	codecs [len(encodings)]lazyCodec
}

// lazyCodec loads one encoding on first use.
type lazyCodec struct {
	once  sync.Once
	codec *codec.Codec
}

// shared is the Counter behind the package-level Count.
var shared Counter

// Count returns how many tokens text is in the encoding, using a Counter
// shared by the whole program.
func Count(encoding, text string) (int, error) {
	return shared.Count(encoding, text)
}

// Count returns how many tokens text is in the encoding. Text is counted as
// ordinary text, as tiktoken's encode_ordinary does: a special-token marker
// such as "<|endoftext|>" is split like any other text. Text is read as UTF-8,
// each byte of an invalid sequence as U+FFFD.
func (c *Counter) Count(encoding, text string) (int, error) {
	bpe, err := c.load(encoding)
	if err != nil {
		return 0, err
	}
	n, err := bpe.Count(text)
	if err != nil {
		return 0, fmt.Errorf("tokens: counting in %s: %w", encoding, err)
	}
	return n, nil
}

// load returns the encoding's codec, loading it on first use.
func (c *Counter) load(encoding string) (*codec.Codec, error) {
	i := slices.IndexFunc(encodings[:], func(e encodingSpec) bool { return e.name == encoding })
	if i < 0 {
		return nil, fmt.Errorf("tokens: unknown encoding %q: use one of %s",
			encoding, strings.Join(Encodings(), ", "))
	}
	l := &c.codecs[i]
	l.once.Do(func() { l.codec = encodings[i].load() })
	return l.codec, nil
}
