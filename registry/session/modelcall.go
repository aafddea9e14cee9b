package session

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/toolroute/toolroute/registry"
)

// ModelCall is a call of a model whose turns the host does not run: an
// MCP client's model calling toolroute's tools one at a time through
// `toolroute mcp`. The module checks and decides it as a turn decides a
// tool_call (toolroute_check's model_call op, wasm/ABI.md), so that the
// host runs only what the module let through.
type ModelCall struct {
	// ID is the id the host gives the call.
	ID   string `json:"id"`
	Tool string `json:"tool"`
	// Input is the model's arguments, a JSON object; absent, blank or null
	// counts as {} (clients send null for a call without arguments).
	Input json.RawMessage `json:"input,omitempty"`
	// Offered, when not null, are the tools the client lists: a call of
	// another is refused as not loaded (a group's tool) or unknown.
	Offered []string `json:"offered"`
	// Policies are the user's approval rules, as a turn's start gives them.
	Policies []Policy `json:"policies,omitempty"`
	// Answers are the user's earlier answers of "session" in this
	// conversation, as a turn logs them (approval_answer messages).
	Answers []Message `json:"answers,omitempty"`
}

// ModelCallDecision is a call the module let through: the call as a
// turn's call_tool action gives it, and whether the user must allow it
// first.
type ModelCallDecision struct {
	Call Call `json:"call"`
	Ask  bool `json:"ask,omitempty"`
}

// ErrMetaModelCall is DecideModelCall's error for load_tool_group and
// load_skill: they change what the conversation offers, which the host
// keeps, so the host runs them itself.
var ErrMetaModelCall = fmt.Errorf("changes what the conversation offers: its caller runs it")

// DecideModelCall checks and decides mc as a turn decides a tool call: the
// catalogue's tool (unknown_tool, tool_disabled), the client's list
// (tool_not_loaded), its arguments (invalid_arguments), the "secrets" it
// asks for, and the user's rules and earlier answers (denied, or Ask). A
// refused call gets its failure result; the error is the host's mistake.
func DecideModelCall(reg *registry.Registry, mc ModelCall) (ModelCallDecision, *registry.Result, error) {
	name := mc.Tool
	if mc.Offered != nil && !slices.Contains(mc.Offered, name) {
		if t, ok := reg.Tool(name); ok && t.Group != "" {
			return refusedCall("tool_not_loaded", fmt.Sprintf(
				"Tool '%s' is not loaded: it belongs to tool group '%s'. Call load_tool_group with group_name '%s' first, then call '%s' again.",
				name, t.Group, t.Group, name))
		}
		return refusedCall("unknown_tool", fmt.Sprintf(
			"Tool '%s' is not one of your tools. Call one of the tools you were given, or load a tool group with load_tool_group (its description lists them).",
			shortName(name, 100)))
	}
	tool, enabled := reg.Tool(name)
	switch {
	case !reg.Has(name):
		return refusedCall("unknown_tool", fmt.Sprintf(
			"Tool '%s' does not exist. Call one of the tools you were given, or load a tool group with load_tool_group.", shortName(name, 100)))
	case !enabled:
		return refusedCall("tool_disabled", fmt.Sprintf(
			"Tool '%s' is disabled. Use another tool, or ask the user to enable it.", name))
	case tool.Origin.Kind == registry.OriginMeta:
		return ModelCallDecision{}, nil, fmt.Errorf("%s %w", name, ErrMetaModelCall)
	}
	input := strings.TrimSpace(string(mc.Input))
	if input == "null" {
		input = ""
	}
	args, problem := CheckArguments(tool, input)
	if problem != "" {
		return refusedCall("invalid_arguments", problem)
	}
	var secrets []string
	if slices.Contains(tool.RequiredPermissions, registry.PermissionSecrets) {
		if secrets, problem = AskedSecrets(name, args); problem != "" {
			return refusedCall("invalid_arguments", problem)
		}
	}
	decision, granted := Decide(tool, mc.Policies, mc.Answers, secrets)
	if decision == registry.DecisionDeny {
		res := DeniedByPolicy(name)
		return ModelCallDecision{}, &res, nil
	}
	return ModelCallDecision{
		Call: Call{ID: mc.ID, Tool: name, Input: args, Origin: tool.Origin, TimeoutSeconds: tool.TimeoutSeconds,
			Env: tool.Env, RequiredPermissions: tool.RequiredPermissions, Secrets: secrets, Granted: granted},
		Ask: decision == registry.DecisionAsk,
	}, nil, nil
}

func refusedCall(errorType, message string) (ModelCallDecision, *registry.Result, error) {
	r := registry.Failure(errorType, message)
	return ModelCallDecision{}, &r, nil
}

// shortName cuts a name a client made up to n runes, marking the cut.
func shortName(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n]) + "…"
}
