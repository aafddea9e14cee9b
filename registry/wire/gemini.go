package wire

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// Gemini's generateContent and streamGenerateContent, as far as toolroute
// uses them (ai.google.dev/api/generate-content, .../caching for the usage,
// ai.google.dev/gemini-api/docs/function-calling and .../thought-signatures).
//
// Tools go as functionDeclarations with parametersJsonSchema, which takes
// JSON Schema as tools write it (additionalProperties, anyOf, $ref...),
// rather than parameters, an OpenAPI subset whose parser refuses every
// keyword it has no field for. Function calls and their responses carry the
// call's id; Gemini pairs them by it, or by name and order when a model gave
// none (the engine then made one, which is sent on both sides).

// geminiSkipSignature stands for a thought signature a call does not have
// (one another format's model made, or one logged before signatures were
// kept): the dummy value Gemini's documentation gives for history it did not
// produce, "skip_thought_signature_validator", as the bytes field it is,
// base64 encoded (as the official SDKs send it).
const geminiSkipSignature = "c2tpcF90aG91Z2h0X3NpZ25hdHVyZV92YWxpZGF0b3I="

type gmRequest struct {
	Contents          []gmContent  `json:"contents"`
	SystemInstruction *gmContent   `json:"systemInstruction,omitempty"`
	Tools             any          `json:"tools,omitempty"` // []gmTool, or its JSON
	GenerationConfig  *gmGenConfig `json:"generationConfig,omitempty"`
}

type gmContent struct {
	Role  string   `json:"role,omitempty"`
	Parts []gmPart `json:"parts"`
}

// gmPart is a request part: text, an image (inlineData), a functionCall
// or a functionResponse.
type gmPart struct {
	Text             string              `json:"text,omitempty"`
	InlineData       *gmBlob             `json:"inlineData,omitempty"`
	FunctionCall     *gmFunctionCall     `json:"functionCall,omitempty"`
	FunctionResponse *gmFunctionResponse `json:"functionResponse,omitempty"`
	ThoughtSignature string              `json:"thoughtSignature,omitempty"`
}

// gmFunctionCall is a call sent back. Its args are left out when empty, as
// the SDKs leave them (the field is optional).
type gmFunctionCall struct {
	ID   string          `json:"id,omitempty"`
	Name string          `json:"name"`
	Args json.RawMessage `json:"args,omitempty"`
}

// gmFunctionResponse is a call's result: "output", or "error" for a failure,
// as the API reference asks; images go as parts beside it.
type gmFunctionResponse struct {
	ID       string           `json:"id,omitempty"`
	Name     string           `json:"name"`
	Response json.RawMessage  `json:"response"`
	Parts    []gmResponsePart `json:"parts,omitempty"`
}

type gmResponsePart struct {
	InlineData gmBlob `json:"inlineData"`
}

type gmBlob struct {
	MIMEType string `json:"mimeType"`
	Data     string `json:"data"`
}

type gmTool struct {
	FunctionDeclarations []gmFunctionDecl `json:"functionDeclarations"`
}

type gmFunctionDecl struct {
	Name                 string          `json:"name"`
	Description          string          `json:"description"`
	ParametersJSONSchema json.RawMessage `json:"parametersJsonSchema"`
}

type gmGenConfig struct {
	MaxOutputTokens int      `json:"maxOutputTokens,omitempty"`
	Temperature     *float64 `json:"temperature,omitempty"`
}

// geminiImageTypes are the image types Gemini reads: of the ones the module
// keeps, GIF is not among them, so a GIF's placeholder stands for it.
var geminiImageTypes = []string{"image/png", "image/jpeg", "image/webp"}

// GeminiImageType reports whether Gemini reads images of media type t.
func GeminiImageType(t string) bool { return slices.Contains(geminiImageTypes, t) }

func encodeGemini(r Request, c *Conv) (HTTPRequest, error) {
	req := gmRequest{Contents: []gmContent{}}
	if r.System != "" {
		req.SystemInstruction = &gmContent{Parts: []gmPart{{Text: r.System}}}
	}
	if r.MaxTokens > 0 || r.Temperature != nil {
		req.GenerationConfig = &gmGenConfig{MaxOutputTokens: r.MaxTokens, Temperature: r.Temperature}
	}
	if !c.empty() && c.gmOpen != nil {
		open := *c.gmOpen
		open.Parts = append([]gmPart(nil), open.Parts...)
		req.Contents = append(req.Contents, open)
	}
	for _, m := range r.Messages {
		var err error
		if req.Contents, err = gmAppend(req.Contents, m); err != nil {
			return HTTPRequest{}, err
		}
	}
	var err error
	req.Tools, err = c.toolsValue(r, len(r.Tools), func() any {
		decls := make([]gmFunctionDecl, len(r.Tools))
		for i, t := range r.Tools {
			decls[i] = gmFunctionDecl{Name: t.Name, Description: t.Description, ParametersJSONSchema: withoutSchemaKeyword(t.Parameters)}
		}
		return []gmTool{{FunctionDeclarations: decls}}
	})
	if err != nil {
		return HTTPRequest{}, err
	}
	body, err := marshal(req)
	if err != nil {
		return HTTPRequest{}, err
	}
	if !c.empty() && len(c.final) > 0 {
		body = c.splice(body, "contents", c.final)
	}
	method := ":generateContent"
	if r.Stream {
		method = ":streamGenerateContent?alt=sse"
	}
	return HTTPRequest{
		Path:    "/v1beta/models/" + geminiModelPath(r.Model) + method,
		Headers: map[string]string{"content-type": "application/json"},
		Body:    body,
	}, nil
}

// gmAppend adds one message to a Gemini conversation. Turns alternate,
// starting with the user's: a content of the same role as the one before
// joins it, function responses first. Only the last content of out changes.
func gmAppend(out []gmContent, m Message) ([]gmContent, error) {
	add := func(role string, parts []gmPart) {
		if len(parts) == 0 {
			return
		}
		if n := len(out); n > 0 && out[n-1].Role == role {
			last := &out[n-1]
			if parts[0].FunctionResponse != nil {
				last.Parts = append(parts, last.Parts...)
			} else {
				last.Parts = append(last.Parts, parts...)
			}
			return
		}
		if len(out) == 0 && role != "user" {
			return
		}
		out = append(out, gmContent{Role: role, Parts: parts})
	}
	switch m.Role {
	case RoleUser:
		var parts []gmPart
		for _, img := range m.Images {
			// A GIF from a turn in another format: Gemini reads none.
			if GeminiImageType(img.MIMEType) {
				parts = append(parts, gmPart{InlineData: &gmBlob{MIMEType: img.MIMEType, Data: img.Data}})
			}
		}
		if m.Text != "" {
			parts = append(parts, gmPart{Text: m.Text})
		}
		if len(parts) > 0 {
			add("user", parts)
		}
	case RoleAssistant:
		var parts []gmPart
		if strings.TrimSpace(m.Text) != "" {
			parts = append(parts, gmPart{Text: m.Text})
		}
		for i, c := range m.Calls {
			args := inputObject(c.Input)
			if string(args) == "{}" {
				args = nil
			}
			p := gmPart{FunctionCall: &gmFunctionCall{ID: c.ID, Name: c.Name, Args: args}, ThoughtSignature: c.Signature}
			// Gemini 3 checks the signature of the first call of each
			// response in the current turn; the others may have none.
			if i == 0 && p.ThoughtSignature == "" {
				p.ThoughtSignature = geminiSkipSignature
			}
			parts = append(parts, p)
		}
		add("model", parts)
	case RoleTool:
		var parts []gmPart
		for _, res := range m.Results {
			fr, err := geminiFunctionResponse(res)
			if err != nil {
				return out, err
			}
			parts = append(parts, gmPart{FunctionResponse: fr})
		}
		add("user", parts)
	default:
		return out, fmt.Errorf("wire: message role %q is not user, assistant or tool", m.Role)
	}
	return out, nil
}

func geminiFunctionResponse(res Result) (*gmFunctionResponse, error) {
	key := "output"
	if res.IsError {
		key = "error"
	}
	response, err := marshal(map[string]string{key: res.Content})
	if err != nil {
		return nil, err
	}
	fr := &gmFunctionResponse{ID: res.CallID, Name: res.Name, Response: response}
	for _, img := range res.Images {
		for _, t := range geminiImageTypes {
			if img.MIMEType == t {
				fr.Parts = append(fr.Parts, gmResponsePart{InlineData: gmBlob{MIMEType: img.MIMEType, Data: img.Data}})
			}
		}
	}
	// Multimodal function responses take PDFs as inline data too.
	for _, d := range res.Documents {
		fr.Parts = append(fr.Parts, gmResponsePart{InlineData: gmBlob{MIMEType: d.MIMEType, Data: d.Data}})
	}
	return fr, nil
}

// GeminiPath reports whether path is one a Gemini request of this package
// goes to: generateContent or streamGenerateContent of one model, for
// proxies that forward only model calls.
func GeminiPath(path string) bool {
	rest, ok := strings.CutPrefix(path, "/v1beta/models/")
	if !ok {
		return false
	}
	model, method, ok := strings.Cut(rest, ":")
	if !ok || model == "" || (method != "generateContent" && method != "streamGenerateContent?alt=sse") {
		return false
	}
	for i := 0; i < len(model); i++ {
		if c := model[i]; !unreserved(c) && c != '%' {
			return false
		}
	}
	return true
}

// geminiModelPath is the model's path segment: "models/" is in the path
// already, and anything but letters, digits and -._~ is percent-encoded, so
// a model name can only name a model.
func geminiModelPath(model string) string {
	model = strings.TrimPrefix(model, "models/")
	var b strings.Builder
	for i := 0; i < len(model); i++ {
		c := model[i]
		if unreserved(c) {
			b.WriteByte(c)
			continue
		}
		fmt.Fprintf(&b, "%%%02X", c)
	}
	return b.String()
}

func unreserved(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '.' || c == '_' || c == '~'
}

// withoutSchemaKeyword drops a schema's top-level "$schema", which names the
// JSON Schema dialect (MCP servers send it) and which Gemini has no use for;
// the rest is kept byte for byte, in order. A schema it cannot read goes as
// it is.
func withoutSchemaKeyword(schema json.RawMessage) json.RawMessage {
	if !bytes.Contains(schema, []byte(`"$schema"`)) {
		return schema
	}
	var buf bytes.Buffer
	if json.Compact(&buf, schema) != nil || buf.Len() < 2 || buf.Bytes()[0] != '{' {
		return schema
	}
	obj := buf.Bytes()
	out := []byte{'{'}
	for _, m := range topLevelMembers(obj[1 : len(obj)-1]) {
		var key string
		if colon := memberColon(m); colon < 0 || json.Unmarshal(m[:colon], &key) != nil {
			return schema
		} else if key == "$schema" {
			continue
		}
		if len(out) > 1 {
			out = append(out, ',')
		}
		out = append(out, m...)
	}
	return append(out, '}')
}

// topLevelMembers splits the inside of a compact JSON object at the commas
// between its members.
func topLevelMembers(inner []byte) [][]byte {
	var members [][]byte
	depth, start, inString := 0, 0, false
	for i := 0; i < len(inner); i++ {
		c := inner[i]
		switch {
		case inString && c == '\\':
			i++
		case c == '"':
			inString = !inString
		case inString:
		case c == '{' || c == '[':
			depth++
		case c == '}' || c == ']':
			depth--
		case c == ',' && depth == 0:
			members = append(members, inner[start:i])
			start = i + 1
		}
	}
	if start < len(inner) {
		members = append(members, inner[start:])
	}
	return members
}

// memberColon is where a compact member's key ends: the colon after its
// closing quote.
func memberColon(member []byte) int {
	for i := 1; i < len(member); i++ {
		switch member[i] {
		case '\\':
			i++
		case '"':
			if i+1 < len(member) && member[i+1] == ':' {
				return i + 1
			}
			return -1
		}
	}
	return -1
}

// gmResponse is a GenerateContentResponse: a whole body, or one streamed
// chunk.
type gmResponse struct {
	Candidates []struct {
		Content struct {
			Parts []gmResponsePartOut `json:"parts"`
		} `json:"content"`
		FinishReason  string `json:"finishReason"`
		FinishMessage string `json:"finishMessage"`
	} `json:"candidates"`
	PromptFeedback *struct {
		BlockReason string `json:"blockReason"`
	} `json:"promptFeedback"`
	UsageMetadata *gmUsage        `json:"usageMetadata"`
	Error         json.RawMessage `json:"error"`
}

type gmResponsePartOut struct {
	Text             string `json:"text"`
	Thought          bool   `json:"thought"`
	ThoughtSignature string `json:"thoughtSignature"`
	FunctionCall     *struct {
		ID   string          `json:"id"`
		Name string          `json:"name"`
		Args json.RawMessage `json:"args"`
	} `json:"functionCall"`
}

type gmUsage struct {
	PromptTokenCount        int `json:"promptTokenCount"`
	CandidatesTokenCount    int `json:"candidatesTokenCount"`
	ThoughtsTokenCount      int `json:"thoughtsTokenCount"`
	CachedContentTokenCount int `json:"cachedContentTokenCount"`
}

func (u *gmUsage) usage() Usage {
	return Usage{InputTokens: u.PromptTokenCount, OutputTokens: u.CandidatesTokenCount + u.ThoughtsTokenCount, CachedTokens: u.CachedContentTokenCount}
}

// read reads one response's (or chunk's) first candidate: its text (not
// thoughts) and calls, in order, and its finishReason.
func (r *gmResponse) read() (text string, calls []Call, finish, finishMessage string, err error) {
	if msg, ok := errorValueMessage(r.Error); ok {
		return "", nil, "", "", fmt.Errorf("%w: %s", ErrProvider, msg)
	}
	if len(r.Candidates) == 0 {
		if r.PromptFeedback != nil && r.PromptFeedback.BlockReason != "" {
			return "", nil, "", "", fmt.Errorf("%w: the prompt was blocked (%s)", ErrProvider, r.PromptFeedback.BlockReason)
		}
		return "", nil, "", "", nil
	}
	c := r.Candidates[0]
	var b strings.Builder
	for _, p := range c.Content.Parts {
		switch {
		case p.FunctionCall != nil:
			calls = append(calls, Call{ID: p.FunctionCall.ID, Name: p.FunctionCall.Name, Input: compactInput(p.FunctionCall.Args), Signature: p.ThoughtSignature})
		case !p.Thought:
			b.WriteString(p.Text)
		}
	}
	return b.String(), calls, c.FinishReason, c.FinishMessage, nil
}

// geminiEmpty is the error of a response that ended with nothing in it for a
// reason other than the usual ones: a safety block, a malformed function
// call, a recitation...
func geminiEmpty(text string, calls []Call, finish, message string) error {
	if text != "" || len(calls) > 0 || finish == "" || finish == "STOP" || finish == "MAX_TOKENS" {
		return nil
	}
	if message != "" {
		return fmt.Errorf("%w: the model gave no reply (%s: %s)", ErrProvider, finish, message)
	}
	return fmt.Errorf("%w: the model gave no reply (%s)", ErrProvider, finish)
}

func decodeGemini(body []byte) (Response, error) {
	var r gmResponse
	if err := json.Unmarshal(body, &r); err != nil {
		return Response{}, fmt.Errorf("%w: %v", ErrBadResponse, err)
	}
	text, calls, finish, message, err := r.read()
	if err != nil {
		return Response{}, err
	}
	if len(r.Candidates) == 0 {
		return Response{}, fmt.Errorf("%w: no candidates in the response", ErrBadResponse)
	}
	if err := geminiEmpty(text, calls, finish, message); err != nil {
		return Response{}, err
	}
	out := Response{Text: text, Calls: calls, StopReason: finish}
	if r.UsageMetadata != nil {
		out.Usage = r.UsageMetadata.usage()
	}
	return out, nil
}

// gmStream assembles a streamed Gemini response: each event is a
// GenerateContentResponse with the next text, whole function calls, and at
// the end the finishReason; usageMetadata, when sent, is the total so far.
type gmStream struct {
	resp     Response
	text     strings.Builder
	message  string
	finished bool
}

func (s *gmStream) event(name, data string) ([]string, error) {
	var r gmResponse
	if err := json.Unmarshal([]byte(data), &r); err != nil {
		return nil, fmt.Errorf("%w: stream chunk is not JSON: %v", ErrBadResponse, err)
	}
	text, calls, finish, message, err := r.read()
	if err != nil {
		return nil, err
	}
	if r.UsageMetadata != nil {
		s.resp.Usage = r.UsageMetadata.usage()
	}
	s.resp.Calls = append(s.resp.Calls, calls...)
	if finish != "" {
		s.resp.StopReason, s.message, s.finished = finish, message, true
	}
	if text == "" {
		return nil, nil
	}
	s.text.WriteString(text)
	return []string{text}, nil
}

func (s *gmStream) close() (Response, error) {
	if !s.finished {
		return Response{}, fmt.Errorf("%w: the stream ended before the response did (no finishReason)", ErrBadResponse)
	}
	s.resp.Text = s.text.String()
	if err := geminiEmpty(s.resp.Text, s.resp.Calls, s.resp.StopReason, s.message); err != nil {
		return Response{}, err
	}
	return s.resp, nil
}
