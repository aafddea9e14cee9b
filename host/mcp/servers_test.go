package mcp

// Tests against running servers: the npm servers toolroute did not write
// (make mcp-servers installs them) and the Go SDK test server
// (internal/mcptest/testserver), over stdio and Streamable HTTP.

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolroute/toolroute/host"
	"github.com/toolroute/toolroute/internal/catalog"
	"github.com/toolroute/toolroute/internal/checktest"
	"github.com/toolroute/toolroute/internal/mcptest"
	"github.com/toolroute/toolroute/internal/testwait"
	"github.com/toolroute/toolroute/manifests"
	"github.com/toolroute/toolroute/registry"
)

var binDir string

func TestMain(m *testing.M) {
	d, err := os.MkdirTemp("", "toolroute-mcp-test")
	if err != nil {
		panic(err)
	}
	binDir = d
	code := m.Run()
	os.RemoveAll(d)
	os.Exit(code)
}

// fast are the options of the tests: restarts within a test's patience.
var fast = Options{MinBackoff: 200 * time.Millisecond, MaxBackoff: 2 * time.Second, Terminate: 500 * time.Millisecond}

// start starts the servers and waits for their first start.
func start(t *testing.T, opts Options, servers ...ServerConfig) *Manager {
	t.Helper()
	for i := range servers {
		if servers[i].TimeoutSeconds == 0 {
			servers[i].TimeoutSeconds = 30
		}
	}
	m := Start(Config{File: "mcp.json", Servers: servers}, opts)
	t.Cleanup(m.Close)
	ctx, cancel := context.WithTimeout(context.Background(), testwait.Failsafe)
	defer cancel()
	m.Wait(ctx)
	return m
}

// testServer is a ServerConfig for the Go SDK test server with flags.
func testServer(t *testing.T, key string, flags ...string) ServerConfig {
	return ServerConfig{Key: key, Command: mcptest.TestServer(t, binDir), Args: flags}
}

// npm is a ServerConfig for an npm test server over stdio.
func npm(t *testing.T, key, name string, args ...string) ServerConfig {
	argv := mcptest.NPMServer(t, name, args...)
	return ServerConfig{Key: key, Command: argv[0], Args: argv[1:]}
}

// builtin is the catalogue of the built-in JS tools, whose names an MCP
// server's tools must keep clear of.
func builtin(t *testing.T) registry.Catalogue {
	t.Helper()
	f, err := catalog.ReadFolder(manifests.FS, "builtin", false)
	if err != nil {
		t.Fatal(err)
	}
	return f.Catalogue()
}

// catalogue is what the manager offers now, by tool name, with the groups.
type offer struct {
	groups []registry.Group
	tools  []host.NativeTool
}

func offered(t *testing.T, m *Manager, cat registry.Catalogue) offer {
	t.Helper()
	g, tools := m.Tools(checktest.Context(t), cat)
	return offer{g, tools}
}

func (o offer) names(group string) []string {
	var out []string
	for _, t := range o.tools {
		if t.Tool.Group == group {
			out = append(out, t.Tool.Name)
		}
	}
	return out
}

func (o offer) tool(t *testing.T, name string) host.NativeTool {
	t.Helper()
	for _, tl := range o.tools {
		if tl.Tool.Name == name {
			return tl
		}
	}
	t.Fatalf("no tool %s offered; the tools are %v", name, o.names(""))
	return host.NativeTool{}
}

func (o offer) group(t *testing.T, name string) registry.Group {
	t.Helper()
	for _, g := range o.groups {
		if g.Name == name {
			return g
		}
	}
	t.Fatalf("no group %s offered", name)
	return registry.Group{}
}

// call runs a tool as the host would and returns what the model reads.
func call(t *testing.T, tool host.NativeTool, args string) wantFailure {
	t.Helper()
	ctx, cancel := context.WithTimeout(checktest.Context(t), testwait.Failsafe)
	defer cancel()
	out, err := tool.RunOutput(ctx, json.RawMessage(args))
	return failureOf(t, out, err)
}

// wantFailure is what the model reads of a call: its text, and its error
// type when it failed.
type wantFailure struct {
	ErrorType string
	Text      string
	Images    []registry.Image
}

func failureOf(t *testing.T, out host.Output, err error) wantFailure {
	t.Helper()
	if err == nil {
		return wantFailure{Text: out.Text, Images: out.Images}
	}
	var te *host.ToolError
	if !errors.As(err, &te) {
		t.Fatalf("a failure without a type: %v", err)
	}
	return wantFailure{ErrorType: te.Type, Text: te.Message}
}

func status(t *testing.T, m *Manager, key string) Status {
	t.Helper()
	for _, st := range m.Status() {
		if st.Key == key {
			return st
		}
	}
	t.Fatalf("no server %s", key)
	return Status{}
}

// eventually waits for cond, failing with what after 30 s.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(testwait.Failsafe); !cond(); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("after %v: %s", testwait.Failsafe, what)
		}
	}
}

func mustContain(t *testing.T, what, text string, wants ...string) {
	t.Helper()
	for _, w := range wants {
		if !strings.Contains(text, w) {
			t.Errorf("%s lacks %q:\n%s", what, w, text)
		}
	}
}

// The three npm servers over stdio, next to the built-in tools: each is a
// group named for its key, with its tools named valid and clear of the
// built-in ones, approval from their annotations, and calls whose results
// read as the rules say.
func TestNPMServers(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "sk-must-not-reach-servers")
	root := t.TempDir()
	memory := npm(t, "memory", "server-memory")
	memory.Env = map[string]string{"MEMORY_FILE_PATH": filepath.Join(t.TempDir(), "memory.jsonl")}
	m := start(t, Options{}, npm(t, "everything", "server-everything", "stdio"), npm(t, "filesystem", "server-filesystem", root), memory)
	o := offered(t, m, builtin(t))

	for _, st := range m.Status() {
		if st.State != Connected || !st.OK() || st.Protocol != "2025-11-25" || st.Transport != "stdio" {
			t.Errorf("%s: %+v", st.Key, st)
		}
	}
	if diff := cmp.Diff([]string{"echo", "get_annotated_message", "get_env", "get_resource_links", "get_resource_reference",
		"get_structured_content", "get_sum", "get_tiny_image", "gzip_file_as_resource", "toggle_simulated_logging",
		"toggle_subscriber_updates", "trigger_long_running_operation", "simulate_research_query"}, o.names("everything")); diff != "" {
		t.Errorf("everything's tools (-want +got):\n%s", diff)
	}
	// read_file and write_file are built-in tools' names.
	if diff := cmp.Diff([]string{"filesystem_read_file", "read_text_file", "read_media_file", "read_multiple_files", "filesystem_write_file",
		"edit_file", "create_directory", "list_directory", "list_directory_with_sizes", "directory_tree", "move_file",
		"search_files", "get_file_info", "list_allowed_directories"}, o.names("filesystem")); diff != "" {
		t.Errorf("filesystem's tools (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"create_entities", "create_relations", "add_observations", "delete_entities", "delete_observations",
		"delete_relations", "read_graph", "search_nodes", "open_nodes"}, o.names("memory")); diff != "" {
		t.Errorf("memory's tools (-want +got):\n%s", diff)
	}
	if g := o.group(t, "everything"); g.DisplayName != "Everything Reference Server" || g.Description != "Everything Server – Server Instructions" {
		t.Errorf("everything's group: %+v", g)
	}
	if g := o.group(t, "memory"); g.DisplayName != "memory-server" || !strings.HasPrefix(g.Description, "Tools: create_entities, create_relations,") {
		t.Errorf("memory's group: %+v", g)
	}
	for name, want := range map[string]string{"get_sum": "read", "filesystem_write_file": "delete", "create_directory": "write",
		"create_entities": "write", "delete_entities": "delete", "read_graph": "read"} {
		if got := o.tool(t, name).Tool.RequiredPermissions; !slices.Equal(got, []string{want}) {
			t.Errorf("%s asks for %v, want %s", name, got, want)
		}
	}
	if d := o.tool(t, "get_sum").Tool.Description; !strings.HasSuffix(d, ` (MCP tool "get-sum")`) {
		t.Errorf("get_sum's description does not name the MCP tool: %q", d)
	}

	for _, c := range []struct {
		tool, args string
		want       wantFailure
		contains   []string
		png        bool // the result carries one PNG image
	}{
		{tool: "get_sum", args: `{"a":2,"b":3}`, want: wantFailure{Text: "The sum of 2 and 3 is 5."}},
		{tool: "echo", args: `{"message":"hi"}`, want: wantFailure{Text: "Echo: hi"}},
		{tool: "get_tiny_image", args: `{}`, contains: []string{"[image image/png, ", " bytes]"}, png: true},
		{tool: "get_resource_links", args: `{"count":2}`, contains: []string{"[resource ", ": demo://resource/"}},
		{tool: "get_resource_reference", args: `{"resourceType":"Text","resourceId":3}`, contains: []string{"[resource demo://resource/dynamic/text/3]\n"}},
		// A blob of text is its text to the model.
		{tool: "get_resource_reference", args: `{"resourceType":"Blob","resourceId":1}`, contains: []string{"[resource demo://resource/dynamic/blob/1]\nResource 1: This is a base64 blob"}},
		{tool: "get_structured_content", args: `{"location":"New York"}`, contains: []string{`"temperature":`}},
		{tool: "filesystem_write_file", args: fmt.Sprintf(`{"path":%q,"content":"hello from toolroute"}`, filepath.Join(root, "a.txt")), contains: []string{"Successfully wrote"}},
		{tool: "filesystem_read_file", args: fmt.Sprintf(`{"path":%q}`, filepath.Join(root, "a.txt")), want: wantFailure{Text: "hello from toolroute"}},
		{tool: "read_text_file", args: `{"path":"/etc/hostname"}`, want: wantFailure{ErrorType: ErrorTool}, contains: []string{"Access denied"}},
		{tool: "create_entities", args: `{"entities":[{"name":"Ada","entityType":"person","observations":["wrote the first program"]}]}`, contains: []string{`"Ada"`}},
		{tool: "read_graph", args: `{}`, contains: []string{"wrote the first program"}},
	} {
		t.Run(c.tool, func(t *testing.T) {
			got := call(t, o.tool(t, c.tool), c.args)
			mustContain(t, c.tool, got.Text, c.contains...)
			if c.contains != nil {
				c.want.Text = got.Text
			}
			if c.png {
				if len(got.Images) != 1 || got.Images[0].MIMEType != "image/png" {
					t.Fatalf("images: %+v", got.Images)
				}
				data, err := base64.StdEncoding.DecodeString(got.Images[0].Data)
				if err != nil || !bytes.HasPrefix(data, []byte("\x89PNG\r\n")) {
					t.Errorf("the image is not a PNG in base64: %v %q", err, got.Images[0].Data[:min(20, len(got.Images[0].Data))])
				}
				c.want.Images = got.Images
			}
			if diff := cmp.Diff(c.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}

	// A server gets a few of toolroute's variables, not its secrets.
	env := call(t, o.tool(t, "get_env"), `{}`)
	mustContain(t, "get_env", env.Text, `"PATH"`)
	if strings.Contains(env.Text, "sk-must-not-reach-servers") || strings.Contains(env.Text, "OPENAI_API_KEY") {
		t.Errorf("the server saw toolroute's secret:\n%s", env.Text)
	}

	// The JS SDK answers a tool it does not know with isError, not a
	// JSON-RPC error (the Go test server sends one: TestGoServerCalls).
	_, err := m.servers[0].call(checktest.Context(t), "no-such-tool", json.RawMessage(`{}`))
	if got := failureOf(t, host.Output{}, err); !cmp.Equal(got, wantFailure{ErrorType: ErrorTool, Text: "MCP error -32602: Tool no-such-tool not found"}) {
		t.Errorf("an unknown tool: %+v", got)
	}
}

// server-everything over Streamable HTTP.
func TestNPMServerHTTP(t *testing.T) {
	port := mcptest.FreePort(t)
	mcptest.StartHTTP(t, port, []string{fmt.Sprintf("PORT=%d", port)}, mcptest.NPMServer(t, "server-everything", "streamableHttp")...)
	m := start(t, Options{}, ServerConfig{Key: "everything", URL: fmt.Sprintf("http://127.0.0.1:%d/mcp", port), Headers: map[string]string{"X-Test": "1"}})
	st := status(t, m, "everything")
	if st.State != Connected || st.Transport != "http" || st.Protocol != "2025-11-25" {
		t.Fatalf("%+v", st)
	}
	o := offered(t, m, builtin(t))
	if n := len(o.names("everything")); n != 13 {
		t.Errorf("%d tools over HTTP, want the 13 of stdio: %v", n, o.names("everything"))
	}
	if got := call(t, o.tool(t, "get_sum"), `{"a":40,"b":2}`); !cmp.Equal(got, wantFailure{Text: "The sum of 40 and 2 is 42."}) {
		t.Errorf("get_sum: %+v", got)
	}
}

// The Go SDK test server over Streamable HTTP (a session of 2025-11-25: its
// handler keeps sessions); a tool it adds reaches toolroute on the
// notification stream.
func TestGoServerHTTP(t *testing.T) {
	port := mcptest.FreePort(t)
	mcptest.StartHTTP(t, port, nil, mcptest.TestServer(t, binDir), "-http", fmt.Sprintf("127.0.0.1:%d", port))
	m := start(t, fast, ServerConfig{Key: "remote", URL: fmt.Sprintf("http://127.0.0.1:%d/mcp", port)})
	st := status(t, m, "remote")
	if st.State != Connected || st.Protocol != "2025-11-25" || st.Server != "toolroute-testserver 1.0.0" {
		t.Fatalf("%+v", st)
	}
	var changes atomic.Int32
	m.OnChange(func() { changes.Add(1) })
	o := offered(t, m, registry.Catalogue{})
	if got := call(t, o.tool(t, "echo"), `{"text":"over http"}`); got.Text != "over http" {
		t.Errorf("echo: %+v", got)
	}
	if got := call(t, o.tool(t, "add_tool"), `{"name":"fresh"}`); got.Text != "added fresh" {
		t.Fatalf("add_tool: %+v", got)
	}
	eventually(t, "fresh is offered", func() bool { return slices.Contains(offered(t, m, registry.Catalogue{}).names("remote"), "fresh") })
	if changes.Load() == 0 {
		t.Error("the host was not told")
	}
}

// A Streamable HTTP server that goes away: the call fails as unavailable,
// and the server is reached again once it is back.
func TestHTTPServerGone(t *testing.T) {
	port := mcptest.FreePort(t)
	argv := []string{mcptest.TestServer(t, binDir), "-http", fmt.Sprintf("127.0.0.1:%d", port)}
	proc := mcptest.StartHTTP(t, port, nil, argv...)
	m := start(t, fast, ServerConfig{Key: "remote", URL: fmt.Sprintf("http://127.0.0.1:%d/mcp", port)})
	o := offered(t, m, registry.Catalogue{})
	proc.Process.Kill()
	proc.Wait()
	got := call(t, o.tool(t, "echo"), `{"text":"anyone?"}`)
	if got.ErrorType != ErrorUnavailable {
		t.Fatalf("echo with the server gone: %+v", got)
	}
	// Refused, or cut off while the process died.
	mustContain(t, "the failure", got.Text, "MCP server 'remote' is unavailable: the request to it failed: Post \"http://127.0.0.1:", ". toolroute starts it again in ")
	if st := status(t, m, "remote"); st.State != Down {
		t.Errorf("with the server gone: %+v", st)
	}
	proc = mcptest.StartHTTP(t, port, nil, argv...)
	eventually(t, "remote is connected again", func() bool { return status(t, m, "remote").State == Connected })
	if got := call(t, o.tool(t, "echo"), `{"text":"back"}`); got.Text != "back" {
		t.Errorf("after the restart: %+v", got)
	}

	// Restarted behind toolroute's back, the server no longer knows the
	// session: the call says so, and toolroute starts a new one.
	proc.Process.Kill()
	proc.Wait()
	mcptest.StartHTTP(t, port, nil, argv...)
	got = call(t, o.tool(t, "echo"), `{"text":"who?"}`)
	if got.ErrorType != ErrorUnavailable || !strings.HasPrefix(got.Text, "MCP server 'remote' is unavailable: it no longer knows toolroute's session (it was restarted). ") {
		t.Errorf("a call in a session the server forgot: %+v", got)
	}
	eventually(t, "remote is connected again", func() bool { return status(t, m, "remote").State == Connected })
	if got := call(t, o.tool(t, "echo"), `{"text":"new session"}`); got.Text != "new session" {
		t.Errorf("in the new session: %+v", got)
	}
}

// A server listing its tools over pages gives them all.
func TestPagination(t *testing.T) {
	m := start(t, fast, testServer(t, "paged", "-page-size", "3", "-extra", "10"))
	names := offered(t, m, registry.Catalogue{}).names("paged")
	if len(names) != 20 {
		t.Fatalf("%d tools, want 10 and 10 extra over pages of 3: %v", len(names), names)
	}
	for i := range 10 {
		if !slices.Contains(names, fmt.Sprintf("extra_%03d", i)) {
			t.Errorf("extra_%03d is missing: %v", i, names)
		}
	}
}

// The Go test server's tools: a name the built-ins have, a name made
// valid, and each way a call can fail.
func TestGoServerCalls(t *testing.T) {
	m := start(t, fast, testServer(t, "go-test", "-instructions", "Tools for toolroute's tests.\nMore lines."))
	if st := status(t, m, "go-test"); st.Protocol != "2026-07-28" {
		t.Errorf("over stdio the Go SDK's client and server agree on %q, want the stateless 2026-07-28", st.Protocol)
	}
	o := offered(t, m, builtin(t))
	if g := o.group(t, "go_test"); g != (registry.Group{Name: "go_test", DisplayName: "Test Server", Description: "Tools for toolroute's tests."}) {
		t.Errorf("group %+v", g)
	}
	st := status(t, m, "go-test")
	var renamed []string
	for _, n := range st.Tools {
		if n.Renamed() {
			renamed = append(renamed, n.MCPName+" → "+n.Name)
		}
	}
	slices.Sort(renamed)
	if want := []string{"get_current_time → go_test_get_current_time", "say-hi → say_hi"}; !slices.Equal(renamed, want) {
		t.Errorf("renamed %v, want %v", renamed, want)
	}
	for _, c := range []struct {
		tool, args string
		want       wantFailure
	}{
		{"echo", `{"text":"hello"}`, wantFailure{Text: "hello"}},
		{"say_hi", `{}`, wantFailure{Text: "hi"}},
		{"go_test_get_current_time", `{}`, wantFailure{Text: "noon"}},
		{"fail", `{}`, wantFailure{ErrorType: ErrorTool, Text: "the disk is full"}},
		{"rpc_error", `{}`, wantFailure{ErrorType: ErrorMCP, Text: "MCP server 'go-test' answered error -32042: the frobnicator is offline"}},
	} {
		if got := call(t, o.tool(t, c.tool), c.args); !cmp.Equal(got, c.want) {
			t.Errorf("%s: %+v, want %+v", c.tool, got, c.want)
		}
	}
}

// A result that is not text: the model reads a placeholder for audio and
// for a PDF, and gets the PDF beside the text as a document; the result
// itself goes with the output, whole, for toolroute mcp's clients; and a
// tool's outputSchema is kept, for toolroute mcp to offer.
func TestRichResults(t *testing.T) {
	m := start(t, fast, testServer(t, "lab", "-rich"), npm(t, "everything", "server-everything", "stdio"))
	o := offered(t, m, builtin(t))
	ctx, cancel := context.WithTimeout(checktest.Context(t), testwait.Failsafe)
	defer cancel()

	out, err := o.tool(t, "play_tone").RunOutput(ctx, json.RawMessage(`{}`))
	if err != nil || out.Text != "A tone:\n\n[audio audio/wav, 16 bytes]" || len(out.Images) != 0 || len(out.Documents) != 0 {
		t.Errorf("play_tone: %v %+v", err, out)
	}
	var res mcp.CallToolResult
	if err := json.Unmarshal(out.MCP, &res); err != nil || len(res.Content) != 2 {
		t.Errorf("play_tone's result, kept whole: %v %s", err, out.MCP)
	} else if a, ok := res.Content[1].(*mcp.AudioContent); !ok || !bytes.HasPrefix(a.Data, []byte("RIFF")) {
		t.Errorf("play_tone's audio: %+v", res.Content[1])
	}

	out, err = o.tool(t, "get_report").RunOutput(ctx, json.RawMessage(`{}`))
	if err != nil || out.Text != "The report:\n\n[resource file:///reports/q3.pdf: application/pdf, 15 bytes]" {
		t.Errorf("get_report: %v %q", err, out.Text)
	}
	if len(out.Documents) != 1 || out.Documents[0].MIMEType != "application/pdf" || out.Documents[0].Name != "file:///reports/q3.pdf" {
		t.Fatalf("get_report's documents: %+v", out.Documents)
	}
	if data, err := base64.StdEncoding.DecodeString(out.Documents[0].Data); err != nil || !bytes.HasPrefix(data, []byte("%PDF-1.4\n")) {
		t.Errorf("get_report's PDF: %v %q", err, out.Documents[0].Data)
	}

	if got := string(o.tool(t, "get_structured_content").Tool.OutputSchema); !strings.Contains(got, `"temperature"`) || !strings.HasPrefix(got, `{"$schema":`) || !strings.Contains(got, `"required":["temperature","conditions","humidity"],"type":"object"}`) {
		t.Errorf("get_structured_content's outputSchema, keys sorted: %s", got)
	}
	if got := o.tool(t, "get_sum").Tool.OutputSchema; got != nil {
		t.Errorf("get_sum has no outputSchema, but got %s", got)
	}
}

// notifications/tools/list_changed in the middle of a session: a tool the
// server adds during a call is in the catalogue when the call returns (the
// host was told and reloaded first), and so is one it removes.
func TestListChanged(t *testing.T) {
	m := start(t, fast, testServer(t, "dyn"))
	var changes atomic.Int32
	var seen atomic.Value
	m.OnChange(func() {
		changes.Add(1)
		seen.Store(offered(t, m, registry.Catalogue{}).names("dyn"))
	})
	o := offered(t, m, registry.Catalogue{})
	if got := call(t, o.tool(t, "add_tool"), `{"name":"shout"}`); got.Text != "added shout" {
		t.Fatalf("add_tool: %+v", got)
	}
	if changes.Load() == 0 || !slices.Contains(seen.Load().([]string), "shout") {
		t.Fatalf("add_tool returned before the host heard of shout (%d changes)", changes.Load())
	}
	o = offered(t, m, registry.Catalogue{})
	if got := call(t, o.tool(t, "shout"), `{}`); got.Text != "shout ran" {
		t.Errorf("shout: %+v", got)
	}
	if got := call(t, o.tool(t, "remove_tool"), `{"name":"shout"}`); got.Text != "removed shout" {
		t.Fatalf("remove_tool: %+v", got)
	}
	if slices.Contains(seen.Load().([]string), "shout") {
		t.Errorf("shout is still offered after remove_tool: %v", seen.Load())
	}
}

// A server that will not start is reported, with what it said, and tried
// again with backoff; every other server works meanwhile.
func TestWillNotStart(t *testing.T) {
	starts := filepath.Join(t.TempDir(), "starts")
	m := start(t, Options{MinBackoff: 100 * time.Millisecond, MaxBackoff: 400 * time.Millisecond},
		ServerConfig{Key: "missing", Command: filepath.Join(t.TempDir(), "no-such-server")},
		testServer(t, "broken", "-exit-at-start", "config missing: set NOTES_DIR", "-starts", starts),
		testServer(t, "fine"))
	missing := status(t, m, "missing")
	if missing.State != Down || !strings.HasPrefix(missing.Error, "it could not be started: fork/exec ") ||
		!strings.HasSuffix(missing.Error, `no such file or directory (check "command" in its entry)`) || missing.RetryAt.IsZero() {
		t.Errorf("missing: %+v", missing)
	}
	broken := status(t, m, "broken")
	if broken.State != Down || broken.Error != `it exited during the MCP handshake (exit status 1); it wrote: "config missing: set NOTES_DIR"` {
		t.Errorf("broken: %+v", broken)
	}
	o := offered(t, m, registry.Catalogue{})
	if n := o.names("missing"); len(n) != 0 {
		t.Errorf("a server never started offers %v", n)
	}
	if got := call(t, o.tool(t, "echo"), `{"text":"still here"}`); got.Text != "still here" {
		t.Errorf("the other server: %+v", got)
	}
	mustContain(t, "the problems", strings.Join(Problems(m.Status()), "\n"),
		"MCP server 'missing' is down: it could not be started: ", "toolroute starts it again in ",
		`MCP server 'broken' is down: it exited during the MCP handshake (exit status 1); it wrote: "config missing: set NOTES_DIR"`)
	// Tried again 100, 200, 400, 400 ms after each failure: by now (the
	// checks above took a second or more) it waits 400 ms between starts,
	// where a fixed 100 ms would start it about 12 times in 1.2 s. A busy
	// machine makes fewer starts (each is slower), never more: the bound is
	// what the backoff allows in the time the sleep took.
	count := func() int { b, _ := os.ReadFile(starts); return strings.Count(string(b), "\n") }
	before, from := count(), time.Now()
	time.Sleep(1200 * time.Millisecond)
	if n, took := count()-before, time.Since(from); n > 2+int(took/(400*time.Millisecond)) {
		t.Errorf("%d starts in %v, want one every 400 ms at most", n, took.Round(time.Millisecond))
	}
	eventually(t, "the broken server was started three times", func() bool { return count() >= 3 })
}

// A stdio server whose process takes longer to start than its
// timeoutSeconds (fourteen starting at once on a busy machine): it was
// reported down, the handshake's timeout counting its start-up. It is
// starting while it starts, Wait does not hold the program for it, and it
// connects on its first start; a process that never answers is stopped
// after Options.Startup.
func TestSlowStart(t *testing.T) {
	dir := t.TempDir()
	starts := filepath.Join(dir, "starts")
	slow := filepath.Join(dir, "slow-start")
	script := "#!/bin/sh\nsleep 3\nexec '" + mcptest.TestServer(t, binDir) + "' \"$@\"\n"
	if err := os.WriteFile(slow, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	m := Start(Config{File: "mcp.json", Servers: []ServerConfig{{Key: "slow", Command: slow, Args: []string{"-starts", starts}, TimeoutSeconds: 1}}}, fast)
	t.Cleanup(m.Close)
	m.Ready(t.Context())
	if st := status(t, m, "slow"); st.State == Down {
		t.Fatalf("while its process starts: %+v", st)
	}
	eventually(t, "slow is connected", func() bool { return status(t, m, "slow").State == Connected })
	if got := call(t, offered(t, m, registry.Catalogue{}).tool(t, "echo"), `{"text":"late but here"}`); got.Text != "late but here" {
		t.Errorf("its tool: %+v", got)
	}
	if b, _ := os.ReadFile(starts); strings.Count(string(b), "\n") != 1 {
		t.Errorf("started %d times, want once:\n%s", strings.Count(string(b), "\n"), b)
	}

	silent := filepath.Join(dir, "silent")
	if err := os.WriteFile(silent, []byte("#!/bin/sh\necho 'listening on nothing' >&2\nexec sleep 600\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	opts := fast
	opts.Startup = time.Second
	m = start(t, opts, ServerConfig{Key: "silent", Command: silent, TimeoutSeconds: 30})
	eventually(t, "silent is down", func() bool { return status(t, m, "silent").State == Down })
	if st := status(t, m, "silent"); st.Error != `it did not answer the MCP handshake within 1 s of being started, so toolroute stopped it; it wrote: "listening on nothing"` {
		t.Errorf("silent: %+v", st)
	}
}

// The wait before a restart: 1 s, doubling with each failure in a row, at
// most 60 s; a session that stayed up a minute starts the count again.
func TestBackoff(t *testing.T) {
	s := newServer(ServerConfig{Key: "x", Command: "x", TimeoutSeconds: 1}, &hub{})
	var waits []time.Duration
	for range 8 {
		s.end(nil, "it would not start")
		waits = append(waits, time.Until(s.retryAt).Round(time.Second))
	}
	want := []time.Duration{1, 2, 4, 8, 16, 32, 60, 60}
	for i := range want {
		want[i] *= time.Second
	}
	if !slices.Equal(waits, want) {
		t.Errorf("waits %v, want %v", waits, want)
	}
	// A session that lasted a minute, then crashed.
	sess := &session{ended: make(chan struct{})}
	s.sess, s.upSince = sess, time.Now().Add(-61*time.Second)
	s.end(sess, "it exited (exit status 1)")
	if w := time.Until(s.retryAt).Round(time.Second); w != time.Second || s.state != Down {
		t.Errorf("after a long session: wait %v, state %s", w, s.state)
	}
	// The first reason a session ended for is the one kept.
	s.end(sess, "something else")
	if s.why != "it exited (exit status 1)" {
		t.Errorf("why = %q", s.why)
	}
}

// A server that crashes during a call: the call fails as unavailable with
// the exit status and what the server wrote, its group keeps its tools, the
// other server keeps working, and it is started again.
func TestCrashAndRestart(t *testing.T) {
	m := start(t, fast, testServer(t, "crashy"), testServer(t, "steady"))
	o := offered(t, m, registry.Catalogue{})
	got := call(t, o.tool(t, "crash"), `{}`)
	if got.ErrorType != ErrorUnavailable {
		t.Fatalf("crash: %+v", got)
	}
	mustContain(t, "the failure", got.Text, `MCP server 'crashy' is unavailable: it exited (exit status 3); it wrote: "crashing on purpose". toolroute starts it again in `,
		"try the call again then, or do without this tool.", "The call may or may not have taken effect")
	if n := offered(t, m, registry.Catalogue{}).names("crashy"); len(n) != 10 {
		t.Errorf("while down, the group offers %v", n)
	}
	if got := call(t, o.tool(t, "steady_echo"), `{"text":"unaffected"}`); got.Text != "unaffected" {
		t.Errorf("the other server: %+v", got)
	}
	eventually(t, "crashy is connected again", func() bool { return status(t, m, "crashy").State == Connected })
	// The tools named before the crash run on the new process.
	if got := call(t, o.tool(t, "echo"), `{"text":"back"}`); got.Text != "back" {
		t.Errorf("after the restart: %+v", got)
	}
}

// A call while the server is being started again after a crash: it said
// "toolroute starts it again in 1 s" for as long as the restart took (the
// retry time, passed, counted as at least 1 s). It says the server is
// starting again now, and so do the status and the problems. The restart
// here waits for a file the test writes, so the call lands during it.
func TestRestartSaysStarting(t *testing.T) {
	dir := t.TempDir()
	starts, gate := filepath.Join(dir, "starts"), filepath.Join(dir, "gate")
	script := filepath.Join(dir, "server")
	body := "#!/bin/sh\nif [ -s '" + starts + "' ]; then while [ ! -e '" + gate + "' ]; do sleep 0.05; done; fi\nexec '" +
		mcptest.TestServer(t, binDir) + "' -starts '" + starts + "' \"$@\"\n"
	if err := os.WriteFile(script, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	m := start(t, fast, ServerConfig{Key: "crashy", Command: script})
	o := offered(t, m, registry.Catalogue{})
	if got := call(t, o.tool(t, "crash"), `{}`); got.ErrorType != ErrorUnavailable {
		t.Fatalf("crash: %+v", got)
	}
	down := status(t, m, "crashy")
	if down.State != Down {
		t.Fatalf("after the crash: %+v", down)
	}
	eventually(t, "the retry time passes", func() bool { return time.Now().After(down.RetryAt.Add(100 * time.Millisecond)) })
	got := call(t, o.tool(t, "echo"), `{"text":"hi"}`)
	mustContain(t, "a call during the restart", got.Text, "MCP server 'crashy' is unavailable: it exited (exit status 3)",
		"toolroute is starting it again now: try the call again in a few seconds")
	if st := status(t, m, "crashy"); st.State != Starting || !strings.Contains(st.Error, "exit status 3") {
		t.Errorf("status during the restart: %+v", st)
	}
	if p := Problems(m.Status()); len(p) != 1 || !strings.HasPrefix(p[0], "MCP server 'crashy' is starting again; it was down: it exited (exit status 3)") {
		t.Errorf("problems during the restart: %q", p)
	}
	if err := os.WriteFile(gate, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	eventually(t, "crashy is connected again", func() bool { return status(t, m, "crashy").State == Connected })
	if got := call(t, o.tool(t, "echo"), `{"text":"back"}`); got.Text != "back" {
		t.Errorf("after the restart: %+v", got)
	}
}

// A call the server never answers fails as unavailable after the server's
// timeout; the server is stopped and started again.
func TestHang(t *testing.T) {
	starts := filepath.Join(t.TempDir(), "starts")
	cfg := testServer(t, "slow", "-starts", starts)
	cfg.TimeoutSeconds = 1
	m := start(t, fast, cfg)
	o := offered(t, m, registry.Catalogue{})
	began := time.Now()
	got := call(t, o.tool(t, "hang"), `{}`)
	// A call the timeout did not end would wait for call's context, the
	// failsafe: half of it is far more than a busy machine takes.
	if took := time.Since(began); took > testwait.Failsafe/2 {
		t.Errorf("the hung call took %s", took)
	}
	if got.ErrorType != ErrorUnavailable {
		t.Fatalf("hang: %+v", got)
	}
	mustContain(t, "the failure", got.Text, "MCP server 'slow' is unavailable: it did not answer a call of hang within 1 s, so toolroute stopped it. toolroute starts it again in ")
	eventually(t, "slow is connected again", func() bool { return status(t, m, "slow").State == Connected })
	if got := call(t, o.tool(t, "echo"), `{"text":"awake"}`); got.Text != "awake" {
		t.Errorf("after the restart: %+v", got)
	}
	// Closing leaves no server running: not the new one, nor the one
	// that hung, which was still being stopped in the background.
	m.Close()
	b, err := os.ReadFile(starts)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) != 2 {
		t.Fatalf("the server started %d times, want 2:\n%s", len(lines), b)
	}
	for _, line := range lines {
		_, field, _ := strings.Cut(line, " ")
		pid, err := strconv.Atoi(field)
		if err != nil {
			t.Fatalf("start line %q: %v", line, err)
		}
		if p, err := os.FindProcess(pid); err == nil && p.Signal(syscall.Signal(0)) == nil {
			t.Errorf("process %d still runs after Close", pid)
		}
	}
}

// A server that writes what is not JSON-RPC on stdout, at the handshake or
// during a call, is down with that said, and started again.
func TestGarbage(t *testing.T) {
	m := start(t, fast, testServer(t, "noisy", "-garbage"), testServer(t, "later"))
	if st := status(t, m, "noisy"); st.State != Down || !strings.HasPrefix(st.Error, "it answered the MCP handshake with something that is not MCP: ") {
		t.Errorf("noisy: %+v", st)
	}
	o := offered(t, m, registry.Catalogue{})
	got := call(t, o.tool(t, "garble"), `{}`)
	if got.ErrorType != ErrorUnavailable {
		t.Fatalf("garble: %+v", got)
	}
	mustContain(t, "the failure", got.Text, "MCP server 'later' is unavailable: it sent something that is not MCP: invalid character",
		"The call may or may not have taken effect")
	eventually(t, "later is connected again", func() bool { return status(t, m, "later").State == Connected })
	if got := call(t, o.tool(t, "echo"), `{"text":"clean"}`); got.Text != "clean" {
		t.Errorf("after the restart: %+v", got)
	}
}

// A stdio server is started by the first call of one of its tools, not at
// every start of the program: its tools from its last run (the cache file,
// with its config entry's hash) are listed meanwhile. A changed entry is
// not trusted, and Eager starts every server at once.
func TestLazyStart(t *testing.T) {
	dir := t.TempDir()
	starts := filepath.Join(dir, "starts")
	opts := fast
	opts.CacheFile = filepath.Join(dir, CacheFile)
	cfg := testServer(t, "lab", "-starts", starts)
	count := func() int {
		b, _ := os.ReadFile(starts)
		return strings.Count(string(b), "\n")
	}

	first := start(t, opts, cfg)
	if st := status(t, first, "lab"); st.State != Connected || st.Cached || !st.Started {
		t.Fatalf("the first run, with no cache: %+v", st)
	}
	first.Close()
	if count() != 1 {
		t.Fatalf("started %d times", count())
	}

	m := start(t, opts, cfg)
	st := status(t, m, "lab")
	if st.State != Known || !st.Cached || st.Started || !st.OK() || count() != 1 {
		t.Fatalf("the next run, before a call: %+v, %d starts", st, count())
	}
	o := offered(t, m, registry.Catalogue{})
	if n := o.names("lab"); !slices.Contains(n, "echo") || len(n) != 10 {
		t.Errorf("the cached tools: %v", n)
	}
	if got := call(t, o.tool(t, "echo"), `{"text":"woken"}`); got.Text != "woken" {
		t.Errorf("the first call: %+v", got)
	}
	if st := status(t, m, "lab"); st.State != Connected || !st.Started || count() != 2 {
		t.Errorf("after the first call: %+v, %d starts", st, count())
	}
	m.Close()

	changed := cfg
	changed.Env = map[string]string{"LAB": "2"}
	if st := status(t, start(t, opts, changed), "lab"); st.State != Connected || st.Cached {
		t.Errorf("with its entry changed: %+v", st)
	}
	eager := opts
	eager.Eager = true
	if st := status(t, start(t, eager, changed), "lab"); st.State != Connected || !st.Cached {
		t.Errorf("eager: %+v", st)
	}
}

// A server never started is stopped by Close at once, and a call after
// Close does not start it.
func TestLazyClose(t *testing.T) {
	dir := t.TempDir()
	opts := fast
	opts.CacheFile = filepath.Join(dir, CacheFile)
	cfg := testServer(t, "lab")
	start(t, opts, cfg).Close()
	m := start(t, opts, cfg)
	echo := offered(t, m, registry.Catalogue{}).tool(t, "echo")
	m.Close()
	if got := call(t, echo, `{"text":"late"}`); got.ErrorType != ErrorUnavailable {
		t.Errorf("a call after Close: %+v", got)
	}
	if st := status(t, m, "lab"); st.State != Known {
		t.Errorf("after Close: %+v", st)
	}
}

// resultCase is one of testdata/mcpresults/cases.json: what the model
// reads of a call of a server-everything tool, the JS host's MCP client's
// too (web/packages/toolroute/test/mcp-results.test.js).
type resultCase struct {
	Name         string          `json:"name"`
	Tool         string          `json:"tool"`
	Args         json.RawMessage `json:"args"`
	Text         *string         `json:"text"`
	TextContains []string        `json:"text_contains"`
	Images       []string        `json:"images"`
	Documents    []string        `json:"documents"`
}

// TestResultCases replays testdata/mcpresults/cases.json.
func TestResultCases(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(mcptest.Root(t), "testdata", "mcpresults", "cases.json"))
	if err != nil {
		t.Fatal(err)
	}
	var f struct{ Cases []resultCase }
	if err := json.Unmarshal(data, &f); err != nil {
		t.Fatal(err)
	}
	m := start(t, Options{}, npm(t, "everything", "server-everything", "stdio"))
	o := offered(t, m, builtin(t))
	for _, c := range f.Cases {
		t.Run(c.Name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(checktest.Context(t), testwait.Failsafe)
			defer cancel()
			out, err := o.tool(t, c.Tool).RunOutput(ctx, c.Args)
			if err != nil {
				t.Fatal(err)
			}
			if c.Text != nil && out.Text != *c.Text {
				t.Errorf("text %q, want %q", out.Text, *c.Text)
			}
			mustContain(t, "the text", out.Text, c.TextContains...)
			var images, docs []string
			for _, img := range out.Images {
				images = append(images, img.MIMEType)
			}
			for _, d := range out.Documents {
				docs = append(docs, d.MIMEType)
			}
			if !slices.Equal(images, c.Images) || !slices.Equal(docs, c.Documents) {
				t.Errorf("images %v and documents %v, want %v and %v", images, docs, c.Images, c.Documents)
			}
		})
	}
}
