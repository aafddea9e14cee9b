package mcp_test

import (
	"encoding/json"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	toolmcp "github.com/toolroute/toolroute/host/mcp"
)

// An MCP server's names become toolroute names; a name the catalogue
// already has gets the group in front, and the description says the MCP
// name.
func ExampleNameTools() {
	var tools []*mcp.Tool
	json.Unmarshal([]byte(`[
		{"name": "get-sum", "description": "Add two numbers", "inputSchema": {"type": "object"}, "annotations": {"readOnlyHint": true}},
		{"name": "read_file", "description": "Read a file", "inputSchema": {"type": "object"}, "annotations": {"readOnlyHint": true, "openWorldHint": false}},
		{"name": "delete_file", "description": "Delete a file", "inputSchema": {"type": "object"}}
	]`), &tools)
	taken := map[string]bool{"read_file": true} // a built-in tool
	for _, n := range toolmcp.NameTools("files", toolmcp.ValidName("files"), 60, tools, taken) {
		fmt.Printf("%s %v: %s\n", n.Name, n.Permissions, n.Tool.Description)
	}
	// Output:
	// get_sum [read network]: Add two numbers (MCP tool "get-sum")
	// files_read_file [read]: Read a file (MCP tool "read_file")
	// delete_file [delete network]: Delete a file
}

// What the model reads of a tools/call result.
func ExampleResultText() {
	var res mcp.CallToolResult
	json.Unmarshal([]byte(`{"content": [
		{"type": "text", "text": "Here is the chart:"},
		{"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"},
		{"type": "resource_link", "uri": "file:///tmp/chart.png", "name": "chart.png"}
	]}`), &res)
	text, isError := toolmcp.ResultText(&res)
	fmt.Println(text)
	fmt.Println(isError)
	// Output:
	// Here is the chart:
	//
	// [image image/png, 8 bytes]
	//
	// [resource chart.png: file:///tmp/chart.png]
	// false
}
