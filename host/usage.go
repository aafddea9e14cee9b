package host

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"github.com/toolroute/toolroute/internal/tokens"
	"github.com/toolroute/toolroute/registry/session"
	"github.com/toolroute/toolroute/registry/wire"
)

// CallUsage is one model call of a turn: its number, what the provider
// said it cost, and what it spent on tool schemas.
type CallUsage struct {
	Call   int          `json:"call"`
	Usage  *wire.Usage  `json:"usage,omitempty"`
	Schema *SchemaUsage `json:"schema,omitempty"`
}

// SchemaUsage is a model call's tool schemas in o200k_base tokens, counted
// in the OpenAI tools JSON `toolroute tokens` counts: the core tools, the
// group listing, and each loaded group. A native request's deferred
// groups, kept out of the context until loaded, are not counted.
type SchemaUsage struct {
	CoreTools    int          `json:"core_tools"`
	GroupListing int          `json:"group_listing"`
	LoadedGroups []GroupUsage `json:"loaded_groups,omitempty"`
}

// GroupUsage is a loaded group's share of a call's schemas.
type GroupUsage struct {
	Group  string `json:"group"`
	Tokens int    `json:"tokens"`
}

// Total is the schemas' tokens altogether.
func (s *SchemaUsage) Total() int {
	n := s.CoreTools + s.GroupListing
	for _, g := range s.LoadedGroups {
		n += g.Tokens
	}
	return n
}

// schemaUsage counts in tokens the schemas a model request says it sends:
// the texts of its parts, which the module gives (Settings.SchemaText).
func (h *Host) schemaUsage(req *session.ModelRequest) *SchemaUsage {
	s := req.Schema
	if s == nil {
		return nil
	}
	count := func(text string) int { return countTokens(text, h.opts.TokenCountFile) }
	out := &SchemaUsage{CoreTools: count(s.CoreToolsText), GroupListing: count(s.GroupListingText)}
	for _, g := range s.LoadedGroups {
		out.LoadedGroups = append(out.LoadedGroups, GroupUsage{Group: g.Group, Tokens: count(g.Text)})
	}
	return out
}

// countTokens counts text's o200k tokens, remembering the answer: each
// model call counts the same few texts again (the group listing, the core
// tools, each loaded group's), and tokenizing them was a tenth of a turn's
// time in the host. With a file (Options.TokenCountFile), the answers are
// kept there too, so that a new process's first turn finds them rather
// than loading the tokenizer's table (tens of milliseconds and about
// 10 MB).
func countTokens(text, file string) int {
	if text == "" {
		return 0
	}
	tokenCounts.mu.Lock()
	n, ok := tokenCounts.m[text]
	tokenCounts.mu.Unlock()
	if ok {
		return n
	}
	var key string
	if file != "" {
		sum := sha256.Sum256([]byte(text))
		key = hex.EncodeToString(sum[:16])
		if n, ok := tokenFiles.lookup(file, key); ok {
			tokenCounts.remember(text, n)
			return n
		}
	}
	n, err := tokens.Count(tokens.O200kBase, text)
	if err != nil {
		return 0
	}
	tokenCounts.remember(text, n)
	if file != "" {
		tokenFiles.add(file, key, n)
	}
	return n
}

// maxTokenCounts bounds the texts countTokens remembers, in memory and in
// a file.
const maxTokenCounts = 1024

var tokenCounts memo

// memo is the token counts remembered in memory, by text.
type memo struct {
	mu sync.Mutex
	m  map[string]int
}

func (c *memo) remember(text string, n int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil || len(c.m) >= maxTokenCounts {
		c.m = map[string]int{} // catalogues change rarely: start again
	}
	c.m[text] = n
}

// tokenFiles are the files of token counts read, by name: each line is
// a text's key (the hex of its SHA-256's first 16 bytes), a space and
// its count.
var tokenFiles = countFiles{files: map[string]map[string]int{}}

type countFiles struct {
	mu    sync.Mutex
	files map[string]map[string]int
}

// read returns the counts of file, reading it the first time. The caller
// holds c.mu.
func (c *countFiles) read(file string) map[string]int {
	if m, ok := c.files[file]; ok {
		return m
	}
	m := map[string]int{}
	if data, err := os.ReadFile(file); err == nil {
		for line := range strings.Lines(string(data)) {
			key, count, ok := strings.Cut(strings.TrimSpace(line), " ")
			if n, err := strconv.Atoi(count); ok && err == nil && len(key) == 32 && n >= 0 {
				m[key] = n
			}
		}
	}
	c.files[file] = m
	return m
}

func (c *countFiles) lookup(file, key string) (int, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	n, ok := c.read(file)[key]
	return n, ok
}

// add records a count in file, appending it, or starting the file again
// once it holds maxTokenCounts. A file that cannot be written is left:
// the counts are only a saving.
func (c *countFiles) add(file, key string, n int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	m := c.read(file)
	flags := os.O_WRONLY | os.O_CREATE | os.O_APPEND
	if len(m) >= maxTokenCounts {
		clear(m)
		flags = os.O_WRONLY | os.O_CREATE | os.O_TRUNC
	}
	m[key] = n
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		return
	}
	f, err := os.OpenFile(file, flags, 0o644)
	if err != nil {
		return
	}
	fmt.Fprintf(f, "%s %d\n", key, n)
	f.Close()
}
