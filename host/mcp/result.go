package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolroute/toolroute/host"
	"github.com/toolroute/toolroute/internal/module"
	"github.com/toolroute/toolroute/registry/check"
)

// The error types of an MCP tool's failures, as the model reads them
// (the module's: registry/check).
const (
	// ErrorTool: the tool ran and said it failed (isError).
	ErrorTool = check.MCPToolError
	// ErrorMCP: the server refused the call with a JSON-RPC error.
	ErrorMCP = check.MCPError
	// ErrorUnavailable: the server is not running, did not answer in time,
	// or closed the connection.
	ErrorUnavailable = check.MCPUnavailable
)

// outcome asks the module what the model reads of a call's outcome
// (toolroute_check's mcp_result, through ctx: module.WithChecker): the
// text and images of a result, or a failure with its type and text.
func outcome(ctx context.Context, q check.MCPResult) (host.Output, error) {
	var out check.MCPOutput
	err := module.CheckArgs(ctx, "mcp_result", q, &out)
	var refused *module.Refused
	if errors.As(err, &refused) {
		return host.Output{}, &host.ToolError{Type: refused.Type, Message: refused.Message}
	}
	if err != nil {
		return host.Output{}, fmt.Errorf("MCP server '%s': toolroute could not read the outcome of a call of %s: %w", q.Key, q.MCPName, err)
	}
	if len(out.Images) == 0 {
		out.Images = nil
	}
	return host.Output{Text: out.Text, Images: out.Images, Documents: out.Documents}, nil
}

// toolResult is a tools/call result's outcome. The result itself goes
// with it (Output.MCP, ToolError.MCP), for toolroute mcp to give its
// client whole.
func toolResult(ctx context.Context, key, mcpName string, res *mcp.CallToolResult) (host.Output, error) {
	b, err := json.Marshal(res)
	if err != nil {
		return host.Output{}, fmt.Errorf("MCP server '%s': its result of a call of %s could not be encoded: %w", key, mcpName, err)
	}
	out, err := outcome(ctx, check.MCPResult{Key: key, MCPName: mcpName, Result: b})
	var te *host.ToolError
	switch {
	case err == nil:
		out.MCP = b
	case errors.As(err, &te) && te.Type == ErrorTool:
		te.MCP = b
	}
	return out, err
}

// The SDK's own JSON-RPC codes for a connection that is closing or a
// request its transport could not send: not the server's answer.
const (
	codeClientClosing       = -32003
	codeServerClosing       = -32004
	codeRejectedByTransport = -32005
)

// rpcError finds a JSON-RPC error the server sent in a call's error.
func rpcError(err error) (*jsonrpc.Error, bool) {
	var we *jsonrpc.Error
	if !errors.As(err, &we) || errors.Is(err, mcp.ErrConnectionClosed) {
		return nil, false
	}
	switch we.Code {
	case codeClientClosing, codeServerClosing, codeRejectedByTransport:
		return nil, false
	}
	return we, true
}
