package wire

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestEncodeResponses(t *testing.T) {
	temp := 0.5
	got, err := Encode(Responses, Request{Model: "gpt-test", System: "Be brief.", Messages: conversation, Tools: tools, Stream: true, MaxTokens: 1000, Temperature: &temp})
	if err != nil {
		t.Fatal(err)
	}
	want := `{"model":"gpt-test","instructions":"Be brief.","input":[` +
		`{"type":"message","role":"user","content":[{"type":"input_text","text":"Read report.pdf <today> & summarise"}]},` +
		// The assistant's text as a string: the API takes only output_text
		// parts, with their item ids, in a list there.
		`{"type":"message","role":"assistant","content":"Loading the PDF tools."},` +
		// Calls by call_id alone, without an fc_ item id; empty arguments are {}.
		`{"type":"function_call","call_id":"call_1","name":"load_tool_group","arguments":"{\"group_name\": \"pdf\"}"},` +
		`{"type":"function_call","call_id":"call_2","name":"get_current_time","arguments":"{}"},` +
		`{"type":"function_call_output","call_id":"call_1","output":"Loaded 1 tools from group 'PDF':\n- pdf_info: Info"},` +
		`{"type":"function_call_output","call_id":"call_2","output":"Error (timeout): too slow"},` +
		// Malformed arguments go as the model sent them, as in Chat Completions.
		`{"type":"function_call","call_id":"call.3","name":"pdf_info","arguments":"{\"path\":"},` +
		`{"type":"function_call_output","call_id":"call.3","output":""},` +
		`{"type":"message","role":"user","content":[{"type":"input_text","text":"Thanks"}]}],` +
		// Flat function tools, strict off (its default is on).
		`"tools":[{"type":"function","name":"load_tool_group","description":"Load a group","parameters":{"type":"object","properties":{"group_name":{"type":"string"}},"required":["group_name"]},"strict":false},` +
		`{"type":"function","name":"pdf_info","description":"PDF info","parameters":{"type":"object","properties":{}},"strict":false}],` +
		`"max_output_tokens":1000,"temperature":0.5,"stream":true,"store":false}`
	if diff := cmp.Diff(want, string(got.Body)); diff != "" {
		t.Errorf("body (-want +got):\n%s", diff)
	}
	if got.Path != "/responses" || !cmp.Equal(got.Headers, map[string]string{"content-type": "application/json"}) {
		t.Errorf("path %q headers %v", got.Path, got.Headers)
	}
}

func TestEncodeResponsesMinimal(t *testing.T) {
	got, err := Encode(Responses, Request{Model: "m", Messages: []Message{{Role: RoleUser, Text: ""}, {Role: RoleUser, Text: "hi"}}})
	if err != nil {
		t.Fatal(err)
	}
	// No instructions, tools, limits or stream; store is always false; an
	// empty user text is left out.
	want := `{"model":"m","input":[{"type":"message","role":"user","content":[{"type":"input_text","text":"hi"}]}],"store":false}`
	if string(got.Body) != want {
		t.Errorf("body:\n got %s\nwant %s", got.Body, want)
	}
}

// A stream whose response.completed carries no output (as some servers
// send it) is assembled from its items and argument deltas alone, by
// output_index, or by item id when there is none.
func TestStreamResponsesFromEvents(t *testing.T) {
	body := "event: response.output_item.added\n" +
		`data: {"type":"response.output_item.added","output_index":0,"item":{"id":"fc_1","type":"function_call","call_id":"call_1","name":"one","arguments":""}}` + "\n\n" +
		`data: {"type":"response.output_item.added","item":{"id":"fc_2","type":"function_call","call_id":"call_2","name":"two","arguments":""}}` + "\n\n" +
		`data: {"type":"response.function_call_arguments.delta","item_id":"fc_2","delta":"{\"x\":"}` + "\n\n" +
		`data: {"type":"response.function_call_arguments.delta","output_index":0,"item_id":"fc_1","delta":"{}"}` + "\n\n" +
		`data: {"type":"response.function_call_arguments.delta","item_id":"fc_2","delta":"1}"}` + "\n\n" +
		`data: {"type":"response.output_text.delta","delta":"Done"}` + "\n\n" +
		`data: {"type":"response.incomplete","response":{"status":"incomplete","incomplete_details":{"reason":"max_output_tokens"},"output":[],"usage":{"input_tokens":5,"output_tokens":7}}}` + "\n\n"
	s, _ := NewStream(Responses)
	deltas, err := s.Write([]byte(body))
	if err != nil {
		t.Fatal(err)
	}
	got, _, err := s.Close()
	if err != nil {
		t.Fatal(err)
	}
	want := Response{Text: "Done", StopReason: "max_output_tokens", Usage: Usage{InputTokens: 5, OutputTokens: 7},
		Calls: []Call{{ID: "call_1", Name: "one", Input: "{}"}, {ID: "call_2", Name: "two", Input: `{"x":1}`}}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if !cmp.Equal(deltas, []string{"Done"}) {
		t.Errorf("deltas %q", deltas)
	}
}

// A server that streams no text deltas but completes with the text has
// that text sent as one delta at the end.
func TestStreamResponsesTextOnlyAtCompletion(t *testing.T) {
	s, _ := NewStream(Responses)
	deltas, err := s.Write([]byte(`data: {"type":"response.completed","response":{"status":"completed","output":[{"type":"message","content":[{"type":"output_text","text":"Hello"}]}]}}` + "\n\n"))
	if err != nil {
		t.Fatal(err)
	}
	got, _, err := s.Close()
	if err != nil || got.Text != "Hello" || !cmp.Equal(deltas, []string{"Hello"}) {
		t.Errorf("text %q deltas %q err %v", got.Text, deltas, err)
	}
}

func TestStreamResponsesErrorMessage(t *testing.T) {
	s, _ := NewStream(Responses)
	_, err := s.Write([]byte(`data: {"type":"error","code":"rate_limit_exceeded","message":"Rate limit reached","param":null,"sequence_number":3}` + "\n\n"))
	if want := "wire: provider error: Rate limit reached (rate_limit_exceeded)"; err == nil || err.Error() != want {
		t.Errorf("err = %v, want %s", err, want)
	}
	s, _ = NewStream(Responses)
	_, err = s.Write([]byte(`data: {"type":"response.failed","response":{"status":"failed","error":{"code":"server_error","message":"The model failed."}}}` + "\n\n"))
	if want := "wire: provider error: The model failed. (server_error)"; err == nil || err.Error() != want {
		t.Errorf("err = %v, want %s", err, want)
	}
}

// Events and items toolroute does not read may have any shape: they are
// skipped, never a failure.
func TestStreamResponsesSkipsOtherShapes(t *testing.T) {
	body := `data: {"type":"response.audio.delta","delta":{"not":"a string"}}` + "\n\n" +
		`data: {"type":"response.output_item.done","output_index":0,"item":{"type":"custom_tool_call","content":"a string here"}}` + "\n\n" +
		`data: {"type":"response.output_text.delta","delta":"Hi"}` + "\n\n" +
		`data: {"type":"response.completed","response":{"status":"completed","output":[{"type":"custom_tool_call","content":"x"},{"type":"message","content":[{"type":"output_text","text":"Hi"}]}]}}` + "\n\n"
	s, _ := NewStream(Responses)
	if _, err := s.Write([]byte(body)); err != nil {
		t.Fatal(err)
	}
	got, _, err := s.Close()
	if err != nil || got.Text != "Hi" || len(got.Calls) != 0 {
		t.Errorf("%+v, %v", got, err)
	}
}
