package session

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/toolroute/toolroute/registry"
	"github.com/toolroute/toolroute/registry/internal/jsondec"
	"github.com/toolroute/toolroute/registry/wire"
)

// UnmarshalEvent decodes an event from JSON: what json.Unmarshal gives for
// it, result and error alike, read by hand in the plain case (jsondec) and
// by encoding/json otherwise. FuzzUnmarshalEvent compares the two.
func UnmarshalEvent(data []byte) (Event, error) {
	return UnmarshalEventIn(data, "")
}

// UnmarshalEventIn is UnmarshalEvent for a turn whose responses come in
// format f (Turn.Format): a response event's body is read as such a
// response as the event is read (wire.ReadResponse), not read as JSON
// and then again as a response when the turn handles it. The event is
// the one UnmarshalEvent gives, and the turn handles it the same way.
//
// An event nesting more than registry.MaxDepth arrays and objects is
// refused first, with an error wrapping a *registry.DepthError, as no
// event holds that much: a host that gives a response body as a JSON value
// gives one nesting that deep as a string (Bytes), which the turn then
// refuses as the response it is.
func UnmarshalEventIn(data []byte, f wire.Format) (Event, error) {
	return readEventIn(data, f, false)
}

// ReadEvent is UnmarshalEventIn for a module instance, which must not
// hold a long history several times over: a start event's history is
// left as the JSON text it is in data, each message read once to check
// it, and the turn decodes the messages again one at a time as it adds
// them to its Log, whose conversation each response then joins. The
// history never exists as a []Message: Event.History is nil, unless the
// event is not the plain case (read by encoding/json then). The event
// and the turn it starts keep data: it must not change afterwards.
func ReadEvent(data []byte, f wire.Format) (Event, error) {
	return readEventIn(data, f, true)
}

func readEventIn(data []byte, f wire.Format, lazy bool) (Event, error) {
	if err := jsondec.CheckDepth(data); err != nil {
		return Event{}, fmt.Errorf("the event %w: no event holds that much; give a response body that deep as a string, which the turn then refuses as a bad response", err)
	}
	r := jsondec.NewReader(data)
	var e Event
	if r.IsString() || !readEvent(r, &e, f, lazy) || !r.Done() {
		return unmarshalEventReflect(data)
	}
	return e, nil
}

// rawHistory is a start event's history as the JSON text it came in: an
// array of n messages, each read by hand once already.
type rawHistory struct {
	data  []byte
	n     int
	first Message
	// summaries says it holds a summary.
	summaries bool
}

// historyLen is how many messages the event's history holds.
func (e *Event) historyLen() int {
	if e.history != nil {
		return e.history.n
	}
	return len(e.History)
}

// firstMessage is the first message of the event's history.
func (e *Event) firstMessage() (Message, bool) {
	switch {
	case e.history != nil:
		return e.history.first, true
	case len(e.History) > 0:
		return e.History[0], true
	}
	return Message{}, false
}

// readHistory reads a history, leaving it as JSON (rawHistory) when it
// holds messages: each is read, into the memory of one, to check it and
// to note what the turn needs before it adds the history to its Log.
func readHistory(r *jsondec.Reader) ([]Message, *rawHistory) {
	if r.Null() {
		return nil, nil
	}
	data := r.Raw()
	h := &rawHistory{}
	// Its strings share the JSON's memory, which the event keeps.
	hr := jsondec.NewSharedReader(data)
	var m Message
	if !hr.Array(func() {
		m = Message{}
		readMessage(hr, &m)
		if h.n == 0 {
			h.first = m
		}
		h.summaries = h.summaries || m.Type == Summary
		h.n++
	}) || !hr.Done() {
		r.Fail() // not the plain case: encoding/json reads the event
		return nil, nil
	}
	if h.n == 0 {
		return []Message{}, nil
	}
	h.data = data[:len(data):len(data)]
	return nil, h
}

// unmarshalEventReflect is json.Unmarshal of an event: apart, so that the
// event read by hand need not live on the heap for it.
func unmarshalEventReflect(data []byte) (Event, error) {
	var e Event
	err := json.Unmarshal(data, &e)
	return e, err
}

// eventTypes and statuses are the values read without a new string.
var (
	eventTypes = []string{string(EventResponse), string(EventToolResults), string(EventStart), string(EventChunk),
		string(EventStreamEnd), string(EventModelError), string(EventApproval), string(EventReload), string(EventStop)}
	statuses = []string{string(registry.StatusSuccess), string(registry.StatusError)}
)

var eventKeys = []string{"type", "now", "history", "user", "attachments", "settings", "compact", "session", "fingerprint",
	"body", "data", "status", "error", "results", "approvals", "retry_after", "retries"}

// readEvent reads an event object; false when the input is no object.
// lazy leaves a history as JSON (ReadEvent).
func readEvent(r *jsondec.Reader, e *Event, f wire.Format, lazy bool) bool {
	object := false
	r.Object(eventKeys, func(key string) {
		switch key {
		case "type":
			e.Type = EventType(r.StringIn(eventTypes))
		case "now":
			readTime(r, &e.Now)
		case "history":
			if lazy {
				e.History, e.history = readHistory(r)
			} else {
				e.History = readMessages(r)
			}
		case "user":
			e.User = r.String()
		case "attachments":
			e.Attachments = readAttachments(r)
		case "settings":
			readSettings(r, &e.Settings)
		case "compact":
			e.Compact = r.Bool()
		case "session":
			e.Session = r.String()
		case "fingerprint":
			e.Fingerprint = r.String()
		case "body":
			if e.Type == EventResponse && f != "" && r.IsObject() {
				m := r.Mark()
				if resp, body, err, ok := wire.ReadResponse(f, r); ok {
					e.Body = append(Bytes(nil), body...)
					e.response = &readResponse{format: f, resp: resp, err: err}
					return
				}
				r.Rewind(m)
			}
			e.Body = readBytes(r)
		case "data":
			e.Data = readBytes(r)
		case "status":
			e.Status = r.Int()
		case "error":
			e.Error = r.String()
		case "retry_after":
			e.RetryAfter = r.String()
		case "retries":
			e.Retries = readRetries(r)
		case "results":
			e.Results = nil
			if r.Array(func() { e.Results = append(e.Results, readResult(r)) }) && e.Results == nil {
				e.Results = []Result{}
			}
		case "approvals":
			e.Approvals = nil
			if r.Array(func() { e.Approvals = append(e.Approvals, readApproval(r)) }) && e.Approvals == nil {
				e.Approvals = []Approval{}
			}
		}
	})
	object = !r.Failed()
	return object
}

// readBytes reads a Bytes as its UnmarshalJSON does: a string as its
// bytes, any other value (null too) as its JSON text.
func readBytes(r *jsondec.Reader) Bytes {
	if r.IsString() {
		return Bytes(r.String())
	}
	raw := r.Raw()
	if raw == nil {
		return nil
	}
	return append(Bytes(nil), raw...)
}

// readTime reads a time as time.Time's UnmarshalJSON does; one it refuses
// stops r, for encoding/json to give the error.
func readTime(r *jsondec.Reader, t *time.Time) {
	if r.Null() {
		return
	}
	raw := r.Raw()
	if r.Failed() {
		return
	}
	if err := t.UnmarshalJSON(raw); err != nil {
		r.Fail()
	}
}

func readMessages(r *jsondec.Reader) []Message {
	var msgs []Message
	if !r.Array(func() {
		msgs = append(msgs, Message{})
		readMessage(r, &msgs[len(msgs)-1])
	}) {
		return nil
	}
	if msgs == nil {
		msgs = []Message{}
	}
	return msgs
}

var messageKeys = []string{"type", "content", "images", "documents", "attachments", "tool_call_id", "tool_name", "tool_input", "signature", "status",
	"error_type", "index", "grant", "loaded", "unloaded", "asked", "keep", "usage", "time"}

func readMessage(r *jsondec.Reader, m *Message) {
	r.Object(messageKeys, func(key string) {
		switch key {
		case "type":
			m.Type = MessageType(r.String())
		case "content":
			m.Content = r.String()
		case "images":
			m.Images = readImages(r)
		case "documents":
			m.Documents = readDocuments(r)
		case "attachments":
			m.Attachments = readAttachments(r)
		case "tool_call_id":
			m.ToolCallID = r.String()
		case "tool_name":
			m.ToolName = r.String()
		case "tool_input":
			m.ToolInput = r.String()
		case "signature":
			m.Signature = r.String()
		case "status":
			m.Status = registry.Status(r.String())
		case "error_type":
			m.ErrorType = r.String()
		case "index":
			m.Index = r.Int()
		case "grant":
			m.Grant = r.Strings()
		case "asked":
			m.Asked = r.Strings()
		case "loaded":
			m.Loaded = r.Strings()
		case "unloaded":
			m.Unloaded = r.Strings()
		case "keep":
			m.Keep = r.Int()
		case "usage":
			m.Usage = readUsage(r)
		case "time":
			readTime(r, &m.Time)
		}
	})
}

var usageKeys = []string{"input_tokens", "output_tokens", "cached_tokens"}

func readUsage(r *jsondec.Reader) *wire.Usage {
	if r.Null() {
		return nil
	}
	u := &wire.Usage{}
	r.Object(usageKeys, func(key string) {
		switch key {
		case "input_tokens":
			u.InputTokens = r.Int()
		case "output_tokens":
			u.OutputTokens = r.Int()
		case "cached_tokens":
			u.CachedTokens = r.Int()
		}
	})
	return u
}

var imageKeys = []string{"mime_type", "data"}

func readImages(r *jsondec.Reader) []registry.Image {
	return readList(r, imageKeys, func(im *registry.Image, key string) {
		switch key {
		case "mime_type":
			im.MIMEType = r.String()
		case "data":
			im.Data = r.String()
		}
	})
}

var documentKeys = []string{"mime_type", "data", "name"}

func readDocuments(r *jsondec.Reader) []registry.Document {
	return readList(r, documentKeys, func(d *registry.Document, key string) {
		switch key {
		case "mime_type":
			d.MIMEType = r.String()
		case "data":
			d.Data = r.String()
		case "name":
			d.Name = r.String()
		}
	})
}

var attachmentKeys = []string{"name", "mime_type", "data", "text"}

func readAttachments(r *jsondec.Reader) []Attachment {
	return readList(r, attachmentKeys, func(a *Attachment, key string) {
		switch key {
		case "name":
			a.Name = r.String()
		case "mime_type":
			a.MIMEType = r.String()
		case "data":
			a.Data = r.String()
		case "text":
			a.Text = r.String()
		}
	})
}

// readList reads an array of objects whose members are keys, each member
// read by set into its element: nil for null (or a value that is not an
// array, which stops r), an empty list for [].
func readList[T any](r *jsondec.Reader, keys []string, set func(elem *T, key string)) []T {
	list := []T{}
	if !r.Array(func() {
		var elem T
		r.Object(keys, func(key string) { set(&elem, key) })
		list = append(list, elem)
	}) {
		return nil
	}
	return list
}

var resultKeys = []string{"id", "status", "output", "error_type", "message", "images", "documents", "tools", "console", "asked"}

func readResult(r *jsondec.Reader) Result {
	var res Result
	r.Object(resultKeys, func(key string) {
		switch key {
		case "id":
			res.ID = r.String()
		case "status":
			res.Status = registry.Status(r.StringIn(statuses))
		case "output":
			res.Output = r.String()
		case "error_type":
			res.ErrorType = r.String()
		case "message":
			res.Message = r.String()
		case "images":
			res.Images = readImages(r)
		case "documents":
			res.Documents = readDocuments(r)
		case "tools":
			res.Tools = r.Strings()
		case "console":
			res.Console = r.Strings()
		case "asked":
			res.Asked = r.Strings()
		}
	})
	return res
}

var approvalKeys = []string{"id", "answer", "grant"}

func readApproval(r *jsondec.Reader) Approval {
	var a Approval
	r.Object(approvalKeys, func(key string) {
		switch key {
		case "id":
			a.ID = r.String()
		case "answer":
			a.Answer = Answer(r.String())
		case "grant":
			a.Grant = r.Strings()
		}
	})
	return a
}

var settingsKeys = []string{"system_prompt", "format", "model", "max_model_calls", "max_tokens", "temperature", "stream",
	"policies", "memories", "approvals", "unattended", "routing", "search_tools", "tool_budget", "context_limit",
	"allowed_groups", "max_turn_tokens", "host_search", "allow_hint", "show_console", "schema_text", "no_body"}

var policyKeys = []string{"tool", "group", "decision"}

func readSettings(r *jsondec.Reader, s *Settings) {
	r.Object(settingsKeys, func(key string) {
		switch key {
		case "system_prompt":
			s.SystemPrompt = r.String()
		case "format":
			s.Format = wire.Format(r.String())
		case "model":
			s.Model = r.String()
		case "max_model_calls":
			s.MaxModelCalls = r.Int()
		case "max_tokens":
			s.MaxTokens = r.Int()
		case "temperature":
			s.Temperature = nil
			if !r.Null() {
				f := r.Float()
				s.Temperature = &f
			}
		case "stream":
			s.Stream = r.Bool()
		case "policies":
			policies := []Policy{}
			if !r.Array(func() {
				var p Policy
				r.Object(policyKeys, func(key string) {
					switch key {
					case "tool":
						p.Tool = r.String()
					case "group":
						p.Group = r.String()
					case "decision":
						p.Decision = registry.Decision(r.String())
					}
				})
				policies = append(policies, p)
			}) {
				policies = nil
			}
			s.Policies = policies
		case "memories":
			s.Memories = r.Strings()
		case "approvals":
			s.Approvals = r.Bool()
		case "unattended":
			s.Unattended = r.Bool()
		case "routing":
			s.Routing = Routing(r.String())
		case "search_tools":
			s.SearchTools = r.Bool()
		case "tool_budget":
			s.ToolBudget = r.Int()
		case "context_limit":
			s.ContextLimit = r.Int()
		case "allowed_groups":
			s.AllowedGroups = r.Strings()
		case "max_turn_tokens":
			s.MaxTurnTokens = r.Int()
		case "host_search":
			s.HostSearch = r.Bool()
		case "allow_hint":
			s.AllowHint = r.String()
		case "show_console":
			s.ShowConsole = r.Bool()
		case "schema_text":
			s.SchemaText = r.Bool()
		case "no_body":
			s.NoBody = r.Bool()
		}
	})
}

var retriesKeys = []string{"count", "backoff_ms", "max_backoff_ms"}

func readRetries(r *jsondec.Reader) *Retries {
	if r.Null() {
		return nil
	}
	rt := &Retries{}
	r.Object(retriesKeys, func(key string) {
		switch key {
		case "count":
			rt.Count = r.Int()
		case "backoff_ms":
			rt.BackoffMS = r.Int()
		case "max_backoff_ms":
			rt.MaxBackoffMS = r.Int()
		}
	})
	return rt
}
