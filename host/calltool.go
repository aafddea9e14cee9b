package host

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/toolroute/toolroute/registry"
	"github.com/toolroute/toolroute/registry/session"
)

// CallOptions say how CallToolWith runs a call.
type CallOptions struct {
	// Timeout, when positive, replaces the tool's own limit (its
	// manifest's timeoutSeconds).
	Timeout time.Duration
	// Console adds a JS tool's console output to a success too, as
	// js_eval shows its own; a failure always has it.
	Console bool
}

// Why CallTool did not run a tool, in CallError.Kind.
const (
	CallUnknownTool   = "unknown_tool"
	CallDisabled      = "disabled"
	CallMetaTool      = "meta_tool"
	CallBadParameters = "bad_parameters"
)

// CallError is why CallTool did not run a tool, in words for the person
// who called it; Kind says which case it is, for a caller that adds what
// to do next.
type CallError struct {
	Tool    string
	Kind    string
	Message string
	// Example is, for bad parameters, arguments built from the tool's
	// schema, such as {"code":"..."}.
	Example string
}

// Error is the message.
func (e *CallError) Error() string { return e.Message }

// CallTool runs one tool outside a turn, as `toolroute call` does for tool
// authors: its arguments must be a JSON object with the tool's required
// parameters. The meta-tools only work inside a turn. A tool that cannot
// be called is a *CallError; a tool that ran and failed is a result.
//
// CallTool does not route: it runs a group's tool whether or not any
// session loaded the group, and logs nothing. A model's calls go through
// a turn, Send's or the program's own (Session.Start, Turn.Reply).
func (h *Host) CallTool(ctx context.Context, name string, input json.RawMessage) (registry.Result, error) {
	return h.CallToolWith(ctx, name, input, CallOptions{})
}

// CallToolWith is CallTool with options.
func (h *Host) CallToolWith(ctx context.Context, name string, input json.RawMessage, opts CallOptions) (registry.Result, error) {
	d, err := h.Describe(ctx, "")
	if err != nil {
		return registry.Result{}, err
	}
	var tool *registry.Tool
	var enabled bool
	for i := range d.Tools {
		if d.Tools[i].Name == name {
			tool, enabled = &d.Tools[i].Tool, d.Tools[i].Enabled
		}
	}
	fail := func(kind, format string, args ...any) (registry.Result, error) {
		e := &CallError{Tool: name, Kind: kind, Message: fmt.Sprintf(format, args...)}
		if kind == CallBadParameters {
			e.Example = ExampleArguments(tool.Parameters)
		}
		return registry.Result{}, e
	}
	switch {
	case tool == nil && (name == registry.SearchToolsName || name == registry.UnloadToolGroupName):
		return fail(CallMetaTool, "%s works only inside a conversation", name)
	case tool == nil:
		return fail(CallUnknownTool, "no tool %q", name)
	case !enabled:
		return fail(CallDisabled, "tool %q is disabled", name)
	case tool.Origin.Kind == registry.OriginMeta:
		return fail(CallMetaTool, "%s works only inside a conversation", name)
	}
	if len(strings.TrimSpace(string(input))) == 0 {
		input = json.RawMessage(`{}`)
	}
	var args map[string]json.RawMessage
	if err := json.Unmarshal(input, &args); err != nil || args == nil {
		return fail(CallBadParameters, "the parameters of %s must be a JSON object", name)
	}
	var missing []string
	var schema struct {
		Required []string `json:"required"`
	}
	json.Unmarshal(tool.Parameters, &schema)
	for _, r := range schema.Required {
		if v, ok := args[r]; !ok || string(v) == "null" {
			missing = append(missing, r)
		}
	}
	if len(missing) > 0 {
		return fail(CallBadParameters, "%s needs the parameters %s", name, strings.Join(missing, ", "))
	}
	// The user calls the tool themselves: the secrets they pass in its
	// "secrets" argument are theirs to grant.
	var secrets []string
	if slices.Contains(tool.RequiredPermissions, registry.PermissionSecrets) {
		var problem string
		if secrets, problem = session.AskedSecrets(name, input); problem != "" {
			return fail(CallBadParameters, "%s", problem)
		}
	}
	timeout := time.Duration(tool.TimeoutSeconds) * time.Second
	if opts.Timeout > 0 {
		timeout = opts.Timeout
	}
	res := h.runWith(ctx, session.Call{ID: "call", Tool: name, Input: input, Origin: tool.Origin,
		TimeoutSeconds: tool.TimeoutSeconds, Env: tool.Env, RequiredPermissions: tool.RequiredPermissions,
		Secrets: secrets, Granted: secrets}, timeout)
	// Outside a turn, the rules the module applies to a turn's results.
	return session.FinishResult(res.Result, res.Console, opts.Console || h.opts.ShowConsole), nil
}

// ExampleArguments builds arguments a schema takes, for a message that
// shows what to send: each required property (the first property when
// none is required) with a value of its type, its enum's first value or
// its default. "{}" for a schema without properties.
func ExampleArguments(schema json.RawMessage) string {
	var s struct {
		Properties map[string]json.RawMessage `json:"properties"`
		Required   []string                   `json:"required"`
	}
	json.Unmarshal(schema, &s)
	names := s.Required
	if len(names) == 0 && len(s.Properties) > 0 {
		// The first property as the schema writes it: a map forgets the
		// order, so read the keys in order.
		names = firstKey(schema)
	}
	var b strings.Builder
	b.WriteByte('{')
	for i, n := range names {
		if i > 0 {
			b.WriteByte(',')
		}
		key, _ := json.Marshal(n)
		b.Write(key)
		b.WriteByte(':')
		b.WriteString(exampleValue(s.Properties[n]))
	}
	b.WriteByte('}')
	return b.String()
}

// firstKey is the first key of a schema's properties, in its text's order.
func firstKey(schema json.RawMessage) []string {
	var s struct {
		Properties json.RawMessage `json:"properties"`
	}
	if json.Unmarshal(schema, &s) != nil {
		return nil
	}
	dec := json.NewDecoder(strings.NewReader(string(s.Properties)))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil
	}
	if t, err := dec.Token(); err == nil {
		if k, ok := t.(string); ok {
			return []string{k}
		}
	}
	return nil
}

// exampleValue is a value a property's schema takes.
func exampleValue(prop json.RawMessage) string {
	var p struct {
		Type    any               `json:"type"`
		Enum    []json.RawMessage `json:"enum"`
		Default json.RawMessage   `json:"default"`
		Minimum json.RawMessage   `json:"minimum"`
	}
	json.Unmarshal(prop, &p)
	switch {
	case len(p.Enum) > 0:
		return string(p.Enum[0])
	case len(p.Default) > 0:
		return string(p.Default)
	}
	typ, _ := p.Type.(string)
	if list, ok := p.Type.([]any); ok && len(list) > 0 {
		typ, _ = list[0].(string)
	}
	switch typ {
	case "integer", "number":
		if len(p.Minimum) > 0 {
			return string(p.Minimum)
		}
		return "1"
	case "boolean":
		return "true"
	case "array":
		return "[]"
	case "object":
		return "{}"
	case "null":
		return "null"
	}
	return `"..."`
}
