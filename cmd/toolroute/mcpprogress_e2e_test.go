package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolroute/toolroute/internal/mcptest"
	"github.com/toolroute/toolroute/internal/testwait"
)

// A client's call through toolroute mcp of a tool of an MCP server
// upstream carries the client's progressToken there: server-everything's
// long-running operation sends its progress, which reaches the client
// under the client's token, ahead of the result. A client's
// notifications/cancelled reaches the server too: the Go SDK test
// server's wait tool sees its call cancelled.
func TestServeMCPProgressAndCancel(t *testing.T) {
	u := newUser(t, nil, "")
	calls := filepath.Join(t.TempDir(), "calls")
	mcpServers(t, u.mcpConfig(),
		mcpEntry{"everything", stdio(mcptest.NPMServer(t, "server-everything", "stdio")...)},
		mcpEntry{"lab", stdio(mcptest.TestServer(t, tmpRoot), "-calls", calls)})

	cmd := exec.Command(binary(t), "mcp")
	cmd.Env, cmd.Dir = u.env, u.home
	stderr := &bytes.Buffer{}
	cmd.Stderr = stderr
	ctx, cancel := context.WithTimeout(context.Background(), testwait.Failsafe)
	defer cancel()
	stream := &readOrder{Transport: &mcp.CommandTransport{Command: cmd}}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "e2e", Version: "1"}, &mcp.ClientOptions{Capabilities: &mcp.ClientCapabilities{}}).
		Connect(ctx, stream, nil)
	if err != nil {
		t.Fatalf("connecting to toolroute mcp: %v\n%s", err, stderr)
	}
	defer cs.Close()
	call := func(ctx context.Context, name string, args map[string]any, token any) (*mcp.CallToolResult, error) {
		params := &mcp.CallToolParams{Name: name, Arguments: args}
		if token != nil {
			params.SetProgressToken(token)
		}
		return cs.CallTool(ctx, params)
	}
	// toolroute mcp answers before its servers are up: a group whose
	// server is starting says so, and is loaded once it is up.
	for _, g := range []string{"everything", "lab"} {
		for {
			res, err := call(ctx, "load_tool_group", map[string]any{"group_name": g}, nil)
			starting := false
			if err == nil && res.IsError && len(res.Content) > 0 {
				tc, ok := res.Content[0].(*mcp.TextContent)
				starting = ok && strings.Contains(tc.Text, "is starting")
			}
			if starting && ctx.Err() == nil {
				time.Sleep(100 * time.Millisecond)
				continue
			}
			if err != nil || res.IsError {
				t.Fatalf("loading %s: %v %+v\n%s", g, err, res, stderr)
			}
			break
		}
	}

	stream.reset()
	res, err := call(ctx, "trigger_long_running_operation", map[string]any{"duration": 0.3, "steps": 3}, "client-token")
	if err != nil || res.IsError {
		t.Fatalf("trigger_long_running_operation: %v %+v\n%s", err, res, stderr)
	}
	want := []string{"progress client-token 1/3", "progress client-token 2/3", "progress client-token 3/3", "result"}
	if diff := cmp.Diff(want, stream.reset()); diff != "" {
		t.Errorf("what the client read, in order (-want +got):\n%s", diff)
	}
	// A call without a token asks for no progress upstream.
	if _, err := call(ctx, "trigger_long_running_operation", map[string]any{"duration": 0.2, "steps": 2}, nil); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"result"}, stream.reset()); diff != "" {
		t.Errorf("a call without a progressToken (-want +got):\n%s", diff)
	}

	callCtx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() {
		_, err := call(callCtx, "wait", nil, nil)
		done <- err
	}()
	waitFile(t, calls, "started\n")
	stop()
	if err := <-done; err == nil {
		t.Error("the cancelled call returned no error")
	}
	waitFile(t, calls, "started\ncancelled\n")
	// The server is still up: the cancel was not taken for a hang. (Its
	// echo is lab_echo: server-everything, before it, has one.)
	if res, err := call(ctx, "lab_echo", map[string]any{"text": "still here"}, nil); err != nil || res.IsError {
		t.Errorf("lab_echo after the cancel: %v %+v\n%s", err, res, stderr)
	} else if text := res.Content[0].(*mcp.TextContent).Text; text != "still here" {
		t.Errorf("lab_echo after the cancel: %q", text)
	}
}

// readOrder is a transport that records, in order, the progress
// notifications and results its client reads: the SDK hands a
// notification to its handler apart from the results, so a handler cannot
// tell which came first.
type readOrder struct {
	mcp.Transport
	mu   sync.Mutex
	read []string
}

func (r *readOrder) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := r.Transport.Connect(ctx)
	return &readOrderConn{c, r}, err
}

// reset returns what was read since the last reset.
func (r *readOrder) reset() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	read := r.read
	r.read = nil
	return read
}

type readOrderConn struct {
	mcp.Connection
	r *readOrder
}

func (c *readOrderConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	m, err := c.Connection.Read(ctx)
	var what string
	switch m := m.(type) {
	case *jsonrpc.Request:
		if m.Method == "notifications/progress" {
			var p mcp.ProgressNotificationParams
			json.Unmarshal(m.Params, &p)
			what = fmt.Sprintf("progress %v %v/%v", p.ProgressToken, p.Progress, p.Total)
		}
	case *jsonrpc.Response:
		what = "result"
	}
	if what != "" {
		c.r.mu.Lock()
		c.r.read = append(c.r.read, what)
		c.r.mu.Unlock()
	}
	return m, err
}

// waitFile waits until the file at path holds want.
func waitFile(t *testing.T, path, want string) {
	t.Helper()
	var got []byte
	for deadline := time.Now().Add(testwait.Failsafe); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if got, _ = os.ReadFile(path); string(got) == want {
			return
		}
	}
	t.Fatalf("%s holds %q, want %q", path, got, strings.TrimSpace(want))
}
