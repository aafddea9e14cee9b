package mcp

import (
	"testing"

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
