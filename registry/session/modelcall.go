package session

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

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
	// Loaded, when not null, are the groups the conversation loaded, in
	// order: the client lists the core tools and theirs (Offer), and a call
	// of another tool is refused as not loaded (a group's tool) or unknown.
	// null offers every tool.
	Loaded []string `json:"loaded"`
	// Policies are the user's approval rules, as a turn's start gives them.
	Policies []Policy `json:"policies,omitempty"`
	// Answers are the user's earlier answers of "session" in this
	// conversation, as a turn logs them (approval_answer messages).
	Answers []Message `json:"answers,omitempty"`
}

// ModelCallDecision is a call the module let through: the call as a
// turn's call_tool action gives it, and whether the user must allow it
// first. A meta-tool's call (load_tool_group, load_skill) the module runs
// itself: Result is its result and Loaded the groups loaded after it, for
// the host to keep, and Call is left empty.
type ModelCallDecision struct {
	Call   Call             `json:"call"`
	Ask    bool             `json:"ask,omitempty"`
	Result *registry.Result `json:"result,omitempty"`
	Loaded []string         `json:"loaded,omitempty"`
}

// ErrMetaModelCall is DecideModelCall's error for a meta-tool called with
// Loaded null: load_tool_group and load_skill change what the conversation
// offers, so the host must say what it has loaded.
var ErrMetaModelCall = errors.New("changes what the conversation offers: give loaded, the groups the conversation has loaded ([] for none)")

// DecideModelCall checks and decides mc as a turn decides a tool call: the
// catalogue's tool (unknown_tool, tool_disabled), the client's list
// (tool_not_loaded), its arguments (invalid_arguments), the "secrets" it
// asks for, and the user's rules and earlier answers (denied, or Ask). A
// refused call gets its failure result; the error is the host's mistake.
func DecideModelCall(reg *registry.Registry, mc ModelCall) (ModelCallDecision, *registry.Result, error) {
	name := mc.Tool
	if mc.Loaded != nil && !offers(reg, mc.Loaded, name) {
		if t, ok := reg.Tool(name); ok && t.Group != "" {
			return refusedCall("tool_not_loaded", fmt.Sprintf(
				"Tool '%s' is not loaded: it belongs to tool group '%s'. Call load_tool_group with group_name '%s' first, then call '%s' again.",
				name, t.Group, t.Group, name))
		}
		return refusedCall("unknown_tool", fmt.Sprintf(
			"Tool '%s' is not one of your tools. Call one of the tools you were given, or load a tool group with load_tool_group (its description lists them).",
			registry.Shorten(name, 100)))
	}
	tool, enabled := reg.Tool(name)
	switch {
	case !reg.Has(name):
		return refusedCall("unknown_tool", fmt.Sprintf(
			"Tool '%s' does not exist. Call one of the tools you were given, or load a tool group with load_tool_group.", registry.Shorten(name, 100)))
	case !enabled:
		return refusedCall("tool_disabled", fmt.Sprintf(
			"Tool '%s' is disabled. Use another tool, or ask the user to enable it.", name))
	}
	input := strings.TrimSpace(string(mc.Input))
	if input == "null" {
		input = ""
	}
	if tool.Origin.Kind == registry.OriginMeta {
		if mc.Loaded == nil {
			return ModelCallDecision{}, nil, fmt.Errorf("%s %w", name, ErrMetaModelCall)
		}
		return metaCall(reg, name, json.RawMessage(input), mc.Loaded)
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

// offers reports whether a conversation that loaded the groups loaded
// lists the tool name: one of the core tools a turn sends (load_skill only
// when there are skills), or one of those groups'.
func offers(reg *registry.Registry, loaded []string, name string) bool {
	active := reg.NewActive()
	for _, g := range loaded {
		active.LoadGroup(g)
	}
	return slices.ContainsFunc(active.Tools(), func(t registry.Tool) bool { return t.Name == name })
}

// metaCall runs load_tool_group or load_skill for a conversation that
// loaded the groups loaded.
func metaCall(reg *registry.Registry, name string, input json.RawMessage, loaded []string) (ModelCallDecision, *registry.Result, error) {
	if len(input) == 0 {
		input = json.RawMessage("{}")
	}
	var res registry.Result
	loaded = slices.Clone(loaded)
	switch name {
	case registry.LoadToolGroupName:
		var group string
		res, group = reg.LoadToolGroup(input)
		if group != "" && !slices.Contains(loaded, group) {
			loaded = append(loaded, group)
		}
	case registry.LoadSkillName:
		res = reg.LoadSkill(input)
	default:
		return ModelCallDecision{}, nil, fmt.Errorf("%s is a meta-tool a conversation without turns does not offer", name)
	}
	return ModelCallDecision{Result: &res, Loaded: loaded}, nil, nil
}

// Offer is what a conversation without turns (an MCP client's) lists: the
// tools a turn with its loaded groups would send, in that order, and the
// text a client may put in its model's system prompt.
type Offer struct {
	// Instructions say how routing works and carry the system prompt's
	// listing of groups and skills.
	Instructions string `json:"instructions"`
	// Tools are the core tools, then each loaded group's. The meta-tools'
	// descriptions carry the listings a system prompt would: a client's
	// model always reads its tools' descriptions.
	Tools []registry.Tool `json:"tools"`
	// Loaded are the loaded groups that still exist, in load order.
	Loaded []string `json:"loaded"`
}

// OfferFor is the Offer of a conversation that loaded the groups loaded.
func OfferFor(reg *registry.Registry, loaded []string) Offer {
	active := reg.NewActive()
	kept := []string{}
	for _, g := range loaded {
		if active.LoadGroup(g) && !slices.Contains(kept, g) {
			kept = append(kept, g)
		}
	}
	tools := active.Tools()
	for i, t := range tools {
		listing := ""
		switch t.Name {
		case registry.LoadToolGroupName:
			listing = reg.GroupListing()
		case registry.LoadSkillName:
			listing = reg.SkillListing()
		}
		if listing != "" {
			tools[i].Description = t.Description + "\n\n" + listing
		}
	}
	text := "toolroute's tools. A tool that changes things may ask the user first."
	if reg.GroupListing() != "" {
		text = "toolroute routes tools by group. Your tool list starts with a few core tools and load_tool_group. " +
			"To use the tools of a group listed below, call load_tool_group with its name: its tools join your list " +
			"for the rest of this session (toolroute sends notifications/tools/list_changed). " +
			"A tool that changes things may ask the user first."
	}
	if listing := reg.SystemPrompt(""); listing != "" {
		text += "\n\n" + listing
	}
	return Offer{Instructions: text, Tools: tools, Loaded: kept}
}
