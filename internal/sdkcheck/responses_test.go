package sdkcheck

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/openai/openai-go/v3/responses"
	"github.com/toolroute/toolroute/registry/wire"
)

func TestResponsesRequestDecodesWithSDK(t *testing.T) {
	req, err := wire.Encode(wire.Responses, request(false))
	if err != nil {
		t.Fatal(err)
	}
	var p responses.ResponseNewParams
	if err := json.Unmarshal(req.Body, &p); err != nil {
		t.Fatalf("the SDK cannot decode our body: %v\n%s", err, req.Body)
	}
	if p.Model != "test-model" || p.MaxOutputTokens.Value != 512 || p.Temperature.Value != 0.25 || p.Instructions.Value != system {
		t.Errorf("model %q max %v temperature %v instructions %q", p.Model, p.MaxOutputTokens, p.Temperature, p.Instructions.Value)
	}
	if !p.Store.Valid() || p.Store.Value {
		t.Errorf("store = %+v, want false", p.Store)
	}
	var got []string
	for _, it := range p.Input.OfInputItemList {
		switch {
		case it.OfMessage != nil:
			m := it.OfMessage
			var text []string
			if m.Content.OfString.Valid() {
				text = append(text, m.Content.OfString.Value)
			}
			for _, c := range m.Content.OfInputItemContentList {
				switch {
				case c.OfInputText != nil:
					text = append(text, "input_text "+c.OfInputText.Text)
				case c.OfInputImage != nil:
					text = append(text, "input_image "+c.OfInputImage.ImageURL.Value)
				default:
					text = append(text, "<unknown content>")
				}
			}
			got = append(got, fmt.Sprintf("%s message (%s): %s", m.Role, m.Type, strings.Join(text, " | ")))
		case it.OfFunctionCall != nil:
			c := it.OfFunctionCall
			got = append(got, fmt.Sprintf("function_call %s %s %s (item id set: %v)", c.CallID, c.Name, c.Arguments, c.ID.Valid()))
		case it.OfFunctionCallOutput != nil:
			o := it.OfFunctionCallOutput
			var out []string
			if o.Output.OfString.Valid() {
				out = append(out, o.Output.OfString.Value)
			}
			for _, part := range o.Output.OfResponseFunctionCallOutputItemArray {
				switch {
				case part.OfInputText != nil:
					out = append(out, "input_text "+part.OfInputText.Text)
				case part.OfInputImage != nil:
					out = append(out, "input_image "+part.OfInputImage.ImageURL.Value)
				case part.OfInputFile != nil:
					out = append(out, "input_file "+part.OfInputFile.Filename.Value+" "+part.OfInputFile.FileData.Value)
				default:
					out = append(out, "<unknown part>")
				}
			}
			got = append(got, "function_call_output "+o.CallID+": "+strings.Join(out, " | "))
		default:
			got = append(got, "unknown item")
		}
	}
	want := []string{
		"user message (message): input_text Load the PDF tools & read a.pdf",
		"assistant message (message): Loading.",
		`function_call call_1 load_tool_group {"group_name":"pdf"} (item id set: false)`,
		`function_call call_2 get_current_time {} (item id set: false)`,
		"function_call_output call_1: Loaded 1 tools from group 'PDF Tools':\n- pdf_info: Info",
		"function_call_output call_2: Error (timeout): too slow",
		`function_call call_3 pdf_info {"path":"a.pdf"} (item id set: false)`,
		"function_call_output call_3: input_text {\"pages\":3}\n\n[image image/png, 8 bytes]\n\n[resource file:///a.pdf: application/pdf, 9 bytes] | input_image data:image/png;base64,iVBORw0KGgo= | input_file a.pdf data:application/pdf;base64,JVBERi0xLjQK",
		"assistant message (message): It has 3 pages.",
		"user message (message): input_image data:image/jpeg;base64,/9j/4AAQ | input_text Thanks",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("input as the SDK reads it (-want +got):\n%s", diff)
	}
	if len(p.Tools) != 1 || p.Tools[0].OfFunction == nil {
		t.Fatalf("tools = %+v", p.Tools)
	}
	fn := p.Tools[0].OfFunction
	if fn.Name != "load_tool_group" || fn.Description.Value != "Load a tool group" || !fn.Strict.Valid() || fn.Strict.Value {
		t.Errorf("tool = %+v", fn)
	}
	schema, _ := json.Marshal(fn.Parameters)
	sameJSON(t, "tool parameters", params, schema)

	again, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	sameJSON(t, "body re-encoded by the SDK", req.Body, again)
}

// The SDK's response types are for reading (their unions do not write back
// what they read), so a response body is checked by reading it with both:
// our decoder must find what the SDK finds.
func TestResponsesResponseAsSDKReadsIt(t *testing.T) {
	body := []byte(`{"id":"resp_1","object":"response","created_at":1772355600,"status":"completed","model":"test-model",` +
		`"output":[{"id":"rs_1","type":"reasoning","summary":[]},` +
		`{"id":"msg_1","type":"message","status":"completed","role":"assistant","content":[{"type":"output_text","text":"Loading.","annotations":[]}]},` +
		`{"id":"fc_1","type":"function_call","status":"completed","call_id":"call_1","name":"load_tool_group","arguments":"{\"group_name\":\"pdf\"}"},` +
		`{"id":"fc_2","type":"function_call","status":"completed","call_id":"call_2","name":"get_current_time","arguments":"{}"}],` +
		`"usage":{"input_tokens":120,"input_tokens_details":{"cached_tokens":64},"output_tokens":30,"output_tokens_details":{"reasoning_tokens":10},"total_tokens":150}}`)
	var resp responses.Response
	if err := json.Unmarshal(body, &resp); err != nil {
		t.Fatal(err)
	}
	sdk := wire.Response{Text: resp.OutputText(), StopReason: string(resp.Status), Usage: wire.Usage{
		InputTokens: int(resp.Usage.InputTokens), OutputTokens: int(resp.Usage.OutputTokens), CachedTokens: int(resp.Usage.InputTokensDetails.CachedTokens)}}
	for _, it := range resp.Output {
		if it.Type == "function_call" {
			fc := it.AsFunctionCall()
			sdk.Calls = append(sdk.Calls, wire.Call{ID: fc.CallID, Name: fc.Name, Input: fc.Arguments})
		}
	}
	if len(sdk.Calls) != 2 || sdk.Text != "Loading." {
		t.Fatalf("the SDK reads the response otherwise: %+v", sdk)
	}
	got, err := wire.Decode(wire.Responses, body)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(sdk, got); diff != "" {
		t.Errorf("(-sdk +ours):\n%s", diff)
	}
}

// A stream is checked as a whole response is: each event as the SDK's event
// union reads it, pieced together the way the SDK's types describe, must
// give what our stream decoder gives from the same bytes.
func TestResponsesStreamAsSDKReadsIt(t *testing.T) {
	events := []string{
		`{"type":"response.created","sequence_number":0,"response":{"id":"resp_2","object":"response","status":"in_progress","model":"test-model","output":[]}}`,
		`{"type":"response.output_item.added","sequence_number":1,"output_index":0,"item":{"id":"msg_2","type":"message","status":"in_progress","role":"assistant","content":[]}}`,
		`{"type":"response.output_text.delta","sequence_number":2,"item_id":"msg_2","output_index":0,"content_index":0,"delta":"Load","logprobs":[]}`,
		`{"type":"response.output_text.delta","sequence_number":3,"item_id":"msg_2","output_index":0,"content_index":0,"delta":"ing.","logprobs":[]}`,
		`{"type":"response.output_item.added","sequence_number":4,"output_index":1,"item":{"id":"fc_1","type":"function_call","status":"in_progress","call_id":"call_1","name":"load_tool_group","arguments":""}}`,
		`{"type":"response.function_call_arguments.delta","sequence_number":5,"item_id":"fc_1","output_index":1,"delta":"{\"group"}`,
		`{"type":"response.function_call_arguments.delta","sequence_number":6,"item_id":"fc_1","output_index":1,"delta":"_name\":\"pdf\"}"}`,
		`{"type":"response.function_call_arguments.done","sequence_number":7,"item_id":"fc_1","output_index":1,"name":"load_tool_group","arguments":"{\"group_name\":\"pdf\"}"}`,
		`{"type":"response.completed","sequence_number":8,"response":{"id":"resp_2","object":"response","status":"completed","model":"test-model","output":[],` +
			`"usage":{"input_tokens":200,"input_tokens_details":{"cached_tokens":0},"output_tokens":40,"output_tokens_details":{"reasoning_tokens":0},"total_tokens":240}}}`,
	}
	var sdk wire.Response
	var body strings.Builder
	for _, e := range events {
		var ev responses.ResponseStreamEventUnion
		if err := json.Unmarshal([]byte(e), &ev); err != nil {
			t.Fatalf("the SDK cannot read %s: %v", e, err)
		}
		switch v := ev.AsAny().(type) {
		case responses.ResponseTextDeltaEvent:
			sdk.Text += v.Delta
		case responses.ResponseOutputItemAddedEvent:
			if v.Item.Type == "function_call" {
				fc := v.Item.AsFunctionCall()
				sdk.Calls = append(sdk.Calls, wire.Call{ID: fc.CallID, Name: fc.Name})
			}
		case responses.ResponseFunctionCallArgumentsDoneEvent:
			sdk.Calls[len(sdk.Calls)-1].Input = v.Arguments
		case responses.ResponseCompletedEvent:
			sdk.StopReason = string(v.Response.Status)
			sdk.Usage = wire.Usage{InputTokens: int(v.Response.Usage.InputTokens), OutputTokens: int(v.Response.Usage.OutputTokens)}
		}
		fmt.Fprintf(&body, "event: %s\ndata: %s\n\n", ev.Type, e)
	}
	if sdk.Text != "Loading." || len(sdk.Calls) != 1 || sdk.Usage.InputTokens != 200 {
		t.Fatalf("the SDK reads the stream otherwise: %+v", sdk)
	}
	got := readStream(t, wire.Responses, body.String())
	if diff := cmp.Diff(sdk, got); diff != "" {
		t.Errorf("(-sdk +ours):\n%s", diff)
	}
}
