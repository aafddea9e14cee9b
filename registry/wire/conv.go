package wire

import (
	"bytes"
	"fmt"
	"sync"
	"unsafe"
)

// Conv is a conversation encoded in one format as it grows, so that a
// model call costs the messages added since the last, not the whole
// history: each message appended is converted and encoded once, and
// Encode splices those bytes into the request body. The body is byte for
// byte the one Encode gives for the whole conversation.
//
// A Conv holds bytes and at most one structured message (the last, which
// a later message may merge into in the formats that merge turns of one
// role), so a long conversation costs the garbage collector little. It is
// not safe for concurrent use.
type Conv struct {
	format Format
	// final is the encoded elements of the request's conversation array
	// that no later message changes, comma-separated.
	final []byte
	els   int
	// anOpen and gmOpen are the last Anthropic message or Gemini content,
	// which a later message of the same role joins.
	anOpen *anMessage
	gmOpen *gmContent
	// searches is, in the Responses format, whether the first call with
	// each id was a tool search: a later result finds its call by id.
	searches map[string]bool
	// spare is a body Encode gave whose holder is done with it (Reuse):
	// the next body is built in it, with no new memory to clear.
	spare []byte
	// tools is the request's tools value as encoded last, for the tools
	// in toolsOf: a turn sends the same tools until a load.
	tools   []byte
	toolsOf Request
	// cache holds what the Conv encoded that does not depend on the
	// conversation: its own, or one shared by the Convs of a catalogue.
	cache *Cache
	// tail is the newer messages of the last Encode, encoded as elements
	// of the conversation (tailEls of them), while hasTail: in the
	// formats that encode each message on its own (OpenAI).
	tail    []byte
	tailEls int
	hasTail bool
	// oaTail is memory for the newer messages' structures while an
	// OpenAI request is encoded.
	oaTail []oaMessage
}

// Cache keeps what requests encode the same way whatever their
// conversation: the OpenAI system message, each tool's element of an
// OpenAI tools value, and the tools values of the lists of definitions
// sent before. Convs that share one (Conv.Share), such as every
// turn's with one catalogue, encode each tool once rather than once per
// turn. It is safe for concurrent use.
type Cache struct {
	mu sync.Mutex
	// system is the system message with the text systemText, encoded.
	system     []byte
	systemText string
	// entries are each tool's element of the tools value, by the address
	// of its schema; an entry keeps the definition, so that memory is not
	// reused for another while the entry is kept.
	entries map[*byte]toolEntry
	// values are whole tools values, encoded.
	values map[valueKey]toolsValue
}

// NewCache returns an empty Cache.
func NewCache() *Cache {
	return &Cache{entries: map[*byte]toolEntry{}, values: map[valueKey]toolsValue{}}
}

// Share makes c keep what it encodes apart from the conversation in cache
// and use what cache holds.
func (c *Conv) Share(cache *Cache) {
	if cache != nil {
		c.cache = cache
	}
}

// caches is the Conv's Cache, made at its first use.
func (c *Conv) caches() *Cache {
	if c.cache == nil {
		c.cache = NewCache()
	}
	return c.cache
}

// entry is the encoded tools value element of t, as appendOATools writes
// it, encoded before for the very same definition or now.
func (k *Cache) entry(t ToolDef) ([]byte, error) {
	key := unsafe.SliceData(t.Parameters)
	k.mu.Lock()
	e, ok := k.entries[key]
	k.mu.Unlock()
	if ok && sameDef(e.def, t) {
		return e.json, nil
	}
	el, err := appendOATools(nil, []oaTool{{Type: "function", Function: oaFunctionDef{Name: t.Name, Description: t.Description, Parameters: t.Parameters}}})
	if err != nil {
		return nil, err
	}
	e = toolEntry{def: t, json: el[1 : len(el)-1]}
	k.mu.Lock()
	k.entries[key] = e
	k.mu.Unlock()
	return e.json, nil
}

// toolEntry is a tool's encoded element of a tools value.
type toolEntry struct {
	def  ToolDef
	json []byte
}

// encodedTools is a tools value a build function encoded itself.
type encodedTools struct {
	json []byte
	err  error
}

// oaTools encodes the OpenAI tools value of tools, as appendOATools does,
// from the elements encoded before for the very same definitions.
func (c *Conv) oaTools(tools []ToolDef) encodedTools {
	cache := c.caches()
	var few [32][]byte
	els := few[:0]
	n := 2 + len(tools)
	for _, t := range tools {
		el, err := cache.entry(t)
		if err != nil {
			return encodedTools{err: err}
		}
		els = append(els, el)
		n += len(el)
	}
	b := make([]byte, 0, n)
	b = append(b, '[')
	for i, el := range els {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, el...)
	}
	return encodedTools{json: append(b, ']')}
}

// toolsValue is a request's tools value: build's value, encoded, or with
// a Conv the bytes it encoded for the same tools before. n is how many
// tools build gives: none leaves the field out.
func (c *Conv) toolsValue(r Request, n int, build func() any) (any, error) {
	if n == 0 {
		return nil, nil
	}
	if c == nil {
		return build(), nil
	}
	if c.tools != nil && sameTools(c.toolsOf, r) {
		return encodedJSON(c.tools), nil
	}
	cache := c.caches()
	key := valueKey{format: c.format}
	if len(r.Tools) > 0 {
		key.first = &r.Tools[0]
		if v, ok := cache.value(key); ok && sameTools(v.of, r) {
			c.tools, c.toolsOf = v.json, v.of
			return encodedJSON(v.json), nil
		}
	}
	var b []byte
	var err error
	if v := build(); v != nil {
		if enc, ok := v.(encodedTools); ok {
			b, err = enc.json, enc.err
		} else {
			b, err = marshal(v)
		}
	}
	if err != nil {
		return nil, err
	}
	// toolsOf keeps the definitions themselves, so their memory is not
	// reused for others while they are compared by address.
	c.tools = b
	c.toolsOf = Request{Tools: r.Tools, Deferred: r.Deferred, Search: r.Search}
	if key.first != nil {
		cache.keep(key, toolsValue{of: c.toolsOf, json: b})
	}
	return encodedJSON(b), nil
}

// valueKey names a tools value in a Cache: its format and the address of
// its first definition, as a catalogue's turns send the very same list.
type valueKey struct {
	format Format
	first  *ToolDef
}

// toolsValue is an encoded tools value and the request it is the value
// of, which keeps the definitions it is compared with by address.
type toolsValue struct {
	of   Request
	json []byte
}

// maxValues bounds the tools values a Cache keeps.
const maxValues = 256

func (k *Cache) value(key valueKey) (toolsValue, bool) {
	k.mu.Lock()
	defer k.mu.Unlock()
	v, ok := k.values[key]
	return v, ok
}

func (k *Cache) keep(key valueKey, v toolsValue) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if len(k.values) >= maxValues {
		clear(k.values)
	}
	k.values[key] = v
}

// encodedJSON is JSON this package encoded itself, compact: a body takes
// it as it is rather than checking and compacting it again.
type encodedJSON []byte

// MarshalJSON is the JSON itself, for encoding/json.
func (e encodedJSON) MarshalJSON() ([]byte, error) { return e, nil }

// sameTools reports whether a and b send the very same tool definitions:
// the same strings and schemas in memory, as a turn's calls with one
// catalogue do. Definitions alike but elsewhere count as different.
func sameTools(a, b Request) bool {
	same := sameDef
	if len(a.Tools) != len(b.Tools) || len(a.Deferred) != len(b.Deferred) || (a.Search == nil) != (b.Search == nil) {
		return false
	}
	for i := range a.Tools {
		if !same(a.Tools[i], b.Tools[i]) {
			return false
		}
	}
	for i, g := range a.Deferred {
		h := b.Deferred[i]
		if g.Name != h.Name || g.Description != h.Description || len(g.Tools) != len(h.Tools) {
			return false
		}
		for j := range g.Tools {
			if !same(g.Tools[j], h.Tools[j]) {
				return false
			}
		}
	}
	return a.Search == nil || same(*a.Search, *b.Search)
}

// sameDef reports whether x and y are the very same definition: the same
// name, and the same description and schema in memory.
func sameDef(x, y ToolDef) bool {
	return x.Name == y.Name && unsafe.StringData(x.Description) == unsafe.StringData(y.Description) &&
		len(x.Description) == len(y.Description) && unsafe.SliceData(x.Parameters) == unsafe.SliceData(y.Parameters) &&
		len(x.Parameters) == len(y.Parameters)
}

// Reuse gives back a body Encode returned, which its holder no longer
// reads: the next Encode may build its body in that memory.
func (c *Conv) Reuse(body []byte) {
	if cap(body) > cap(c.spare) {
		c.spare = body[:0]
	}
}

// NewConv returns an empty conversation in format f.
func NewConv(f Format) (*Conv, error) {
	if _, err := ParseFormat(string(f)); err != nil {
		return nil, err
	}
	return &Conv{format: f}, nil
}

// Format is the conversation's format.
func (c *Conv) Format() Format { return c.format }

// Grow makes room for about n more bytes of encoded conversation: a long
// history appended response by response then takes one piece of memory,
// not a chain of larger and larger ones, each left for the collector,
// whose memory the next, larger, cannot reuse.
func (c *Conv) Grow(n int) {
	if n > cap(c.final)-len(c.final) {
		c.final = append(make([]byte, 0, len(c.final)+n), c.final...)
	}
}

// Size is the bytes the conversation holds, about.
func (c *Conv) Size() int { return len(c.final) }

func (c *Conv) empty() bool {
	return c == nil || (c.els == 0 && c.anOpen == nil && c.gmOpen == nil)
}

// Append adds messages at the end of the conversation. They must be
// messages no later message changes: a response with all its results.
// On an error the conversation is unchanged.
func (c *Conv) Append(msgs []Message) error {
	// The elements are encoded straight after c.final, in its spare
	// capacity, which nothing reads: on an error c.final is as it was.
	final := c.final
	els := 0
	add := func(v any) error {
		b := final
		if len(b) > 0 {
			b = append(b, ',')
		}
		b, ok, err := appendKnown(b, v)
		if !ok {
			var raw []byte
			if raw, err = marshalReflect(v); err == nil {
				b = append(b, raw...)
			}
		}
		if err != nil {
			return err
		}
		final = b
		els++
		return nil
	}
	switch c.format {
	case OpenAI:
		var out []oaMessage
		for i := range msgs {
			var err error
			if out, err = oaAppend(out, &msgs[i]); err != nil {
				return err
			}
		}
		for _, m := range out {
			if err := add(m); err != nil {
				return err
			}
		}
	case Anthropic:
		var out []anMessage
		if c.anOpen != nil {
			out = append(out, *c.anOpen)
		}
		for _, m := range msgs {
			var err error
			if out, err = anAppend(out, m); err != nil {
				return err
			}
		}
		// The last message stays open: the next may join it.
		for _, m := range out[:max(len(out)-1, 0)] {
			if err := add(m); err != nil {
				return err
			}
		}
		if len(out) > 0 {
			c.anOpen = &out[len(out)-1]
		}
	case Responses:
		searches := map[string]bool{}
		searched := func(id string) bool {
			if s, ok := c.searches[id]; ok {
				return s
			}
			return searched(msgs, id)
		}
		var out []rsItem
		for _, m := range msgs {
			var err error
			if out, err = rsAppend(out, m, searched); err != nil {
				return err
			}
			for _, call := range m.Calls {
				if _, ok := c.searches[call.ID]; !ok {
					if _, ok := searches[call.ID]; !ok {
						searches[call.ID] = call.Search
					}
				}
			}
		}
		for _, it := range out {
			if err := add(it); err != nil {
				return err
			}
		}
		if len(searches) > 0 && c.searches == nil {
			c.searches = map[string]bool{}
		}
		for _, m := range msgs {
			for _, call := range m.Calls {
				if s, ok := searches[call.ID]; ok {
					c.searches[call.ID] = s
				}
			}
		}
	case Gemini:
		var out []gmContent
		if c.gmOpen != nil {
			out = append(out, *c.gmOpen)
		}
		for _, m := range msgs {
			var err error
			if out, err = gmAppend(out, m); err != nil {
				return err
			}
		}
		for _, m := range out[:max(len(out)-1, 0)] {
			if err := add(m); err != nil {
				return err
			}
		}
		if len(out) > 0 {
			c.gmOpen = &out[len(out)-1]
		}
	default:
		return fmt.Errorf("%w: %q", ErrUnknownFormat, c.format)
	}
	c.final = final
	c.els += els
	c.hasTail = false
	return nil
}

// AppendTail adds the newer messages of the last Encode at the end of the
// conversation, as Append would add them, from the bytes Encode wrote for
// them: for a caller whose newer messages closed unchanged since. It
// answers false, and adds nothing, when the last Encode left none to
// take: in a format whose messages join the next (Anthropic, Gemini) or
// keep state (Responses), after an error, or once taken.
func (c *Conv) AppendTail() bool {
	if !c.hasTail {
		return false
	}
	c.hasTail = false
	if c.tailEls > 0 {
		if len(c.final) > 0 {
			c.final = append(c.final, ',')
		}
		c.final = append(c.final, c.tail...)
		c.els += c.tailEls
	}
	return true
}

// Encode builds the request for a model call whose conversation is c's
// messages followed by r.Messages (which, unlike c's, may still change:
// the response whose results are coming in). The body is the one
// Encode(c.Format(), r with every message) gives.
func (c *Conv) Encode(r Request) (HTTPRequest, error) {
	return encode(c.format, r, c)
}

// splice inserts the encoded elements, given in parts, in front of the
// elements of the body's array named key: the first `"key":[` in the body,
// which the encoders write before any value that could hold those bytes
// (inside a JSON string a quote is always escaped). The result is built in
// the spare body when there is one big enough.
func (c *Conv) splice(body []byte, key string, parts ...[]byte) []byte {
	n := 0
	for _, p := range parts {
		n += len(p)
	}
	if n == 0 {
		return body
	}
	marker := []byte(`"` + key + `":[`)
	i := bytes.Index(body, marker)
	if i < 0 {
		return body // not reached: every encoder writes the array
	}
	i += len(marker)
	out := c.spare
	c.spare = nil
	if size := len(body) + n + 1; cap(out) < size {
		out = make([]byte, 0, size)
	}
	out = append(out[:0], body[:i]...)
	for _, p := range parts {
		out = append(out, p...)
	}
	if body[i] != ']' {
		out = append(out, ',')
	}
	return append(out, body[i:]...)
}
