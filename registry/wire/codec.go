package wire

import (
	"encoding/json"
	"slices"
	"strconv"

	"github.com/toolroute/toolroute/registry/internal/jsonenc"
)

// The request values every model call encodes, in every format, written
// by hand with jsonenc rather than by encoding/json's reflection: in wasm
// the hand-written encoder takes about 2/3 of encoding/json's time in
// steady state and a quarter on a new instance's first call, and the
// decoders under half and a sixth (BenchmarkCodec; docs/design/wire-formats.md
// says why they stay hand-written). Each writes its struct's fields in
// order, with their tags' names and omitempty, as encoding/json would
// (without HTML escaping, as marshal): FuzzCodec compares the two on random
// values.

// appendKnown appends v when it is a value written by hand, and reports
// whether it was.
func appendKnown(dst []byte, v any) ([]byte, bool, error) {
	switch v := v.(type) {
	case oaRequest:
		b, err := v.appendJSON(dst)
		return b, true, err
	case oaMessage:
		return v.appendJSON(dst), true, nil
	case []oaMessage:
		return appendOAMessages(dst, v), true, nil
	case []oaTool:
		b, err := appendOATools(dst, v)
		return b, true, err
	case anRequest:
		b, err := v.appendJSON(dst)
		return b, true, err
	case anMessage:
		b, err := v.appendJSON(dst)
		return b, true, err
	case []anTool:
		b, err := appendANTools(dst, v)
		return b, true, err
	case rsRequest:
		b, err := v.appendJSON(dst)
		return b, true, err
	case rsItem:
		b, err := v.appendJSON(dst)
		return b, true, err
	case []rsPart:
		return appendRSParts(dst, v), true, nil
	case string:
		return jsonenc.String(dst, v, false), true, nil
	case map[string]string:
		return appendStringMap(dst, v), true, nil
	case gmRequest:
		b, err := v.appendJSON(dst)
		return b, true, err
	case gmContent:
		b, err := v.appendJSON(dst)
		return b, true, err
	case []gmTool:
		b, err := appendGMTools(dst, v)
		return b, true, err
	case []any:
		b, err := appendRSTools(dst, v)
		return b, true, err
	case []rsNamespace:
		b, err := appendRSTools(dst, anys(v))
		return b, true, err
	}
	return dst, false, nil
}

// appendJSON appends the request. Its messages array starts with the
// encoded elements in before, if any (each part comma-separated elements,
// as Conv.final), which the messages of r follow.
func (r oaRequest) appendJSON(b []byte, before ...[]byte) ([]byte, error) {
	b = append(b, `{"model":`...)
	b = jsonenc.String(b, r.Model, false)
	b = append(b, `,"messages":`...)
	n := 0
	for _, p := range before {
		n += len(p)
	}
	if n == 0 {
		b = appendOAMessages(b, r.Messages)
	} else {
		b = append(b, '[')
		first := true
		for _, p := range before {
			if len(p) > 0 {
				if !first {
					b = append(b, ',')
				}
				b = append(b, p...)
				first = false
			}
		}
		for _, m := range r.Messages {
			b = append(b, ',')
			b = m.appendJSON(b)
		}
		b = append(b, ']')
	}
	if r.Tools != nil {
		b = append(b, `,"tools":`...)
		var err error
		switch t := r.Tools.(type) {
		case encodedJSON:
			b = append(b, t...)
		case json.RawMessage:
			b, err = jsonenc.Raw(b, t, false)
		case []oaTool:
			b, err = appendOATools(b, t)
		default:
			var v []byte
			if v, err = marshalReflect(t); err == nil {
				b = append(b, v...)
			}
		}
		if err != nil {
			return nil, err
		}
	}
	if r.Stream {
		b = append(b, `,"stream":true`...)
	}
	if o := r.StreamOptions; o != nil {
		b = append(b, `,"stream_options":{"include_usage":`...)
		b = strconv.AppendBool(b, o.IncludeUsage)
		b = append(b, '}')
	}
	if r.MaxCompletionTokens != 0 {
		b = append(b, `,"max_completion_tokens":`...)
		b = jsonenc.Int(b, r.MaxCompletionTokens)
	}
	if r.Temperature != nil {
		b = append(b, `,"temperature":`...)
		var err error
		if b, err = jsonenc.Float(b, *r.Temperature); err != nil {
			return nil, err
		}
	}
	return append(b, '}'), nil
}

func appendOAMessages(b []byte, msgs []oaMessage) []byte {
	if msgs == nil {
		return append(b, "null"...)
	}
	b = append(b, '[')
	for i, m := range msgs {
		if i > 0 {
			b = append(b, ',')
		}
		b = m.appendJSON(b)
	}
	return append(b, ']')
}

func (m oaMessage) appendJSON(b []byte) []byte {
	b = append(b, `{"role":`...)
	b = jsonenc.String(b, m.Role, false)
	switch c := m.Content.(type) {
	case *string:
		b = append(b, `,"content":`...)
		if c == nil {
			b = append(b, "null"...)
		} else {
			b = jsonenc.String(b, *c, false)
		}
	case []oaPart:
		b = append(b, `,"content":`...)
		b = appendOAParts(b, c)
	}
	if len(m.ToolCalls) > 0 {
		b = append(b, `,"tool_calls":[`...)
		for i, c := range m.ToolCalls {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"id":`...)
			b = jsonenc.String(b, c.ID, false)
			b = append(b, `,"type":`...)
			b = jsonenc.String(b, c.Type, false)
			b = append(b, `,"function":{"name":`...)
			b = jsonenc.String(b, c.Function.Name, false)
			b = append(b, `,"arguments":`...)
			b = jsonenc.String(b, c.Function.Arguments, false)
			b = append(b, "}}"...)
		}
		b = append(b, ']')
	}
	if m.ToolCallID != "" {
		b = append(b, `,"tool_call_id":`...)
		b = jsonenc.String(b, m.ToolCallID, false)
	}
	return append(b, '}')
}

func appendOAParts(b []byte, parts []oaPart) []byte {
	if parts == nil {
		return append(b, "null"...)
	}
	b = append(b, '[')
	for i, p := range parts {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"type":`...)
		b = jsonenc.String(b, p.Type, false)
		if p.Text != "" {
			b = append(b, `,"text":`...)
			b = jsonenc.String(b, p.Text, false)
		}
		if p.ImageURL != nil {
			b = append(b, `,"image_url":{"url":`...)
			b = jsonenc.String(b, p.ImageURL.URL, false)
			b = append(b, '}')
		}
		b = append(b, '}')
	}
	return append(b, ']')
}

func appendOATools(b []byte, tools []oaTool) ([]byte, error) {
	if tools == nil {
		return append(b, "null"...), nil
	}
	b = append(b, '[')
	for i, t := range tools {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"type":`...)
		b = jsonenc.String(b, t.Type, false)
		b = append(b, `,"function":{"name":`...)
		b = jsonenc.String(b, t.Function.Name, false)
		b = append(b, `,"description":`...)
		b = jsonenc.String(b, t.Function.Description, false)
		b = append(b, `,"parameters":`...)
		var err error
		if b, err = jsonenc.Raw(b, t.Function.Parameters, false); err != nil {
			return nil, err
		}
		b = append(b, "}}"...)
	}
	return append(b, ']'), nil
}

// buffer is memory to build a body of size bytes, its tools and its newer
// messages in: the spare body given back (Reuse) when it has room for a
// few newer messages, else new memory with room for many. A nil Conv gives
// none.
func (c *Conv) buffer(size int) []byte {
	if c == nil {
		return nil
	}
	size += len(c.tools)
	out := c.spare
	c.spare = nil
	if cap(out) < size+1024 {
		out = make([]byte, 0, size+4096)
	}
	return out[:0]
}

// systemJSON is the system message m encoded, kept for the next calls
// with the same system prompt.
func (c *Conv) systemJSON(text string) []byte {
	k := c.caches()
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.system == nil || k.systemText != text {
		k.systemText, k.system = text, oaMessage{Role: "system", Content: &text}.appendJSON(nil)
	}
	return k.system
}

func (r anRequest) appendJSON(b []byte) ([]byte, error) {
	var err error
	b = append(b, `{"model":`...)
	b = jsonenc.String(b, r.Model, false)
	b = append(b, `,"max_tokens":`...)
	b = jsonenc.Int(b, r.MaxTokens)
	if len(r.System) > 0 {
		b = append(b, `,"system":`...)
		if b, err = appendANBlocks(b, r.System); err != nil {
			return nil, err
		}
	}
	b = append(b, `,"messages":`...)
	if b, err = appendArray(b, r.Messages); err != nil {
		return nil, err
	}
	if r.Tools != nil {
		b = append(b, `,"tools":`...)
		switch t := r.Tools.(type) {
		case encodedJSON:
			b = append(b, t...)
		case json.RawMessage:
			b, err = jsonenc.Raw(b, t, false)
		case []anTool:
			b, err = appendANTools(b, t)
		default:
			var v []byte
			if v, err = marshalReflect(t); err == nil {
				b = append(b, v...)
			}
		}
		if err != nil {
			return nil, err
		}
	}
	if r.Stream {
		b = append(b, `,"stream":true`...)
	}
	if r.Temperature != nil {
		b = append(b, `,"temperature":`...)
		if b, err = jsonenc.Float(b, *r.Temperature); err != nil {
			return nil, err
		}
	}
	return append(b, '}'), nil
}

func (m anMessage) appendJSON(b []byte) ([]byte, error) {
	b = append(b, `{"role":`...)
	b = jsonenc.String(b, m.Role, false)
	b = append(b, `,"content":`...)
	b, err := appendANBlocks(b, m.Content)
	if err != nil {
		return nil, err
	}
	return append(b, '}'), nil
}

func appendANBlocks(b []byte, blocks []anBlock) ([]byte, error) {
	if blocks == nil {
		return append(b, "null"...), nil
	}
	b = append(b, '[')
	for i := range blocks {
		if i > 0 {
			b = append(b, ',')
		}
		var err error
		if b, err = blocks[i].appendJSON(b); err != nil {
			return nil, err
		}
	}
	return append(b, ']'), nil
}

func (k *anBlock) appendJSON(b []byte) ([]byte, error) {
	b = append(b, `{"type":`...)
	b = jsonenc.String(b, k.Type, false)
	for _, f := range [...]struct{ key, value string }{{`,"text":`, k.Text}, {`,"id":`, k.ID}, {`,"name":`, k.Name}} {
		if f.value != "" {
			b = append(b, f.key...)
			b = jsonenc.String(b, f.value, false)
		}
	}
	var err error
	if len(k.Input) > 0 {
		b = append(b, `,"input":`...)
		if b, err = jsonenc.Raw(b, k.Input, false); err != nil {
			return nil, err
		}
	}
	if k.ToolUseID != "" {
		b = append(b, `,"tool_use_id":`...)
		b = jsonenc.String(b, k.ToolUseID, false)
	}
	if len(k.Content) > 0 {
		b = append(b, `,"content":`...)
		if b, err = appendANBlocks(b, k.Content); err != nil {
			return nil, err
		}
	}
	if k.IsError {
		b = append(b, `,"is_error":true`...)
	}
	if s := k.Source; s != nil {
		b = append(b, `,"source":{"type":`...)
		b = jsonenc.String(b, s.Type, false)
		b = append(b, `,"media_type":`...)
		b = jsonenc.String(b, s.MediaType, false)
		b = append(b, `,"data":`...)
		b = jsonenc.String(b, s.Data, false)
		b = append(b, '}')
	}
	if k.Title != "" {
		b = append(b, `,"title":`...)
		b = jsonenc.String(b, k.Title, false)
	}
	if k.ToolName != "" {
		b = append(b, `,"tool_name":`...)
		b = jsonenc.String(b, k.ToolName, false)
	}
	if k.CacheControl != nil {
		b = append(b, `,"cache_control":{"type":`...)
		b = jsonenc.String(b, k.CacheControl.Type, false)
		b = append(b, '}')
	}
	return append(b, '}'), nil
}

func appendANTools(b []byte, tools []anTool) ([]byte, error) {
	if tools == nil {
		return append(b, "null"...), nil
	}
	b = append(b, '[')
	for i, t := range tools {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"name":`...)
		b = jsonenc.String(b, t.Name, false)
		b = append(b, `,"description":`...)
		b = jsonenc.String(b, t.Description, false)
		b = append(b, `,"input_schema":`...)
		var err error
		if b, err = jsonenc.Raw(b, t.InputSchema, false); err != nil {
			return nil, err
		}
		if t.DeferLoading {
			b = append(b, `,"defer_loading":true`...)
		}
		if t.CacheControl != nil {
			b = append(b, `,"cache_control":{"type":`...)
			b = jsonenc.String(b, t.CacheControl.Type, false)
			b = append(b, '}')
		}
		b = append(b, '}')
	}
	return append(b, ']'), nil
}

func (r rsRequest) appendJSON(b []byte) ([]byte, error) {
	var err error
	b = append(b, `{"model":`...)
	b = jsonenc.String(b, r.Model, false)
	if r.Instructions != "" {
		b = append(b, `,"instructions":`...)
		b = jsonenc.String(b, r.Instructions, false)
	}
	b = append(b, `,"input":`...)
	if b, err = appendArray(b, r.Input); err != nil {
		return nil, err
	}
	if r.Tools != nil {
		b = append(b, `,"tools":`...)
		switch t := r.Tools.(type) {
		case encodedJSON:
			b = append(b, t...)
		case json.RawMessage:
			b, err = jsonenc.Raw(b, t, false)
		case []any:
			b, err = appendRSTools(b, t)
		default:
			var v []byte
			if v, err = marshalReflect(t); err == nil {
				b = append(b, v...)
			}
		}
		if err != nil {
			return nil, err
		}
	}
	if r.MaxOutputTokens != 0 {
		b = append(b, `,"max_output_tokens":`...)
		b = jsonenc.Int(b, r.MaxOutputTokens)
	}
	if r.Temperature != nil {
		b = append(b, `,"temperature":`...)
		if b, err = jsonenc.Float(b, *r.Temperature); err != nil {
			return nil, err
		}
	}
	if r.Stream {
		b = append(b, `,"stream":true`...)
	}
	b = append(b, `,"store":`...)
	b = jsonenc.Bool(b, r.Store)
	return append(b, '}'), nil
}

func (it rsItem) appendJSON(b []byte) ([]byte, error) {
	b = append(b, `{"type":`...)
	b = jsonenc.String(b, it.Type, false)
	if it.Role != "" {
		b = append(b, `,"role":`...)
		b = jsonenc.String(b, it.Role, false)
	}
	var err error
	if len(it.Content) > 0 {
		b = append(b, `,"content":`...)
		if b, err = jsonenc.Raw(b, it.Content, false); err != nil {
			return nil, err
		}
	}
	for _, f := range [...]struct{ key, value string }{{`,"call_id":`, it.CallID}, {`,"name":`, it.Name}, {`,"namespace":`, it.Namespace}} {
		if f.value != "" {
			b = append(b, f.key...)
			b = jsonenc.String(b, f.value, false)
		}
	}
	for _, f := range [...]struct {
		key   string
		value json.RawMessage
	}{{`,"arguments":`, it.Arguments}, {`,"output":`, it.Output}} {
		if len(f.value) > 0 {
			b = append(b, f.key...)
			if b, err = jsonenc.Raw(b, f.value, false); err != nil {
				return nil, err
			}
		}
	}
	if it.Execution != "" {
		b = append(b, `,"execution":`...)
		b = jsonenc.String(b, it.Execution, false)
	}
	if it.Status != "" {
		b = append(b, `,"status":`...)
		b = jsonenc.String(b, it.Status, false)
	}
	if len(it.Tools) > 0 {
		b = append(b, `,"tools":`...)
		if b, err = jsonenc.Raw(b, it.Tools, false); err != nil {
			return nil, err
		}
	}
	return append(b, '}'), nil
}

func appendRSParts(b []byte, parts []rsPart) []byte {
	if parts == nil {
		return append(b, "null"...)
	}
	b = append(b, '[')
	for i, p := range parts {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"type":`...)
		b = jsonenc.String(b, p.Type, false)
		if p.Text != "" {
			b = append(b, `,"text":`...)
			b = jsonenc.String(b, p.Text, false)
		}
		if p.ImageURL != "" {
			b = append(b, `,"image_url":`...)
			b = jsonenc.String(b, p.ImageURL, false)
		}
		if p.FileData != "" {
			b = append(b, `,"file_data":`...)
			b = jsonenc.String(b, p.FileData, false)
		}
		if p.Filename != "" {
			b = append(b, `,"filename":`...)
			b = jsonenc.String(b, p.Filename, false)
		}
		b = append(b, '}')
	}
	return append(b, ']')
}

func anys[T any](list []T) []any {
	if list == nil {
		return nil
	}
	out := make([]any, len(list))
	for i, v := range list {
		out[i] = v
	}
	return out
}

// appendRSTools appends a Responses tools value: functions, namespaces and
// the tool search, and anything else as encoding/json writes it.
func appendRSTools(b []byte, tools []any) ([]byte, error) {
	if tools == nil {
		return append(b, "null"...), nil
	}
	b = append(b, '[')
	for i, t := range tools {
		if i > 0 {
			b = append(b, ',')
		}
		var err error
		switch t := t.(type) {
		case rsTool:
			b, err = appendRSTool(b, t)
		case rsNamespace:
			b = append(b, `{"type":`...)
			b = jsonenc.String(b, t.Type, false)
			b = append(b, `,"name":`...)
			b = jsonenc.String(b, t.Name, false)
			b = append(b, `,"description":`...)
			b = jsonenc.String(b, t.Description, false)
			b = append(b, `,"tools":`...)
			if t.Tools == nil {
				b = append(b, "null"...)
			} else {
				b = append(b, '[')
				for j, f := range t.Tools {
					if j > 0 {
						b = append(b, ',')
					}
					if b, err = appendRSTool(b, f); err != nil {
						return nil, err
					}
				}
				b = append(b, ']')
			}
			b = append(b, '}')
		case rsToolSearch:
			b = append(b, `{"type":`...)
			b = jsonenc.String(b, t.Type, false)
			b = append(b, `,"execution":`...)
			b = jsonenc.String(b, t.Execution, false)
			b = append(b, `,"description":`...)
			b = jsonenc.String(b, t.Description, false)
			b = append(b, `,"parameters":`...)
			if b, err = jsonenc.Raw(b, t.Parameters, false); err == nil {
				b = append(b, '}')
			}
		default:
			var v []byte
			if v, err = marshalReflect(t); err == nil {
				b = append(b, v...)
			}
		}
		if err != nil {
			return nil, err
		}
	}
	return append(b, ']'), nil
}

func appendRSTool(b []byte, t rsTool) ([]byte, error) {
	b = append(b, `{"type":`...)
	b = jsonenc.String(b, t.Type, false)
	b = append(b, `,"name":`...)
	b = jsonenc.String(b, t.Name, false)
	b = append(b, `,"description":`...)
	b = jsonenc.String(b, t.Description, false)
	if t.DeferLoading {
		b = append(b, `,"defer_loading":true`...)
	}
	b = append(b, `,"parameters":`...)
	b, err := jsonenc.Raw(b, t.Parameters, false)
	if err != nil {
		return nil, err
	}
	b = append(b, `,"strict":`...)
	b = jsonenc.Bool(b, t.Strict)
	return append(b, '}'), nil
}

func (r gmRequest) appendJSON(b []byte) ([]byte, error) {
	var err error
	b = append(b, `{"contents":`...)
	if b, err = appendArray(b, r.Contents); err != nil {
		return nil, err
	}
	if r.SystemInstruction != nil {
		b = append(b, `,"systemInstruction":`...)
		if b, err = r.SystemInstruction.appendJSON(b); err != nil {
			return nil, err
		}
	}
	if r.Tools != nil {
		b = append(b, `,"tools":`...)
		switch t := r.Tools.(type) {
		case encodedJSON:
			b = append(b, t...)
		case json.RawMessage:
			b, err = jsonenc.Raw(b, t, false)
		case []gmTool:
			b, err = appendGMTools(b, t)
		default:
			var v []byte
			if v, err = marshalReflect(t); err == nil {
				b = append(b, v...)
			}
		}
		if err != nil {
			return nil, err
		}
	}
	if g := r.GenerationConfig; g != nil {
		b = append(b, `,"generationConfig":{`...)
		comma := false
		if g.MaxOutputTokens != 0 {
			b = append(b, `"maxOutputTokens":`...)
			b = jsonenc.Int(b, g.MaxOutputTokens)
			comma = true
		}
		if g.Temperature != nil {
			if comma {
				b = append(b, ',')
			}
			b = append(b, `"temperature":`...)
			if b, err = jsonenc.Float(b, *g.Temperature); err != nil {
				return nil, err
			}
		}
		b = append(b, '}')
	}
	return append(b, '}'), nil
}

func (c gmContent) appendJSON(b []byte) ([]byte, error) {
	b = append(b, '{')
	if c.Role != "" {
		b = append(b, `"role":`...)
		b = jsonenc.String(b, c.Role, false)
		b = append(b, ',')
	}
	b = append(b, `"parts":`...)
	if c.Parts == nil {
		b = append(b, "null"...)
		return append(b, '}'), nil
	}
	b = append(b, '[')
	for i, p := range c.Parts {
		if i > 0 {
			b = append(b, ',')
		}
		var err error
		if b, err = p.appendJSON(b); err != nil {
			return nil, err
		}
	}
	return append(b, "]}"...), nil
}

func (p *gmPart) appendJSON(b []byte) ([]byte, error) {
	b = append(b, '{')
	comma := false
	sep := func() {
		if comma {
			b = append(b, ',')
		}
		comma = true
	}
	var err error
	if p.Text != "" {
		sep()
		b = append(b, `"text":`...)
		b = jsonenc.String(b, p.Text, false)
	}
	if d := p.InlineData; d != nil {
		sep()
		b = append(b, `"inlineData":{"mimeType":`...)
		b = jsonenc.String(b, d.MIMEType, false)
		b = append(b, `,"data":`...)
		b = jsonenc.String(b, d.Data, false)
		b = append(b, '}')
	}
	if fc := p.FunctionCall; fc != nil {
		sep()
		b = append(b, `"functionCall":{`...)
		if fc.ID != "" {
			b = append(b, `"id":`...)
			b = jsonenc.String(b, fc.ID, false)
			b = append(b, ',')
		}
		b = append(b, `"name":`...)
		b = jsonenc.String(b, fc.Name, false)
		if len(fc.Args) > 0 {
			b = append(b, `,"args":`...)
			if b, err = jsonenc.Raw(b, fc.Args, false); err != nil {
				return nil, err
			}
		}
		b = append(b, '}')
	}
	if fr := p.FunctionResponse; fr != nil {
		sep()
		b = append(b, `"functionResponse":{`...)
		if fr.ID != "" {
			b = append(b, `"id":`...)
			b = jsonenc.String(b, fr.ID, false)
			b = append(b, ',')
		}
		b = append(b, `"name":`...)
		b = jsonenc.String(b, fr.Name, false)
		b = append(b, `,"response":`...)
		if b, err = jsonenc.Raw(b, fr.Response, false); err != nil {
			return nil, err
		}
		if len(fr.Parts) > 0 {
			b = append(b, `,"parts":[`...)
			for i, rp := range fr.Parts {
				if i > 0 {
					b = append(b, ',')
				}
				b = append(b, `{"inlineData":{"mimeType":`...)
				b = jsonenc.String(b, rp.InlineData.MIMEType, false)
				b = append(b, `,"data":`...)
				b = jsonenc.String(b, rp.InlineData.Data, false)
				b = append(b, "}}"...)
			}
			b = append(b, ']')
		}
		b = append(b, '}')
	}
	if p.ThoughtSignature != "" {
		sep()
		b = append(b, `"thoughtSignature":`...)
		b = jsonenc.String(b, p.ThoughtSignature, false)
	}
	return append(b, '}'), nil
}

func appendGMTools(b []byte, tools []gmTool) ([]byte, error) {
	if tools == nil {
		return append(b, "null"...), nil
	}
	b = append(b, '[')
	for i, t := range tools {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"functionDeclarations":`...)
		if t.FunctionDeclarations == nil {
			b = append(b, "null"...)
		} else {
			b = append(b, '[')
			for j, d := range t.FunctionDeclarations {
				if j > 0 {
					b = append(b, ',')
				}
				b = append(b, `{"name":`...)
				b = jsonenc.String(b, d.Name, false)
				b = append(b, `,"description":`...)
				b = jsonenc.String(b, d.Description, false)
				b = append(b, `,"parametersJsonSchema":`...)
				var err error
				if b, err = jsonenc.Raw(b, d.ParametersJSONSchema, false); err != nil {
					return nil, err
				}
				b = append(b, '}')
			}
			b = append(b, ']')
		}
		b = append(b, '}')
	}
	return append(b, ']'), nil
}

// appendStringMap appends m with its keys sorted, as encoding/json does.
func appendStringMap(b []byte, m map[string]string) []byte {
	if m == nil {
		return append(b, "null"...)
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	b = append(b, '{')
	for i, k := range keys {
		if i > 0 {
			b = append(b, ',')
		}
		b = jsonenc.String(b, k, false)
		b = append(b, ':')
		b = jsonenc.String(b, m[k], false)
	}
	return append(b, '}')
}

// appendArray writes items as encoding/json writes a slice: null for nil,
// else each element by its own appendJSON, comma-separated.
func appendArray[T interface{ appendJSON([]byte) ([]byte, error) }](b []byte, items []T) ([]byte, error) {
	if items == nil {
		return append(b, "null"...), nil
	}
	b = append(b, '[')
	for i, it := range items {
		if i > 0 {
			b = append(b, ',')
		}
		var err error
		if b, err = it.appendJSON(b); err != nil {
			return nil, err
		}
	}
	return append(b, ']'), nil
}
