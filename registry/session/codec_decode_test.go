package session

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/toolroute/toolroute/registry"
	"github.com/toolroute/toolroute/registry/internal/jsondec"
	"github.com/toolroute/toolroute/registry/wire"
)

// transcriptLines is every line of the golden transcripts' events.jsonl
// (events) or actions.jsonl (actions) sections.
func transcriptLines(t testing.TB, section string) [][]byte {
	t.Helper()
	files, err := filepath.Glob("../../testdata/transcripts/*.txtar")
	if err != nil || len(files) == 0 {
		t.Fatalf("no transcripts: %v", err)
	}
	var lines [][]byte
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		in := false
		for _, line := range strings.Split(string(data), "\n") {
			if strings.HasPrefix(line, "-- ") && strings.HasSuffix(line, " --") {
				in = line == "-- "+section+" --"
				continue
			}
			if in && strings.TrimSpace(line) != "" {
				lines = append(lines, []byte(line))
			}
		}
	}
	if len(lines) == 0 {
		t.Fatalf("no %s in the transcripts", section)
	}
	return lines
}

// sameEvent fails unless UnmarshalEvent gives what json.Unmarshal gives
// for data: the same event, or the same error.
//
// In each format, UnmarshalEventIn gives that event too, whose body
// decodes as a response (Event.decode) as wire.Decode decodes the body
// encoding/json read.
func sameEvent(t *testing.T, data []byte) {
	t.Helper()
	if registry.CheckDepth(data) != nil {
		// Refused before it is read, whatever encoding/json would say.
		var deep *registry.DepthError
		if _, err := UnmarshalEvent(data); !errors.As(err, &deep) {
			t.Fatalf("%.200q: %v, want a *registry.DepthError", data, err)
		}
		return
	}
	for _, f := range []wire.Format{"", wire.OpenAI, wire.Anthropic, wire.Responses, wire.Gemini} {
		got, err := UnmarshalEventIn(data, f)
		var want Event
		wantErr := json.Unmarshal(data, &want)
		if (err != nil) != (wantErr != nil) || (err != nil && err.Error() != wantErr.Error()) {
			t.Fatalf("%q in %q: error %v, encoding/json %v", data, f, err, wantErr)
		}
		if f != "" && err == nil && got.Type == EventResponse {
			resp, err := got.decode(f)
			wantResp, wantErr := wire.Decode(f, want.Body)
			if fmt.Sprint(err) != fmt.Sprint(wantErr) || !reflect.DeepEqual(resp, wantResp) {
				t.Fatalf("%q in %q: response %#v, %v; wire.Decode %#v, %v", data, f, resp, err, wantResp, wantErr)
			}
		}
		got.response = nil
		// As a module instance reads it, the history left as JSON: the
		// same event once its messages are decoded.
		lazy, lazyErr := ReadEvent(data, f)
		if fmt.Sprint(lazyErr) != fmt.Sprint(err) {
			t.Fatalf("%q in %q: ReadEvent's error %v, UnmarshalEventIn's %v", data, f, lazyErr, err)
		}
		if h := lazy.history; h != nil {
			if lazy.History != nil || h.n == 0 {
				t.Fatalf("%q: a history both decoded and left as JSON", data)
			}
			n, err := eachMessage(h.data, 0, func(m *Message) { lazy.History = append(lazy.History, *m) })
			if err != nil || n != h.n || !reflect.DeepEqual(lazy.History[0], h.first) {
				t.Fatalf("%q: the history left as JSON reads as %d messages (%v), not %d", data, n, err, h.n)
			}
			lazy.history = nil
		}
		lazy.response = nil
		gt, wt, lt := times(&got), times(&want), times(&lazy)
		if !reflect.DeepEqual(got, want) || !reflect.DeepEqual(gt, wt) {
			t.Fatalf("%q:\nhand          %#v %v\nencoding/json %#v %v", data, got, gt, want, wt)
		}
		if !reflect.DeepEqual(lazy, want) || !reflect.DeepEqual(lt, wt) {
			t.Fatalf("%q:\nReadEvent     %#v %v\nencoding/json %#v %v", data, lazy, lt, want, wt)
		}
	}
}

// times takes e's times out, as text with their zones, so that events
// compare with reflect.DeepEqual: a time's zone is a pointer, a new one
// each time an offset is parsed.
func times(e *Event) []string {
	var out []string
	take := func(t *time.Time) {
		out = append(out, t.Format(time.RFC3339Nano)+" "+t.Location().String())
		*t = t.UTC()
	}
	take(&e.Now)
	for i := range e.History {
		take(&e.History[i].Time)
	}
	return out
}

// TestUnmarshalEventTranscripts: every event of the golden transcripts
// decodes by hand as encoding/json decodes it.
func TestUnmarshalEventTranscripts(t *testing.T) {
	for _, line := range transcriptLines(t, "events.jsonl") {
		sameEvent(t, line)
		// And by hand indeed, not by encoding/json for want of the plain case.
		r := jsondec.NewReader(line)
		var e Event
		if !readEvent(r, &e, "", false) || !r.Done() {
			t.Errorf("%s: not read by hand", line)
		}
	}
}

// TestMarshalActionsTranscripts: every line of actions of the golden
// transcripts, decoded, encodes by hand as encoding/json encodes it.
func TestMarshalActionsTranscripts(t *testing.T) {
	for _, line := range transcriptLines(t, "actions.jsonl") {
		var acts []Action
		if err := json.Unmarshal(line, &acts); err != nil {
			continue // a line that is not an array of actions (an error envelope)
		}
		got, err := MarshalActions(acts)
		want, wantErr := marshalActionsReflect(acts)
		sameBytes(t, acts, got, want, err, wantErr)
	}
}

var eventSeeds = []string{
	`{"type":"start","user":"","attachments":[{"name":"a.png","data":"iVBORw0KGgo="},{"name":"b.txt","text":"hi","mime_type":null},{}],"settings":{"format":"openai","model":"m"},"history":[{"type":"user","content":"q","attachments":[{"name":"b.txt","mime_type":"text/plain","text":"x"}]}]}`,
	`{"type":"start","attachments":null}`,
	`{"type":"start","attachments":[1]}`,
	`{"type":"start","user":"hi","now":"2026-11-27T01:02:03.5+05:30","settings":{"format":"openai","model":"m","temperature":0.5,"policies":[{"tool":"x","decision":"ask"}],"memories":["a"]},"history":[{"type":"user","content":"q\u00e9\ud83d\ude00","time":"2026-01-01T00:00:00Z"},{"type":"assistant","usage":{"input_tokens":3,"output_tokens":4}}]}`,
	`{"type":"tool_results","results":[{"id":"c2","status":"success","output":"a\nb\"<&>\u2028","images":[{"mime_type":"image/png","data":"AA=="}]}]}`,
	`{"type":"response","body":{"choices":[{"message":{"content":"hi"}}]}}`,
	`{"type":"response","body":{"choices":[{"message":{"tool_calls":[{"id":"c1","type":"function","function":{"name":"load_tool_group","arguments":"{\"group_name\":\"pdf\"}"}}]},"finish_reason":"tool_calls"}],"usage":{"prompt_tokens":3,"completion_tokens":4}}}`,
	`{"type":"response","body":{"error":{"message":"no"}}}`, `{"type":"response","body":{"choices":[{"message":{"content":[{"type":"text","text":"a"}]}}]}}`,
	`{"type":"response","body":{"Choices":[]}}`, `{"type":"response","body":{"choices":[{"message":{"content":1}}]}}`,
	`{"type":"response","body":{"type":"message","content":[{"type":"text","text":"hi"},{"type":"tool_use","id":"t","name":"n","input":{"a": 1}}],"stop_reason":"tool_use","usage":{"input_tokens":1}}}`,
	`{"type":"response","body":{"type":"error","error":{"message":"overloaded"}}}`, `{"body":{"choices":[]},"type":"response"}`,
	`{"type":"response","body":{"choices":[]},"body":{"choices":[]}}`, `{"type":"response","body":{"choices":[]} x`,
	`{"type":"response","body":"{\"x\":1}"}`, `{"type":"response","body":null}`, `{"type":"response","body": [1, 2] }`,
	`{"type":"approval","approvals":[{"id":"a","answer":"once","grant":["K"]}]}`,
	`{"type":"model_error","status":429,"error":"x","body":"rate"}`,
	`{"type":"model_error","status":503,"retry_after":"Sun, 01 Mar 2026 09:00:09 GMT","retries":{"count":3,"backoff_ms":1000,"max_backoff_ms":60000}}`,
	`{"type":"model_error","status":500,"retries":null}`, `{"retries":{"count":1.5}}`, `{"retries":[]}`, `{"retries":{"Count":2,"x":1}}`,
	`{"retry_after":5}`, `{"results":[{"id":"a","status":"error","console":["log: a","warn: \u2028"]},{"id":"b","console":null}]}`,
	`{"results":[{"console":[1]}]}`, `{"settings":{"show_console":true,"format":"openai"}}`, `{"settings":{"show_console":1}}`,
	`{"TYPE":"start"}`, `{"type":"start","type":"response"}`, `{"type":1}`, `{"status":1.5}`, `{"status":1e2}`,
	`{"now":"yesterday"}`, `{"now":5}`, `null`, `[]`, `"x"`, `{"type":"start"} x`, `{"history":[null,{"index":-1}]}`,
	`{"settings":{"temperature":1e999}}`, `{"history":{}}`, `{"user":"\ud800x\udc00"}`, "{\"user\":\"\xff\xfe\"}",
	`{"user":"\u00"}`, `{"results":[]}`, `{"results":null,"approvals":[]}`, `{"history":[{"images":[null]}]}`,
	`{"ſession":"x"}`, `{"Session":"x","session":"y"}`, `{"unknown":{"deep":[1,{"a":null}]},"type":"reload"}`,
	`{"type":"reload","x":` + strings.Repeat("[", registry.MaxDepth) + strings.Repeat("]", registry.MaxDepth) + `}`,
}

// FuzzUnmarshalEvent: any input decodes by hand as encoding/json decodes
// it, or is refused with the same error.
func FuzzUnmarshalEvent(f *testing.F) {
	for _, s := range eventSeeds {
		f.Add([]byte(s))
	}
	for _, line := range transcriptLines(f, "events.jsonl") {
		f.Add(line)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		sameEvent(t, data)
	})
}

func TestUnmarshalEventSeeds(t *testing.T) {
	for _, s := range eventSeeds {
		sameEvent(t, []byte(s))
	}
	// A response's body is read once, as a response, in the formats read
	// by hand.
	for _, f := range []wire.Format{wire.OpenAI, wire.Anthropic} {
		e, err := UnmarshalEventIn([]byte(`{"type":"response","body":{"choices":[],"content":[]}}`), f)
		if err != nil || e.response == nil {
			t.Fatalf("%s: body not read as a response (%v)", f, err)
		}
	}
	// The plain case is read by hand: a body's JSON kept as it stands.
	e, err := UnmarshalEvent([]byte(`{"type":"response","body": {"a" : 1} }`))
	if err != nil || !bytes.Equal(e.Body, []byte(`{"a" : 1}`)) {
		t.Fatalf("body %q, %v", e.Body, err)
	}
}

// FuzzGroupName: a load's group_name read by hand is what encoding/json
// reads into a struct (whose keys match without regard to case).
func FuzzGroupName(f *testing.F) {
	for _, s := range []string{`{"group_name":"pdf"}`, `{"group_name":null}`, `{"group_name":1}`, `{"group_name":"a","group_name":"b"}`,
		`{"Group_Name":"a"}`, `{"group_name":"a\u00e9\ud800"}`, `null`, `[]`, `"x"`, `{"a":[1,{"b":2}],"group_name":"x"} `, `{"group_name":"x"} y`, `{`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, input string) {
		got, ok := groupName(input)
		var in struct {
			GroupName *string `json:"group_name"`
		}
		want, wok := "", false
		if json.Unmarshal([]byte(input), &in) == nil && in.GroupName != nil {
			want, wok = *in.GroupName, true
		}
		if got != want || ok != wok {
			t.Fatalf("groupName(%q) = %q, %v; encoding/json %q, %v", input, got, ok, want, wok)
		}
	})
}
