// Package cachebench measures how much of each model request a provider's
// prompt cache can reuse: scripted conversations with group loads run
// through the turn engine (natively: the module's code, no network), and
// each request is compared with the one before it in the order the
// provider caches a request. It is what `make bench` reports as "Cache
// preservation"; nothing in it is timed, so the figures are exact and the
// same on every run.
package cachebench

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/toolroute/toolroute/registry"
	"github.com/toolroute/toolroute/registry/session"
	"github.com/toolroute/toolroute/registry/wire"
)

// Step is one scripted model response: load a group, call a tool of a
// group (with placeholder arguments for its required parameters), or
// answer with text.
type Step struct {
	Load, Call, Text string
}

// Turn is a user message and the model's responses to it.
type Turn struct {
	User  string
	Steps []Step
}

// Script is the conversation `make bench` measures: six turns that load
// three of the built-in groups, one at a time, and call their tools,
// loaded in this turn or restored from an earlier one.
var Script = []Turn{
	{"What is on my calendar today?", []Step{{Load: "google_calendar"}, {Call: "calendar_list_events"}, {Text: "Two meetings: standup at 9, review at 3."}}},
	{"Any mail from Ana?", []Step{{Load: "google_gmail"}, {Call: "gmail_search"}, {Text: "One message from Ana, about the budget."}}},
	{"Thanks.", []Step{{Text: "You are welcome."}}},
	{"Find the budget file she mentions.", []Step{{Load: "google_drive"}, {Call: "drive_search"}, {Call: "drive_get_file"}, {Text: "The budget is in Budget 2026.xlsx."}}},
	{"And tomorrow's calendar?", []Step{{Call: "calendar_list_events"}, {Text: "Tomorrow is free."}}},
	{"Reply to Ana that I will look at it tomorrow.", []Step{{Call: "gmail_search"}, {Text: "Found her thread; say the word and I will reply."}}},
}

// Result is one run: the fraction of each request's bytes, in cache
// order, that equals the previous request's prefix (none for the first),
// as sent and without the deferred tools' definitions, which the provider
// keeps out of the context until a load.
type Result struct {
	Format  wire.Format
	Routing session.Routing
	// Sent and InContext hold one fraction per call after the first.
	Sent, InContext []float64
	// Kept is, per call after the first, the share of the previous
	// request (as sent) that the call repeats as its prefix: what of the
	// cached prefix it can reuse, 1 when nothing before the end changed.
	Kept []float64
	// AfterLoad marks the calls that follow a load.
	AfterLoad []bool
}

// Run plays script in format f with routing against reg.
func Run(reg *registry.Registry, f wire.Format, routing session.Routing, script []Turn) (Result, error) {
	res := Result{Format: f, Routing: routing}
	var log []session.Message
	var prevSent, prevCtx []byte
	loaded := false
	call := 0
	for ti, turn := range script {
		t := session.NewTurn(reg)
		acts, err := t.Handle(session.Event{Type: session.EventStart, History: log, User: turn.User,
			Settings: session.Settings{Format: f, Model: "bench-model", SystemPrompt: "You are a helpful assistant.", Routing: routing}})
		if err != nil {
			return res, err
		}
		steps := turn.Steps
		for len(acts) > 0 {
			var next []session.Action
			for _, a := range acts {
				switch a.Type {
				case session.ActionAppend:
					log = append(log, a.Messages...)
				case session.ActionCallModel:
					sent, ctx, err := cacheOrder(f, a.Request.Body)
					if err != nil {
						return res, err
					}
					if call > 0 {
						res.Sent = append(res.Sent, shared(prevSent, sent))
						res.InContext = append(res.InContext, shared(prevCtx, ctx))
						res.Kept = append(res.Kept, shared(sent, prevSent))
						res.AfterLoad = append(res.AfterLoad, loaded)
					}
					prevSent, prevCtx, loaded = sent, ctx, false
					call++
					if len(steps) == 0 {
						return res, fmt.Errorf("turn %d: the script ran out of steps", ti+1)
					}
					body, isLoad, err := respond(reg, f, a.Request.Routing == session.RoutingNative, steps[0], call)
					if err != nil {
						return res, err
					}
					loaded = isLoad
					steps = steps[1:]
					if next, err = t.Handle(session.Event{Type: session.EventResponse, Body: body}); err != nil {
						return res, err
					}
				case session.ActionRunTools:
					var results []session.Result
					for _, c := range a.Calls {
						results = append(results, session.Result{ID: c.ID, Result: registry.Success(fmt.Sprintf(`{"tool":%q,"items":[{"id":"a1","title":"First"},{"id":"b2","title":"Second"}]}`, c.Tool))})
					}
					if next, err = t.Handle(session.Event{Type: session.EventToolResults, Results: results}); err != nil {
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

// shared is the fraction of cur's bytes that equal prev's prefix (with the
// arguments swapped: the share of prev that cur repeats).
func shared(prev, cur []byte) float64 {
	n := 0
	for n < len(prev) && n < len(cur) && prev[n] == cur[n] {
		n++
	}
	return float64(n) / float64(len(cur))
}

// cacheOrder is a request body's parts in the order the provider caches
// them, as sent: Anthropic tools, system, messages; Responses
// instructions, tools, input; Chat Completions tools, messages; Gemini
// tools, systemInstruction, contents. The second is the same without the
// deferred tools' definitions (a Responses namespace keeps its name and
// description, which the model sees).
func cacheOrder(f wire.Format, body []byte) (sent, inContext []byte, err error) {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(body, &fields); err != nil {
		return nil, nil, err
	}
	var order []string
	switch f {
	case wire.Anthropic:
		order = []string{"tools", "system", "messages"}
	case wire.Responses:
		order = []string{"instructions", "tools", "input"}
	case wire.OpenAI:
		order = []string{"tools", "messages"}
	case wire.Gemini:
		order = []string{"tools", "systemInstruction", "contents"}
	}
	for _, k := range order {
		sent = append(sent, fields[k]...)
		if k == "tools" {
			inContext = append(inContext, withoutDeferred(fields[k])...)
		} else {
			inContext = append(inContext, fields[k]...)
		}
	}
	return sent, inContext, nil
}

func withoutDeferred(tools json.RawMessage) []byte {
	var list []map[string]json.RawMessage
	if len(tools) == 0 || json.Unmarshal(tools, &list) != nil {
		return tools
	}
	var kept []string
	for _, t := range list {
		if string(t["defer_loading"]) == "true" {
			continue
		}
		if string(t["type"]) == `"namespace"` {
			kept = append(kept, `{"type":"namespace","name":`+string(t["name"])+`,"description":`+string(t["description"])+`}`)
			continue
		}
		raw, _ := json.Marshal(t) // keys sorted: the same for every call
		kept = append(kept, string(raw))
	}
	return []byte("[" + strings.Join(kept, ",") + "]")
}

// respond is the response body for one step in format f: a load, a call
// with a placeholder for each required argument, or text.
func respond(reg *registry.Registry, f wire.Format, native bool, s Step, n int) (body []byte, isLoad bool, err error) {
	name, args := s.Call, "{}"
	if s.Load != "" {
		name, args = registry.LoadToolGroupName, fmt.Sprintf(`{"group_name":%q}`, s.Load)
	} else if s.Call != "" {
		tool, ok := reg.Tool(s.Call)
		if !ok {
			return nil, false, fmt.Errorf("the script calls %s, which the catalogue lacks", s.Call)
		}
		obj := map[string]string{}
		for _, r := range tool.Required {
			obj[r] = "x"
		}
		raw, _ := json.Marshal(obj) // keys sorted
		args = string(raw)
	}
	id := fmt.Sprintf("call_%d", n)
	var v any
	switch f {
	case wire.OpenAI:
		msg := map[string]any{"role": "assistant", "content": s.Text}
		if name != "" {
			msg["tool_calls"] = []any{map[string]any{"id": id, "type": "function", "function": map[string]any{"name": name, "arguments": args}}}
		}
		v = map[string]any{"choices": []any{map[string]any{"message": msg, "finish_reason": "stop"}}, "usage": map[string]int{"prompt_tokens": 1, "completion_tokens": 1}}
	case wire.Anthropic:
		content := []any{}
		if s.Text != "" {
			content = append(content, map[string]any{"type": "text", "text": s.Text})
		}
		if name != "" {
			content = append(content, map[string]any{"type": "tool_use", "id": id, "name": name, "input": json.RawMessage(args)})
		}
		v = map[string]any{"type": "message", "content": content, "stop_reason": "end_turn", "usage": map[string]int{"input_tokens": 1, "output_tokens": 1}}
	case wire.Responses:
		output := []any{}
		if s.Text != "" {
			output = append(output, map[string]any{"type": "message", "role": "assistant", "content": []any{map[string]any{"type": "output_text", "text": s.Text}}})
		}
		switch {
		case s.Load != "" && native:
			output = append(output, map[string]any{"type": "tool_search_call", "call_id": id, "execution": "client", "arguments": json.RawMessage(args)})
		case name != "":
			output = append(output, map[string]any{"type": "function_call", "call_id": id, "name": name, "arguments": args})
		}
		v = map[string]any{"status": "completed", "output": output, "usage": map[string]int{"input_tokens": 1, "output_tokens": 1}}
	case wire.Gemini:
		parts := []any{}
		if s.Text != "" {
			parts = append(parts, map[string]any{"text": s.Text})
		}
		if name != "" {
			parts = append(parts, map[string]any{"functionCall": map[string]any{"id": id, "name": name, "args": json.RawMessage(args)}})
		}
		v = map[string]any{"candidates": []any{map[string]any{"content": map[string]any{"role": "model", "parts": parts}, "finishReason": "STOP"}}}
	}
	body, err = json.Marshal(v)
	return body, s.Load != "", err
}

// Summary is a run's figures for the report: the lowest and the mean of v
// (Sent, InContext or Kept) over the calls after the first, and the
// lowest after a load.
func (r Result) Summary(v []float64) (lowest, mean, lowestAfterLoad float64) {
	if len(v) == 0 {
		return 0, 0, 0
	}
	lowest, lowestAfterLoad = slices.Min(v), 1
	for i, x := range v {
		mean += x
		if r.AfterLoad[i] && x < lowestAfterLoad {
			lowestAfterLoad = x
		}
	}
	return lowest, mean / float64(len(v)), lowestAfterLoad
}
