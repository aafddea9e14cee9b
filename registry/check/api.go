package check

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/toolroute/toolroute/registry/session"
	"github.com/toolroute/toolroute/registry/wire"
)

// The checks of the HTTP API that serve and the edge worker answer
// (docs/reference/http.md): what a request's body must be, and which
// model calls the model proxy forwards. Both servers read the body and
// hand its text here; the answer is the body's fields as the route uses
// them, or the 400's sentence.

// APIBody is api_body's args: the route, as docs/reference/http.md writes
// it ("PATCH /api/sessions/{id}"), and the request's body as sent.
type APIBody struct {
	Route string `json:"route"`
	Body  string `json:"body"`
}

// NotTheJSON begins the refusal of a body that is not the JSON its route
// takes.
const NotTheJSON = "the body is not the JSON this endpoint takes: "

// Usages of the routes' bodies, which end their refusals.
const (
	usageText      = `give the message as {"text": "..."}`
	usageTitle     = `give the new title as {"title": "..."}`
	usageAgent     = `give a stored agent's name as {"agent": "NAME"}`
	usageModel     = `give the provider's id of a model as {"model": "ID"}, such as gpt-4.1-mini (GET /api/models lists them)`
	usageAnswers   = `give the answers as {"approvals": [{"id": "CALL_ID", "answer": "once", "session" or "deny"}]}`
	usageElicit    = `give the user's answer as {"action": "accept", "content": {"FIELD": VALUE}}, or {"action": "decline"} or {"action": "cancel"}`
	usageTitledNew = `a session is titled after its first message: POST {} here, send the message to POST /api/sessions/{id}/messages, then rename it with PATCH /api/sessions/{id} {"title": "..."}`
)

// message is a message route's args.
type message struct {
	Agent       string               `json:"agent"`
	Attachments []session.Attachment `json:"attachments,omitempty"`
	// Model is this turn's model, of the server's provider; none for
	// the server's own.
	Model string `json:"model,omitempty"`
	Text  string `json:"text"`
}

// usageFiles ends a refusal of a message's attachments.
const usageFiles = `give the files as {"attachments": [{"name": "NAME", "data": "BASE64"}]}, or {"name", "text"} for a text`

// attachmentsOf reads a message's attachments and checks what needs no
// model (session.AttachFiles): the turn checks the rest.
func attachmentsOf(f fields) ([]session.Attachment, string) {
	raw, ok := f["attachments"]
	if !ok || string(raw) == "null" {
		return nil, ""
	}
	var list []map[string]json.RawMessage
	if err := json.Unmarshal(raw, &list); err != nil {
		return nil, fmt.Sprintf("%s\"attachments\" is %s, not an array of objects: %s", NotTheJSON, kindOf(raw), usageFiles)
	}
	files := make([]session.Attachment, 0, len(list))
	for i, item := range list {
		var a session.Attachment
		for _, k := range []struct {
			name string
			to   *string
		}{{"name", &a.Name}, {"data", &a.Data}, {"text", &a.Text}} {
			v, _, bad := fields(item).str(k.name, usageFiles)
			if bad != "" {
				return nil, fmt.Sprintf("attachments[%d]: %s", i, strings.TrimPrefix(bad, NotTheJSON))
			}
			*k.to = v
		}
		files = append(files, a)
	}
	if _, err := session.AttachFiles(files, "", ""); err != nil {
		return nil, err.Error()
	}
	return files, ""
}

// bodyRoutes are the routes api_body knows, in docs/reference/http.md's
// order: the ones with a body.
var bodyRoutes = []string{
	"POST /api/sessions", "PATCH /api/sessions/{id}", "POST /api/sessions/{id}/messages",
	"POST /api/sessions/{id}/approvals", "POST /api/sessions/{id}/clear", "POST /api/sessions/{id}/compact",
	"PUT /api/policies", "POST /api/model", "POST /api/ui/tools/{name}", "POST /api/ui/elicitations/{id}", "POST /api/tasks/due",
}

// fields is a body's top-level fields, as sent.
type fields map[string]json.RawMessage

// str reads field name as a string: "" and ok when it is absent or
// null, the refusal when it is another kind.
func (f fields) str(name, usage string) (s string, given bool, refusal string) {
	raw, ok := f[name]
	if !ok || string(raw) == "null" {
		return "", false, ""
	}
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", true, fmt.Sprintf("%s%q is %s, not a string: %s", NotTheJSON, name, kindOf(raw), usage)
	}
	return s, true, ""
}

// kindOf names the JSON kind of a value that is valid JSON.
func kindOf(raw json.RawMessage) string {
	switch raw[0] {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	return "a number"
}

// body checks an API request's body: {args: the fields the route uses} or
// the refusal; an error for a route it does not know.
func (b APIBody) check() (Answer, error) {
	if !slices.Contains(bodyRoutes, b.Route) {
		return Answer{}, fmt.Errorf("check api_body: no route %q takes a body: use one of %s", b.Route, strings.Join(bodyRoutes, ", "))
	}
	f := fields{}
	if text := bytes.TrimSpace([]byte(b.Body)); len(text) > 0 {
		if err := json.Unmarshal(text, &f); err != nil || f == nil {
			if json.Valid(text) {
				return refuse(NotTheJSON + "send an object"), nil
			}
			var v any
			err = json.Unmarshal(text, &v)
			return refuse(NotTheJSON + strings.TrimPrefix(err.Error(), "json: ")), nil
		}
	}
	switch b.Route {
	case "POST /api/sessions":
		if raw, ok := f["title"]; ok && string(raw) != "null" && string(raw) != `""` {
			return refuse(usageTitledNew), nil
		}
		agent, _, bad := f.str("agent", usageAgent)
		if bad != "" {
			return refuse(bad), nil
		}
		return Answer{Args: map[string]string{"agent": agent}}, nil
	case "PATCH /api/sessions/{id}":
		title, given, bad := f.str("title", usageTitle)
		switch {
		case bad != "":
			return refuse(bad), nil
		case !given:
			return refuse(usageTitle), nil
		}
		t, msg := cleanTitle(title)
		if msg != "" {
			return refuse(msg), nil
		}
		return Answer{Args: map[string]string{"title": t}}, nil
	case "POST /api/sessions/{id}/messages":
		text, _, bad := f.str("text", usageText)
		files, badFiles := attachmentsOf(f)
		if bad == "" && strings.TrimSpace(text) == "" && len(files) == 0 && badFiles == "" {
			bad = usageText
		}
		agent, _, badAgent := f.str("agent", usageAgent)
		for _, b := range []string{badFiles, badAgent} {
			if bad == "" {
				bad = b
			}
		}
		// model: this turn's model, of the server's provider.
		model, givenModel, badModel := f.str("model", usageModel)
		if bad == "" {
			bad = badModel
		}
		if bad == "" && givenModel && model != "" && !modelName(model) {
			bad = fmt.Sprintf("%q is not a model name: %s", model, usageModel)
		}
		if bad != "" {
			return refuse(bad), nil
		}
		return Answer{Args: message{Text: text, Agent: agent, Attachments: files, Model: model}}, nil
	case "POST /api/sessions/{id}/approvals":
		list, msg := answersOf(f)
		if msg != "" {
			return refuse(msg), nil
		}
		return Answer{Args: map[string][]session.Approval{"approvals": list}}, nil
	case "PUT /api/policies":
		// The rule's checks are serve's (it alone has the route): here, its
		// fields' kinds.
		out := map[string]*string{}
		for _, name := range []string{"tool", "group", "decision"} {
			s, given, bad := f.str(name, `give {"tool": NAME} or {"group": NAME} with "decision": "ask", "allow", "deny", or "" for the default`)
			if bad != "" {
				return refuse(bad), nil
			}
			if given {
				out[name] = &s
			}
		}
		return Answer{Args: out}, nil
	case "POST /api/ui/tools/{name}":
		if raw, ok := f["input"]; ok {
			return Answer{Args: map[string]json.RawMessage{"input": raw}}, nil
		}
		return Answer{Args: map[string]any{}}, nil
	case "POST /api/ui/elicitations/{id}":
		// The values' checks are the elicitation op's, against the
		// question: here, the answer's shape.
		action, _, bad := f.str("action", usageElicit)
		if bad == "" && action != "accept" && action != "decline" && action != "cancel" {
			bad = fmt.Sprintf("%q is not an action: %s", action, usageElicit)
		}
		content := map[string]json.RawMessage{}
		if raw, ok := f["content"]; bad == "" && ok && string(raw) != "null" {
			if json.Unmarshal(raw, &content) != nil || content == nil {
				bad = fmt.Sprintf("%s\"content\" is %s, not an object: %s", NotTheJSON, kindOf(raw), usageElicit)
			}
		}
		if bad != "" {
			return refuse(bad), nil
		}
		if action != "accept" {
			return Answer{Args: map[string]string{"action": action}}, nil
		}
		return Answer{Args: map[string]any{"action": action, "content": content}}, nil
	}
	// The routes whose body is {} (clear, compact, tasks/due) and the model
	// proxy's, which a server decodes itself and asks about only when it
	// cannot (ModelProxy checks the fields): an object is all they need.
	return Answer{Args: map[string]any{}}, nil
}

// answersOf reads POST .../approvals' answers: each {"id", "answer"} of
// strings, with "grant", the secrets' names, or without; the answers
// themselves are approval_answers' to check against the question.
func answersOf(f fields) ([]session.Approval, string) {
	var raws []json.RawMessage
	if raw, ok := f["approvals"]; !ok || json.Unmarshal(raw, &raws) != nil || len(raws) == 0 {
		return nil, usageAnswers
	}
	list := make([]session.Approval, 0, len(raws))
	for i, raw := range raws {
		var a fields
		var id, answer string
		if json.Unmarshal(raw, &a) != nil || a == nil || json.Unmarshal(a["id"], &id) != nil || json.Unmarshal(a["answer"], &answer) != nil {
			return nil, fmt.Sprintf(`approvals[%d] is not {"id": "CALL_ID", "answer": "once", "session" or "deny"}: %s`, i, usageAnswers)
		}
		var grant []string
		if g, ok := a["grant"]; ok && json.Unmarshal(g, &grant) != nil {
			return nil, fmt.Sprintf(`approvals[%d].grant is not an array of secrets' names: give the names the call's "secrets" lists, or leave it out`, i)
		}
		list = append(list, session.Approval{ID: id, Answer: session.Answer(answer), Grant: grant})
	}
	return list, ""
}

// ModelProxy is model_proxy's args: the format of the provider behind the
// proxy, and the model call a page's module made, without its body (Body
// says whether it has one: a conversation may be megabytes, which the
// check does not need).
type ModelProxy struct {
	Provider wire.Format       `json:"provider"`
	Format   wire.Format       `json:"format"`
	Path     string            `json:"path"`
	Headers  map[string]string `json:"headers"`
	Body     bool              `json:"body"`
}

// WrongEndpoint is the refusal type of a model call the proxy does not
// forward: a call in another format than the provider's, or to a path that
// is not the format's model endpoint (a 502: the page's provider is not
// the server's).
const WrongEndpoint = "wrong_endpoint"

// check refuses a model call the proxy does not forward, or gives the
// headers it forwards: the ones the wire formats set, their names lower
// case.
func (m ModelProxy) check() Answer {
	if !m.Body {
		return refuse(`send the module's model request: {"format", "path", "headers", "body", "stream"}`)
	}
	if m.Format != m.Provider {
		return Answer{Error: &Refusal{Type: WrongEndpoint, Message: fmt.Sprintf(`the proxy's provider speaks the %s format, not %q: set the page's provider to "server" with that format`, m.Provider, m.Format)}}
	}
	if ok, want := modelPath(m.Provider, m.Path); !ok {
		return Answer{Error: &Refusal{Type: WrongEndpoint, Message: fmt.Sprintf("the proxy forwards only %s requests to %s, not %q", m.Provider, want, m.Path)}}
	}
	// In name order, so that of two names the same but for case the last
	// is kept, in every host alike.
	headers := map[string]string{}
	for _, k := range slices.Sorted(maps.Keys(m.Headers)) {
		switch name := strings.ToLower(k); name {
		case "content-type", "anthropic-version", "anthropic-beta":
			headers[name] = m.Headers[k]
		}
	}
	return Answer{Args: map[string]any{"headers": headers}}
}

// modelPath reports whether the proxy forwards a call of format to path:
// the format's one endpoint, or for Gemini a model's generateContent or
// streamGenerateContent; want names them for the refusal.
func modelPath(format wire.Format, path string) (ok bool, want string) {
	switch format {
	case wire.OpenAI:
		return path == "/chat/completions", "/chat/completions"
	case wire.Anthropic:
		return path == "/v1/messages", "/v1/messages"
	case wire.Responses:
		return path == "/responses", "/responses"
	case wire.Gemini:
		return wire.GeminiPath(path), "/v1beta/models/MODEL:generateContent or :streamGenerateContent?alt=sse"
	}
	return false, "no path"
}

// runAPI answers api_body and model_proxy.
func runAPI(req Request) (Answer, error) {
	if req.Op == "api_body" {
		var a APIBody
		if err := decodeArgs(req, &a); err != nil {
			return Answer{}, err
		}
		return a.check()
	}
	var m ModelProxy
	if err := decodeArgs(req, &m); err != nil {
		return Answer{}, err
	}
	return m.check(), nil
}
