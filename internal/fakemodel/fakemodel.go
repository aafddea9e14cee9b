// Package fakemodel is a scripted model server on loopback for tests,
// examples and benchmarks: it answers each request with the next reply of
// its script, in one of the four wire formats (OpenAI Chat Completions,
// Anthropic Messages, the OpenAI Responses API, Gemini), whole or streamed
// as server-sent events, and records every request it receives so tests can
// check what was sent.
//
// It checks requests as the real APIs do where a client is likely to go
// wrong, answering in the provider's own error shape: an unknown top-level
// field is a 400; a Responses API function_call_output must answer a
// function_call of the input; Gemini's function responses must answer the
// calls before them one for one, and the current turn's calls must carry
// their thought signatures (Gemini 3). Replies script the rest of the
// providers' errors: RateLimited, Overloaded, ContextTooLong.
package fakemodel

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// Format is the wire format the server speaks.
type Format string

const (
	OpenAI    Format = "openai"
	Anthropic Format = "anthropic"
	Responses Format = "responses"
	Gemini    Format = "gemini"
)

// Formats are the four formats, for tests that run in each.
var Formats = []Format{OpenAI, Anthropic, Responses, Gemini}

// Reply is one scripted answer.
type Reply struct {
	// Text is the assistant's text.
	Text string
	// Calls are tool calls: name and arguments (JSON text).
	Calls []Call
	// Status, when set, answers with this HTTP status and ErrorBody instead.
	Status     int
	ErrorBody  string
	RetryAfter string
	// Hold, when set, keeps the request waiting until it is closed or the
	// client goes away, to catch a program in the middle of a turn.
	Hold <-chan struct{}
	// Make, when set, is called when the reply's request comes and gives
	// the reply sent: one that holds a time counted from then.
	Make func() Reply
}

// Call is one scripted tool call.
type Call struct {
	Name string
	Args string
}

// Text is a reply with text only.
func Text(text string) Reply { return Reply{Text: text} }

// ToolCall is a reply calling one tool.
func ToolCall(name, args string) Reply { return Reply{Calls: []Call{{name, args}}} }

// ToolCalls is a reply calling several tools.
func ToolCalls(calls ...Call) Reply { return Reply{Calls: calls} }

// Error is a reply with an HTTP error status and body.
func Error(status int, body string) Reply { return Reply{Status: status, ErrorBody: body} }

// RateLimited is format's 429 asking to wait seconds: in a Retry-After
// header for OpenAI, the Responses API and Anthropic; in the body's
// google.rpc.RetryInfo for Gemini, which sends no header.
func RateLimited(format Format, seconds int) Reply {
	r := Reply{Status: http.StatusTooManyRequests, RetryAfter: strconv.Itoa(seconds)}
	switch format {
	case Anthropic:
		r.ErrorBody = `{"type":"error","error":{"type":"rate_limit_error","message":"This request would exceed the rate limit for your organization of 50 requests per minute."}}`
	case Gemini:
		r.RetryAfter = ""
		r.ErrorBody = fmt.Sprintf(`{"error":{"code":429,"message":"You exceeded your current quota, please check your plan and billing details.","status":"RESOURCE_EXHAUSTED",`+
			`"details":[{"@type":"type.googleapis.com/google.rpc.QuotaFailure","violations":[{"quotaMetric":"generativelanguage.googleapis.com/generate_content_free_tier_requests","quotaId":"GenerateRequestsPerMinutePerProjectPerModel-FreeTier"}]},`+
			`{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"%ds"}]}}`, seconds)
	default:
		r.ErrorBody = fmt.Sprintf(`{"error":{"message":"Rate limit reached for fake in organization org-fake on requests per min (RPM): Limit 3, Used 3, Requested 1. Please try again in %ds.","type":"requests","param":null,"code":"rate_limit_exceeded"}}`, seconds)
	}
	return r
}

// Overloaded is format's answer when the provider has no capacity: 529 for
// Anthropic, 503 for the others.
func Overloaded(format Format) Reply {
	switch format {
	case Anthropic:
		return Error(529, `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`)
	case Gemini:
		return Error(503, `{"error":{"code":503,"message":"The model is overloaded. Please try again later.","status":"UNAVAILABLE"}}`)
	}
	return Error(503, `{"error":{"message":"The server is overloaded or not ready yet.","type":"server_error","param":null,"code":null}}`)
}

// ContextTooLong is format's 400 for a conversation over the model's
// context window.
func ContextTooLong(format Format) Reply {
	switch format {
	case Anthropic:
		return Error(400, `{"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 208310 tokens > 200000 maximum"}}`)
	case Responses:
		return Error(400, `{"error":{"message":"Your input exceeds the context window of this model. Please adjust your input and try again.","type":"invalid_request_error","param":"input","code":"context_length_exceeded"}}`)
	case Gemini:
		return Error(400, `{"error":{"code":400,"message":"The input token count (1204857) exceeds the maximum number of tokens allowed (1048576).","status":"INVALID_ARGUMENT"}}`)
	}
	return Error(400, `{"error":{"message":"This model's maximum context length is 128000 tokens. However, your messages resulted in 131072 tokens. Please reduce the length of the messages.","type":"invalid_request_error","param":"messages","code":"context_length_exceeded"}}`)
}

// UnknownField is format's 400 for a request with a field the API does not
// have; the server answers it itself to any such request.
func UnknownField(format Format, name string) Reply {
	q, _ := json.Marshal(name)
	n := string(q[1 : len(q)-1])
	switch format {
	case Anthropic:
		return Error(400, `{"type":"error","error":{"type":"invalid_request_error","message":"`+n+`: Extra inputs are not permitted"}}`)
	case Responses:
		return Error(400, `{"error":{"message":"Unknown parameter: '`+n+`'.","type":"invalid_request_error","param":"`+n+`","code":"unknown_parameter"}}`)
	case Gemini:
		msg := `Invalid JSON payload received. Unknown name \"` + n + `\": Cannot find field.`
		return Error(400, `{"error":{"code":400,"message":"`+msg+`","status":"INVALID_ARGUMENT","details":[{"@type":"type.googleapis.com/google.rpc.BadRequest","fieldViolations":[{"description":"`+msg+`"}]}]}}`)
	}
	return Error(400, `{"error":{"message":"Unrecognized request argument supplied: `+n+`","type":"invalid_request_error","param":null,"code":null}}`)
}

// badRequest is format's 400 with message, for the checks the server makes.
func badRequest(format Format, message string) Reply {
	q, _ := json.Marshal(message)
	switch format {
	case Anthropic:
		return Error(400, `{"type":"error","error":{"type":"invalid_request_error","message":`+string(q)+`}}`)
	case Gemini:
		return Error(400, `{"error":{"code":400,"message":`+string(q)+`,"status":"INVALID_ARGUMENT"}}`)
	}
	return Error(400, `{"error":{"message":`+string(q)+`,"type":"invalid_request_error","param":"input","code":null}}`)
}

// Request is one request the server received.
type Request struct {
	Path string
	// Query is the URL's query, without "?": Gemini's alt=sse.
	Query  string
	Header http.Header
	Body   []byte
}

// JSON decodes the request body.
func (r Request) JSON() map[string]any {
	var m map[string]any
	_ = json.Unmarshal(r.Body, &m)
	return m
}

// ToolNames lists the names of the tools the request offered, in order, in
// any of the formats.
func (r Request) ToolNames() []string {
	var body struct {
		Tools []struct {
			Name     string `json:"name"`
			Function struct {
				Name string `json:"name"`
			} `json:"function"`
			FunctionDeclarations []struct {
				Name string `json:"name"`
			} `json:"functionDeclarations"`
		} `json:"tools"`
	}
	_ = json.Unmarshal(r.Body, &body)
	var names []string
	for _, t := range body.Tools {
		switch {
		case t.Function.Name != "":
			names = append(names, t.Function.Name)
		case t.Name != "":
			names = append(names, t.Name)
		}
		for _, d := range t.FunctionDeclarations {
			names = append(names, d.Name)
		}
	}
	return names
}

// Server is a scripted model server.
type Server struct {
	*httptest.Server
	format Format

	// respond, when set, answers each request instead of the script, and
	// no request is kept.
	respond func(Request) Reply

	mu       sync.Mutex
	script   []Reply
	requests []Request
	calls    int
}

// New starts a server speaking format that answers with the replies in
// order; once they run out it answers 500. Close it when done.
func New(format Format, replies ...Reply) *Server {
	s := &Server{format: format, script: replies}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	return s
}

// NewFunc starts a server speaking format that answers each request with
// respond's reply for it, for load whose requests come in no set order
// (many sessions at once, for minutes): it keeps none of them, so
// Requests is empty. respond is called concurrently. Close it when done.
func NewFunc(format Format, respond func(Request) Reply) *Server {
	s := &Server{format: format, respond: respond}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	return s
}

// Add appends replies to the script.
func (s *Server) Add(replies ...Reply) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.script = append(s.script, replies...)
}

// Skip counts the next n replies of the script as answered: the replies
// after them carry the ids a server that answered n requests gives, so two
// servers can answer one conversation's turns alike.
func (s *Server) Skip(n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls += n
}

// Requests returns the requests received so far.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

// BaseURL is the base URL a provider uses: with /v1 for OpenAI and the
// Responses API, without for Anthropic and Gemini, as their official
// clients expect.
func (s *Server) BaseURL() string {
	if s.format == OpenAI || s.format == Responses {
		return s.URL + "/v1"
	}
	return s.URL
}

// route checks the method and path, and says whether the reply streams.
func (s *Server) route(r *http.Request, body []byte) (stream, ok bool) {
	if r.Method != http.MethodPost {
		return false, false
	}
	var req struct {
		Stream bool `json:"stream"`
	}
	_ = json.Unmarshal(body, &req)
	switch s.format {
	case OpenAI:
		return req.Stream, r.URL.Path == "/v1/chat/completions"
	case Anthropic:
		return req.Stream, r.URL.Path == "/v1/messages"
	case Responses:
		return req.Stream, r.URL.Path == "/v1/responses"
	}
	model, method, found := strings.Cut(strings.TrimPrefix(r.URL.Path, "/v1beta/models/"), ":")
	if !strings.HasPrefix(r.URL.Path, "/v1beta/models/") || !found || model == "" {
		return false, false
	}
	switch method {
	case "generateContent":
		return false, true
	case "streamGenerateContent":
		return r.URL.Query().Get("alt") == "sse", true
	}
	return false, false
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	stream, routed := s.route(r, body)
	req := Request{Path: r.URL.Path, Query: r.URL.RawQuery, Header: r.Header.Clone(), Body: body}
	s.mu.Lock()
	if s.respond == nil {
		s.requests = append(s.requests, req)
	}
	var reply Reply
	var ok bool
	refused, checked := s.check(body)
	switch {
	case routed && !checked:
		reply, ok = refused, true
	case s.respond != nil:
		s.calls++
	default:
		ok = s.calls < len(s.script)
		if ok {
			reply = s.script[s.calls]
		}
		s.calls++
	}
	n := s.calls
	s.mu.Unlock()
	if s.respond != nil && routed && checked {
		reply, ok = s.respond(req), true
	}

	if reply.Hold != nil {
		select {
		case <-reply.Hold:
		case <-r.Context().Done():
			return
		}
	}
	if reply.Make != nil {
		reply = reply.Make()
	}
	switch {
	case !routed:
		http.Error(w, fmt.Sprintf(`{"error":{"message":"no route %s %s","type":"invalid_request_error"}}`, r.Method, r.URL.Path), http.StatusNotFound)
		return
	case !ok:
		http.Error(w, `{"error":{"message":"the script has no more replies","type":"server_error"}}`, http.StatusInternalServerError)
		return
	case reply.Status != 0:
		if reply.RetryAfter != "" {
			w.Header().Set("Retry-After", reply.RetryAfter)
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(reply.Status)
		io.WriteString(w, reply.ErrorBody)
		return
	}
	id := "r" + strconv.Itoa(n)
	if s.format == Gemini && !stream && strings.HasSuffix(r.URL.Path, ":streamGenerateContent") {
		// Without alt=sse Gemini streams one JSON array of the chunks.
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, "["+strings.Join(geminiChunks(id, reply), ",\n")+"]")
		return
	}
	sh := shapeOf(body)
	if stream {
		w.Header().Set("Content-Type", "text/event-stream")
		for _, ev := range s.events(id, reply, sh) {
			io.WriteString(w, ev)
			if f, ok := w.(http.Flusher); ok {
				f.Flush()
			}
		}
		return
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(s.whole(id, reply, sh))
}

// shape is how a Responses request's native tools change the calls of a
// reply: a load_tool_group call is a client tool search when the request
// offers one, and a call of a namespace's function names its namespace.
type shape struct {
	search    bool
	namespace map[string]string // function name -> namespace
	// usage: an OpenAI stream asked for its usage (stream_options.
	// include_usage), which comes in a last chunk with no choices.
	usage bool
}

func shapeOf(body []byte) shape {
	var req struct {
		Tools []struct {
			Type      string `json:"type"`
			Name      string `json:"name"`
			Execution string `json:"execution"`
			Tools     []struct {
				Name string `json:"name"`
			} `json:"tools"`
		} `json:"tools"`
		StreamOptions struct {
			IncludeUsage bool `json:"include_usage"`
		} `json:"stream_options"`
	}
	_ = json.Unmarshal(body, &req)
	sh := shape{namespace: map[string]string{}, usage: req.StreamOptions.IncludeUsage}
	for _, t := range req.Tools {
		switch t.Type {
		case "tool_search":
			sh.search = sh.search || t.Execution == "client"
		case "namespace":
			for _, f := range t.Tools {
				sh.namespace[f.Name] = t.Name
			}
		}
	}
	return sh
}

// knownFields are the top-level fields of each format's request body, as its
// API reference lists them; any other is refused as the API refuses it.
var knownFields = map[Format][]string{
	OpenAI: {"audio", "frequency_penalty", "logit_bias", "logprobs", "max_completion_tokens", "max_tokens", "messages", "metadata",
		"modalities", "model", "n", "parallel_tool_calls", "prediction", "presence_penalty", "prompt_cache_key", "reasoning_effort",
		"response_format", "safety_identifier", "seed", "service_tier", "stop", "store", "stream", "stream_options", "temperature",
		"tool_choice", "tools", "top_logprobs", "top_p", "user", "verbosity", "web_search_options"},
	Anthropic: {"container", "context_management", "max_tokens", "mcp_servers", "messages", "metadata", "model", "service_tier",
		"stop_sequences", "stream", "system", "temperature", "thinking", "tool_choice", "tools", "top_k", "top_p"},
	Responses: {"background", "context_management", "conversation", "include", "input", "instructions", "max_output_tokens",
		"max_tool_calls", "metadata", "model", "parallel_tool_calls", "previous_response_id", "prompt", "prompt_cache_key",
		"prompt_cache_retention", "reasoning", "safety_identifier", "service_tier", "store", "stream", "stream_options",
		"temperature", "text", "tool_choice", "tools", "top_logprobs", "top_p", "truncation", "user"},
	Gemini: {"cachedContent", "contents", "generationConfig", "safetySettings", "systemInstruction", "toolConfig", "tools"},
}

// check refuses a request as the provider would: the refusal, and false.
func (s *Server) check(body []byte) (Reply, bool) {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(body, &fields); err != nil {
		return badRequest(s.format, "the request body is not a JSON object: "+err.Error()), false
	}
	names := make([]string, 0, len(fields))
	for k := range fields {
		names = append(names, k)
	}
	slices.Sort(names)
	for _, k := range names {
		if !slices.Contains(knownFields[s.format], k) {
			return UnknownField(s.format, k), false
		}
	}
	switch s.format {
	case Responses:
		if r, ok := checkResponsesTools(fields["tools"]); !ok {
			return r, ok
		}
		return checkResponses(fields["input"], fields["tools"])
	case Gemini:
		return checkGemini(fields["contents"])
	case Anthropic:
		return checkAnthropic(body)
	}
	return Reply{}, true
}

// checkAnthropic: what the Messages API refuses of deferred tools and cache
// breakpoints: a tool_reference to a tool the request does not define
// deferred, every tool deferred, more than 4 cache_control blocks.
func checkAnthropic(body []byte) (Reply, bool) {
	var req struct {
		System []struct {
			CacheControl json.RawMessage `json:"cache_control"`
		} `json:"system"`
		Tools []struct {
			Name         string          `json:"name"`
			DeferLoading bool            `json:"defer_loading"`
			CacheControl json.RawMessage `json:"cache_control"`
		} `json:"tools"`
		Messages []struct {
			Content []struct {
				Type         string          `json:"type"`
				CacheControl json.RawMessage `json:"cache_control"`
				Content      json.RawMessage `json:"content"`
			} `json:"content"`
		} `json:"messages"`
	}
	if json.Unmarshal(body, &req) != nil {
		return Reply{}, true // the other checks' business
	}
	breakpoints, deferred, loaded := 0, map[string]bool{}, 0
	for _, t := range req.Tools {
		if len(t.CacheControl) > 0 {
			breakpoints++
		}
		if t.DeferLoading {
			deferred[t.Name] = true
		} else {
			loaded++
		}
	}
	if len(req.Tools) > 0 && loaded == 0 {
		return badRequest(Anthropic, "At least one tool must have defer_loading=false; all tools cannot be deferred."), false
	}
	for _, b := range req.System {
		if len(b.CacheControl) > 0 {
			breakpoints++
		}
	}
	for i, m := range req.Messages {
		for j, b := range m.Content {
			if len(b.CacheControl) > 0 {
				breakpoints++
			}
			var inner []struct {
				Type     string `json:"type"`
				ToolName string `json:"tool_name"`
			}
			if b.Type != "tool_result" || json.Unmarshal(b.Content, &inner) != nil {
				continue
			}
			for _, c := range inner {
				if c.Type == "tool_reference" && !deferred[c.ToolName] {
					return badRequest(Anthropic, fmt.Sprintf("messages.%d.content.%d: tool_reference to '%s', which is not a deferred tool (defer_loading: true) of the request's tools.", i, j, c.ToolName)), false
				}
			}
		}
	}
	if breakpoints > 4 {
		return badRequest(Anthropic, fmt.Sprintf("A maximum of 4 blocks with cache_control may be provided. Found %d.", breakpoints)), false
	}
	return Reply{}, true
}

// checkResponsesTools: deferred functions need a tool_search tool to be
// found by.
func checkResponsesTools(tools json.RawMessage) (Reply, bool) {
	var list []struct {
		Type         string `json:"type"`
		DeferLoading bool   `json:"defer_loading"`
		Tools        []struct {
			DeferLoading bool `json:"defer_loading"`
		} `json:"tools"`
	}
	_ = json.Unmarshal(tools, &list)
	deferred, search := false, false
	for _, t := range list {
		deferred = deferred || t.DeferLoading
		for _, f := range t.Tools {
			deferred = deferred || f.DeferLoading
		}
		search = search || t.Type == "tool_search"
	}
	if deferred && !search {
		return badRequest(Responses, "Deferred tools (defer_loading: true) require the tool_search tool in 'tools'."), false
	}
	return Reply{}, true
}

// checkResponses: every function_call_output answers a function_call the
// input has before it, and every tool_search_output a tool_search_call; a
// call in a namespace names one of the request's, holding the function.
func checkResponses(input, tools json.RawMessage) (Reply, bool) {
	var items []struct {
		Type      string `json:"type"`
		ID        string `json:"id"`
		CallID    string `json:"call_id"`
		Name      string `json:"name"`
		Namespace string `json:"namespace"`
	}
	if json.Unmarshal(input, &items) != nil {
		return Reply{}, true // a string input
	}
	namespaces := shapeOf([]byte(`{"tools":` + string(orNull(tools)) + `}`)).namespace
	called, searched := map[string]bool{}, map[string]bool{}
	for _, it := range items {
		switch it.Type {
		case "tool_search_call":
			searched[it.CallID] = true
		case "tool_search_output":
			if !searched[it.CallID] {
				return badRequest(Responses, fmt.Sprintf("No tool search call found for tool_search_output with call_id %s.", it.CallID)), false
			}
		}
		if it.Type == "function_call" && it.Namespace != "" && namespaces[it.Name] != it.Namespace {
			return badRequest(Responses, fmt.Sprintf("Invalid 'input[].namespace': no namespace '%s' with function '%s' in 'tools'.", it.Namespace, it.Name)), false
		}
		switch it.Type {
		case "function_call":
			if it.ID != "" && !strings.HasPrefix(it.ID, "fc") {
				return badRequest(Responses, fmt.Sprintf("Invalid 'input[].id': '%s'. Expected an ID that begins with 'fc'.", it.ID)), false
			}
			called[it.CallID] = true
		case "function_call_output":
			if !called[it.CallID] {
				return badRequest(Responses, fmt.Sprintf("No tool call found for function call output with call_id %s.", it.CallID)), false
			}
		}
	}
	return Reply{}, true
}

// checkGemini: a turn of function responses answers the calls of the model
// turn before it, one for one; and in the current turn (since the last user
// text), the first call of each model turn carries its thought signature.
func checkGemini(contents json.RawMessage) (Reply, bool) {
	var turns []struct {
		Role  string `json:"role"`
		Parts []struct {
			Text             *string         `json:"text"`
			FunctionCall     json.RawMessage `json:"functionCall"`
			FunctionResponse json.RawMessage `json:"functionResponse"`
			ThoughtSignature string          `json:"thoughtSignature"`
		} `json:"parts"`
	}
	if err := json.Unmarshal(contents, &turns); err != nil || len(turns) == 0 {
		return badRequest(Gemini, "* GenerateContentRequest.contents: contents is not specified"), false
	}
	current := 0
	for i, t := range turns {
		for _, p := range t.Parts {
			if t.Role == "user" && p.Text != nil {
				current = i
			}
		}
	}
	calls := 0
	for i, t := range turns {
		responses, first := 0, true
		for _, p := range t.Parts {
			switch {
			case len(p.FunctionCall) > 0:
				if first && i > current && p.ThoughtSignature == "" {
					return badRequest(Gemini, fmt.Sprintf("Function call is missing a thought_signature in functionCall parts. This is required for tools to work correctly, and missing thought_signature may lead to degraded model performance. Additional data, function call `default_api:x` , position %d.", i+1)), false
				}
				first = false
			case len(p.FunctionResponse) > 0:
				responses++
			}
		}
		if responses > 0 && responses != calls {
			return badRequest(Gemini, "Please ensure that the number of function response parts is equal to the number of function call parts of the function call turn."), false
		}
		calls = 0
		for _, p := range t.Parts {
			if len(p.FunctionCall) > 0 {
				calls++
			}
		}
	}
	return Reply{}, true
}

func (s *Server) whole(id string, r Reply, sh shape) any {
	finish := "stop"
	if len(r.Calls) > 0 {
		finish = "tool_calls"
	}
	switch s.format {
	case Anthropic:
		content := []map[string]any{}
		if r.Text != "" {
			content = append(content, map[string]any{"type": "text", "text": r.Text})
		}
		for i, c := range r.Calls {
			content = append(content, map[string]any{"type": "tool_use", "id": fmt.Sprintf("toolu_%s_%d", id, i), "name": c.Name, "input": json.RawMessage(orEmpty(c.Args))})
		}
		stop := "end_turn"
		if len(r.Calls) > 0 {
			stop = "tool_use"
		}
		return map[string]any{"id": "msg_" + id, "type": "message", "role": "assistant", "model": "fake", "content": content,
			"stop_reason": stop, "stop_sequence": nil, "usage": map[string]int{"input_tokens": 10, "output_tokens": 5}}
	case Responses:
		return responsesObject(id, r, "completed", sh)
	case Gemini:
		return json.RawMessage(geminiChunk(id, geminiParts(id, r.Text, r.Calls), "STOP", true))
	}
	msg := map[string]any{"role": "assistant", "content": nil}
	if r.Text != "" {
		msg["content"] = r.Text
	}
	if len(r.Calls) > 0 {
		var calls []map[string]any
		for i, c := range r.Calls {
			calls = append(calls, map[string]any{"id": fmt.Sprintf("call_%s_%d", id, i), "type": "function",
				"function": map[string]string{"name": c.Name, "arguments": orEmpty(c.Args)}})
		}
		msg["tool_calls"] = calls
	}
	return map[string]any{"id": "chatcmpl-" + id, "object": "chat.completion", "model": "fake",
		"choices": []map[string]any{{"index": 0, "message": msg, "finish_reason": finish}},
		"usage":   openAIUsage}
}

// responsesObject is a Responses API response object with r's output.
func responsesObject(id string, r Reply, status string, sh shape) map[string]any {
	output := []any{}
	if status == "completed" {
		if r.Text != "" {
			output = append(output, responsesMessage(id, r.Text, "completed"))
		}
		for i, c := range r.Calls {
			output = append(output, responsesCall(id, i, c, orEmpty(c.Args), "completed", sh))
		}
	}
	obj := map[string]any{"id": "resp_" + id, "object": "response", "created_at": 1772355600, "status": status, "error": nil,
		"incomplete_details": nil, "model": "fake", "output": output, "store": false, "usage": nil}
	if status == "completed" {
		obj["usage"] = map[string]any{"input_tokens": 10, "input_tokens_details": map[string]int{"cached_tokens": 0},
			"output_tokens": 5, "output_tokens_details": map[string]int{"reasoning_tokens": 0}, "total_tokens": 15}
	}
	return obj
}

func responsesMessage(id, text, status string) map[string]any {
	content := []any{}
	if text != "" {
		content = append(content, map[string]any{"type": "output_text", "text": text, "annotations": []any{}})
	}
	return map[string]any{"id": "msg_" + id, "type": "message", "status": status, "role": "assistant", "content": content}
}

func responsesCall(id string, i int, c Call, args, status string, sh shape) map[string]any {
	if sh.search && c.Name == "load_tool_group" {
		var obj any = map[string]any{}
		if args != "" {
			_ = json.Unmarshal([]byte(args), &obj)
		}
		return map[string]any{"id": fmt.Sprintf("tsc_%s_%d", id, i), "type": "tool_search_call", "status": status, "execution": "client",
			"call_id": fmt.Sprintf("call_%s_%d", id, i), "arguments": obj}
	}
	call := map[string]any{"id": fmt.Sprintf("fc_%s_%d", id, i), "type": "function_call", "status": status,
		"call_id": fmt.Sprintf("call_%s_%d", id, i), "name": c.Name, "arguments": args}
	if ns := sh.namespace[c.Name]; ns != "" {
		call["namespace"] = ns
	}
	return call
}

// geminiParts are a reply's parts; the first call carries a thought
// signature, as Gemini 3's do.
func geminiParts(id, text string, calls []Call) []any {
	parts := []any{}
	if text != "" {
		parts = append(parts, map[string]any{"text": text})
	}
	for i, c := range calls {
		p := map[string]any{"functionCall": map[string]any{"id": fmt.Sprintf("fc_%s_%d", id, i), "name": c.Name, "args": json.RawMessage(orEmpty(c.Args))}}
		if i == 0 {
			p["thoughtSignature"] = base64.StdEncoding.EncodeToString([]byte("signature of " + id))
		}
		parts = append(parts, p)
	}
	return parts
}

// geminiChunk is a GenerateContentResponse with parts; the last of a reply
// has the finishReason and the whole usage.
func geminiChunk(id string, parts []any, finish string, last bool) string {
	cand := map[string]any{"content": map[string]any{"role": "model", "parts": parts}, "index": 0}
	usage := map[string]int{"promptTokenCount": 10, "totalTokenCount": 10}
	if last {
		cand["finishReason"] = finish
		usage = map[string]int{"promptTokenCount": 10, "candidatesTokenCount": 5, "totalTokenCount": 15}
	}
	b, _ := json.Marshal(map[string]any{"candidates": []any{cand}, "usageMetadata": usage, "modelVersion": "fake", "responseId": "resp_" + id})
	return string(b)
}

// geminiChunks stream a reply: text in two chunks, then the calls, whole,
// with the finishReason.
func geminiChunks(id string, r Reply) []string {
	half := func(s string) (string, string) { return s[:len(s)/2], s[len(s)/2:] }
	var chunks []string
	a, b := half(r.Text)
	if len(r.Calls) == 0 {
		if a != "" {
			chunks = append(chunks, geminiChunk(id, geminiParts(id, a, nil), "", false))
		}
		return append(chunks, geminiChunk(id, geminiParts(id, b, nil), "STOP", true))
	}
	for _, t := range []string{a, b} {
		if t != "" {
			chunks = append(chunks, geminiChunk(id, geminiParts(id, t, nil), "", false))
		}
	}
	return append(chunks, geminiChunk(id, geminiParts(id, "", r.Calls), "STOP", true))
}

// events streams a reply: text in two deltas, each call's arguments in two
// fragments, as the providers do.
func (s *Server) events(id string, r Reply, sh shape) []string {
	var out []string
	data := func(event string, v any) {
		b, _ := json.Marshal(v)
		if event != "" {
			out = append(out, "event: "+event+"\ndata: "+string(b)+"\n\n")
		} else {
			out = append(out, "data: "+string(b)+"\n\n")
		}
	}
	half := func(s string) (string, string) { return s[:len(s)/2], s[len(s)/2:] }
	switch s.format {
	case Anthropic:
		data("message_start", map[string]any{"type": "message_start", "message": map[string]any{"id": "msg_" + id, "type": "message",
			"role": "assistant", "content": []any{}, "model": "fake", "usage": map[string]int{"input_tokens": 10, "output_tokens": 1}}})
		idx := 0
		if r.Text != "" {
			data("content_block_start", map[string]any{"type": "content_block_start", "index": idx, "content_block": map[string]any{"type": "text", "text": ""}})
			a, b := half(r.Text)
			for _, t := range []string{a, b} {
				data("content_block_delta", map[string]any{"type": "content_block_delta", "index": idx, "delta": map[string]any{"type": "text_delta", "text": t}})
			}
			data("content_block_stop", map[string]any{"type": "content_block_stop", "index": idx})
			idx++
		}
		for i, c := range r.Calls {
			data("content_block_start", map[string]any{"type": "content_block_start", "index": idx, "content_block": map[string]any{
				"type": "tool_use", "id": fmt.Sprintf("toolu_%s_%d", id, i), "name": c.Name, "input": map[string]any{}}})
			a, b := half(orEmpty(c.Args))
			for _, p := range []string{"", a, b} {
				data("content_block_delta", map[string]any{"type": "content_block_delta", "index": idx, "delta": map[string]any{"type": "input_json_delta", "partial_json": p}})
			}
			data("content_block_stop", map[string]any{"type": "content_block_stop", "index": idx})
			idx++
		}
		stop := "end_turn"
		if len(r.Calls) > 0 {
			stop = "tool_use"
		}
		data("message_delta", map[string]any{"type": "message_delta", "delta": map[string]any{"stop_reason": stop}, "usage": map[string]int{"output_tokens": 5}})
		data("message_stop", map[string]any{"type": "message_stop"})
		return out
	case Responses:
		seq := 0
		ev := func(typ string, fields map[string]any) {
			fields["type"], fields["sequence_number"] = typ, seq
			seq++
			data(typ, fields)
		}
		ev("response.created", map[string]any{"response": responsesObject(id, r, "in_progress", sh)})
		idx := 0
		if r.Text != "" {
			ev("response.output_item.added", map[string]any{"output_index": idx, "item": responsesMessage(id, "", "in_progress")})
			a, b := half(r.Text)
			for _, t := range []string{a, b} {
				ev("response.output_text.delta", map[string]any{"item_id": "msg_" + id, "output_index": idx, "content_index": 0, "delta": t, "logprobs": []any{}})
			}
			ev("response.output_text.done", map[string]any{"item_id": "msg_" + id, "output_index": idx, "content_index": 0, "text": r.Text, "logprobs": []any{}})
			ev("response.output_item.done", map[string]any{"output_index": idx, "item": responsesMessage(id, r.Text, "completed")})
			idx++
		}
		for i, c := range r.Calls {
			args := orEmpty(c.Args)
			if sh.search && c.Name == "load_tool_group" {
				// A tool search call streams as its item, added then done.
				ev("response.output_item.added", map[string]any{"output_index": idx, "item": responsesCall(id, i, c, "", "in_progress", sh)})
				ev("response.output_item.done", map[string]any{"output_index": idx, "item": responsesCall(id, i, c, args, "completed", sh)})
				idx++
				continue
			}
			itemID := fmt.Sprintf("fc_%s_%d", id, i)
			ev("response.output_item.added", map[string]any{"output_index": idx, "item": responsesCall(id, i, c, "", "in_progress", sh)})
			a, b := half(args)
			for _, p := range []string{a, b} {
				ev("response.function_call_arguments.delta", map[string]any{"item_id": itemID, "output_index": idx, "delta": p})
			}
			ev("response.function_call_arguments.done", map[string]any{"item_id": itemID, "output_index": idx, "name": c.Name, "arguments": args})
			ev("response.output_item.done", map[string]any{"output_index": idx, "item": responsesCall(id, i, c, args, "completed", sh)})
			idx++
		}
		ev("response.completed", map[string]any{"response": responsesObject(id, r, "completed", sh)})
		return out
	case Gemini:
		for _, c := range geminiChunks(id, r) {
			out = append(out, "data: "+c+"\r\n\r\n")
		}
		return out
	}
	chunk := func(delta map[string]any, finish any) {
		data("", map[string]any{"id": "chatcmpl-" + id, "object": "chat.completion.chunk", "model": "fake",
			"choices": []map[string]any{{"index": 0, "delta": delta, "finish_reason": finish}}})
	}
	if r.Text != "" {
		a, b := half(r.Text)
		chunk(map[string]any{"role": "assistant", "content": a}, nil)
		chunk(map[string]any{"content": b}, nil)
	}
	for i, c := range r.Calls {
		a, b := half(orEmpty(c.Args))
		chunk(map[string]any{"tool_calls": []map[string]any{{"index": i, "id": fmt.Sprintf("call_%s_%d", id, i), "type": "function",
			"function": map[string]string{"name": c.Name, "arguments": a}}}}, nil)
		chunk(map[string]any{"tool_calls": []map[string]any{{"index": i, "function": map[string]string{"arguments": b}}}}, nil)
	}
	finish := "stop"
	if len(r.Calls) > 0 {
		finish = "tool_calls"
	}
	chunk(map[string]any{}, finish)
	if sh.usage {
		data("", map[string]any{"id": "chatcmpl-" + id, "object": "chat.completion.chunk", "model": "fake",
			"choices": []any{}, "usage": openAIUsage})
	}
	out = append(out, "data: [DONE]\n\n")
	return out
}

// openAIUsage is what every OpenAI reply costs, whole or streamed.
var openAIUsage = map[string]int{"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}

func orNull(raw json.RawMessage) json.RawMessage {
	if len(raw) == 0 {
		return json.RawMessage("null")
	}
	return raw
}

func orEmpty(args string) string {
	if strings.TrimSpace(args) == "" {
		return "{}"
	}
	return args
}
