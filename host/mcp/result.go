package mcp

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolroute/toolroute/host"
	"github.com/toolroute/toolroute/registry"
)

// The error types of an MCP tool's failures, as the model reads them.
const (
	// ErrorTool: the tool ran and said it failed (isError).
	ErrorTool = "tool_error"
	// ErrorMCP: the server refused the call with a JSON-RPC error.
	ErrorMCP = "mcp_error"
	// ErrorUnavailable: the server is not running, did not answer in time,
	// or closed the connection.
	ErrorUnavailable = "unavailable"
)

// ResultText is what the model reads of a tools/call result: text blocks
// joined by a blank line, a placeholder for each image, audio clip, linked
// or embedded resource, and the structured content as JSON when no text
// block came with it. isError says the tool failed.
func ResultText(res *mcp.CallToolResult) (text string, isError bool) {
	if res == nil {
		return "", false
	}
	var parts []string
	hasText := false
	for _, c := range res.Content {
		switch c := c.(type) {
		case *mcp.TextContent:
			parts = append(parts, c.Text)
			hasText = true
		case *mcp.ImageContent:
			parts = append(parts, media("image", c.MIMEType, len(c.Data)))
		case *mcp.AudioContent:
			parts = append(parts, media("audio", c.MIMEType, len(c.Data)))
		case *mcp.ResourceLink:
			parts = append(parts, fmt.Sprintf("[resource %s: %s]", c.Name, c.URI))
		case *mcp.EmbeddedResource:
			parts = append(parts, embedded(c.Resource))
		default:
			parts = append(parts, "[content of a kind toolroute does not show]")
		}
	}
	if res.StructuredContent != nil && !hasText {
		if b, err := json.Marshal(res.StructuredContent); err == nil {
			parts = append(parts, string(b))
		}
	}
	return strings.Join(parts, "\n\n"), res.IsError
}

// ResultImages are a tools/call result's images, in order, for the model to
// see beside the text where the wire format carries them; the text names
// each with a placeholder. The turn engine keeps those a model can take
// (registry.CheckImages).
func ResultImages(res *mcp.CallToolResult) []registry.Image {
	if res == nil {
		return nil
	}
	var images []registry.Image
	for _, c := range res.Content {
		if img, ok := c.(*mcp.ImageContent); ok {
			images = append(images, registry.Image{MIMEType: img.MIMEType, Data: base64.StdEncoding.EncodeToString(img.Data)})
		}
	}
	return images
}

// media is an image's or audio clip's placeholder, which stands for it
// where the wire format carries no images (and for audio everywhere):
// [image image/png, 1234 bytes].
func media(kind, mime string, n int) string {
	if mime == "" {
		return fmt.Sprintf("[%s, %d bytes]", kind, n)
	}
	return fmt.Sprintf("[%s %s, %d bytes]", kind, mime, n)
}

// embedded is an embedded resource: its text under [resource URI], or
// [resource URI: MIME, N bytes] for a blob.
func embedded(r *mcp.ResourceContents) string {
	switch {
	case r == nil:
		return "[resource]"
	case r.Blob != nil:
		if r.MIMEType == "" {
			return fmt.Sprintf("[resource %s: %d bytes]", r.URI, len(r.Blob))
		}
		return fmt.Sprintf("[resource %s: %s, %d bytes]", r.URI, r.MIMEType, len(r.Blob))
	}
	return fmt.Sprintf("[resource %s]\n%s", r.URI, r.Text)
}

// toolResult turns a result into what host.NativeTool.RunOutput returns:
// the text and images, or a tool_error with the text.
func toolResult(mcpName string, res *mcp.CallToolResult) (host.Output, error) {
	text, isError := ResultText(res)
	if !isError {
		return host.Output{Text: text, Images: ResultImages(res)}, nil
	}
	if strings.TrimSpace(text) == "" {
		text = fmt.Sprintf("MCP tool %q failed without saying why: try other arguments, or another tool", mcpName)
	}
	return host.Output{}, &host.ToolError{Type: ErrorTool, Message: text}
}

// RPCErrorText is a JSON-RPC error's failure text.
func RPCErrorText(key string, code int64, message string) string {
	return fmt.Sprintf("MCP server '%s' answered error %d: %s", key, code, message)
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
