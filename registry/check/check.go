// Package check holds the rules of the hosts' operations that need no
// I/O: whether a name may be a tool's, a variable's, a task's, an agent's
// or a provider's, what a session title a user gives becomes, a scheduled
// task's time (schedule.go), a user tool's file and secrets
// (toolfiles.go), a provider's record and model list (records.go), an
// agent's run (agents.go), which bridge operations a tool may call
// (bridge.go), the QuickJS runners' bridges (jsbridge.go), and what the
// bodies of the HTTP API's requests must be and which model calls its
// proxy forwards (api.go), and what the model sees of an MCP server's
// tools and of their results (mcp.go), and what an MCP server asks the user
// (elicit.go). Each rule and its refusal text live here once;
// every host asks the module (the toolroute_check export, wasm/ABI.md)
// before or after it does the operation's I/O, giving what it read (the
// tasks' names, a zone's offsets, an HTTP answer), so the Go host, Node,
// the page and workerd decide the same way in the same words.
//
// Nothing here reads a catalogue, a session, a clock or the world: the
// host gives the time (now) and what it found.
package check

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/toolroute/toolroute/registry"
	"github.com/toolroute/toolroute/registry/session"
)

// Request is what a host asks: the operation's check (Op) and its
// arguments (Args, an object whose fields the op names).
type Request struct {
	Op   string          `json:"op"`
	Args json.RawMessage `json:"args"`
}

// Refusal is a check's no: the tool result's error type and the sentence
// the model or the user reads, which says what to give instead.
type Refusal struct {
	Type    string `json:"type"`
	Message string `json:"message"`
}

// Answer is a check's answer: a Refusal, or the arguments as the
// operation is to use them (Args, when a check changes them), or neither
// when they pass as they are.
type Answer struct {
	Error *Refusal `json:"error,omitempty"`
	Args  any      `json:"args,omitempty"`
}

// Ops lists the checks in the order ABI.md gives them.
var Ops = []string{"tool_name", "variable_name", "task_name", "agent_name", "provider_name", "session_title", "task_change", "approval_answers", "api_body", "model_proxy", "js_bridge", "task_time", "task_names", "tool_file", "tool_secrets", "tool_code", "provider_record", "model_list", "agent_run", "session_agent", "bridge_op", "manifests", "mcp_catalogue", "mcp_result", "mcp_refusal", "elicitation", "turn_cut"}

// MaxPromptChars bounds a scheduled task's prompt, in code points.
const MaxPromptChars = 10000

// MaxTitleChars bounds a session title a user gives, in code points.
const MaxTitleChars = 200

// ErrUnknownOp is Run's error for an op it does not know.
var ErrUnknownOp = errors.New("check: unknown op")

// Run answers req, or an error when the request is not one a check takes
// (an unknown op, args of the wrong shape): a host's mistake, not the
// arguments' fault.
func Run(req Request) (Answer, error) {
	switch req.Op {
	case "tool_name", "variable_name", "task_name", "agent_name", "provider_name":
		var a struct {
			Name *string `json:"name"`
		}
		if err := decodeArgs(req, &a); err != nil {
			return Answer{}, err
		}
		if a.Name == nil {
			return Answer{}, fmt.Errorf("check %s: args has no name: give {\"name\": \"...\"}", req.Op)
		}
		return refuse(nameRule(req.Op, *a.Name)), nil
	case "session_title":
		var a struct {
			Title *string `json:"title"`
		}
		if err := decodeArgs(req, &a); err != nil {
			return Answer{}, err
		}
		if a.Title == nil {
			return Answer{}, fmt.Errorf("check %s: args has no title: give {\"title\": \"...\"}", req.Op)
		}
		t, msg := cleanTitle(*a.Title)
		if msg != "" {
			return refuse(msg), nil
		}
		return Answer{Args: struct {
			Title string `json:"title"`
		}{t}}, nil
	case "task_change":
		var a TaskChange
		if err := decodeArgs(req, &a); err != nil {
			return Answer{}, err
		}
		return a.check(), nil
	case "approval_answers":
		var a ApprovalAnswers
		if err := decodeArgs(req, &a); err != nil {
			return Answer{}, err
		}
		return refuse(a.check()), nil
	case "api_body", "model_proxy":
		return runAPI(req)
	case "js_bridge":
		var a JSBridge
		if err := decodeArgs(req, &a); err != nil {
			return Answer{}, err
		}
		return a.check()
	case "task_time":
		var a TaskTime
		if err := decodeArgs(req, &a); err != nil {
			return Answer{}, err
		}
		return a.check()
	case "task_names":
		var a TaskNames
		if err := decodeArgs(req, &a); err != nil {
			return Answer{}, err
		}
		return a.check(), nil
	case "tool_file":
		var a ToolFile
		if err := decodeArgs(req, &a); err != nil {
			return Answer{}, err
		}
		return a.check(), nil
	case "tool_secrets":
		var a ToolSecrets
		if err := decodeArgs(req, &a); err != nil {
			return Answer{}, err
		}
		return a.check(), nil
	case "tool_code":
		var a struct {
			Code *string `json:"code"`
		}
		if err := decodeArgs(req, &a); err != nil {
			return Answer{}, err
		}
		if a.Code == nil {
			return Answer{}, fmt.Errorf("check %s: args has no code: give {\"code\": \"...\"}", req.Op)
		}
		return toolCode(*a.Code), nil
	case "provider_record":
		var a ProviderRecord
		if err := decodeArgs(req, &a); err != nil {
			return Answer{}, err
		}
		return a.check(), nil
	case "model_list":
		var a ModelListPage
		if err := decodeArgs(req, &a); err != nil {
			return Answer{}, err
		}
		return a.check(), nil
	case "agent_run":
		var a AgentRun
		if err := decodeArgs(req, &a); err != nil {
			return Answer{}, err
		}
		return a.check(), nil
	case "session_agent":
		var a SessionAgent
		if err := decodeArgs(req, &a); err != nil {
			return Answer{}, err
		}
		return a.check(), nil
	case "bridge_op":
		var a BridgeOp
		if err := decodeArgs(req, &a); err != nil {
			return Answer{}, err
		}
		return a.check(), nil
	case "manifests":
		var a Manifests
		if err := decodeArgs(req, &a); err != nil {
			return Answer{}, err
		}
		return a.check(), nil
	case "mcp_catalogue":
		var a MCPCatalogue
		if err := decodeArgs(req, &a); err != nil {
			return Answer{}, err
		}
		if err := checkAuthorize(req.Op, a.Authorize); err != nil {
			return Answer{}, err
		}
		return a.check(), nil
	case "mcp_result":
		var a MCPResult
		if err := decodeArgs(req, &a); err != nil {
			return Answer{}, err
		}
		if err := checkAuthorize(req.Op, a.Authorize); err != nil {
			return Answer{}, err
		}
		return a.check(), nil
	case "mcp_refusal":
		var a MCPRefusal
		if err := decodeArgs(req, &a); err != nil {
			return Answer{}, err
		}
		if err := checkAuthorize(req.Op, a.Authorize); err != nil {
			return Answer{}, err
		}
		return Answer{Args: a.Decide()}, nil
	case "elicitation":
		var a Elicitation
		if err := decodeArgs(req, &a); err != nil {
			return Answer{}, err
		}
		return a.check()
	case "turn_cut":
		var a struct {
			Text    string              `json:"text"`
			Last    session.MessageType `json:"last"`
			Stopped bool                `json:"stopped"`
		}
		if err := decodeArgs(req, &a); err != nil {
			return Answer{}, err
		}
		msgs := session.CutOff(a.Text, a.Last, a.Stopped)
		if msgs == nil {
			msgs = []session.Message{}
		}
		return Answer{Args: struct {
			Messages []session.Message `json:"messages"`
		}{msgs}}, nil
	}
	return Answer{}, fmt.Errorf("%w %q: use one of %s", ErrUnknownOp, req.Op, strings.Join(Ops, ", "))
}

func decodeArgs(req Request, v any) error {
	if len(req.Args) == 0 || string(req.Args) == "null" {
		return fmt.Errorf("check %s: the request has no args object", req.Op)
	}
	if err := json.Unmarshal(req.Args, v); err != nil {
		return fmt.Errorf("check %s: args: %w", req.Op, err)
	}
	return nil
}

func refuse(msg string) Answer {
	if msg == "" {
		return Answer{}
	}
	return Answer{Error: &Refusal{Type: "invalid_arguments", Message: msg}}
}

// nameRule is the refusal of name for op, or "" when it may be one.
func nameRule(op, name string) string {
	switch op {
	case "tool_name":
		if !registry.ValidToolName(name) {
			return fmt.Sprintf("%q is not a tool name: use snake_case, such as weather_lookup", name)
		}
	case "variable_name":
		if !VariableName(name) {
			return fmt.Sprintf("%q is not a variable name: use letters, digits and _, not starting with a digit", name)
		}
	case "task_name":
		if !RecordName(name) {
			return fmt.Sprintf("%q is not a task name: use lower-case letters, digits, _ and -, starting with a letter, at most 40, such as daily_summary", name)
		}
	case "agent_name":
		if !RecordName(name) {
			return fmt.Sprintf("%q is not an agent name: use lower-case letters, digits, _ and -, starting with a letter, at most 40", name)
		}
	case "provider_name":
		if !RecordName(name) {
			return fmt.Sprintf("%q is not a provider name: use lower-case letters, digits, _ and -, starting with a letter, at most 40", name)
		}
	}
	return ""
}

// VariableName reports whether name may name a variable tools read:
// ^[A-Za-z_][A-Za-z0-9_]*$.
func VariableName(name string) bool {
	if name == "" || name[0] >= '0' && name[0] <= '9' {
		return false
	}
	for _, c := range []byte(name) {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_') {
			return false
		}
	}
	return true
}

// RecordName reports whether name may name a scheduled task, an agent or
// a provider: ^[a-z][a-z0-9_-]{0,39}$.
func RecordName(name string) bool {
	if name == "" || len(name) > 40 || name[0] < 'a' || name[0] > 'z' {
		return false
	}
	for _, c := range []byte(name) {
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// cleanTitle gives a title a user gives with its whitespace collapsed
// (Go's unicode.IsSpace, which the JS hosts' \s is not), or the refusal
// of a title that is empty, longer than MaxTitleChars code points or holds
// control characters.
func cleanTitle(title string) (string, string) {
	t := strings.Join(strings.Fields(title), " ")
	switch n := utf8.RuneCountInString(t); {
	case strings.IndexFunc(t, unicode.IsControl) >= 0:
		return "", fmt.Sprintf("the title holds control characters: give plain text of 1 to %d characters", MaxTitleChars)
	case n == 0:
		return "", fmt.Sprintf("the title is empty: give one of 1 to %d characters", MaxTitleChars)
	case n > MaxTitleChars:
		return "", fmt.Sprintf("the title has %d characters: give one of 1 to %d", n, MaxTitleChars)
	}
	return t, ""
}

// TaskChange is what a scheduled task's creation or change gives, before
// the host reads any task: the prompt, at and cron as given (nil when
// left out), whether it creates the task (Create), and whether the task
// changed has a time already (Scheduled).
type TaskChange struct {
	Prompt    *string `json:"prompt"`
	At        *string `json:"at"`
	Cron      *string `json:"cron"`
	Create    bool    `json:"create"`
	Scheduled bool    `json:"scheduled"`
}

// check refuses a change that cannot be one whatever the tasks are, or
// gives its prompt, at and cron trimmed: the host then parses at and cron
// in the task's time zone, which needs its tz database.
func (c TaskChange) check() Answer {
	type out struct {
		Prompt *string `json:"prompt,omitempty"`
		At     string  `json:"at"`
		Cron   string  `json:"cron"`
	}
	var o out
	if c.Prompt == nil && c.Create {
		return refuse("the prompt is missing: give what the agent is asked to do when the task runs")
	}
	if c.Prompt != nil {
		p := strings.TrimSpace(*c.Prompt)
		switch {
		case p == "":
			return refuse("the prompt is empty: give what the agent is asked to do when the task runs")
		case utf8.RuneCountInString(p) > MaxPromptChars:
			return refuse(fmt.Sprintf("the prompt is over %d characters: shorten it", MaxPromptChars))
		}
		o.Prompt = &p
	}
	if c.At != nil {
		o.At = strings.TrimSpace(*c.At)
	}
	if c.Cron != nil {
		o.Cron = strings.TrimSpace(*c.Cron)
	}
	switch {
	case o.At != "" && o.Cron != "":
		return refuse("give at (once) or cron (recurring), not both")
	case o.At == "" && o.Cron == "" && !c.Scheduled:
		return refuse("give at, an ISO 8601 time such as 2026-11-28T09:00:00+01:00 (once), or cron, 5 fields such as 0 9 * * 1-5 (recurring)")
	}
	return Answer{Args: o}
}

// ApprovalAnswers is a user's answers to a pending question (serve's and
// the worker's POST /api/sessions/{id}/approvals), with the question as
// the host holds it: its calls (their ids and the secrets each asked for)
// and the answers it has already (Given).
type ApprovalAnswers struct {
	Calls   []AskedCall        `json:"calls"`
	Given   []session.Approval `json:"given"`
	Answers []session.Approval `json:"answers"`
}

// AskedCall is a call of a question as the check reads it: the host may
// give the whole call (session.Call); the rest is ignored.
type AskedCall struct {
	ID      string   `json:"id"`
	Secrets []string `json:"secrets"`
}

// check is the refusal of the answers, all or none, or "" when the host
// may record them: each names a call of the question once, one not
// answered yet, with once, session or deny, granting only secrets the
// call asked for.
func (a ApprovalAnswers) check() string {
	seen := map[string]bool{}
	for _, ans := range a.Answers {
		i := slices.IndexFunc(a.Calls, func(c AskedCall) bool { return c.ID == ans.ID })
		if i < 0 {
			ids := make([]string, len(a.Calls))
			for j, c := range a.Calls {
				ids[j] = fmt.Sprintf("%q", c.ID)
			}
			return fmt.Sprintf("no call %q is waiting for an answer: the ids are %s (GET this URL shows them)", ans.ID, strings.Join(ids, ", "))
		}
		if seen[ans.ID] {
			return fmt.Sprintf("call %q is answered twice: give one answer per call", ans.ID)
		}
		if j := slices.IndexFunc(a.Given, func(g session.Approval) bool { return g.ID == ans.ID }); j >= 0 {
			return fmt.Sprintf("call %q was answered already (%s)", ans.ID, a.Given[j].Answer)
		}
		switch ans.Answer {
		case session.AnswerOnce, session.AnswerSession, session.AnswerDeny:
		default:
			return fmt.Sprintf("call %q: the answer %q is none of once, session or deny", ans.ID, ans.Answer)
		}
		asked := a.Calls[i].Secrets
		for _, g := range ans.Grant {
			if !slices.Contains(asked, g) {
				return fmt.Sprintf("call %q did not ask for %q: grant only secrets it asked for (%s)", ans.ID, g, strings.Join(asked, ", "))
			}
		}
		seen[ans.ID] = true
	}
	return ""
}
