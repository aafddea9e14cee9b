package registry

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/toolroute/toolroute/registry/internal/jsondec"
)

// Names of the meta-tools, run by the turn engine rather than by a host.
const (
	LoadToolGroupName = "load_tool_group"
	LoadSkillName     = "load_skill"
)

// Status is the outcome of a tool call.
type Status string

const (
	// StatusSuccess is a call that did what it was asked.
	StatusSuccess Status = "success"
	// StatusError is a call that failed; its output says why.
	StatusError Status = "error"
	// StatusPending marks a tool call logged before it runs; its outcome is
	// its tool result's status.
	StatusPending Status = "pending"
	// StatusAwaitingApproval marks a tool call logged while the user is
	// asked whether it may run.
	StatusAwaitingApproval Status = "awaiting_approval"
)

// Result is the outcome of a tool call: an output on success, or an error type
// and a message that says what to do. A failed tool is a result the model
// reads, never a Go error.
type Result struct {
	Status    Status `json:"status"`
	Output    string `json:"output,omitempty"`
	ErrorType string `json:"error_type,omitempty"`
	Message   string `json:"message,omitempty"`
	// Images are pictures the model sees beside the text, where the wire
	// format carries them; the text names each with a placeholder.
	Images []Image `json:"images,omitempty"`
	// Documents are PDFs the model reads beside the text, where the wire
	// format carries them; the text names each with a placeholder.
	Documents []Document `json:"documents,omitempty"`
	// Asked records the questions an MCP server put to the user while the
	// call ran, each the sentence the elicitation op gave its answer
	// (check.ElicitResult.Said): the log keeps them on the tool result,
	// so that a page read back shows that the user was asked. The model
	// does not read them.
	Asked []string `json:"asked,omitempty"`
	// MCP is the MCP CallToolResult an MCP server's tool answered, as the
	// host's MCP client read it: toolroute mcp gives it to its client
	// whole (content blocks and structuredContent), where the model reads
	// Output, Images and Documents. It is never logged nor sent to the
	// module.
	MCP json.RawMessage `json:"-"`
}

// Success returns a successful result.
func Success(output string) Result { return Result{Status: StatusSuccess, Output: output} }

// Failure returns a failed result of the given type.
func Failure(errorType, message string) Result {
	return Result{Status: StatusError, ErrorType: errorType, Message: message}
}

// Content is the text the model reads for the result: the output, or
// "Error (type): message".
func (r Result) Content() string {
	if r.Status == StatusSuccess {
		return r.Output
	}
	if r.ErrorType == "" {
		return "Error: " + r.Message
	}
	return "Error (" + r.ErrorType + "): " + r.Message
}

func loadToolGroupTool() Tool {
	return Tool{
		Name:           LoadToolGroupName,
		Description:    "Load all tools in a tool group to make them available for use. You MUST load a tool group before you can use any tools in it. After loading, the tools will be available for the rest of this conversation.",
		Parameters:     json.RawMessage(`{"type":"object","properties":{"group_name":{"type":"string","description":"The name of the tool group to load"}},"required":["group_name"]}`),
		Required:       []string{"group_name"},
		TimeoutSeconds: 5,
		Origin:         Origin{Kind: OriginMeta},
	}
}

func loadSkillTool() Tool {
	return Tool{
		Name:           LoadSkillName,
		Description:    "Load the full instructions of a skill listed in the system prompt. Use it when the task matches a skill's description, then follow the instructions it returns.",
		Parameters:     json.RawMessage(`{"type":"object","properties":{"name":{"type":"string","description":"The name of the skill to load"}},"required":["name"]}`),
		Required:       []string{"name"},
		TimeoutSeconds: 5,
		Origin:         Origin{Kind: OriginMeta},
	}
}

// LoadToolGroup runs the load_tool_group meta-tool on a call's arguments. On
// success it returns the group's name with the result listing the group's
// tools; the caller adds those tools to its active list. It does not change
// the registry.
func (r *Registry) LoadToolGroup(args json.RawMessage) (Result, string) {
	name, ok := stringArg(args, "group_name")
	if !ok {
		return Failure("missing_parameter", "Required parameter 'group_name' is missing."), ""
	}
	g, found := r.Group(name)
	if !found {
		var names []string
		for _, g := range r.AvailableGroups() {
			names = append(names, g.Name)
		}
		return Failure("not_found", fmt.Sprintf("Tool group '%s' not found. Available groups: %s", name, listOrNone(names))), ""
	}
	tools := r.groupTools(name)
	if len(tools) == 0 {
		if g.Unavailable != "" {
			return Failure("unavailable", "Tool group '"+name+"' has no tools yet: "+g.Unavailable), ""
		}
		return Failure("empty_group", fmt.Sprintf("Tool group '%s' has no available tools.", name)), ""
	}
	texts := r.Memo(memoLoadTexts, func() any { return &loadTexts{texts: map[string]string{}} }).(*loadTexts)
	texts.mu.Lock()
	text, ok := texts.texts[name]
	texts.mu.Unlock()
	if !ok {
		text = loadText(g, tools)
		texts.mu.Lock()
		texts.texts[name] = text
		texts.mu.Unlock()
	}
	return Success(text), name
}

// loadTexts are the results of loading each group, made at its first load.
type loadTexts struct {
	mu    sync.Mutex
	texts map[string]string
}

// loadText is the result of loading group g, whose tools are tools.
func loadText(g Group, tools []Tool) string {
	// Written without fmt: every load takes this path, and fmt's
	// reflection is slow in wasm.
	var b strings.Builder
	b.WriteString("Loaded ")
	b.WriteString(strconv.Itoa(len(tools)))
	b.WriteString(" tools from group '")
	b.WriteString(g.DisplayName)
	b.WriteString("':")
	for _, t := range tools {
		b.WriteString("\n- ")
		b.WriteString(t.Name)
		b.WriteString(": ")
		b.WriteString(t.Description)
	}
	return b.String()
}

// LoadSkill runs the load_skill meta-tool: the skill's content, or an error
// listing the skills there are.
func (r *Registry) LoadSkill(args json.RawMessage) Result {
	name, ok := stringArg(args, "name")
	if !ok {
		return Failure("missing_parameter", "Required parameter 'name' is missing.")
	}
	s, found := r.Skill(name)
	if !found {
		names := make([]string, len(r.skills))
		for i, s := range r.skills {
			names[i] = s.Name
		}
		return Failure("not_found", fmt.Sprintf("Skill '%s' not found. Available skills: %s", name, listOrNone(names)))
	}
	return Success(s.Content)
}

func listOrNone(names []string) string {
	if len(names) == 0 {
		return "(none)"
	}
	return strings.Join(names, ", ")
}

// stringArg reads a string argument from a call's JSON arguments; a missing,
// null or non-string value, or arguments that are not an object, count as
// missing.
func stringArg(args json.RawMessage, key string) (string, bool) {
	if s, found, ok := jsondec.StringMember(args, key); ok {
		return s, found
	}
	var obj map[string]json.RawMessage
	if json.Unmarshal(args, &obj) != nil {
		return "", false
	}
	raw, ok := obj[key]
	if !ok {
		return "", false
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return "", false
	}
	return s, true
}
