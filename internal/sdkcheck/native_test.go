package sdkcheck

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/anthropics/anthropic-sdk-go"
	"github.com/google/go-cmp/cmp"
	"github.com/openai/openai-go/v3/responses"
	"github.com/toolroute/toolroute/registry/wire"
)

var pdfSchema = json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`)

// nativeRequest is a conversation in native routing: a group loaded (its
// result carrying the group), then a call of the group's tool in its
// namespace, with the group sent deferred.
func nativeRequest(search bool) wire.Request {
	pdf := wire.Group{Name: "pdf", Description: "PDF tools", Tools: []wire.ToolDef{{Name: "pdf_info", Description: "Info", Parameters: pdfSchema}}}
	r := wire.Request{
		Model: "test-model", System: system,
		Messages: []wire.Message{
			{Role: wire.RoleUser, Text: "Pages of a.pdf?"},
			{Role: wire.RoleAssistant, Calls: []wire.Call{{ID: "call_1", Name: "load_tool_group", Input: `{"group_name":"pdf"}`, Search: search}}},
			{Role: wire.RoleTool, Results: []wire.Result{{CallID: "call_1", Name: "load_tool_group", Content: "Loaded 1 tools from group 'PDF Tools':\n- pdf_info: Info", Loaded: &pdf}}},
			{Role: wire.RoleAssistant, Calls: []wire.Call{{ID: "call_2", Name: "pdf_info", Input: `{"path":"a.pdf"}`, Namespace: map[bool]string{true: "pdf"}[search]}}},
			{Role: wire.RoleTool, Results: []wire.Result{{CallID: "call_2", Name: "pdf_info", Content: `{"pages":3}`}}},
		},
		Tools:    []wire.ToolDef{{Name: "get_time", Description: "The time", Parameters: json.RawMessage(`{"type":"object","properties":{}}`)}},
		Deferred: []wire.Group{pdf},
	}
	if search {
		r.Search = &wire.ToolDef{Name: "load_tool_group", Description: "Load a tool group", Parameters: params}
	}
	return r
}

// The Anthropic SDK reads our native request: the deferred tool, the
// tool_reference after the load's text, and the cache breakpoints.
func TestAnthropicNativeRequestDecodesWithSDK(t *testing.T) {
	req, err := wire.Encode(wire.Anthropic, nativeRequest(false))
	if err != nil {
		t.Fatal(err)
	}
	var p anthropic.MessageNewParams
	if err := json.Unmarshal(req.Body, &p); err != nil {
		t.Fatalf("the SDK cannot decode our body: %v\n%s", err, req.Body)
	}
	if len(p.Tools) != 2 || p.Tools[0].OfTool == nil || p.Tools[1].OfTool == nil {
		t.Fatalf("tools = %+v", p.Tools)
	}
	core, deferred := p.Tools[0].OfTool, p.Tools[1].OfTool
	if core.DeferLoading.Valid() || core.CacheControl.Type != "ephemeral" {
		t.Errorf("the core tool: defer_loading %v, cache_control %+v", core.DeferLoading, core.CacheControl)
	}
	if deferred.Name != "pdf_info" || !deferred.DeferLoading.Value || deferred.CacheControl.Type != "" {
		t.Errorf("the deferred tool: %s defer_loading %v cache_control %+v", deferred.Name, deferred.DeferLoading, deferred.CacheControl)
	}
	if p.System[0].CacheControl.Type != "ephemeral" {
		t.Errorf("no breakpoint at the system prompt's end")
	}
	load := p.Messages[2].Content[0].OfToolResult
	if load == nil || len(load.Content) != 2 || load.Content[0].OfText == nil || load.Content[1].OfToolReference == nil {
		t.Fatalf("the load's result = %+v", p.Messages[2].Content[0])
	}
	if got := load.Content[1].OfToolReference.ToolName; got != "pdf_info" {
		t.Errorf("tool_reference names %q", got)
	}
	last := p.Messages[len(p.Messages)-1].Content
	if r := last[len(last)-1].OfToolResult; r == nil || r.CacheControl.Type != "ephemeral" {
		t.Errorf("no breakpoint at the conversation's end: %+v", last[len(last)-1])
	}
	again, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	sameJSON(t, "body re-encoded by the SDK", req.Body, again)
}

// openai-go's responses package reads our native request: namespaces of
// deferred functions, the client tool search, its call and output items,
// and a call in its namespace.
func TestResponsesNativeRequestDecodesWithSDK(t *testing.T) {
	req, err := wire.Encode(wire.Responses, nativeRequest(true))
	if err != nil {
		t.Fatal(err)
	}
	var p responses.ResponseNewParams
	if err := json.Unmarshal(req.Body, &p); err != nil {
		t.Fatalf("the SDK cannot decode our body: %v\n%s", err, req.Body)
	}
	var tools []string
	for _, tu := range p.Tools {
		switch {
		case tu.OfFunction != nil:
			tools = append(tools, "function "+tu.OfFunction.Name)
		case tu.OfNamespace != nil:
			ns := tu.OfNamespace
			for _, f := range ns.Tools {
				if f.OfFunction != nil {
					tools = append(tools, "namespace "+ns.Name+" ("+ns.Description+"): "+f.OfFunction.Name+map[bool]string{true: " deferred"}[f.OfFunction.DeferLoading.Value])
				}
			}
		case tu.OfToolSearch != nil:
			tools = append(tools, "tool_search "+string(tu.OfToolSearch.Execution)+": "+tu.OfToolSearch.Description.Value)
		default:
			tools = append(tools, "unknown tool")
		}
	}
	wantTools := []string{"function get_time", "namespace pdf (PDF tools): pdf_info deferred", "tool_search client: Load a tool group"}
	if diff := cmp.Diff(wantTools, tools); diff != "" {
		t.Errorf("tools as the SDK reads them (-want +got):\n%s", diff)
	}
	var items []string
	for _, it := range p.Input.OfInputItemList {
		switch {
		case it.OfMessage != nil:
			items = append(items, "message "+string(it.OfMessage.Role))
		case it.OfToolSearchCall != nil:
			args, _ := json.Marshal(it.OfToolSearchCall.Arguments)
			items = append(items, "tool_search_call "+it.OfToolSearchCall.CallID.Value+" "+it.OfToolSearchCall.Execution+" "+string(args))
		case it.OfToolSearchOutput != nil:
			o := it.OfToolSearchOutput
			var loaded []string
			for _, tu := range o.Tools {
				if tu.OfNamespace != nil {
					loaded = append(loaded, "namespace "+tu.OfNamespace.Name)
				}
			}
			items = append(items, "tool_search_output "+o.CallID.Value+" "+string(o.Execution)+" "+string(o.Status)+" "+strings.Join(loaded, ","))
		case it.OfFunctionCall != nil:
			items = append(items, "function_call "+it.OfFunctionCall.CallID+" "+it.OfFunctionCall.Namespace.Value+"."+it.OfFunctionCall.Name)
		case it.OfFunctionCallOutput != nil:
			items = append(items, "function_call_output "+it.OfFunctionCallOutput.CallID)
		default:
			items = append(items, "unknown item")
		}
	}
	wantItems := []string{
		"message user",
		`tool_search_call call_1 client {"group_name":"pdf"}`,
		"tool_search_output call_1 client completed namespace pdf",
		"function_call call_2 pdf.pdf_info",
		"function_call_output call_2",
	}
	if diff := cmp.Diff(wantItems, items); diff != "" {
		t.Errorf("input as the SDK reads it (-want +got):\n%s", diff)
	}
}

// A response's client tool search call, whole and streamed, is read as a
// search call; a function call keeps its namespace.
func TestResponsesToolSearchCallFromSDKShapes(t *testing.T) {
	call := responses.ResponseToolSearchCall{ID: "tsc_1", CallID: "call_9", Execution: "client", Status: "completed", Arguments: map[string]any{"group_name": "pdf"}, Type: "tool_search_call"}
	raw, err := json.Marshal(call)
	if err != nil {
		t.Fatal(err)
	}
	body := `{"id":"resp_1","object":"response","status":"completed","output":[` + string(raw) +
		`,{"id":"fc_1","type":"function_call","status":"completed","call_id":"call_8","name":"pdf_info","namespace":"pdf","arguments":"{}"}]}`
	resp, err := wire.Decode(wire.Responses, []byte(body))
	if err != nil {
		t.Fatal(err)
	}
	want := []wire.Call{{ID: "call_9", Input: `{"group_name":"pdf"}`, Search: true}, {ID: "call_8", Name: "pdf_info", Input: "{}", Namespace: "pdf"}}
	if diff := cmp.Diff(want, resp.Calls); diff != "" {
		t.Errorf("calls (-want +got):\n%s", diff)
	}
	stream := "event: response.output_item.added\ndata: {\"type\":\"response.output_item.added\",\"output_index\":0,\"item\":{\"id\":\"tsc_1\",\"type\":\"tool_search_call\",\"status\":\"in_progress\",\"execution\":\"client\",\"call_id\":\"call_9\",\"arguments\":{}}}\n\n" +
		"event: response.output_item.done\ndata: {\"type\":\"response.output_item.done\",\"output_index\":0,\"item\":" + string(raw) + "}\n\n" +
		"event: response.completed\ndata: {\"type\":\"response.completed\",\"response\":{\"status\":\"completed\",\"output\":[]}}\n\n"
	got := readStream(t, wire.Responses, stream)
	if diff := cmp.Diff(want[:1], got.Calls); diff != "" {
		t.Errorf("streamed calls (-want +got):\n%s", diff)
	}
}
