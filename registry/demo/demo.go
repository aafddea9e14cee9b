// Package demo is toolroute's demo model: a provider that is not a model.
// It answers an OpenAI Chat Completions request the way a model that knows
// only toolroute's routing would, so toolroute can be tried with no
// provider, in every host: the Go program uses this package, the browser
// and the worker the module's toolroute_demo export, which runs it.
//
// It reads what was typed and answers from it: the time calls
// get_current_time; "load the calendar tools" calls load_tool_group; mail,
// calendar, files and the other groups' subjects load the matching group
// and call one of its tools that needs no arguments; writing a note writes
// a file in the sandbox and reads it back; "make me a tool" loads
// js_tool_management, writes a Celsius converter with create_js_tool and
// calls it; anything else gets what it is
// and how to set a real provider. Every reply starts with Tag, and reports
// what the tools answered, a failure as a failure: it never claims what
// did not happen. It is stateless: each step follows from the request's
// messages since the user's last one.
package demo

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/toolroute/toolroute/registry/internal/jsondec"
)

// Model is the demo's model name.
const Model = "toolroute-demo"

// Tag starts every reply.
const Tag = "[demo model] "

// Setup is how to use a real model, said where the demo can do no more.
const Setup = "To talk to a real model, set OPENAI_API_KEY, OPENAI_BASE_URL (Ollama, llama.cpp, vLLM), ANTHROPIC_API_KEY or GEMINI_API_KEY."

// request is the part of a Chat Completions request the demo reads.
type request struct {
	Messages []message `json:"messages"`
	Tools    []struct {
		Function struct {
			Name       string          `json:"name"`
			Parameters json.RawMessage `json:"parameters"`
		} `json:"function"`
	} `json:"tools"`
}

type message struct {
	Role       string          `json:"role"`
	Content    json.RawMessage `json:"content"`
	ToolCallID string          `json:"tool_call_id"`
	ToolCalls  []struct {
		ID       string `json:"id"`
		Function struct {
			Name      string `json:"name"`
			Arguments string `json:"arguments"`
		} `json:"function"`
	} `json:"tool_calls"`
}

// text is a message's content as text: a string, or the text parts of an
// array of parts.
func (m message) text() string {
	var s string
	if json.Unmarshal(m.Content, &s) == nil {
		return s
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	json.Unmarshal(m.Content, &parts)
	var b strings.Builder
	for _, p := range parts {
		b.WriteString(p.Text)
	}
	return b.String()
}

// step is a tool call of this turn with what it answered.
type step struct {
	tool, args, result string
	failed             bool
}

// group is one line of the system prompt's group listing.
type group struct{ name, description string }

// Respond answers a Chat Completions request body with a response body. A
// body it cannot read gets an error: the host reports it as the model's.
func Respond(body []byte) ([]byte, error) {
	// The module's request holds each tool's schema, which nests up to
	// jsondec.MaxDepth, four levels down ({"tools":[{"function":
	// {"parameters": ...}}]}): the demo takes any request the module
	// builds, and refuses a deeper one before reading it.
	if at := jsondec.TooDeep(body, jsondec.MaxDepth+4); at >= 0 {
		return nil, fmt.Errorf("demo: the request %w, more than the module's requests hold: send the body of a call_model action", &jsondec.DepthError{Limit: jsondec.MaxDepth + 4, Offset: at})
	}
	var req request
	if err := json.Unmarshal(body, &req); err != nil {
		return nil, fmt.Errorf("demo: the request is not a Chat Completions request: %v", err)
	}
	msg := reply(req)
	finish := "stop"
	if msg.calls != nil {
		finish = "tool_calls"
	}
	m := map[string]any{"role": "assistant", "content": msg.text}
	if msg.calls != nil {
		m["tool_calls"] = msg.calls
	}
	return json.Marshal(map[string]any{
		"id": "demo", "object": "chat.completion", "model": Model,
		"choices": []map[string]any{{"index": 0, "message": m, "finish_reason": finish}},
		"usage":   map[string]int{"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0},
	})
}

type answer struct {
	text  string
	calls []map[string]any
}

func say(format string, a ...any) answer { return answer{text: Tag + fmt.Sprintf(format, a...)} }

func (a answer) call(id, tool, args string) answer {
	a.calls = append(a.calls, map[string]any{"id": "demo_" + id, "type": "function",
		"function": map[string]string{"name": tool, "arguments": args}})
	return a
}

// The tool the demo writes for "make me a tool".
const (
	ownToolName = "celsius_to_fahrenheit"
	ownToolArgs = `{"celsius":100}`
)

// ownToolSpec is create_js_tool's arguments for it.
func ownToolSpec() string {
	b, _ := json.Marshal(struct {
		Name        string          `json:"name"`
		Description string          `json:"description"`
		Parameters  json.RawMessage `json:"parameters"`
		Code        string          `json:"code"`
	}{
		Name:        ownToolName,
		Description: "Convert a temperature from degrees Celsius to degrees Fahrenheit",
		Parameters:  json.RawMessage(`{"type":"object","properties":{"celsius":{"type":"number","description":"degrees Celsius"}},"required":["celsius"]}`),
		Code:        "function execute(params) {\n  const f = params.celsius * 9 / 5 + 32;\n  return params.celsius + \" °C is \" + f + \" °F\";\n}\n",
	})
	return string(b)
}

// ownTool is the next step of "make me a tool": load the group that
// writes tools, write it, call it.
func ownTool(steps []step, offered map[string]json.RawMessage, names []string) answer {
	load, loaded := find(steps, "load_tool_group")
	made, wrote := find(steps, "create_js_tool")
	used, ran := find(steps, ownToolName)
	switch {
	case ran && used.failed:
		return report(used)
	case ran:
		return say("%s answered: %s. It is a JS tool of yours now: kept with your tools, run in the sandbox, and offered in every later chat without loading a group. %s", ownToolName, short(used.result, 200), Setup)
	case wrote && made.failed:
		return report(made)
	case wrote || offered[ownToolName] != nil:
		intro := "Your tool " + ownToolName + " is offered in this call."
		if wrote {
			intro = "create_js_tool answered: " + strings.TrimSuffix(short(made.result, 200), ".") + "."
		}
		return say("%s I call it with 100 °C.", intro).call("use", ownToolName, ownToolArgs)
	case offered["create_js_tool"] != nil:
		return say("I am toolroute's demo, not a real model. With js_tool_management loaded, I write a tool with create_js_tool; it changes your tools, so you are asked first.").
			call("create", "create_js_tool", ownToolSpec())
	case loaded && load.failed:
		return reportLoad(load, len(names))
	}
	return say("I am toolroute's demo, not a real model. This call offered %s. Tools are written by the js_tool_management group, so I load it first.", count(names)).
		call("load", "load_tool_group", quote(map[string]string{"group_name": "js_tool_management"}))
}

// reply is the next step for the conversation in req.
func reply(req request) answer {
	user, steps, groups, loaded := read(req)
	offered := map[string]json.RawMessage{}
	var names []string
	for _, t := range req.Tools {
		offered[t.Function.Name] = t.Function.Parameters
		names = append(names, t.Function.Name)
	}
	words := wordsOf(user)
	if user == "" {
		return say("I am toolroute's demo, not a real model, and I found no message of yours to answer. %s", Setup)
	}
	if last := len(steps) - 1; last >= 0 && steps[last].failed && steps[last].tool != "load_tool_group" {
		return report(steps[last])
	}

	// "Load the X tools": load_tool_group, then say what it answered.
	if target, ok := loadRequest(user); ok {
		if s, done := find(steps, "load_tool_group"); done {
			return reportLoad(s, len(names))
		}
		g, ok := match(groups, wordsOf(target))
		if !ok {
			return say("I am toolroute's demo. No tool group here matches %q; the groups are %s. %s", target, listGroups(groups), Setup)
		}
		return say("I am toolroute's demo, not a real model. This call offered %s. I load the %s group.", count(names), g.name).
			call("load", "load_tool_group", quote(map[string]string{"group_name": g.name}))
	}

	// A tool of the user's own: load js_tool_management, write one with
	// create_js_tool (the user approves it), then call it.
	if hasAny(words, "tool") && hasAny(words, "make", "create", "build", "new") {
		return ownTool(steps, offered, names)
	}

	g, subject := match(groups, words)

	// The time: get_current_time.
	if hasAny(words, "time", "date", "clock") || (hasAny(words, "day", "today") && !subject) {
		if s, done := find(steps, "get_current_time"); done {
			return say("get_current_time answered: %s. That tool is a core tool, sent on every call without loading a group. %s", short(s.result, 300), Setup)
		}
		if _, ok := offered["get_current_time"]; ok {
			return say("I am toolroute's demo, not a real model. For the time I call get_current_time, a core tool this call offered with %s.", count(names)).
				call("time", "get_current_time", `{"format":"human_readable"}`)
		}
	}

	// A note: write_file, then read_file back.
	note := hasAny(words, "note", "notes") || (hasAny(words, "write", "save") && !subject)
	if note && offered["write_file"] != nil && offered["read_file"] != nil {
		const path = "demo-note.txt"
		w, wrote := find(steps, "write_file")
		r, read := find(steps, "read_file")
		switch {
		case !wrote:
			return say("I am toolroute's demo, not a real model. I write your message to %s in the sandbox folder with write_file, a core tool.", path).
				call("write", "write_file", quote(map[string]string{"path": path, "content": user + "\n"}))
		case !read:
			return say("write_file answered: %s. Now I read the file back with read_file.", short(w.result, 200)).
				call("read", "read_file", quote(map[string]string{"path": path}))
		default:
			return say("read_file answered: %s. Both are core tools: no group was loaded. %s", short(r.result, 300), Setup)
		}
	}

	// A subject one of the groups covers: load it, call one of its tools.
	if subject {
		load, loadedNow := find(steps, "load_tool_group")
		_, loadedBefore := pick(loaded[g.name], offered)
		switch {
		case !loadedNow && !loadedBefore:
			return say("I am toolroute's demo, not a real model. This call offered %s: the core tools only. %q sounds like the %s group, so I load it.", count(names), short(user, 80), g.name).
				call("load", "load_tool_group", quote(map[string]string{"group_name": g.name}))
		case loadedNow && load.failed:
			return reportLoad(load, len(names))
		}
		for _, s := range steps {
			if s.tool != "load_tool_group" {
				return report(s) // the group's tool answered
			}
		}
		var tool string
		var ok bool
		intro := "The " + g.name + " group is loaded: this call offered " + count(names) + "."
		if loadedNow {
			tool, ok = pick(groupTools(load.result), offered)
		} else {
			tool, ok = pick(loaded[g.name], offered)
			intro = "The " + g.name + " group is still loaded from earlier in this session, so this call offered " + count(names) + " without loading it again."
		}
		if !ok {
			return say("%s Each of its tools needs arguments I cannot make up. %s", intro, Setup)
		}
		return say("%s I call %s.", intro, tool).call("tool", tool, "{}")
	}

	return say("I am toolroute's demo, not a real model: I follow a script, so I can only show the routing. This call offered %s; "+
		"the %d groups listed in the system prompt (%s) are loaded when asked for. Try \"What time is it?\", \"Load the calendar tools\", "+
		"\"Search my mail\" or \"Write a note\". %s", count(names), len(groups), listGroups(groups), Setup)
}

// read finds the user's last message, the steps taken since, and the group
// listing of the system prompt.
func read(req request) (string, []step, []group, map[string][]string) {
	var user string
	var steps []step
	var groups []group
	loaded := map[string][]string{} // group -> its tools, from earlier loads
	for i, m := range req.Messages {
		switch m.Role {
		case "system":
			groups = listing(m.text())
		case "user":
			user, steps = strings.TrimSpace(m.text()), nil
		case "assistant":
			for _, c := range m.ToolCalls {
				s := step{tool: c.Function.Name, args: c.Function.Arguments}
				for _, r := range req.Messages[i+1:] {
					if r.Role == "tool" && r.ToolCallID == c.ID {
						s.result = r.text()
						s.failed = strings.HasPrefix(s.result, "Error")
					}
				}
				steps = append(steps, s)
				var args struct {
					Group string `json:"group_name"`
				}
				if s.tool == "load_tool_group" && !s.failed && json.Unmarshal([]byte(s.args), &args) == nil {
					loaded[args.Group] = groupTools(s.result)
				}
			}
		}
	}
	return user, steps, groups, loaded
}

// listing reads the "- name: description" lines of the system prompt's
// Available Tool Groups section.
func listing(system string) []group {
	_, section, ok := strings.Cut(system, "## Available Tool Groups")
	if !ok {
		return nil
	}
	var out []group
	for _, line := range strings.Split(section, "\n") {
		name, desc, ok := strings.Cut(strings.TrimPrefix(line, "- "), ": ")
		if ok && strings.HasPrefix(line, "- ") && !strings.Contains(name, " ") {
			out = append(out, group{name, desc})
		}
	}
	return out
}

// loadRequest finds "load the X tools" in what was typed: X is the words
// after "load" (and "the"), less a last "tools", "tool", "group" or "tool
// group" and the end's punctuation.
func loadRequest(user string) (string, bool) {
	fields := strings.Fields(strings.TrimRight(strings.TrimSpace(user), ".!?"))
	at := slices.IndexFunc(fields, func(f string) bool { return strings.EqualFold(f, "load") })
	if at < 0 {
		return "", false
	}
	rest := fields[at+1:]
	if len(rest) > 0 && strings.EqualFold(rest[0], "the") {
		rest = rest[1:]
	}
	for len(rest) > 1 {
		last := strings.ToLower(rest[len(rest)-1])
		if last != "tools" && last != "tool" && last != "group" {
			break
		}
		rest = rest[:len(rest)-1]
	}
	if len(rest) == 0 {
		return "", false
	}
	return strings.Join(rest, " "), true
}

// synonyms widen what a word matches in a group's name and description.
// A switch, not a map: a package-level map is filled when the module
// starts (docs/design/startup.md).
func synonyms(w string) []string {
	switch w {
	case "mail":
		return []string{"gmail", "email"}
	case "email":
		return []string{"gmail", "mail"}
	case "inbox", "emails":
		return []string{"gmail", "email"}
	case "meeting", "meetings", "events":
		return []string{"calendar", "event"}
	case "schedule", "appointment":
		return []string{"calendar"}
	case "files":
		return []string{"drive", "file"}
	case "file":
		return []string{"drive"}
	case "documents":
		return []string{"docs", "document"}
	case "spreadsheet", "spreadsheets":
		return []string{"sheets"}
	case "todo", "todos":
		return []string{"tasks"}
	case "presentation":
		return []string{"slides"}
	case "contact", "people":
		return []string{"contacts"}
	case "settings":
		return []string{"config", "setting"}
	case "setting":
		return []string{"config"}
	}
	return nil
}

// stop are words too common to choose a group by.
var stop = []string{"the", "a", "an", "my", "me", "i", "to", "of", "and", "or", "in", "on", "for", "what", "is", "are",
	"show", "list", "find", "get", "please", "can", "you", "do", "with", "from", "all", "any", "tools", "tool", "group",
	"load", "google", "user", "user's", "manage", "search", "read", "your", "it", "this", "that", "some", "new"}

// match is the group whose name and description share the most words with
// what was typed (its name counting double), if any shares one.
func match(groups []group, words []string) (group, bool) {
	var best group
	bestScore := 0
	for _, g := range groups {
		name := wordsOf(strings.ReplaceAll(g.name, "_", " "))
		desc := wordsOf(g.description)
		score := 0
		for _, w := range words {
			if slices.Contains(stop, w) {
				continue
			}
			hit := 0
			for _, v := range append([]string{w}, synonyms(w)...) {
				switch {
				case slices.Contains(name, v):
					hit = 2
				case slices.Contains(desc, v):
					hit = max(hit, 1)
				}
			}
			score += hit
		}
		if score > bestScore || (score == bestScore && score > 0 && len(g.name) < len(best.name)) {
			best, bestScore = g, score
		}
	}
	return best, bestScore > 0
}

func wordsOf(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '\'')
	})
}

func hasAny(words []string, any ...string) bool {
	for _, w := range any {
		if slices.Contains(words, w) {
			return true
		}
	}
	return false
}

// find is the first step that called tool.
func find(steps []step, tool string) (step, bool) {
	for _, s := range steps {
		if s.tool == tool {
			return s, true
		}
	}
	return step{}, false
}

// groupTools reads the tool names of a load_tool_group result: its lines
// "- name: description".
func groupTools(result string) []string {
	var out []string
	for _, line := range strings.Split(result, "\n") {
		if name, _, ok := strings.Cut(strings.TrimPrefix(line, "- "), ":"); ok && strings.HasPrefix(line, "- ") {
			out = append(out, name)
		}
	}
	return out
}

// pick is the first tool that needs no arguments, one that reads (list,
// search, get) first.
func pick(tools []string, offered map[string]json.RawMessage) (string, bool) {
	var free []string
	for _, t := range tools {
		params, ok := offered[t]
		if !ok {
			continue
		}
		var schema struct {
			Required []string `json:"required"`
		}
		json.Unmarshal(params, &schema)
		if len(schema.Required) == 0 {
			free = append(free, t)
		}
	}
	for _, t := range free {
		if w := wordsOf(strings.ReplaceAll(t, "_", " ")); hasAny(w, "list", "search", "get", "read", "info") {
			return t, true
		}
	}
	if len(free) > 0 {
		return free[0], true
	}
	return "", false
}

// report says what a tool answered: its result, or that it failed and why
// (without the JS stack's lines).
func report(s step) answer {
	if s.failed {
		var lines []string
		for _, l := range strings.Split(strings.TrimPrefix(s.result, "Error "), "\n") {
			if !strings.HasPrefix(strings.TrimSpace(l), "at ") {
				lines = append(lines, l)
			}
		}
		return say("%s failed: %s. Nothing else was done. %s", s.tool, strings.TrimSuffix(short(strings.Join(lines, " "), 400), "."), Setup)
	}
	return say("%s answered: %s. %s", s.tool, short(s.result, 400), Setup)
}

func reportLoad(s step, offered int) answer {
	if s.failed {
		return say("load_tool_group failed: %s. %s", short(strings.TrimPrefix(s.result, "Error "), 400), Setup)
	}
	first, _, _ := strings.Cut(s.result, "\n")
	return say("load_tool_group answered: %s This call offered %d tools: the group's schemas were sent only once asked for, "+
		"and they stay loaded for the rest of this session. %s", first, offered, Setup)
}

func listGroups(groups []group) string {
	if len(groups) == 0 {
		return "none"
	}
	names := make([]string, len(groups))
	for i, g := range groups {
		names[i] = g.name
	}
	return strings.Join(names, ", ")
}

func count(tools []string) string {
	return fmt.Sprintf("%d tools (%s)", len(tools), strings.Join(tools, ", "))
}

func short(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}

func quote(v map[string]string) string {
	b, _ := json.Marshal(v)
	return string(b)
}
