// Package tokens counts tokens with real BPE tokenizers (o200k_base and
// cl100k_base), their data embedded so counting works offline.
package tokens

import _ "github.com/tiktoken-go/tokenizer"
