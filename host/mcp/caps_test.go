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

	"github.com/toolroute/toolroute/internal/gzipbomb"
	"github.com/toolroute/toolroute/registry"
)

// An MCP server over HTTP whose answer to a call is 400 MB gzipped into
// half a megabyte, as a JSON result or as an error's body (which the SDK
// reads whole too, even one that says it is an event stream): the call
// fails, after reading no more than the cap (and a result's failure names
// it), and the server is reached again for the next call.
func TestHTTPAnswerCap(t *testing.T) {
	srv := mcp.NewServer(&mcp.Implementation{Name: "bomb", Version: "1"}, nil)
	mcp.AddTool(srv, &mcp.Tool{Name: "big", Description: "answers a bomb"}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "small"}}}, nil, nil
	})
	sdk := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, &mcp.StreamableHTTPOptions{JSONResponse: true})
	var bomb atomic.Value // the next call's answer: "json", "error" or "" for the server's own
	front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var msg struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		json.Unmarshal(body, &msg)
		kind, _ := bomb.Swap("").(string)
		if msg.Method != "tools/call" || kind == "" {
			if kind != "" {
				bomb.Store(kind)
			}
			r.Body = io.NopCloser(bytes.NewReader(body))
			sdk.ServeHTTP(w, r)
			return
		}
		w.Header().Set("Mcp-Session-Id", r.Header.Get("Mcp-Session-Id"))
		if kind == "error" {
			w.Header().Set("Content-Type", "text/event-stream")
			w.Header().Set("Content-Encoding", "gzip")
			w.WriteHeader(http.StatusBadRequest) // 5xx are retried, their bodies unread
			w.Write(gzipbomb.Make("", "a", "", 400<<20))
			return
		}
		gzipbomb.Handler("application/json", gzipbomb.Make(`{"jsonrpc":"2.0","id":`+string(msg.ID)+`,"result":{"content":[{"type":"text","text":"`,
			"a", `"}]}}`, 400<<20)).ServeHTTP(w, r)
	}))
	t.Cleanup(front.Close) // after the manager's, which holds a stream open
	m := start(t, fast, ServerConfig{Key: "bomb", URL: front.URL})
	o := offered(t, m, registry.Catalogue{})

	for _, c := range []struct{ kind, want string }{
		{"json", "the MCP server's answer is over 16 MB, the most toolroute reads of it"},
		// The SDK reads an error's body for a JSON-RPC error, and says
		// only the status when there is none.
		{"error", "the request to it failed: Bad Request"},
	} {
		kind := c.kind
		bomb.Store(kind)
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		got := call(t, o.tool(t, "big"), `{}`)
		runtime.ReadMemStats(&after)
		if len(got.Text) > 1000 {
			t.Errorf("%s: the call answered %d bytes, want a failure naming the cap", kind, len(got.Text))
		} else if got.ErrorType != ErrorUnavailable || !strings.Contains(got.Text, c.want) {
			t.Errorf("%s: the call = %+v, want it unavailable saying %q", kind, got, c.want)
		}
		// What a reader without a cap takes is the body inflated, twice
		// over as io.ReadAll grows its buffer: 800 MB.
		if n := after.TotalAlloc - before.TotalAlloc; n > 200<<20 {
			t.Errorf("%s: the call allocated %d MB, want no more than a few times the cap's 16", kind, n>>20)
		}
		eventually(t, "bomb is connected again", func() bool { return status(t, m, "bomb").State == Connected })
		if got := call(t, o.tool(t, "big"), `{}`); got.Text != "small" {
			t.Errorf("%s: the next call = %+v", kind, got)
		}
	}
}
