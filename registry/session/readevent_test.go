package session

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/toolroute/toolroute/registry"
	"github.com/toolroute/toolroute/registry/wire"
)

// randomHistory is a log of n messages of every type, in orders a log
// has and some it should not: calls without results, results without
// calls, approvals, summaries keeping some messages before them.
func randomHistory(rng *rand.Rand, n int) []Message {
	var log []Message
	call := 0
	at := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	for len(log) < n {
		at = at.Add(time.Second)
		id := fmt.Sprintf("call_%d", call)
		switch rng.IntN(10) {
		case 0, 1:
			log = append(log, Message{Type: User, Content: fmt.Sprintf("question %d \u00e9 \"<q>\"\n", len(log)), Time: at})
		case 2:
			log = append(log, Message{Type: Assistant, Content: fmt.Sprintf("answer %d", len(log)), Time: at,
				Usage: &wire.Usage{InputTokens: len(log), OutputTokens: 3}})
		case 3:
			call++
			log = append(log, Message{Type: Assistant, Time: at},
				Message{Type: ToolCall, ToolCallID: id, ToolName: registry.LoadToolGroupName, ToolInput: `{"group_name":"pdf"}`,
					Status: registry.StatusSuccess, Time: at},
				Message{Type: ToolResult, ToolCallID: id, ToolName: registry.LoadToolGroupName, Content: "Loaded 1 tools", Status: registry.StatusSuccess, Time: at})
		case 4:
			call++
			status := []registry.Status{registry.StatusSuccess, registry.StatusPending, registry.StatusAwaitingApproval, registry.StatusError}[rng.IntN(4)]
			log = append(log, Message{Type: ToolCall, ToolCallID: id, ToolName: "pdf_info", ToolInput: fmt.Sprintf(`{"path":"r-%d.pdf"}`, call),
				Status: status, Index: rng.IntN(3), Signature: "sig", Time: at})
			if status != registry.StatusPending && rng.IntN(3) > 0 {
				log = append(log, Message{Type: ToolResult, ToolCallID: id, ToolName: "pdf_info", Content: `{"pages":3}`, Status: registry.StatusSuccess,
					Images: []registry.Image{{MIMEType: "image/png", Data: "AA=="}}[:rng.IntN(2)], Time: at})
			}
		case 5:
			log = append(log, Message{Type: ToolResult, ToolCallID: fmt.Sprintf("call_%d", rng.IntN(call+1)), ToolName: "pdf_info",
				Content: "late", Status: registry.StatusError, ErrorType: "timeout", Time: at})
		case 6:
			log = append(log, Message{Type: ApprovalAnswer, ToolCallID: fmt.Sprintf("call_%d", call), ToolName: "pdf_info",
				Content: []string{"once", "session", "deny"}[rng.IntN(3)], Grant: []string{"K"}[:rng.IntN(2)], Time: at})
		case 7:
			if rng.IntN(4) == 0 {
				log = append(log, Message{Type: Summary, Content: fmt.Sprintf("summary at %d", len(log)), Keep: rng.IntN(6) - 1, Time: at})
			}
		case 8:
			call++
			log = append(log, Message{Type: ToolCall, ToolCallID: id, ToolName: registry.SearchToolsName, ToolInput: `{"query":"pdf"}`,
				Status: registry.StatusSuccess, Loaded: []string{"pdf_info"}, Time: at},
				Message{Type: ToolResult, ToolCallID: id, ToolName: registry.SearchToolsName, Content: "found", Status: registry.StatusSuccess, Time: at})
		case 9:
			log = append(log, Message{Type: "later_type", Content: "from a later version", Time: at})
		}
	}
	return log
}

// startJSON is a start event holding history as JSON, as a host sends it.
func startJSON(t testing.TB, e Event, history []Message) []byte {
	t.Helper()
	h, err := json.Marshal(history)
	if err != nil {
		t.Fatal(err)
	}
	e.History = nil
	b, err := json.Marshal(e)
	if err != nil {
		t.Fatal(err)
	}
	return append(append(b[:len(b)-1], `,"history":`...), append(h, '}')...)
}

// handleAll feeds events to a turn and answers its actions as JSON, call
// bodies and errors included.
func handleAll(t *testing.T, turn *Turn, events ...Event) []byte {
	t.Helper()
	var out []byte
	for _, e := range events {
		acts, err := turn.Handle(e)
		if err != nil {
			out = append(out, err.Error()...)
			continue
		}
		b, err := MarshalActions(acts)
		if err != nil {
			t.Fatal(err)
		}
		out = append(append(out, b...), '\n')
	}
	return out
}

// TestReadEventStartsAsMessages: a start whose history a module instance
// leaves as JSON and decodes message by message (ReadEvent) gives the
// actions, request bodies byte for byte, that the same history given as
// messages gives: in every format and routing, with summaries, calls
// cut off, compaction, and a session's next turn resumed from the Log
// the first kept.
func TestReadEventStartsAsMessages(t *testing.T) {
	reg := fuzzRegistry(t)
	rng := rand.New(rand.NewPCG(34, 2))
	load := func(f wire.Format) Event {
		body := map[wire.Format]string{
			wire.OpenAI:    `{"choices":[{"message":{"content":"Loading.","tool_calls":[{"id":"n1","type":"function","function":{"name":"load_tool_group","arguments":"{\"group_name\":\"pdf\"}"}},{"id":"n2","type":"function","function":{"name":"search_history","arguments":"{}"}}]},"finish_reason":"tool_calls"}]}`,
			wire.Anthropic: `{"type":"message","content":[{"type":"text","text":"Loading."},{"type":"tool_use","id":"n1","name":"load_tool_group","input":{"group_name":"pdf"}},{"type":"tool_use","id":"n2","name":"search_history","input":{}}],"stop_reason":"tool_use"}`,
			wire.Responses: `{"status":"completed","output":[{"type":"message","content":[{"type":"output_text","text":"Loading."}]},{"type":"function_call","call_id":"n1","name":"load_tool_group","arguments":"{\"group_name\":\"pdf\"}"},{"type":"function_call","call_id":"n2","name":"search_history","arguments":"{}"}]}`,
			wire.Gemini:    `{"candidates":[{"content":{"parts":[{"text":"Loading."},{"functionCall":{"name":"load_tool_group","args":{"group_name":"pdf"}}},{"functionCall":{"name":"search_history","args":{}}}]},"finish_reason":"STOP"}]}`,
		}[f]
		return Event{Type: EventResponse, Body: Bytes(body)}
	}
	results := Event{Type: EventToolResults, Results: []Result{{ID: "n2", Result: registry.Result{Status: registry.StatusSuccess, Output: "none"}}}}
	for i := range 24 {
		history := randomHistory(rng, 1+rng.IntN(60))
		for _, f := range []wire.Format{wire.OpenAI, wire.Anthropic, wire.Responses, wire.Gemini} {
			for _, routing := range []Routing{RoutingClassic, RoutingNative} {
				set := Settings{Format: f, Model: "m", Routing: routing}
				if i%4 == 3 {
					set.ContextLimit = 100 // compacts before the first call
				}
				start := Event{Type: EventStart, User: "And now?", Settings: set, Now: time.Date(2026, 3, 2, 0, 0, 0, 0, time.UTC)}
				name := fmt.Sprintf("%d/%s/%s", i, f, routing)
				// The calls of the turn, answered the same way.
				next := []Event{load(f), results}
				if set.ContextLimit > 0 {
					next = []Event{{Type: EventResponse, Body: Bytes(map[wire.Format]string{
						wire.OpenAI:    `{"choices":[{"message":{"content":"A summary."},"finish_reason":"stop"}]}`,
						wire.Anthropic: `{"type":"message","content":[{"type":"text","text":"A summary."}],"stop_reason":"end_turn"}`,
						wire.Responses: `{"status":"completed","output":[{"type":"message","content":[{"type":"output_text","text":"A summary."}]}]}`,
						wire.Gemini:    `{"candidates":[{"content":{"parts":[{"text":"A summary."}]},"finish_reason":"STOP"}]}`,
					}[f])}}
				}

				wantStart := start
				wantStart.History = history
				want := handleAll(t, NewTurn(reg), append([]Event{wantStart}, next...)...)

				e, err := ReadEvent(startJSON(t, start, history), "")
				if err != nil {
					t.Fatal(err)
				}
				if e.History != nil || e.history == nil || e.history.n != len(history) {
					t.Fatalf("%s: the history was decoded (%d messages), not left as JSON", name, len(e.History))
				}
				if got := handleAll(t, NewTurn(reg), append([]Event{e}, next...)...); !bytes.Equal(got, want) {
					t.Fatalf("%s: read as JSON:\n%s\nas messages:\n%s", name, got, want)
				}

				// The first half kept by one turn, the rest given with its
				// fingerprint to the next.
				if set.ContextLimit > 0 {
					continue
				}
				half := len(history) / 2
				logs := &Logs{}
				first := start
				first.Session = "s"
				fe, err := ReadEvent(startJSON(t, first, history[:half]), f)
				if err != nil {
					t.Fatal(err)
				}
				turn := NewTurn(reg)
				if _, ok, err := logs.Start(turn, fe); err != nil || !ok {
					t.Fatalf("%s: %v", name, err)
				}
				var log []Message
				for _, ev := range []Event{fe, {Type: EventModelError, Error: "offline"}} {
					acts, err := turn.Handle(ev)
					if err != nil {
						t.Fatal(err)
					}
					for _, a := range acts {
						log = append(log, a.Messages...)
						if a.Cache != nil {
							first.Fingerprint = a.Cache.Fingerprint
						}
					}
				}
				logs.End("s", turn)
				full := append(append(append([]Message(nil), history[:half]...), log...), history[half:]...)
				wantStart.History = full
				want = handleAll(t, NewTurn(reg), append([]Event{wantStart}, next...)...)
				second := start
				second.Session, second.Fingerprint = "s", first.Fingerprint
				se, err := ReadEvent(startJSON(t, second, history[half:]), f)
				if err != nil {
					t.Fatal(err)
				}
				turn = NewTurn(reg)
				if acts, ok, err := logs.Start(turn, se); err != nil || !ok || turn.resume == nil {
					t.Fatalf("%s: the kept Log was not resumed: %v %v", name, acts, err)
				}
				// The resumed turn ends with a cache action the other has not.
				got := dropCache(t, handleAll(t, turn, append([]Event{se}, next...)...))
				if want = dropCache(t, want); !bytes.Equal(got, want) {
					t.Fatalf("%s: resumed:\n%s\nwhole:\n%s", name, got, want)
				}
			}
		}
	}
}

// dropCache takes the cache actions out of handleAll's lines.
func dropCache(t *testing.T, lines []byte) []byte {
	t.Helper()
	var out []byte
	for _, line := range bytes.SplitAfter(lines, []byte("\n")) {
		var acts []Action
		if len(bytes.TrimSpace(line)) == 0 || json.Unmarshal(line, &acts) != nil {
			out = append(out, line...)
			continue
		}
		kept := acts[:0]
		for _, a := range acts {
			if a.Type != ActionCache {
				kept = append(kept, a)
			}
		}
		b, err := MarshalActions(kept)
		if err != nil {
			t.Fatal(err)
		}
		out = append(append(out, b...), '\n')
	}
	return out
}

// TestActiveToolsJSON: a history's active tools read from its JSON a
// message at a time are ActiveTools of its messages; JSON that is no
// array of messages gets encoding/json's error.
func TestActiveToolsJSON(t *testing.T) {
	reg := fuzzRegistry(t)
	rng := rand.New(rand.NewPCG(34, 3))
	for range 50 {
		history := randomHistory(rng, rng.IntN(80))
		data, err := json.Marshal(history)
		if err != nil {
			t.Fatal(err)
		}
		got, err := ActiveToolsJSON(reg, data)
		if err != nil {
			t.Fatal(err)
		}
		want := ActiveTools(reg, history)
		if fmt.Sprint(toolNames(got.Tools()), got.Groups()) != fmt.Sprint(toolNames(want.Tools()), want.Groups()) {
			t.Fatalf("%s: %v %v, want %v %v", data, toolNames(got.Tools()), got.Groups(), toolNames(want.Tools()), want.Groups())
		}
	}
	for _, none := range []string{"", " null ", "[]"} {
		if a, err := ActiveToolsJSON(reg, []byte(none)); err != nil || len(a.Groups()) != 0 {
			t.Errorf("%q: %v, %v", none, a.Groups(), err)
		}
	}
	var msgs []Message
	wantErr := json.Unmarshal([]byte(`{"type":"user"}`), &msgs)
	if _, err := ActiveToolsJSON(reg, []byte(`{"type":"user"}`)); fmt.Sprint(err) != fmt.Sprint(wantErr) {
		t.Errorf("an object: %v, want %v", err, wantErr)
	}
}
