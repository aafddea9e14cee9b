package mcp_test

import (
	"fmt"

	toolmcp "github.com/toolroute/toolroute/host/mcp"
)

// An mcp.json names each server once; its group is its key made a valid
// tool group name, and a url makes it a Streamable HTTP server.
func ExampleParseConfig() {
	cfg, err := toolmcp.ParseConfig("mcp.json", []byte(`{"mcpServers": {
		"files": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "/tmp"]},
		"Remote Notes": {"url": "https://notes.example/mcp", "timeoutSeconds": 20}
	}}`))
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, s := range cfg.Servers {
		fmt.Println(s.Key, s.Group(), s.Transport(), s.TimeoutSeconds)
	}
	// Output:
	// files files stdio 60
	// Remote Notes remote_notes http 20
}
