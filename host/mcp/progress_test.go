package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/toolroute/toolroute/host"
	"github.com/toolroute/toolroute/internal/checktest"
	"github.com/toolroute/toolroute/internal/mcptest"
	"github.com/toolroute/toolroute/internal/testwait"
)

// A call whose caller asks for progress (host.WithProgress) gets
// server-everything's, over stdio all of it, in order, before the call
// returns. Over HTTP the SDK's handler gets it, apart from the result,
// which may overtake it: with 1 s between the steps, the first is sure.
func TestProgress(t *testing.T) {
	port := mcptest.FreePort(t)
	mcptest.StartHTTP(t, port, []string{fmt.Sprintf("PORT=%d", port)}, mcptest.NPMServer(t, "server-everything", "streamableHttp")...)
	argv := mcptest.NPMServer(t, "server-everything", "stdio")
	for _, tc := range []struct {
		name  string
		cfg   ServerConfig
		input string
		steps int
		sure  int // how many reports are sure to come before the call returns
	}{
		{"stdio", ServerConfig{Key: "everything", Command: argv[0], Args: argv[1:]}, `{"duration":0.3,"steps":3}`, 3, 3},
		{"http", ServerConfig{Key: "everything", URL: fmt.Sprintf("http://127.0.0.1:%d/mcp", port)}, `{"duration":2,"steps":2}`, 2, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := start(t, Options{}, tc.cfg)
			tool := offered(t, m, builtin(t)).tool(t, "trigger_long_running_operation")
			var mu sync.Mutex
			var got []host.Progress
			ctx, cancel := context.WithTimeout(checktest.Context(t), testwait.Failsafe)
			defer cancel()
			ctx = host.WithProgress(ctx, func(p host.Progress) {
				mu.Lock()
				defer mu.Unlock()
				got = append(got, p)
			})
			out, err := tool.RunOutput(ctx, json.RawMessage(tc.input))
			if err != nil {
				t.Fatal(err)
			}
			mu.Lock()
			reports := slices.Clone(got)
			mu.Unlock()
			var want []host.Progress
			for i := range tc.steps {
				want = append(want, host.Progress{Progress: float64(i + 1), Total: float64(tc.steps)})
			}
			if len(reports) < tc.sure || len(reports) > tc.steps {
				t.Fatalf("%d reports before the call returned %q, want %d to %d: %+v", len(reports), out.Text, tc.sure, tc.steps, reports)
			}
			if diff := cmp.Diff(want[:len(reports)], reports); diff != "" {
				t.Errorf("the reports (-want +got):\n%s", diff)
			}
		})
	}
}

// A call whose server reports its progress is not cut at the server's
// timeoutSeconds while it does: each report starts the call's time again,
// as in the JS hosts. Twelve steps half a second apart outlast a 3 s
// timeout.
func TestProgressRestartsTheTimeout(t *testing.T) {
	argv := mcptest.NPMServer(t, "server-everything", "stdio")
	m := start(t, Options{}, ServerConfig{Key: "everything", Command: argv[0], Args: argv[1:], TimeoutSeconds: 3})
	tool := offered(t, m, builtin(t)).tool(t, "trigger_long_running_operation")
	ctx, cancel := context.WithTimeout(checktest.Context(t), testwait.Failsafe)
	defer cancel()
	// The host asks every call for its progress (host.runCall).
	ctx = host.WithProgress(ctx, func(host.Progress) {})
	out, err := tool.RunOutput(ctx, json.RawMessage(`{"duration":6,"steps":12}`))
	if err != nil || !strings.Contains(out.Text, "completed") {
		t.Fatalf("the call ended with %q, %v; want it completed", out.Text, err)
	}
}
