package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolroute/toolroute/host/internal/gzipbomb"
	"github.com/toolroute/toolroute/registry"
)

// An MCP server over HTTP whose answer to a call is 400 MB gzipped into
// half a megabyte: the call fails naming the cap, after reading no more
// than the cap, and the server is reached again for the next call.
func TestHTTPAnswerCap(t *testing.T) {
	srv := mcp.NewServer(&mcp.Implementation{Name: "bomb", Version: "1"}, nil)
	mcp.AddTool(srv, &mcp.Tool{Name: "big", Description: "answers a bomb"}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "small"}}}, nil, nil
	})
	sdk := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, &mcp.StreamableHTTPOptions{JSONResponse: true})
	var bombs atomic.Int32
	front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var msg struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		json.Unmarshal(body, &msg)
		if msg.Method != "tools/call" || bombs.Add(1) > 1 {
			r.Body = io.NopCloser(bytes.NewReader(body))
			sdk.ServeHTTP(w, r)
			return
		}
		w.Header().Set("Mcp-Session-Id", r.Header.Get("Mcp-Session-Id"))
		gzipbomb.Handler("application/json", gzipbomb.Make(`{"jsonrpc":"2.0","id":`+string(msg.ID)+`,"result":{"content":[{"type":"text","text":"`,
			"a", `"}]}}`, 400<<20)).ServeHTTP(w, r)
	}))
	t.Cleanup(front.Close) // after the manager's, which holds a stream open
	m := start(t, fast, ServerConfig{Key: "bomb", URL: front.URL})
	o := offered(t, m, registry.Catalogue{})

	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	got := call(t, o.tool(t, "big"), `{}`)
	runtime.ReadMemStats(&after)
	if len(got.Text) > 1000 {
		t.Errorf("the call answered %d bytes, want a failure naming the cap", len(got.Text))
	} else if want := "the MCP server's answer is over 16 MB, the most toolroute reads of it"; got.ErrorType != ErrorUnavailable || !strings.Contains(got.Text, want) {
		t.Errorf("the call = %+v, want it unavailable saying %q", got, want)
	}
	// What a reader without a cap takes is the body inflated, twice over as
	// io.ReadAll grows its buffer: 800 MB.
	if n := after.TotalAlloc - before.TotalAlloc; n > 200<<20 {
		t.Errorf("the call allocated %d MB, want no more than a few times the cap's 16", n>>20)
	}
	eventually(t, "bomb is connected again", func() bool { return status(t, m, "bomb").State == Connected })
	if got := call(t, o.tool(t, "big"), `{}`); got.Text != "small" {
		t.Errorf("the next call = %+v", got)
	}
}
