// Package wire speaks the model providers' HTTP formats: OpenAI Chat
// Completions (which OpenAI, Ollama, llama.cpp server and vLLM all serve),
// Anthropic Messages, the OpenAI Responses API and Gemini's generateContent.
// It turns a provider-neutral conversation into a request body, and a
// response body or its streamed chunks back into text and tool calls.
//
// The package is pure: no I/O, no clock, standard library only. Its structs
// are written by hand from the providers' public API references, so the wasm
// module stays small; host tests check them against the official SDKs.
package wire

import (
	"errors"
	"fmt"
	"strings"

	"github.com/toolroute/toolroute/registry/internal/jsondec"
)

// Format is a provider wire format.
type Format string

const (
	// OpenAI is the Chat Completions format at POST {base}/chat/completions.
	OpenAI Format = "openai"
	// Anthropic is the Messages format at POST {base}/v1/messages.
	Anthropic Format = "anthropic"
	// Responses is the OpenAI Responses API at POST {base}/responses, used
	// statelessly: every request carries the whole conversation.
	Responses Format = "responses"
	// Gemini is Google's Gemini API at POST
	// {base}/v1beta/models/{model}:generateContent, and
	// :streamGenerateContent?alt=sse when streamed.
	Gemini Format = "gemini"
)

// Formats are the formats this package speaks, in the order error messages
// list them.
var Formats = []Format{OpenAI, Anthropic, Responses, Gemini}

// ParseFormat checks a format name.
func ParseFormat(s string) (Format, error) {
	for _, f := range Formats {
		if Format(s) == f {
			return f, nil
		}
	}
	return "", fmt.Errorf("%w: %q: use %s", ErrUnknownFormat, s, formatList())
}

// formatList is "openai", "anthropic", "responses" or "gemini".
func formatList() string {
	var b strings.Builder
	for i, f := range Formats {
		switch {
		case i == len(Formats)-1:
			b.WriteString(" or ")
		case i > 0:
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%q", f)
	}
	return b.String()
}

// Errors a caller may branch on.
var (
	ErrUnknownFormat = errors.New("wire: unknown format")
	// ErrBadResponse: the body or stream is not what the format promises.
	ErrBadResponse = errors.New("wire: malformed model response")
	// ErrProvider: the provider answered with an error object.
	ErrProvider = errors.New("wire: provider error")
)

// Role is who speaks a message.
type Role string

const (
	// RoleUser is the user's message.
	RoleUser Role = "user"
	// RoleAssistant is the model's message, its text and tool calls.
	RoleAssistant Role = "assistant"
	// RoleTool carries the results of the previous assistant message's calls.
	RoleTool Role = "tool"
)

// Message is one message of a provider-neutral conversation.
type Message struct {
	Role Role
	Text string
	// Images are a user message's pictures, sent after Text as the
	// format's image parts.
	Images []Image
	// Calls are an assistant message's tool calls, in the model's order.
	Calls []Call
	// Results answer the previous assistant message's calls, in their order.
	Results []Result
}

// Call is one tool call the model made.
type Call struct {
	ID   string
	Name string
	// Input is the arguments as the model sent them: JSON text, which may be
	// malformed.
	Input string
	// Signature is an opaque token the provider wants back with the call:
	// Gemini's thoughtSignature, which Gemini 3 models check on the calls of
	// the current turn. The other formats neither send nor read it.
	Signature string
	// Search marks the Responses API's client-executed tool search
	// (a tool_search_call item, its arguments in Input): the model asking
	// for a deferred group. The turn engine runs it as load_tool_group.
	Search bool
	// Namespace is the Responses namespace the called function is in
	// (a deferred group's name), "" for a top-level function.
	Namespace string
}

// Result is the outcome of one tool call as the model reads it.
type Result struct {
	CallID  string
	Name    string
	Content string
	// Images go beside Content where the format carries them (Anthropic,
	// Responses, Gemini); elsewhere Content's placeholders stand for them.
	Images []Image
	// Documents go beside Content where the format carries them
	// (Anthropic, Responses, Gemini); elsewhere Content's placeholders
	// stand for them.
	Documents []Document
	IsError   bool
	// Loaded is the deferred group this result loads, for a load in a
	// request with deferred groups: Anthropic sends a tool_reference block
	// for each of its tools after the text; a Responses tool search call
	// gets it as its tool_search_output. Nil for any other result.
	Loaded *Group
}

// Group is a tool group sent deferred: its tools are in the request but
// not in the model's context until a load (a tool_reference, a
// tool_search_output) brings them in, where the load stands in the
// conversation, so the cached prefix before it is kept.
type Group struct {
	Name        string
	Description string
	Tools       []ToolDef
}

// Image is a picture in a tool result or a user message: its media type and standard base64
// data, already checked against the provider's limits.
type Image struct {
	MIMEType string `json:"mime_type"`
	Data     string `json:"data"`
}

// Document is a PDF in a tool result: its media type, standard base64
// data, already checked against the provider's limits, and its name (a
// resource's URI), which the formats that name a file give it.
type Document struct {
	MIMEType string `json:"mime_type"`
	Data     string `json:"data"`
	Name     string `json:"name,omitempty"`
}

// ToolDef is a tool definition as sent to the model.
type ToolDef struct {
	Name        string
	Description string
	// Parameters is the tool's JSON Schema, compact.
	Parameters []byte
}

// Request is everything one model call sends.
type Request struct {
	Model    string
	System   string
	Messages []Message
	// Tools are sent in this order.
	Tools []ToolDef
	// Deferred are groups sent for provider-native loading, after Tools,
	// in order (Anthropic: each tool with defer_loading; Responses: a
	// namespace each). Formats without native deferral refuse them.
	Deferred []Group
	// Search is the tool a Responses request offers for loading its
	// Deferred groups: a client-executed tool_search with this description
	// and parameters. Other formats refuse it.
	Search *ToolDef
	// MaxTokens caps the reply; 0 leaves it to the provider, except for
	// Anthropic, which requires it and gets DefaultMaxTokens. For Responses
	// and Gemini it includes the tokens a reasoning model thinks with.
	MaxTokens   int
	Temperature *float64
	Stream      bool
}

// DefaultMaxTokens is the reply cap sent to Anthropic when none is set.
const DefaultMaxTokens = 4096

// HTTPRequest is a model call for the host to make: POST Path, relative to
// the provider's base URL, with Headers (the host adds authentication) and
// Body.
type HTTPRequest struct {
	Path    string            `json:"path"`
	Headers map[string]string `json:"headers"`
	Body    []byte            `json:"-"`
}

// Response is one model response, whole or assembled from a stream.
type Response struct {
	Text  string
	Calls []Call
	// StopReason is the provider's reason, such as "stop", "tool_calls",
	// "end_turn", "tool_use" or "max_tokens"; for Responses the status
	// ("completed") or why it is incomplete ("max_output_tokens"); for Gemini
	// the finishReason ("STOP").
	StopReason string
	Usage      Usage
}

// Usage is what a response cost in tokens, as the provider reports it.
type Usage struct {
	InputTokens int `json:"input_tokens"`
	// OutputTokens include a reasoning model's thinking where the provider
	// bills it as output: Responses' output_tokens count it already, Gemini's
	// thoughtsTokenCount is added to its candidatesTokenCount.
	OutputTokens int `json:"output_tokens"`
	// CachedTokens are input tokens read from the provider's prompt cache:
	// OpenAI's prompt_tokens_details.cached_tokens and Responses'
	// input_tokens_details.cached_tokens (counted in InputTokens too),
	// Anthropic's cache_read_input_tokens (not in its input_tokens), Gemini's
	// cachedContentTokenCount (counted in its promptTokenCount too).
	CachedTokens int `json:"cached_tokens,omitempty"`
}

// NativeDeferral reports whether a format can send tool groups deferred
// and load them without changing what comes before the load: Anthropic
// (defer_loading and tool_reference) and Responses (namespaces and a
// client-executed tool_search).
func NativeDeferral(f Format) bool { return f == Anthropic || f == Responses }

// Encode builds the HTTP request for one model call.
func Encode(f Format, r Request) (HTTPRequest, error) {
	return encode(f, r, nil)
}

func encode(f Format, r Request, c *Conv) (HTTPRequest, error) {
	if !NativeDeferral(f) && (len(r.Deferred) > 0 || r.Search != nil) {
		return HTTPRequest{}, fmt.Errorf("wire: the %s format cannot send deferred tools", f)
	}
	switch f {
	case OpenAI:
		return encodeOpenAI(r, c)
	case Anthropic:
		return encodeAnthropic(r, c)
	case Responses:
		return encodeResponses(r, c)
	case Gemini:
		return encodeGemini(r, c)
	}
	return HTTPRequest{}, fmt.Errorf("%w: %q", ErrUnknownFormat, f)
}

// Decode parses a whole (non-streamed) response body. A body nesting
// more than jsondec.MaxDepth arrays and objects is refused before it is
// read, as all JSON from outside is.
func Decode(f Format, body []byte) (Response, error) {
	if err := jsondec.CheckDepth(body); err != nil {
		return Response{}, fmt.Errorf("%w: the body %v, deeper than any model response: try again, and if it comes again, look at what the provider or a proxy before it sends", ErrBadResponse, err)
	}
	switch f {
	case OpenAI:
		return decodeOpenAI(body)
	case Anthropic:
		return decodeAnthropic(body)
	case Responses:
		return decodeResponses(body)
	case Gemini:
		return decodeGemini(body)
	}
	return Response{}, fmt.Errorf("%w: %q", ErrUnknownFormat, f)
}

// ErrorMessage turns a failed model call's status and body into one line a
// person can act on, using the provider's own error message when the body has
// one.
func ErrorMessage(status int, body []byte) string {
	msg := providerMessage(body)
	hint := ""
	switch {
	case status == 401 || status == 403:
		hint = ": check the API key"
	case status == 404:
		hint = ": check the model name and the base URL"
	case status == 429:
		hint = ": rate limited, try again later"
	case status >= 500:
		hint = ": the provider failed, try again later"
	}
	if msg == "" {
		return fmt.Sprintf("HTTP %d%s", status, hint)
	}
	return fmt.Sprintf("HTTP %d%s: %s", status, hint, msg)
}

// OpenAIToolsJSON is the "tools" value of the OpenAI Chat Completions
// request that sends defs, byte for byte as a model call sends it: what
// `toolroute tokens` and every host's token meter count. "" for none, as the
// body then has no "tools".
func OpenAIToolsJSON(defs []ToolDef) (string, error) {
	if len(defs) == 0 {
		return "", nil
	}
	// The request's "tools" value is this slice encoded as the request's
	// other fields are.
	tools := make([]oaTool, len(defs))
	for i, t := range defs {
		tools[i] = oaTool{Type: "function", Function: oaFunctionDef{Name: t.Name, Description: t.Description, Parameters: t.Parameters}}
	}
	b, err := marshal(tools)
	return string(b), err
}
