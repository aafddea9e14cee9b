// Package tokens counts tokens with real BPE tokenizers (o200k_base and
// cl100k_base), their data embedded so counting works offline.
//
// The encodings come from github.com/tiktoken-go/tokenizer, which compiles
// each vocabulary into the binary; a Counter loads an encoding into memory the
// first time it counts with it. Text is counted as ordinary text, the way
// OpenAI's tiktoken counts it with encode_ordinary: markers of special tokens
// such as "<|endoftext|>" are split like any other text, and nothing is
// normalized.
//
// The counts are checked against gpt-tokenizer, an independent JS
// implementation with its own data: web/packages/toolroute/scripts/count-tokens.mjs writes its
// counts of testdata/tokens/cases.json to testdata/tokens/expected.json, which
// the tests here compare with and web/packages/toolroute/test/tokens.test.js keeps current.
package tokens
