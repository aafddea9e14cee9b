// Package budgetbench measures what a tool budget does to a long
// conversation: 200 scripted turns that use the 12 tool groups of the
// built-in catalogue, run through the turn engine with and without
// settings.tool_budget, counting the o200k tokens of the tools each model
// call sends and the loads and unloads it took. It is what `make bench`
// reports as "Tool budget"; nothing in it is timed, so the figures are the
// same on every run.
package budgetbench

import (
	"encoding/json"
	"fmt"
	"slices"

	"github.com/toolroute/toolroute/internal/tokens"
	"github.com/toolroute/toolroute/registry"
	"github.com/toolroute/toolroute/registry/session"
	"github.com/toolroute/toolroute/registry/wire"
)

// Turns is how many user turns a run plays.
const Turns = 200

// Result is one run's figures.
type Result struct {
	Budget, ContextLimit int
	// Calls is the model calls made; Tokens is the o200k tokens of each
	// call's tools array, in order.
	Calls  int
	Tokens []int
	// Loads and Unloads count load_tool_group calls and the groups a load
	// unloaded to fit the budget.
	Loads, Unloads int
	// Active is the number of tools the last call sent.
	Active int
	// Compactions are the summaries made.
	Compactions []Compaction
}

// Compaction is one summary's effect: the o200k tokens of the last
// request before it and of the first after it, and whether that one sends
// the tools the log had loaded when the summary was asked for.
type Compaction struct {
	Before, After int
	SameTools     bool
	tools         []string
}

// Mean and Max are of the tokens per call.
func (r Result) Mean() float64 {
	sum := 0
	for _, t := range r.Tokens {
		sum += t
	}
	return float64(sum) / float64(len(r.Tokens))
}

func (r Result) Max() int { return slices.Max(r.Tokens) }

// Script is the group each turn works in: runs of one to four turns in a
// group, the next group picked by a fixed generator: two times in three one
// of the last four used, else one not used yet, as a user who comes back
// to what they work on and finds the rest over time.
func Script(groups []string) []string {
	out := make([]string, 0, Turns)
	x := uint32(2026)
	next := func(n int) int {
		x = x*1664525 + 1013904223
		return int(x>>8) % n
	}
	var recent []string
	fresh := slices.Clone(groups)
	for i := len(fresh) - 1; i > 0; i-- {
		j := next(i + 1)
		fresh[i], fresh[j] = fresh[j], fresh[i]
	}
	for len(out) < Turns {
		var g string
		switch {
		case len(recent) > 0 && next(3) > 0:
			g = recent[next(len(recent))] // back to one of the last few
		case len(fresh) > 0:
			g, fresh = fresh[0], fresh[1:] // one not used yet
		default:
			g = groups[next(len(groups))]
		}
		recent = append(slices.DeleteFunc(recent, func(s string) bool { return s == g }), g)
		if len(recent) > 4 {
			recent = recent[1:]
		}
		for range 1 + next(4) {
			if len(out) < Turns {
				out = append(out, g)
			}
		}
	}
	return out
}

// Run plays the script against reg with a tool budget (0: none) and a
// context window (0: no compaction). Each turn the model calls the first
// tool of the turn's group, loading the group first when the call's tools
// lack it, then answers; a summarising call gets a short summary.
func Run(reg *registry.Registry, script []string, budget, contextLimit int) (Result, error) {
	res := Result{Budget: budget, ContextLimit: contextLimit}
	var lastBody []byte
	var pending *Compaction // waiting for the call after the summary
	var log []session.Message
	counter := tokens.Counter{}
	counted := map[string]int{} // a tools array's tokens, as calls repeat it
	for ti, group := range script {
		tools := reg.GroupTools(group)
		if len(tools) == 0 {
			return res, fmt.Errorf("turn %d: group %s has no tools", ti+1, group)
		}
		target := tools[0]
		t := session.NewTurn(reg)
		acts, err := t.Handle(session.Event{Type: session.EventStart, History: log, User: fmt.Sprintf("Turn %d: something in %s", ti+1, group),
			Settings: session.Settings{Format: wire.OpenAI, Model: "bench-model", SystemPrompt: "You are a helpful assistant.", ToolBudget: budget, ContextLimit: contextLimit}})
		if err != nil {
			return res, err
		}
		called := false
		for len(acts) > 0 {
			var next []session.Action
			for _, a := range acts {
				switch a.Type {
				case session.ActionAppend:
					log = append(log, a.Messages...)
				case session.ActionGroupLoaded:
					if a.Group.Query == "" && len(a.Group.Added) > 0 {
						res.Loads++
					}
					res.Unloads += countGroups(reg, a.Group.Unloaded)
				case session.ActionCallModel:
					if a.Request.Compaction {
						before, err := counter.Count("o200k_base", string(lastBody))
						if err != nil {
							return res, err
						}
						// What the call the summary delays would send, from
						// the log as it stands.
						var would []string
						for _, tool := range session.ActiveTools(reg, log).Tools() {
							would = append(would, tool.Name)
						}
						pending = &Compaction{Before: before, tools: would}
						if next, err = t.Handle(session.Event{Type: session.EventResponse, Body: session.Bytes(text(fmt.Sprintf("Summary: %d turns so far, working in the groups the user asked for.", ti+1)))}); err != nil {
							return res, err
						}
						continue
					}
					if pending != nil {
						after, err := counter.Count("o200k_base", string(a.Request.Body))
						if err != nil {
							return res, err
						}
						pending.After, pending.SameTools = after, slices.Equal(pending.tools, a.Request.Tools)
						res.Compactions = append(res.Compactions, *pending)
						pending = nil
					}
					lastBody = a.Request.Body
					var body struct {
						Tools json.RawMessage `json:"tools"`
					}
					if err := json.Unmarshal(a.Request.Body, &body); err != nil {
						return res, err
					}
					n, ok := counted[string(body.Tools)]
					if !ok && len(body.Tools) > 0 {
						if n, err = counter.Count("o200k_base", string(body.Tools)); err != nil {
							return res, err
						}
						counted[string(body.Tools)] = n
					}
					res.Calls++
					res.Tokens = append(res.Tokens, n)
					res.Active = len(a.Request.Tools)
					var reply string
					switch {
					case called:
						reply = text("Done.")
					case slices.Contains(a.Request.Tools, target.Name):
						called = true
						args := map[string]string{}
						for _, r := range target.Required {
							args[r] = "x"
						}
						raw, _ := json.Marshal(args) // keys sorted
						reply = call(fmt.Sprintf("c%d", res.Calls), target.Name, string(raw))
					default:
						reply = call(fmt.Sprintf("c%d", res.Calls), registry.LoadToolGroupName, fmt.Sprintf(`{"group_name":%q}`, group))
					}
					if next, err = t.Handle(session.Event{Type: session.EventResponse, Body: session.Bytes(reply)}); err != nil {
						return res, err
					}
				case session.ActionRunTools:
					var results []session.Result
					for _, c := range a.Calls {
						results = append(results, session.Result{ID: c.ID, Result: registry.Success(`{"items":[{"id":"a1"}]}`)})
					}
					if next, err = t.Handle(session.Event{Type: session.EventToolResults, Results: results}); err != nil {
						return res, err
					}
				case session.ActionAskApproval:
					var answers []session.Approval
					for _, c := range a.Calls {
						answers = append(answers, session.Approval{ID: c.ID, Answer: session.AnswerOnce})
					}
					if next, err = t.Handle(session.Event{Type: session.EventApproval, Approvals: answers}); err != nil {
						return res, err
					}
				case session.ActionFailed:
					return res, fmt.Errorf("turn %d failed: %s", ti+1, a.Error.Message)
				}
			}
			acts = next
		}
	}
	return res, nil
}

// countGroups is the number of groups the tools belong to.
func countGroups(reg *registry.Registry, names []string) int {
	var groups []string
	for _, n := range names {
		if g, ok := reg.GroupOf(n); ok && !slices.Contains(groups, g) {
			groups = append(groups, g)
		}
	}
	return len(groups)
}

func text(s string) string {
	raw, _ := json.Marshal(map[string]any{"choices": []any{map[string]any{"message": map[string]any{"role": "assistant", "content": s}, "finish_reason": "stop"}}})
	return string(raw)
}

func call(id, name, args string) string {
	raw, _ := json.Marshal(map[string]any{"choices": []any{map[string]any{"message": map[string]any{"role": "assistant", "content": nil,
		"tool_calls": []any{map[string]any{"id": id, "type": "function", "function": map[string]any{"name": name, "arguments": args}}}}, "finish_reason": "tool_calls"}}})
	return string(raw)
}
