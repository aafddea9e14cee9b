// Package mcp offers MCP servers' tools as toolroute tool groups, one group
// per server, in the Go program: it reads the mcpServers configuration
// (mcp.json), keeps each server running over stdio or Streamable HTTP with
// the official Go SDK, lists its tools, names them for the catalogue and
// runs their calls with tools/call.
//
// The rules it follows (names, approval from annotations, how a result
// reads, the failures and their texts, restarts) are the same in every host
// and are written in docs/design/mcp.md;
// testdata/mcp/cases.json holds them as data. The pure parts are here too:
// ValidName, NameTools, Permissions, GroupDescription, ResultText,
// ResultImages.
//
// A Manager is a host.ToolSource: the host asks it for its groups and tools
// at each reload, and it asks the host to reload (OnChange) when a server's
// tools change. Nothing here touches the module or the message log.
package mcp
