package main

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolroute/toolroute/internal/mcptest"
	"github.com/toolroute/toolroute/internal/testwait"
)

// A client of toolroute mcp gets an upstream server's results as the
// server sent them, not the text the model reads of them: resource links,
// embedded resources (a text blob, a PDF), audio, annotated content and
// structuredContent, whose tool toolroute offers with its outputSchema.
func TestServeMCPRichResults(t *testing.T) {
	u := newUser(t, nil, "")
	mcpServers(t, u.mcpConfig(),
		mcpEntry{"everything", stdio(mcptest.NPMServer(t, "server-everything", "stdio")...)},
		mcpEntry{"lab", stdio(mcptest.TestServer(t, tmpRoot), "-rich")})
	c := u.mcpClient(nil)
	c.waitGroups("everything", "lab")
	c.ok("load_tool_group", `{"group_name":"everything"}`)
	c.waitChange()
	c.ok("load_tool_group", `{"group_name":"lab"}`)
	c.waitChange()

	var structured *mcp.Tool
	for _, tl := range c.tools() {
		switch tl.Name {
		case "get_structured_content":
			structured = tl
		case "get_sum", "play_tone":
			if tl.OutputSchema != nil {
				t.Errorf("%s has no outputSchema upstream, but toolroute offers one: %v", tl.Name, tl.OutputSchema)
			}
		}
	}
	if structured == nil {
		t.Fatalf("get_structured_content is not offered: %v", c.names())
	}
	schema, _ := json.Marshal(structured.OutputSchema)
	mustContain(t, "get_structured_content's outputSchema", string(schema), `"temperature"`, `"humidity"`, `"type":"object"`)

	raw := func(name, args string) *mcp.CallToolResult {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), testwait.Failsafe)
		defer cancel()
		res, err := c.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: json.RawMessage(args)})
		if err != nil || res.IsError {
			t.Fatalf("%s %s: %v %+v\n%s", name, args, err, res, c.stderr)
		}
		return res
	}

	// structuredContent, beside the text the server sent with it.
	res := raw("get_structured_content", `{"location":"Chicago"}`)
	sc, _ := json.Marshal(res.StructuredContent)
	if string(sc) != `{"conditions":"Light rain / drizzle","humidity":82,"temperature":36}` {
		t.Errorf("structuredContent: %s", sc)
	}
	if len(res.Content) != 1 {
		t.Errorf("get_structured_content's content: %d blocks", len(res.Content))
	}

	// Resource links, each with its name, URI, type and description.
	res = raw("get_resource_links", `{"count":2}`)
	if len(res.Content) != 3 {
		t.Fatalf("get_resource_links: %d blocks, want a text and 2 links", len(res.Content))
	}
	for i, want := range []mcp.ResourceLink{
		{URI: "demo://resource/dynamic/blob/1", Name: "Blob Resource 1", Description: "Resource 1: plaintext resource", MIMEType: "text/plain"},
		{URI: "demo://resource/dynamic/text/2", Name: "Text Resource 2", Description: "Resource 2: plaintext resource", MIMEType: "text/plain"},
	} {
		got, ok := res.Content[i+1].(*mcp.ResourceLink)
		if !ok {
			t.Errorf("block %d is %T, not a resource link", i+1, res.Content[i+1])
			continue
		}
		if got.URI != want.URI || got.Name != want.Name || got.MIMEType != want.MIMEType || got.Description != want.Description {
			t.Errorf("link %d: %+v, want %+v", i+1, got, want)
		}
	}

	// An embedded resource with a blob: the bytes, not the text a model
	// reads of them.
	res = raw("get_resource_reference", `{"resourceType":"Blob","resourceId":1}`)
	er, ok := res.Content[1].(*mcp.EmbeddedResource)
	if !ok || er.Resource == nil || er.Resource.URI != "demo://resource/dynamic/blob/1" || !bytes.HasPrefix(er.Resource.Blob, []byte("Resource 1: This is a base64 blob")) {
		t.Errorf("get_resource_reference's resource: %T %+v", res.Content[1], er)
	}

	// Annotations stay on their blocks.
	res = raw("get_annotated_message", `{"messageType":"error","includeImage":true}`)
	if tc, ok := res.Content[0].(*mcp.TextContent); !ok || tc.Annotations == nil || tc.Annotations.Priority != 1 {
		t.Errorf("get_annotated_message's text: %+v", res.Content[0])
	}
	if img, ok := res.Content[1].(*mcp.ImageContent); !ok || img.Annotations == nil || !bytes.HasPrefix(img.Data, []byte("\x89PNG")) {
		t.Errorf("get_annotated_message's image: %+v", res.Content[1])
	}

	// Audio, and a PDF embedded whole.
	res = raw("play_tone", `{}`)
	if a, ok := res.Content[1].(*mcp.AudioContent); !ok || a.MIMEType != "audio/wav" || !bytes.HasPrefix(a.Data, []byte("RIFF")) {
		t.Errorf("play_tone's audio: %T %+v", res.Content[1], res.Content[1])
	}
	res = raw("get_report", `{}`)
	if er, ok := res.Content[1].(*mcp.EmbeddedResource); !ok || er.Resource.MIMEType != "application/pdf" || !bytes.HasPrefix(er.Resource.Blob, []byte("%PDF-1.4\n")) {
		t.Errorf("get_report's PDF: %T %+v", res.Content[1], res.Content[1])
	}
	if tc, ok := res.Content[0].(*mcp.TextContent); !ok || strings.Contains(tc.Text, "[resource") {
		t.Errorf("get_report's text is the model's, not the server's: %+v", res.Content[0])
	}
}
