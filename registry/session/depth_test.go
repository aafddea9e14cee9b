package session

import (
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/toolroute/toolroute/registry"
	"github.com/toolroute/toolroute/registry/wire"
)

// The depths a host, a model or a manifest may send: under V8 the module
// trapped on each from about 5,000 levels (issue 33).
var depths = []int{1_000, 10_000, 100_000, 1_000_000}

// deepArray is JSON: n arrays, each in the one before.
func deepArray(n int) string { return strings.Repeat("[", n) + strings.Repeat("]", n) }

// deepArgs is a JSON object nesting n levels: arguments no tool takes.
func deepArgs(n int) string {
	return `{"path":` + deepArray(n-1) + `}`
}

// quote is s as a JSON string.
func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// TestEventTooDeep: an event nesting past registry.MaxDepth is refused
// before it is read, saying where; one at the limit is read.
func TestEventTooDeep(t *testing.T) {
	// The prefix opens 2 objects: the array past the limit is the
	// (MaxDepth-1)th after it.
	const prefix = `{"type":"start","user":"hi","settings":{"format":"openai","model":"m","x":`
	if _, err := UnmarshalEvent([]byte(prefix + deepArray(registry.MaxDepth-2) + `}}`)); err != nil {
		t.Fatalf("an event nesting %d levels: %v", registry.MaxDepth, err)
	}
	at := len(prefix) + registry.MaxDepth - 2
	for _, n := range depths {
		_, err := UnmarshalEvent([]byte(prefix + deepArray(n) + `}}`))
		var deep *registry.DepthError
		if !errors.As(err, &deep) || deep.Offset != at {
			t.Fatalf("%d levels: %v, want a *registry.DepthError at byte %d", n, err, at)
		}
		if want := "the event nests more than 512 levels of arrays and objects (at byte " + strconv.Itoa(at) + "): no event holds that much"; !strings.HasPrefix(err.Error(), want) {
			t.Errorf("%d levels: %q, want it to start %q", n, err, want)
		}
	}
}

// TestBytesTooDeepGoesAsString: a body that would make its event nest
// past the limit is marshalled as a string, so that the event is read and
// the turn refuses the body; one a level shallower stays JSON.
func TestBytesTooDeepGoesAsString(t *testing.T) {
	for _, tt := range []struct {
		name   string
		levels int
		asJSON bool
	}{
		{name: "within the limit in its event", levels: registry.MaxDepth - 1, asJSON: true},
		{name: "one past in its event", levels: registry.MaxDepth, asJSON: false},
		{name: "far past", levels: 100_000, asJSON: false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			data, err := json.Marshal(Event{Type: EventResponse, Body: Bytes(deepArray(tt.levels))})
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.HasPrefix(string(data), `{"type":"response","body":[`); got != tt.asJSON {
				t.Errorf("body as JSON: %v, want %v", got, tt.asJSON)
			}
			e, err := UnmarshalEvent(data)
			if err != nil {
				t.Fatal(err)
			}
			if string(e.Body) != deepArray(tt.levels) {
				t.Error("the body did not come back as it was")
			}
		})
	}
}

// deepTurn is a turn that has asked the model, in format f: its tool
// pdf_info takes any arguments.
func deepTurn(t *testing.T, f wire.Format, stream bool) *Turn {
	t.Helper()
	reg, rep := registry.Build(registry.Catalogue{Tools: []registry.Tool{{Name: "pdf_info", Description: "Info"}}})
	if !rep.OK() {
		t.Fatal(rep)
	}
	turn := NewTurn(reg)
	mustActions(t, turn, Event{Type: EventStart, User: "hi", Settings: Settings{Format: f, Model: "m", Stream: stream}})
	return turn
}

// callResponse is an OpenAI response calling pdf_info with args.
func callResponse(args string) string {
	return `{"choices":[{"message":{"tool_calls":[{"id":"c1","type":"function","function":{"name":"pdf_info","arguments":` + quote(args) + `}}]},"finish_reason":"tool_calls"}]}`
}

// TestModelOutputTooDeep: a response body or a stream event nesting past
// the limit fails the turn as a bad response, and a call's arguments
// nesting past it get invalid_arguments, for the model to call again;
// arguments at the limit run.
func TestModelOutputTooDeep(t *testing.T) {
	chunk := func(delta string) string {
		return "data: " + `{"choices":[{"index":0,"delta":` + delta + `}]}` + "\n\n"
	}
	// past is where JSON that opens prefix, with open arrays and
	// objects, then nests on, goes past the limit.
	past := func(prefix string, open int) string {
		return "(at byte " + strconv.Itoa(len(prefix)+registry.MaxDepth-open) + ")"
	}
	const (
		bodyPrefix  = `{"choices":[{"message":{"content":"x","x":`
		deltaPrefix = `{"choices":[{"index":0,"delta":{"content":"x","x":`
		argsPrefix  = `{"path":`
	)
	type outcome struct {
		failed  string // the failure's message starts so
		refused string // the call's invalid_arguments result starts so
	}
	tests := []struct {
		name   string
		stream bool
		events func(n int) []Event
		want   outcome
	}{
		{
			name: "response body",
			events: func(n int) []Event {
				return []Event{{Type: EventResponse, Body: Bytes(bodyPrefix + deepArray(n) + `}}]}`)}}
			},
			want: outcome{failed: "the model's response could not be read: the body nests more than 512 levels of arrays and objects " + past(bodyPrefix, 4) + ", deeper than any model response: try again"},
		},
		{
			name:   "stream event",
			stream: true,
			events: func(n int) []Event {
				return []Event{{Type: EventChunk, Data: Bytes(chunk(`{"content":"x","x":` + deepArray(n) + `}`))}}
			},
			want: outcome{failed: "the model's response could not be read: a stream event's data nests more than 512 levels of arrays and objects " + past(deltaPrefix, 4) + ", deeper than any model response: try again"},
		},
		{
			name:   "arguments",
			events: func(n int) []Event { return []Event{{Type: EventResponse, Body: Bytes(callResponse(deepArgs(n)))}} },
			want:   outcome{refused: "Error (invalid_arguments): The arguments for 'pdf_info' nest more than 512 levels of arrays and objects " + past(argsPrefix, 1) + ", more than any tool takes. Call it again with one JSON object matching its parameters."},
		},
		{
			name:   "streamed arguments",
			stream: true,
			events: func(n int) []Event {
				args := deepArgs(n)
				var evs []Event
				for i := 0; i < len(args); i += 64 << 10 {
					piece := args[i:min(i+64<<10, len(args))]
					delta := `{"tool_calls":[{"index":0,"function":{"arguments":` + quote(piece) + `}}]}`
					if i == 0 {
						delta = `{"tool_calls":[{"index":0,"id":"c1","type":"function","function":{"name":"pdf_info","arguments":` + quote(piece) + `}}]}`
					}
					evs = append(evs, Event{Type: EventChunk, Data: Bytes(chunk(delta))})
				}
				return append(evs, Event{Type: EventChunk, Data: Bytes(`data: {"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}` + "\n\ndata: [DONE]\n\n")}, Event{Type: EventStreamEnd})
			},
			want: outcome{refused: "Error (invalid_arguments): The arguments for 'pdf_info' nest more than 512 levels of arrays and objects " + past(argsPrefix, 1)},
		},
	}
	for _, tt := range tests {
		for _, n := range depths {
			t.Run(tt.name+" "+strconv.Itoa(n), func(t *testing.T) {
				turn := deepTurn(t, wire.OpenAI, tt.stream)
				var acts []Action
				for _, e := range tt.events(n) {
					acts = append(acts, mustActions(t, turn, e)...)
				}
				last := acts[len(acts)-1]
				if tt.want.failed != "" {
					if last.Type != ActionFailed || last.Error.Code != "bad_response" || !strings.HasPrefix(last.Error.Message, tt.want.failed) {
						t.Fatalf("last action %s %+v, want failed bad_response %q", last.Type, last.Error, tt.want.failed)
					}
					return
				}
				var result *Message
				for _, a := range acts {
					for i, m := range a.Messages {
						if m.Type == ToolResult {
							result = &a.Messages[i]
						}
					}
				}
				if result == nil || result.ErrorType != "invalid_arguments" || !strings.HasPrefix(result.Content, tt.want.refused) {
					t.Fatalf("result %+v, want invalid_arguments %q", result, tt.want.refused)
				}
				// The turn goes on: the model is asked again.
				if last.Type != ActionCallModel {
					t.Errorf("last action %s, want call_model", last.Type)
				}
			})
		}
	}
	t.Run("arguments at the limit", func(t *testing.T) {
		turn := deepTurn(t, wire.OpenAI, false)
		acts := mustActions(t, turn, Event{Type: EventResponse, Body: Bytes(callResponse(deepArgs(registry.MaxDepth)))})
		if last := acts[len(acts)-1]; last.Type != ActionRunTools || len(last.Calls) != 1 {
			t.Fatalf("last action %s %v, want run_tools with the call", last.Type, last.Calls)
		}
	})
}

// TestDeepArgumentsNotResent: arguments refused for their nesting, in the
// log, go to Anthropic and Gemini as {} (as malformed ones do), so that no
// request nests deeper than the module reads; OpenAI's carry the text.
func TestDeepArgumentsNotResent(t *testing.T) {
	args := deepArgs(10_000)
	history := []Message{
		{Type: User, Content: "hi"},
		{Type: Assistant},
		{Type: ToolCall, ToolCallID: "c1", ToolName: "pdf_info", ToolInput: args, Status: registry.StatusError},
		{Type: ToolResult, ToolCallID: "c1", ToolName: "pdf_info", Content: "Error (invalid_arguments): ...", Status: registry.StatusError, ErrorType: "invalid_arguments"},
		{Type: Assistant, Content: "Sorry."},
	}
	for _, f := range []wire.Format{wire.Anthropic, wire.Gemini, wire.OpenAI} {
		t.Run(string(f), func(t *testing.T) {
			reg, _ := registry.Build(registry.Catalogue{Tools: []registry.Tool{{Name: "pdf_info", Description: "Info"}}})
			acts := mustActions(t, NewTurn(reg), Event{Type: EventStart, User: "again", History: history, Settings: Settings{Format: f, Model: "m"}})
			body := acts[len(acts)-1].Request.Body
			if err := registry.CheckDepth(body); err != nil {
				t.Errorf("the request %v", err)
			}
			if f == wire.OpenAI && !strings.Contains(string(body), quote(args)) {
				t.Error("the OpenAI request left out the arguments' text")
			}
		})
	}
}
