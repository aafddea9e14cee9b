package session

import (
	"slices"
	"strconv"

	"github.com/toolroute/toolroute/registry"
	"github.com/toolroute/toolroute/registry/internal/jsonenc"
	"github.com/toolroute/toolroute/registry/wire"
)

// The actions and messages every step encodes, written by hand with
// jsonenc rather than by encoding/json's reflection, which costs about ten
// times as much in wasm. Each writes its struct's fields in order, with
// their tags' names, omitempty and omitzero, as encoding/json would;
// FuzzActionsCodec compares the two on random values. A value the hand
// encoder refuses (a time past year 9999, a body that is not JSON) is
// encoded again by encoding/json, so the error is its own.

// appendActions appends actions as a JSON array, without HTML escaping.
func appendActions(b []byte, actions []Action) ([]byte, error) {
	b = append(b, '[')
	for i := range actions {
		if i > 0 {
			b = append(b, ',')
		}
		var err error
		if b, err = actions[i].appendJSON(b); err != nil {
			return nil, err
		}
	}
	return append(b, ']'), nil
}

func (a *Action) appendJSON(b []byte) ([]byte, error) {
	const html = false
	var err error
	b = append(b, `{"type":`...)
	b = jsonenc.String(b, a.Type, html)
	if a.Request != nil {
		b = append(b, `,"request":`...)
		if b, err = a.Request.appendJSON(b); err != nil {
			return nil, err
		}
	}
	if len(a.Calls) > 0 {
		b = append(b, `,"calls":[`...)
		for i := range a.Calls {
			if i > 0 {
				b = append(b, ',')
			}
			if b, err = a.Calls[i].appendJSON(b); err != nil {
				return nil, err
			}
		}
		b = append(b, ']')
	}
	if len(a.Messages) > 0 {
		b = append(b, `,"messages":`...)
		if b, err = appendMessages(b, a.Messages, html); err != nil {
			return nil, err
		}
	}
	if a.Text != "" {
		b = append(b, `,"text":`...)
		b = jsonenc.String(b, a.Text, html)
	}
	if g := a.Group; g != nil {
		b = append(b, `,"group":{"name":`...)
		b = jsonenc.String(b, g.Name, html)
		b = append(b, `,"display_name":`...)
		b = jsonenc.String(b, g.DisplayName, html)
		b = append(b, `,"added":`...)
		b = jsonenc.Strings(b, g.Added, html)
		if g.Query != "" {
			b = append(b, `,"query":`...)
			b = jsonenc.String(b, g.Query, html)
		}
		if len(g.Unloaded) > 0 {
			b = append(b, `,"unloaded":`...)
			b = jsonenc.Strings(b, g.Unloaded, html)
		}
		b = append(b, `,"active":`...)
		b = jsonenc.Strings(b, g.Active, html)
		b = append(b, '}')
	}
	if e := a.Error; e != nil {
		b = append(b, `,"error":{"code":`...)
		b = jsonenc.String(b, e.Code, html)
		b = append(b, `,"message":`...)
		b = jsonenc.String(b, e.Message, html)
		b = append(b, '}')
	}
	if a.Usage != nil {
		b = append(b, `,"usage":`...)
		b = appendUsage(b, a.Usage)
	}
	if c := a.Cache; c != nil {
		b = append(b, `,"cache":{"fingerprint":`...)
		b = jsonenc.String(b, c.Fingerprint, html)
		b = append(b, `,"messages":`...)
		b = jsonenc.Int(b, c.Messages)
		b = append(b, '}')
	}
	if rt := a.Retry; rt != nil {
		b = append(b, `,"retry":{"status":`...)
		b = jsonenc.Int(b, rt.Status)
		b = append(b, `,"attempt":`...)
		b = jsonenc.Int(b, rt.Attempt)
		b = append(b, `,"wait_ms":`...)
		b = strconv.AppendInt(b, rt.WaitMS, 10)
		b = append(b, `,"message":`...)
		b = jsonenc.String(b, rt.Message, html)
		b = append(b, '}')
	}
	return append(b, '}'), nil
}

// contentType is the header every model request has.
const contentType = "content-type"

func (r *ModelRequest) appendJSON(b []byte) ([]byte, error) {
	const html = false
	b = append(b, `{"format":`...)
	b = jsonenc.String(b, r.Format, html)
	b = append(b, `,"path":`...)
	b = jsonenc.String(b, r.Path, html)
	b = append(b, `,"headers":`...)
	if r.Headers == nil {
		b = append(b, "null"...)
	} else if v, ok := r.Headers[contentType]; ok && len(r.Headers) == 1 {
		// What every format sends: one header, found without walking
		// and sorting the map.
		b = append(b, `{"`+contentType+`":`...)
		b = jsonenc.String(b, v, html)
		b = append(b, '}')
	} else {
		// encoding/json writes a map's keys sorted.
		var few [4]string
		keys := few[:0]
		for k := range r.Headers {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		b = append(b, '{')
		for i, k := range keys {
			if i > 0 {
				b = append(b, ',')
			}
			b = jsonenc.String(b, k, html)
			b = append(b, ':')
			b = jsonenc.String(b, r.Headers[k], html)
		}
		b = append(b, '}')
	}
	if len(r.Body) > 0 {
		b = append(b, `,"body":`...)
		var err error
		if b, err = jsonenc.Raw(b, r.Body, html); err != nil {
			return nil, err
		}
	}
	if r.Stream {
		b = append(b, `,"stream":true`...)
	}
	b = append(b, `,"tools":`...)
	b = jsonenc.Strings(b, r.Tools, html)
	if r.Routing != "" {
		b = append(b, `,"routing":`...)
		b = jsonenc.String(b, r.Routing, html)
	}
	if len(r.Deferred) > 0 {
		b = append(b, `,"deferred":`...)
		b = jsonenc.Strings(b, r.Deferred, html)
	}
	b = append(b, `,"call":`...)
	b = jsonenc.Int(b, r.Call)
	if s := r.Schema; s != nil {
		b = append(b, `,"schema":`...)
		if s.encoded != nil {
			b = append(b, s.encoded...)
		} else {
			b = appendSchema(b, s)
		}
	}
	if r.Compaction {
		b = append(b, `,"compaction":true`...)
	}
	return append(b, '}'), nil
}

func (c *Call) appendJSON(b []byte) ([]byte, error) {
	const html = false
	b = append(b, `{"id":`...)
	b = jsonenc.String(b, c.ID, html)
	b = append(b, `,"tool":`...)
	b = jsonenc.String(b, c.Tool, html)
	b = append(b, `,"input":`...)
	var err error
	if b, err = jsonenc.Raw(b, c.Input, html); err != nil {
		return nil, err
	}
	b = append(b, `,"origin":`...)
	b = appendOrigin(b, c.Origin, html)
	b = append(b, `,"timeout_seconds":`...)
	b = jsonenc.Int(b, c.TimeoutSeconds)
	for _, f := range [...]struct {
		key  string
		list []string
	}{{`,"env":`, c.Env}, {`,"required_permissions":`, c.RequiredPermissions}, {`,"secrets":`, c.Secrets}, {`,"granted":`, c.Granted}} {
		if len(f.list) > 0 {
			b = append(b, f.key...)
			b = jsonenc.Strings(b, f.list, html)
		}
	}
	if s := c.Search; s != nil {
		b = append(b, `,"search":{"query":`...)
		b = jsonenc.String(b, s.Query, html)
		b = append(b, `,"limit":`...)
		b = jsonenc.Int(b, s.Limit)
		b = append(b, `,"candidates":`...)
		b = jsonenc.Strings(b, s.Candidates, html)
		b = append(b, '}')
	}
	return append(b, '}'), nil
}

func appendOrigin(b []byte, o registry.Origin, html bool) []byte {
	b = append(b, `{"kind":`...)
	b = jsonenc.String(b, o.Kind, html)
	if o.File != "" {
		b = append(b, `,"file":`...)
		b = jsonenc.String(b, o.File, html)
	}
	if o.Source != "" {
		b = append(b, `,"source":`...)
		b = jsonenc.String(b, o.Source, html)
	}
	if o.Function != "" {
		b = append(b, `,"function":`...)
		b = jsonenc.String(b, o.Function, html)
	}
	return append(b, '}')
}

// appendAttachments appends a message's attachments as a JSON array.
func appendAttachments(b []byte, list []Attachment, html bool) []byte {
	b = append(b, '[')
	for i, a := range list {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"name":`...)
		b = jsonenc.String(b, a.Name, html)
		for _, f := range [...]struct{ key, value string }{{`,"mime_type":`, a.MIMEType}, {`,"data":`, a.Data}, {`,"text":`, a.Text}} {
			if f.value != "" {
				b = append(b, f.key...)
				b = jsonenc.String(b, f.value, html)
			}
		}
		b = append(b, '}')
	}
	return append(b, ']')
}

// appendMessages appends msgs as a JSON array; html escapes as
// json.Marshal does.
func appendMessages(b []byte, msgs []Message, html bool) ([]byte, error) {
	if msgs == nil {
		return append(b, "null"...), nil
	}
	b = append(b, '[')
	for i := range msgs {
		if i > 0 {
			b = append(b, ',')
		}
		var err error
		if b, err = msgs[i].appendJSON(b, html); err != nil {
			return nil, err
		}
	}
	return append(b, ']'), nil
}

func (m *Message) appendJSON(b []byte, html bool) ([]byte, error) {
	b = append(b, `{"type":`...)
	b = jsonenc.String(b, m.Type, html)
	if m.Content != "" {
		b = append(b, `,"content":`...)
		b = jsonenc.String(b, m.Content, html)
	}
	if len(m.Images) > 0 {
		b = append(b, `,"images":[`...)
		for i, im := range m.Images {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"mime_type":`...)
			b = jsonenc.String(b, im.MIMEType, html)
			b = append(b, `,"data":`...)
			b = jsonenc.String(b, im.Data, html)
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	if len(m.Documents) > 0 {
		b = append(b, `,"documents":[`...)
		for i, d := range m.Documents {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"mime_type":`...)
			b = jsonenc.String(b, d.MIMEType, html)
			b = append(b, `,"data":`...)
			b = jsonenc.String(b, d.Data, html)
			if d.Name != "" {
				b = append(b, `,"name":`...)
				b = jsonenc.String(b, d.Name, html)
			}
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	if len(m.Attachments) > 0 {
		b = append(b, `,"attachments":`...)
		b = appendAttachments(b, m.Attachments, html)
	}
	for _, f := range [...]struct{ key, value string }{{`,"tool_call_id":`, m.ToolCallID}, {`,"tool_name":`, m.ToolName},
		{`,"tool_input":`, m.ToolInput}, {`,"signature":`, m.Signature}, {`,"status":`, string(m.Status)}, {`,"error_type":`, m.ErrorType}} {
		if f.value != "" {
			b = append(b, f.key...)
			b = jsonenc.String(b, f.value, html)
		}
	}
	if m.Index != 0 {
		b = append(b, `,"index":`...)
		b = jsonenc.Int(b, m.Index)
	}
	for _, f := range [...]struct {
		key  string
		list []string
	}{{`,"grant":`, m.Grant}, {`,"loaded":`, m.Loaded}, {`,"unloaded":`, m.Unloaded}, {`,"asked":`, m.Asked}} {
		if len(f.list) > 0 {
			b = append(b, f.key...)
			b = jsonenc.Strings(b, f.list, html)
		}
	}
	if m.Keep != 0 {
		b = append(b, `,"keep":`...)
		b = jsonenc.Int(b, m.Keep)
	}
	if m.Usage != nil {
		b = append(b, `,"usage":`...)
		b = appendUsage(b, m.Usage)
	}
	if !m.Time.IsZero() {
		t, err := m.Time.MarshalJSON()
		if err != nil {
			return nil, err
		}
		b = append(b, `,"time":`...)
		b = append(b, t...) // a string of digits and punctuation: nothing to escape
	}
	return append(b, '}'), nil
}

func appendUsage(b []byte, u *wire.Usage) []byte {
	b = append(b, `{"input_tokens":`...)
	b = jsonenc.Int(b, u.InputTokens)
	b = append(b, `,"output_tokens":`...)
	b = jsonenc.Int(b, u.OutputTokens)
	if u.CachedTokens != 0 {
		b = append(b, `,"cached_tokens":`...)
		b = jsonenc.Int(b, u.CachedTokens)
	}
	return append(b, '}')
}

// appendSchema appends a call's schema as JSON.
func appendSchema(b []byte, s *Schema) []byte {
	const html = false
	b = append(b, `{"core_tools":`...)
	b = jsonenc.Int(b, s.CoreTools)
	b = append(b, `,"group_listing":`...)
	b = jsonenc.Int(b, s.GroupListing)
	if s.CoreToolsText != "" {
		b = append(b, `,"core_tools_text":`...)
		b = jsonenc.String(b, s.CoreToolsText, html)
	}
	if s.GroupListingText != "" {
		b = append(b, `,"group_listing_text":`...)
		b = jsonenc.String(b, s.GroupListingText, html)
	}
	if len(s.LoadedGroups) > 0 {
		b = append(b, `,"loaded_groups":[`...)
		for i, g := range s.LoadedGroups {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"group":`...)
			b = jsonenc.String(b, g.Group, html)
			b = append(b, `,"tools":`...)
			b = jsonenc.Strings(b, g.Tools, html)
			b = append(b, `,"bytes":`...)
			b = jsonenc.Int(b, g.Bytes)
			if g.Text != "" {
				b = append(b, `,"text":`...)
				b = jsonenc.String(b, g.Text, html)
			}
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	return append(b, '}')
}
