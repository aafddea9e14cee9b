package mcp

import (
	"encoding/json"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolroute/toolroute/registry"
)

// FuzzParseConfig: any text is a configuration or an error; a configuration
// has servers with distinct, valid group names and one way to reach each.
func FuzzParseConfig(f *testing.F) {
	f.Add([]byte(`{"mcpServers": {"a": {"command": "x", "args": ["-y"], "env": {"K": "v"}}, "b-c": {"url": "http://h/mcp", "timeoutSeconds": 5}}}`))
	f.Add([]byte(`{"mcpServers": {"a": {"type": "sse", "url": "http://h"}}}`))
	f.Add([]byte(`{"mcpServers": []}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		cfg, err := ParseConfig("mcp.json", data)
		if err != nil {
			return
		}
		seen := map[string]bool{}
		for _, s := range cfg.Servers {
			g := s.Group()
			if !registry.ValidToolName(g) || seen[g] {
				t.Fatalf("group %q of %q", g, s.Key)
			}
			seen[g] = true
			if (s.Command == "") == (s.URL == "") || s.TimeoutSeconds < 1 {
				t.Fatalf("server %+v", s)
			}
		}
	})
}

// FuzzServerInput: whatever a server answers to tools/list or tools/call,
// naming its tools and reading its result do not fail, and every tool
// offered has a valid name the registry takes.
func FuzzServerInput(f *testing.F) {
	f.Add([]byte(`[{"name":"get-sum","description":"d","inputSchema":{"type":"object"},"annotations":{"readOnlyHint":true}}]`),
		[]byte(`{"content":[{"type":"text","text":"hi"},{"type":"image","data":"iVBORw0KGgo=","mimeType":"image/png"}],"structuredContent":{"a":1},"isError":true}`))
	f.Add([]byte(`[{"name":"","inputSchema":{"type":"string"}},{"name":"x.y"},{"name":"x_y"}]`),
		[]byte(`{"content":[{"type":"resource","resource":{"uri":"u","blob":"AAAA"}},{"type":"resource_link","uri":"u","name":"n"}]}`))
	f.Fuzz(func(t *testing.T, list, result []byte) {
		var tools []*mcp.Tool
		if json.Unmarshal(list, &tools) == nil {
			r := registry.New()
			r.AddGroup(registry.Group{Name: "srv"})
			for _, n := range NameTools("srv", "srv", 60, tools, map[string]bool{"load_tool_group": true, "load_skill": true}) {
				if n.Name == "" {
					continue
				}
				if err := r.AddTool(n.Tool); err != nil {
					t.Fatalf("%q: %v", n.MCPName, err)
				}
			}
		}
		var res mcp.CallToolResult
		if json.Unmarshal(result, &res) == nil {
			toolResult("t", &res)
		}
	})
}
