package wire

import (
	"encoding/json"
	"fmt"
	"strings"
)

// The OpenAI Responses API request and response, as far as toolroute uses
// them (platform.openai.com/docs/api-reference/responses and
// .../responses-streaming).
//
// toolroute keeps the log itself, so the API is used statelessly: every
// request sends the whole conversation as input items with store false, and
// never previous_response_id. Two consequences, both on purpose:
//   - A function_call item is sent with its call_id only, never the item id
//     (fc_...) the response gave it: the API refuses such an id without the
//     reasoning item that came before it, which is not kept.
//   - A reasoning model's reasoning items are not sent back (no
//     include: ["reasoning.encrypted_content"]). The API works without them,
//     as Chat Completions does; the model reasons again after each tool
//     result. Keeping them would put provider-opaque items in the log, paired
//     with their function calls by item id (docs/design/wire-formats.md).

type rsRequest struct {
	Model           string   `json:"model"`
	Instructions    string   `json:"instructions,omitempty"`
	Input           []rsItem `json:"input"`
	Tools           any      `json:"tools,omitempty"` // []any, or its JSON
	MaxOutputTokens int      `json:"max_output_tokens,omitempty"`
	Temperature     *float64 `json:"temperature,omitempty"`
	Stream          bool     `json:"stream,omitempty"`
	Store           bool     `json:"store"`
}

// rsItem is an input item: a message, a function_call or a
// function_call_output.
type rsItem struct {
	Type string `json:"type"`
	Role string `json:"role,omitempty"`
	// Content is a message's: input_text parts for the user, a string for
	// the assistant (the API takes only output_text parts, with ids, there).
	Content   json.RawMessage `json:"content,omitempty"`
	CallID    string          `json:"call_id,omitempty"`
	Name      string          `json:"name,omitempty"`
	Namespace string          `json:"namespace,omitempty"`
	// Arguments are a function_call's (a JSON string) or a
	// tool_search_call's (a JSON object).
	Arguments json.RawMessage `json:"arguments,omitempty"`
	// Output is a function_call_output's: a string, or input_text and
	// input_image parts when the result has images.
	Output json.RawMessage `json:"output,omitempty"`
	// Execution, Status and Tools are a tool search's: "client",
	// "completed", and the output's loaded tools (a JSON array, [] for
	// none).
	Execution string          `json:"execution,omitempty"`
	Status    string          `json:"status,omitempty"`
	Tools     json.RawMessage `json:"tools,omitempty"`
}

// rsPart is an input content part: input_text or input_image.
type rsPart struct {
	Type     string `json:"type"`
	Text     string `json:"text,omitempty"`
	ImageURL string `json:"image_url,omitempty"`
	// FileData and Filename are an input_file's: the file as a data URL,
	// and its name.
	FileData string `json:"file_data,omitempty"`
	Filename string `json:"filename,omitempty"`
}

// rsTool is a function tool: flat, unlike Chat Completions' nested one.
// strict is sent false: the API's default is true, which needs every
// property required and additionalProperties false, which tools' schemas
// do not promise.
type rsTool struct {
	Type         string          `json:"type"`
	Name         string          `json:"name"`
	Description  string          `json:"description"`
	DeferLoading bool            `json:"defer_loading,omitempty"`
	Parameters   json.RawMessage `json:"parameters"`
	Strict       bool            `json:"strict"`
}

// rsNamespace is a deferred group: its functions, each defer_loading, are
// in the context by name and description only... until a tool search
// loads them (platform.openai.com/docs/guides/tools-tool-search).
type rsNamespace struct {
	Type        string   `json:"type"` // "namespace"
	Name        string   `json:"name"`
	Description string   `json:"description"`
	Tools       []rsTool `json:"tools"`
}

// rsToolSearch is the client-executed tool search: the model asks for a
// group with the tool's parameters, and toolroute answers with the
// group's namespace as the tool_search_output.
type rsToolSearch struct {
	Type        string          `json:"type"`      // "tool_search"
	Execution   string          `json:"execution"` // "client"
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters"`
}

func rsNamespaceOf(g Group, deferred bool) rsNamespace {
	ns := rsNamespace{Type: "namespace", Name: g.Name, Description: g.Description, Tools: []rsTool{}}
	for _, t := range g.Tools {
		ns.Tools = append(ns.Tools, rsTool{Type: "function", Name: t.Name, Description: t.Description, DeferLoading: deferred, Parameters: t.Parameters})
	}
	return ns
}

func encodeResponses(r Request, c *Conv) (HTTPRequest, error) {
	req := rsRequest{Model: r.Model, Instructions: r.System, Input: []rsItem{}, MaxOutputTokens: r.MaxTokens, Temperature: r.Temperature, Stream: r.Stream}
	// A result answers the first call with its id, in the whole
	// conversation: the calls encoded before, then these.
	searched := func(id string) bool {
		if !c.empty() {
			if s, ok := c.searches[id]; ok {
				return s
			}
		}
		return searched(r.Messages, id)
	}
	for _, m := range r.Messages {
		var err error
		if req.Input, err = rsAppend(req.Input, m, searched); err != nil {
			return HTTPRequest{}, err
		}
	}
	n := len(r.Tools) + len(r.Deferred)
	if r.Search != nil {
		n++
	}
	var err error
	req.Tools, err = c.toolsValue(r, n, func() any {
		var tools []any
		for _, t := range r.Tools {
			tools = append(tools, rsTool{Type: "function", Name: t.Name, Description: t.Description, Parameters: t.Parameters})
		}
		for _, g := range r.Deferred {
			tools = append(tools, rsNamespaceOf(g, true))
		}
		if r.Search != nil {
			tools = append(tools, rsToolSearch{Type: "tool_search", Execution: "client", Description: r.Search.Description, Parameters: r.Search.Parameters})
		}
		return tools
	})
	if err != nil {
		return HTTPRequest{}, err
	}
	body, err := marshal(req)
	if err != nil {
		return HTTPRequest{}, err
	}
	if !c.empty() {
		body = c.splice(body, "input", c.final)
	}
	return HTTPRequest{
		Path:    "/responses",
		Headers: map[string]string{"content-type": "application/json"},
		Body:    body,
	}, nil
}

// rsAppend adds one message's input items to out; searched says whether
// the call with an id is a tool search.
func rsAppend(out []rsItem, m Message, searched func(id string) bool) ([]rsItem, error) {
	switch m.Role {
	case RoleUser:
		var parts []rsPart
		for _, img := range m.Images {
			parts = append(parts, rsPart{Type: "input_image", ImageURL: dataURL(img)})
		}
		if m.Text != "" {
			parts = append(parts, rsPart{Type: "input_text", Text: m.Text})
		}
		if len(parts) == 0 {
			return out, nil
		}
		content, err := marshal(parts)
		if err != nil {
			return out, err
		}
		out = append(out, rsItem{Type: "message", Role: "user", Content: content})
	case RoleAssistant:
		if m.Text != "" {
			content, err := marshal(m.Text)
			if err != nil {
				return out, err
			}
			out = append(out, rsItem{Type: "message", Role: "assistant", Content: content})
		}
		for _, c := range m.Calls {
			args := c.Input
			if strings.TrimSpace(args) == "" {
				args = "{}"
			}
			if c.Search {
				out = append(out, rsItem{Type: "tool_search_call", CallID: c.ID, Execution: "client", Status: "completed", Arguments: inputObject(args)})
				continue
			}
			raw, err := marshal(args)
			if err != nil {
				return out, err
			}
			out = append(out, rsItem{Type: "function_call", CallID: c.ID, Name: c.Name, Namespace: c.Namespace, Arguments: raw})
		}
	case RoleTool:
		// A tool search's output carries tools, never text: a failed
		// load's text follows the outputs as a developer message.
		var notes []string
		for _, res := range m.Results {
			if searched(res.CallID) {
				tools := json.RawMessage(`[]`)
				if res.Loaded != nil {
					raw, err := marshal([]rsNamespace{rsNamespaceOf(*res.Loaded, false)})
					if err != nil {
						return out, err
					}
					tools = raw
				} else {
					notes = append(notes, res.Content)
				}
				out = append(out, rsItem{Type: "tool_search_output", CallID: res.CallID, Execution: "client", Status: "completed", Tools: tools})
				continue
			}
			output, err := responsesOutput(res)
			if err != nil {
				return out, err
			}
			out = append(out, rsItem{Type: "function_call_output", CallID: res.CallID, Output: output})
		}
		for _, note := range notes {
			content, err := marshal([]rsPart{{Type: "input_text", Text: note}})
			if err != nil {
				return out, err
			}
			out = append(out, rsItem{Type: "message", Role: "developer", Content: content})
		}
	default:
		return out, fmt.Errorf("wire: message role %q is not user, assistant or tool", m.Role)
	}
	return out, nil
}

// searched reports whether the call a result answers was a tool search.
func searched(msgs []Message, callID string) bool {
	for _, m := range msgs {
		for _, c := range m.Calls {
			if c.ID == callID {
				return c.Search
			}
		}
	}
	return false
}

// responsesOutput is a result as function_call_output's output: its text,
// or, with images or documents, the text, each image as a data URL, then
// each document as an input_file.
func responsesOutput(res Result) (json.RawMessage, error) {
	if len(res.Images) == 0 && len(res.Documents) == 0 {
		return marshal(res.Content)
	}
	var parts []rsPart
	if res.Content != "" {
		parts = append(parts, rsPart{Type: "input_text", Text: res.Content})
	}
	for _, img := range res.Images {
		parts = append(parts, rsPart{Type: "input_image", ImageURL: dataURL(img)})
	}
	for _, d := range res.Documents {
		parts = append(parts, rsPart{Type: "input_file", FileData: "data:" + d.MIMEType + ";base64," + d.Data, Filename: fileName(d)})
	}
	return marshal(parts)
}

// fileName is a document's file name: the last part of its name (a
// resource's URI), with .pdf after it unless it ends so, or document.pdf.
func fileName(d Document) string {
	name := strings.TrimRight(d.Name, "/")
	if i := strings.LastIndexAny(name, "/:"); i >= 0 {
		name = name[i+1:]
	}
	if name == "" {
		name = "document"
	}
	if !strings.HasSuffix(strings.ToLower(name), ".pdf") {
		name += ".pdf"
	}
	return name
}

// rsResponse is a response object: the body of a whole response, and the
// "response" of the stream's response.completed, .incomplete and .failed.
type rsResponse struct {
	Status            string          `json:"status"`
	Error             json.RawMessage `json:"error"`
	IncompleteDetails *struct {
		Reason string `json:"reason"`
	} `json:"incomplete_details"`
	Output []rsOutputItem `json:"output"`
	Usage  *rsUsage       `json:"usage"`
}

// rsOutputItem is an output item. Its content is read only for a message:
// other items' are not toolroute's to read, whatever their shape.
type rsOutputItem struct {
	Type      string          `json:"type"`
	ID        string          `json:"id"`
	CallID    string          `json:"call_id"`
	Name      string          `json:"name"`
	Namespace string          `json:"namespace"`
	Arguments json.RawMessage `json:"arguments"`
	Content   json.RawMessage `json:"content"`
	Execution string          `json:"execution"`
}

type rsOutputPart struct {
	Type    string `json:"type"`
	Text    string `json:"text"`
	Refusal string `json:"refusal"`
}

type rsUsage struct {
	InputTokens        int `json:"input_tokens"`
	OutputTokens       int `json:"output_tokens"`
	InputTokensDetails *struct {
		CachedTokens int `json:"cached_tokens"`
	} `json:"input_tokens_details"`
}

func (u *rsUsage) usage() Usage {
	out := Usage{InputTokens: u.InputTokens, OutputTokens: u.OutputTokens}
	if u.InputTokensDetails != nil {
		out.CachedTokens = u.InputTokensDetails.CachedTokens
	}
	return out
}

func decodeResponses(body []byte) (Response, error) {
	var r rsResponse
	if err := json.Unmarshal(body, &r); err != nil {
		return Response{}, fmt.Errorf("%w: %v", ErrBadResponse, err)
	}
	if err := r.failure(); err != nil {
		return Response{}, err
	}
	if r.Status == "" && r.Output == nil {
		return Response{}, fmt.Errorf("%w: no status and no output: not a Responses API response", ErrBadResponse)
	}
	text, calls := r.content()
	return Response{Text: text, Calls: calls, StopReason: r.stopReason(), Usage: r.usage()}, nil
}

// failure is the error of a response that failed: an error object, or the
// status "failed".
func (r *rsResponse) failure() error {
	if msg, ok := errorValueMessage(r.Error); ok {
		return fmt.Errorf("%w: %s", ErrProvider, msg)
	}
	if r.Status == "failed" {
		return fmt.Errorf("%w: the response failed without saying why", ErrProvider)
	}
	return nil
}

// content is the response's text (its messages' output_text and refusal
// parts) and function calls, in order; reasoning and other items are
// skipped.
func (r *rsResponse) content() (string, []Call) {
	var text strings.Builder
	var calls []Call
	for _, it := range r.Output {
		switch it.Type {
		case "message":
			var parts []rsOutputPart
			_ = json.Unmarshal(it.Content, &parts)
			for _, p := range parts {
				switch p.Type {
				case "output_text":
					text.WriteString(p.Text)
				case "refusal":
					text.WriteString(p.Refusal)
				}
			}
		case "function_call":
			calls = append(calls, Call{ID: it.CallID, Name: it.Name, Namespace: it.Namespace, Input: argumentsText(it.Arguments)})
		case "tool_search_call":
			if it.Execution == "client" {
				calls = append(calls, Call{ID: it.CallID, Search: true, Input: argumentsText(it.Arguments)})
			}
		}
	}
	return text.String(), calls
}

func (r *rsResponse) stopReason() string {
	if r.Status == "incomplete" && r.IncompleteDetails != nil && r.IncompleteDetails.Reason != "" {
		return r.IncompleteDetails.Reason
	}
	return r.Status
}

func (r *rsResponse) usage() Usage {
	if r.Usage == nil {
		return Usage{}
	}
	return r.Usage.usage()
}

// rsEvent is one streamed event's data.
type rsEvent struct {
	Type        string          `json:"type"`
	OutputIndex *int            `json:"output_index"`
	ItemID      string          `json:"item_id"`
	Item        *rsOutputItem   `json:"item"`
	Delta       json.RawMessage `json:"delta"`
	Arguments   json.RawMessage `json:"arguments"`
	Response    *rsResponse     `json:"response"`
	Message     string          `json:"message"`
	Code        json.RawMessage `json:"code"`
}

// rsStreamCall is a function call being streamed: found by its output_index,
// or by its item id from servers that send none.
type rsStreamCall struct {
	index  int
	itemID string
	call   Call
	args   strings.Builder
}

// rsStream assembles a streamed Responses API response from its events:
// text from output_text (and refusal) deltas, calls from output items and
// their argument deltas; response.completed ends it with the usage.
type rsStream struct {
	resp     Response
	text     strings.Builder
	calls    []*rsStreamCall
	finished bool
}

func (s *rsStream) event(name, data string) ([]string, error) {
	var e rsEvent
	if err := json.Unmarshal([]byte(data), &e); err != nil {
		return nil, fmt.Errorf("%w: stream event %q is not JSON: %v", ErrBadResponse, name, err)
	}
	if e.Type == "" {
		e.Type = name
	}
	switch e.Type {
	case "error":
		msg := e.Message
		if msg == "" {
			msg = providerMessage([]byte(data))
		}
		if code := strings.Trim(string(e.Code), `"`); code != "" && code != "null" {
			msg += " (" + code + ")"
		}
		return nil, fmt.Errorf("%w: %s", ErrProvider, msg)
	case "response.output_text.delta", "response.refusal.delta":
		if d := jsonString(e.Delta); d != "" {
			s.text.WriteString(d)
			return []string{d}, nil
		}
	case "response.output_item.added", "response.output_item.done":
		if e.Item == nil || !(e.Item.Type == "function_call" || e.Item.Type == "tool_search_call" && e.Item.Execution == "client") {
			return nil, nil
		}
		c := s.callFor(e.OutputIndex, e.Item.ID, true)
		c.call.Search = e.Item.Type == "tool_search_call"
		if e.Item.CallID != "" {
			c.call.ID = e.Item.CallID
		}
		if e.Item.Name != "" {
			c.call.Name = e.Item.Name
		}
		if e.Item.Namespace != "" {
			c.call.Namespace = e.Item.Namespace
		}
		if args := argumentsText(e.Item.Arguments); args != "" {
			c.args.Reset()
			c.args.WriteString(args)
		}
	case "response.function_call_arguments.delta":
		c := s.callFor(e.OutputIndex, e.ItemID, false)
		if c == nil {
			return nil, fmt.Errorf("%w: arguments for function call item %q, which never started", ErrBadResponse, e.ItemID)
		}
		c.args.WriteString(jsonString(e.Delta))
	case "response.function_call_arguments.done":
		c := s.callFor(e.OutputIndex, e.ItemID, false)
		if c == nil {
			return nil, fmt.Errorf("%w: arguments for function call item %q, which never started", ErrBadResponse, e.ItemID)
		}
		c.args.Reset()
		c.args.WriteString(argumentsText(e.Arguments))
	case "response.completed", "response.incomplete", "response.failed":
		if e.Response == nil {
			return nil, fmt.Errorf("%w: %s without its response", ErrBadResponse, e.Type)
		}
		if err := e.Response.failure(); err != nil {
			return nil, err
		}
		if e.Type == "response.failed" {
			return nil, fmt.Errorf("%w: the response failed without saying why", ErrProvider)
		}
		return s.complete(e.Response), nil
	}
	return nil, nil
}

// complete ends the stream with its final response object, whose output, if
// it has any, is the whole of what was streamed: its calls win over the ones
// pieced together, and its text is sent as a delta when no delta came.
func (s *rsStream) complete(r *rsResponse) []string {
	s.finished = true
	s.resp.StopReason = r.stopReason()
	s.resp.Usage = r.usage()
	text, calls := r.content()
	if len(calls) > 0 {
		s.calls = nil
		for _, c := range calls {
			sc := &rsStreamCall{index: -1, call: c}
			sc.args.WriteString(c.Input)
			s.calls = append(s.calls, sc)
		}
	}
	if s.text.Len() == 0 && text != "" {
		s.text.WriteString(text)
		return []string{text}
	}
	return nil
}

// callFor finds the call an event is about, by output_index when it has one,
// else by item id; add starts a new one when none matches.
func (s *rsStream) callFor(index *int, itemID string, add bool) *rsStreamCall {
	for _, c := range s.calls {
		if index != nil && c.index == *index || index == nil && itemID != "" && c.itemID == itemID {
			if c.itemID == "" {
				c.itemID = itemID
			}
			return c
		}
	}
	if !add {
		return nil
	}
	c := &rsStreamCall{index: -1, itemID: itemID}
	if index != nil {
		c.index = *index
	}
	s.calls = append(s.calls, c)
	return c
}

// jsonString is a JSON string's value, or "" for anything else.
func jsonString(raw json.RawMessage) string {
	var s string
	_ = json.Unmarshal(raw, &s)
	return s
}

func (s *rsStream) close() (Response, error) {
	if !s.finished {
		return Response{}, fmt.Errorf("%w: the stream ended before the response did (no response.completed)", ErrBadResponse)
	}
	for _, c := range s.calls {
		c.call.Input = c.args.String()
		s.resp.Calls = append(s.resp.Calls, c.call)
	}
	s.resp.Text = s.text.String()
	return s.resp, nil
}
