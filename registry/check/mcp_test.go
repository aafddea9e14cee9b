package check

import (
	"encoding/json"
	"testing"

	"github.com/toolroute/toolroute/registry"
)

// FuzzMCP: whatever a server answers to tools/list or tools/call, naming
// its tools and reading its result give an answer, and every tool offered
// has a valid, free name the registry takes beside the catalogue's own.
func FuzzMCP(f *testing.F) {
	f.Add([]byte(`[{"name":"get-sum","description":"d","inputSchema":{"type":"object"},"annotations":{"readOnlyHint":true}}]`),
		[]byte(`{"content":[{"type":"text","text":"hi"},{"type":"image","data":"iVBORw0KGgo=","mimeType":"image/png"}],"structuredContent":{"a":1},"isError":true}`))
	f.Add([]byte(`[{"name":"","inputSchema":{"type":"string"}},{"name":"x.y"},{"name":"x_y"},{"name":"read_file"},7]`),
		[]byte(`{"content":[{"type":"resource","resource":{"uri":"u","blob":"AAAA"}},{"type":"resource_link","uri":"u","name":"n"},3]}`))
	cat := registry.Catalogue{Tools: []registry.Tool{{Name: "read_file", Description: "Read a file"}}}
	f.Fuzz(func(t *testing.T, list, result []byte) {
		var tools []json.RawMessage
		if json.Unmarshal(list, &tools) == nil {
			args, _ := json.Marshal(MCPCatalogue{Catalogue: cat, Servers: []MCPServer{{Key: "srv", TimeoutSeconds: 60, ServerInfo: &MCPServerInfo{Name: "s"}, Tools: tools}}})
			a, err := Run(Request{Op: "mcp_catalogue", Args: args})
			if err != nil {
				t.Fatal(err)
			}
			ans := a.Args.(MCPCatalogueAnswer)
			full := cat
			for _, g := range ans.Groups {
				full.Groups = append(full.Groups, registry.Group{Name: g.Name, DisplayName: g.DisplayName, Description: g.Description})
			}
			for _, tl := range ans.Tools {
				full.Tools = append(full.Tools, registry.Tool{Name: tl.Name, Description: tl.Description, Parameters: tl.Parameters,
					Group: tl.Group, RequiredPermissions: tl.RequiredPermissions, TimeoutSeconds: tl.TimeoutSeconds})
			}
			if _, rep := registry.Build(full); len(rep.Errors) > 0 {
				t.Fatalf("the registry refuses what was offered: %v", rep.Errors)
			}
		}
		if json.Valid(result) {
			args, _ := json.Marshal(MCPResult{Key: "srv", MCPName: "t", Result: result})
			if _, err := Run(Request{Op: "mcp_result", Args: args}); err != nil {
				t.Fatal(err)
			}
		}
	})
}
