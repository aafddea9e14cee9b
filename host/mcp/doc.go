// Package mcp offers MCP servers' tools as toolroute tool groups, one group
// per server, in the Go program: it reads the mcpServers configuration
// (mcp.json), keeps each server running over stdio or Streamable HTTP with
// the official Go SDK, lists its tools, names them for the catalogue and
// runs their calls with tools/call.
//
// What the model sees of a server (its group, its tools' names and
// approval from annotations, how a result reads, the failures and their
// texts) is the module's to decide, the same in every host
// (toolroute_check's mcp_catalogue and mcp_result, wasm/ABI.md; the cases
// are in testdata/checks): this package connects, lists, calls and
// restarts, and gives the module what the servers said.
//
// A Manager is a host.ToolSource: the host asks it for its groups and tools
// at each reload, and it asks the host to reload (OnChange) when a server's
// tools change.
package mcp
