package sdkcheck

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/toolroute/toolroute/registry/wire"
	"google.golang.org/genai"
)

// geminiRequest is the generateContent request body in the SDK's types (the
// SDK builds it from these; it has no type for the whole body).
type geminiRequest struct {
	Contents          []*genai.Content        `json:"contents"`
	SystemInstruction *genai.Content          `json:"systemInstruction,omitempty"`
	Tools             []*genai.Tool           `json:"tools,omitempty"`
	GenerationConfig  *genai.GenerationConfig `json:"generationConfig,omitempty"`
}

func TestGeminiRequestDecodesWithSDK(t *testing.T) {
	r := request(false)
	r.Messages[3].Calls[0].Signature = "CiQBc2lnbmF0dXJl" // call_3's, as Gemini sent it
	req, err := wire.Encode(wire.Gemini, r)
	if err != nil {
		t.Fatal(err)
	}
	if req.Path != "/v1beta/models/test-model:generateContent" {
		t.Errorf("path %q", req.Path)
	}
	var p geminiRequest
	dec := json.NewDecoder(bytes.NewReader(req.Body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&p); err != nil {
		t.Fatalf("the SDK's types cannot decode our body: %v\n%s", err, req.Body)
	}
	if p.SystemInstruction == nil || len(p.SystemInstruction.Parts) != 1 || p.SystemInstruction.Parts[0].Text != system {
		t.Errorf("systemInstruction = %+v", p.SystemInstruction)
	}
	if g := p.GenerationConfig; g == nil || g.MaxOutputTokens != 512 || g.Temperature == nil || *g.Temperature != 0.25 {
		t.Errorf("generationConfig = %+v", g)
	}
	var got []string
	for _, c := range p.Contents {
		var parts []string
		for _, part := range c.Parts {
			sig := ""
			if part.ThoughtSignature != nil {
				sig = fmt.Sprintf(" (signature %q)", part.ThoughtSignature)
			}
			switch {
			case part.FunctionCall != nil:
				args, _ := json.Marshal(part.FunctionCall.Args)
				if part.FunctionCall.Args == nil {
					args = []byte("(no args)")
				}
				parts = append(parts, fmt.Sprintf("call %s %s %s%s", part.FunctionCall.ID, part.FunctionCall.Name, args, sig))
			case part.FunctionResponse != nil:
				fr := part.FunctionResponse
				resp, _ := json.Marshal(fr.Response)
				s := fmt.Sprintf("response %s %s %s", fr.ID, fr.Name, resp)
				for _, fp := range fr.Parts {
					s += fmt.Sprintf(" <%s %s>", fp.InlineData.MIMEType, base64.StdEncoding.EncodeToString(fp.InlineData.Data))
				}
				parts = append(parts, s)
			case part.InlineData != nil:
				parts = append(parts, fmt.Sprintf("inline %s %s", part.InlineData.MIMEType, base64.StdEncoding.EncodeToString(part.InlineData.Data)))
			case part.Text != "":
				parts = append(parts, "text "+part.Text+sig)
			default:
				parts = append(parts, "unknown part")
			}
		}
		got = append(got, c.Role+": "+strings.Join(parts, " | "))
	}
	want := []string{
		"user: text Load the PDF tools & read a.pdf",
		`model: text Loading. | call call_1 load_tool_group {"group_name":"pdf"} (signature "skip_thought_signature_validator") | call call_2 get_current_time (no args)`,
		`user: response call_1 load_tool_group {"output":"Loaded 1 tools from group 'PDF Tools':\n- pdf_info: Info"} | response call_2 get_current_time {"error":"Error (timeout): too slow"}`,
		`model: call call_3 pdf_info {"path":"a.pdf"} (signature "\n$\x01signature")`,
		`user: response call_3 pdf_info {"output":"{\"pages\":3}\n\n[image image/png, 8 bytes]\n\n[resource file:///a.pdf: application/pdf, 9 bytes]"} <image/png iVBORw0KGgo=> <application/pdf JVBERi0xLjQK>`,
		"model: text It has 3 pages.",
		"user: inline image/jpeg /9j/4AAQ | text Thanks",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("contents as the SDK reads them (-want +got):\n%s", diff)
	}
	if len(p.Tools) != 1 || len(p.Tools[0].FunctionDeclarations) != 1 {
		t.Fatalf("tools = %+v", p.Tools)
	}
	fd := p.Tools[0].FunctionDeclarations[0]
	if fd.Name != "load_tool_group" || fd.Description != "Load a tool group" || fd.Parameters != nil {
		t.Errorf("function declaration = %+v", fd)
	}
	schema, _ := json.Marshal(fd.ParametersJsonSchema)
	sameJSON(t, "parametersJsonSchema", params, schema)

	again, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	sameJSON(t, "body re-encoded by the SDK", req.Body, again)
}

func TestGeminiResponseFromSDK(t *testing.T) {
	resp := genai.GenerateContentResponse{
		Candidates: []*genai.Candidate{{
			Content: &genai.Content{Role: "model", Parts: []*genai.Part{
				{Text: "Let me think.", Thought: true},
				{Text: "Loading."},
				{FunctionCall: &genai.FunctionCall{ID: "fc_1", Name: "load_tool_group", Args: map[string]any{"group_name": "pdf"}}, ThoughtSignature: []byte("sig-1")},
				{FunctionCall: &genai.FunctionCall{Name: "get_current_time"}},
			}},
			FinishReason: genai.FinishReasonStop,
		}},
		UsageMetadata: &genai.GenerateContentResponseUsageMetadata{PromptTokenCount: 120, CandidatesTokenCount: 20, ThoughtsTokenCount: 10, CachedContentTokenCount: 64, TotalTokenCount: 150},
		ModelVersion:  "test-model",
	}
	body, err := json.Marshal(resp)
	if err != nil {
		t.Fatal(err)
	}
	got, err := wire.Decode(wire.Gemini, body)
	if err != nil {
		t.Fatalf("%v\n%s", err, body)
	}
	want := wire.Response{Text: "Loading.", StopReason: "STOP", Usage: wire.Usage{InputTokens: 120, OutputTokens: 30, CachedTokens: 64}, Calls: []wire.Call{
		{ID: "fc_1", Name: "load_tool_group", Input: `{"group_name":"pdf"}`, Signature: base64.StdEncoding.EncodeToString([]byte("sig-1"))},
		{Name: "get_current_time", Input: `{}`},
	}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}

	// What we decoded goes back in a request the SDK reads as it came.
	req, err := wire.Encode(wire.Gemini, wire.Request{Model: "m", Messages: []wire.Message{
		{Role: wire.RoleUser, Text: "go"}, {Role: wire.RoleAssistant, Text: got.Text, Calls: got.Calls}}})
	if err != nil {
		t.Fatal(err)
	}
	var p geminiRequest
	if err := json.Unmarshal(req.Body, &p); err != nil {
		t.Fatal(err)
	}
	if sig := p.Contents[1].Parts[1].ThoughtSignature; string(sig) != "sig-1" {
		t.Errorf("the signature went back as %q", sig)
	}
}

func TestGeminiStreamFromSDK(t *testing.T) {
	chunk := func(parts []*genai.Part, finish genai.FinishReason, usage *genai.GenerateContentResponseUsageMetadata) genai.GenerateContentResponse {
		return genai.GenerateContentResponse{Candidates: []*genai.Candidate{{Content: &genai.Content{Role: "model", Parts: parts}, FinishReason: finish}},
			UsageMetadata: usage, ModelVersion: "test-model"}
	}
	chunks := []genai.GenerateContentResponse{
		chunk([]*genai.Part{{Text: "Load"}}, "", &genai.GenerateContentResponseUsageMetadata{PromptTokenCount: 200}),
		chunk([]*genai.Part{{Text: "ing."}}, "", &genai.GenerateContentResponseUsageMetadata{PromptTokenCount: 200}),
		chunk([]*genai.Part{{FunctionCall: &genai.FunctionCall{ID: "fc_1", Name: "load_tool_group", Args: map[string]any{"group_name": "pdf"}}, ThoughtSignature: []byte("sig-2")}},
			genai.FinishReasonStop, &genai.GenerateContentResponseUsageMetadata{PromptTokenCount: 200, CandidatesTokenCount: 40, TotalTokenCount: 240}),
	}
	var body strings.Builder
	for _, c := range chunks {
		b, err := json.Marshal(c)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&body, "data: %s\r\n\r\n", b)
	}
	got := readStream(t, wire.Gemini, body.String())
	want := wire.Response{Text: "Loading.", StopReason: "STOP", Usage: wire.Usage{InputTokens: 200, OutputTokens: 40},
		Calls: []wire.Call{{ID: "fc_1", Name: "load_tool_group", Input: `{"group_name":"pdf"}`, Signature: base64.StdEncoding.EncodeToString([]byte("sig-2"))}}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}
