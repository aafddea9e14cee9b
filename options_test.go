package toolroute_test

import (
	"context"
	"encoding/json"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"testing"
	"testing/fstest"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolroute/toolroute"
	"github.com/toolroute/toolroute/host"
	"github.com/toolroute/toolroute/host/mcp"
	"github.com/toolroute/toolroute/internal/testcache"
	"github.com/toolroute/toolroute/registry"
	"github.com/toolroute/toolroute/registry/session"
)

var cacheDir string

func TestMain(m *testing.M) {
	os.Exit(testcache.Run(m, &cacheDir))
}

// newHost is New with no provider (the test's own loop makes the model
// calls) and the tests' cache.
func newHost(t *testing.T, o toolroute.Options) *toolroute.Host {
	t.Helper()
	o.CacheDir = testcache.App(cacheDir)
	if o.CacheDir == "" {
		o.CacheDir = "-"
	}
	h, err := toolroute.New(context.Background(), nil, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close(context.Background()) })
	return h
}

// call hands a turn of a new session the model's calls, in order, one
// reply each, and returns the last call's result.
func call(t *testing.T, h *toolroute.Host, calls ...host.ToolCall) host.ToolResult {
	t.Helper()
	ctx := context.Background()
	turn, err := h.Session(t.Name()).Start(ctx, "go")
	if err != nil {
		t.Fatal(err)
	}
	defer turn.Close(ctx)
	var last host.ToolResult
	for _, c := range calls {
		res, err := turn.Reply(ctx, host.ModelReply{Calls: []host.ToolCall{c}})
		if err != nil || len(res) != 1 {
			t.Fatalf("%s: %v, %+v", c.Name, err, res)
		}
		last = res[0]
	}
	return last
}

// shoutTools is a folder of one JS tool with no group.
var shoutTools = fstest.MapFS{
	"shout.json": {Data: []byte(`{"name":"shout","description":"Say a text in capitals","function":"shout",
		"parameters":{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}}`)},
	"shout.js": {Data: []byte(`function shout(args) { return args.text.toUpperCase() + "!"; }`)},
}

// JS tools given as a file system run when called: through ToolFS, and
// through the Host hook, whose tool folders New makes the JS runner for.
func TestJSToolsFromAFileSystem(t *testing.T) {
	for _, c := range []struct {
		name string
		o    toolroute.Options
	}{
		{"ToolFS", toolroute.Options{ToolFS: []fs.FS{shoutTools}}},
		{"Host", toolroute.Options{Host: func(o *host.Options) {
			o.ToolFolders = append(o.ToolFolders, host.ToolFolder{FS: shoutTools, Label: "mine"})
		}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := newHost(t, c.o)
			res := call(t, h, host.ToolCall{ID: "s", Name: "shout", Arguments: `{"text":"hello"}`})
			if res.ErrorType != "" || res.Content != "HELLO!" {
				t.Errorf("shout = %+v, want HELLO!", res)
			}
			out, err := h.CallTool(context.Background(), "shout", json.RawMessage(`{"text":"hi"}`))
			if err != nil || out.Output != "HI!" {
				t.Errorf("CallTool shout = %+v, %v", out, err)
			}
		})
	}
}

// An MCP server given in MCPServers is a tool group the model loads and
// whose tools it calls; a tool its server does not mark read-only asks
// first, and a group's policy lets it run.
func TestMCPServersOption(t *testing.T) {
	srv := mcpsdk.NewServer(&mcpsdk.Implementation{Name: "notes", Version: "1"}, nil)
	mcpsdk.AddTool(srv, &mcpsdk.Tool{Name: "note_count", Description: "How many notes there are"},
		func(context.Context, *mcpsdk.CallToolRequest, struct{}) (*mcpsdk.CallToolResult, any, error) {
			return &mcpsdk.CallToolResult{Content: []mcpsdk.Content{&mcpsdk.TextContent{Text: "3 notes"}}}, nil, nil
		})
	ts := httptest.NewServer(mcpsdk.NewStreamableHTTPHandler(func(*http.Request) *mcpsdk.Server { return srv },
		&mcpsdk.StreamableHTTPOptions{JSONResponse: true}))
	t.Cleanup(ts.Close) // after the host's, whose client holds a stream open

	servers := []mcp.ServerConfig{{Key: "Notes", URL: ts.URL}}
	load := host.ToolCall{ID: "l", Name: "load_tool_group", Arguments: `{"group_name":"notes"}`}
	count := host.ToolCall{ID: "n", Name: "note_count", Arguments: `{}`}
	res := call(t, newHost(t, toolroute.Options{MCPServers: servers}), load, count)
	if res.ErrorType != "approval_needed" {
		t.Errorf("note_count with no one to ask = %+v, want approval_needed", res)
	}
	allowed := toolroute.Options{MCPServers: servers, Policies: []session.Policy{{Group: "notes", Decision: registry.DecisionAllow}}}
	res = call(t, newHost(t, allowed), load, count)
	if res.ErrorType != "" || res.Content != "3 notes" {
		t.Errorf("note_count allowed = %+v, want 3 notes", res)
	}
}

// Policies and Approver as options: a denied tool is refused; a tool that
// asks is refused with no Approver, runs when the Approver allows it, and
// runs unasked when a policy allows it.
func TestPoliciesAndApproverOptions(t *testing.T) {
	clock := host.NativeTool{
		Tool: registry.Tool{Name: "clock_now", Description: "The time now"},
		Run:  func(context.Context, json.RawMessage) (string, error) { return "09:00", nil },
	}
	note := host.NativeTool{
		Tool: registry.Tool{Name: "save_note", Description: "Save a note", RequiredPermissions: []string{"write"}},
		Run:  func(context.Context, json.RawMessage) (string, error) { return "saved", nil },
	}
	tools := []host.NativeTool{clock, note}
	var asked []string
	approver := host.ApproverFunc(func(ctx context.Context, id string, calls []session.Call) ([]session.Approval, error) {
		var out []session.Approval
		for _, c := range calls {
			asked = append(asked, c.Tool)
			out = append(out, session.Approval{ID: c.ID, Answer: session.AnswerOnce})
		}
		return out, nil
	})
	for _, c := range []struct {
		name      string
		o         toolroute.Options
		tool      string
		errorType string
		asked     []string
	}{
		{"deny", toolroute.Options{Policies: []session.Policy{{Tool: "clock_now", Decision: registry.DecisionDeny}}}, "clock_now", "denied", nil},
		{"no one to ask", toolroute.Options{}, "save_note", "approval_needed", nil},
		{"approver", toolroute.Options{Approver: approver}, "save_note", "", []string{"save_note"}},
		{"allow", toolroute.Options{Approver: approver, Policies: []session.Policy{{Tool: "save_note", Decision: registry.DecisionAllow}}}, "save_note", "", nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			asked = nil
			c.o.Tools = tools
			res := call(t, newHost(t, c.o), host.ToolCall{ID: "x", Name: c.tool, Arguments: `{}`})
			if res.ErrorType != c.errorType {
				t.Errorf("%s = %+v, want error type %q", c.tool, res, c.errorType)
			}
			if !slices.Equal(asked, c.asked) {
				t.Errorf("asked about %v, want %v", asked, c.asked)
			}
		})
	}
}
