package main

// End-to-end tests of `toolroute mcp`: the toolroute binary as an MCP
// server, over stdio and Streamable HTTP, driven by the Go SDK's client as
// Claude Desktop or Cursor would drive it.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolroute/toolroute/host/store"
	"github.com/toolroute/toolroute/internal/mcptest"
	"github.com/toolroute/toolroute/internal/schematokens"
	"github.com/toolroute/toolroute/internal/testwait"
	"github.com/toolroute/toolroute/internal/tokens"
	"github.com/toolroute/toolroute/registry/wire"
)

// mcpPeer is an MCP client session of toolroute mcp, with the
// list_changed notifications it got.
type mcpPeer struct {
	*mcp.ClientSession
	t       testing.TB
	changes chan struct{}
	stderr  *bytes.Buffer
}

// elicitor answers the user's questions, as a client's dialog would.
type elicitor func(*mcp.ElicitRequest) *mcp.ElicitResult

// mcpClient starts `toolroute mcp ARGS` over stdio and connects a client
// to it; elicit, when set, makes it a client that can ask the user.
func (u *user) mcpClient(elicit elicitor, args ...string) *mcpPeer {
	u.t.Helper()
	cmd := exec.Command(binary(u.t), append([]string{"mcp"}, args...)...)
	cmd.Env, cmd.Dir = u.env, u.home
	p := &mcpPeer{t: u.t, changes: make(chan struct{}, 16), stderr: &bytes.Buffer{}}
	cmd.Stderr = p.stderr
	return p.connect(&mcp.CommandTransport{Command: cmd}, elicit, "")
}

func (p *mcpPeer) connect(tr mcp.Transport, elicit elicitor, revision string) *mcpPeer {
	p.t.Helper()
	opts := &mcp.ClientOptions{
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) { p.changes <- struct{}{} },
		Capabilities:           &mcp.ClientCapabilities{}, // no roots
	}
	if elicit != nil {
		opts.ElicitationHandler = func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			return elicit(req), nil
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), testwait.Failsafe)
	defer cancel()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "e2e", Version: "1"}, opts).Connect(ctx, tr, &mcp.ClientSessionOptions{ProtocolVersion: revision})
	if err != nil {
		p.t.Fatalf("connecting to toolroute mcp: %v\nits stderr:\n%s", err, p.stderr)
	}
	p.ClientSession = cs
	p.t.Cleanup(func() { cs.Close() })
	return p
}

func (p *mcpPeer) tools() []*mcp.Tool {
	p.t.Helper()
	res, err := p.ListTools(context.Background(), nil)
	if err != nil {
		p.t.Fatalf("tools/list: %v\n%s", err, p.stderr)
	}
	return res.Tools
}

func (p *mcpPeer) names() []string {
	p.t.Helper()
	var names []string
	for _, tl := range p.tools() {
		names = append(names, tl.Name)
	}
	return names
}

// call calls a tool and returns its text and whether it failed.
func (p *mcpPeer) call(name, args string) (string, bool) {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), testwait.Failsafe)
	defer cancel()
	res, err := p.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: json.RawMessage(args)})
	if err != nil {
		p.t.Fatalf("%s %s: %v\n%s", name, args, err, p.stderr)
	}
	var texts []string
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			texts = append(texts, tc.Text)
		}
	}
	return strings.Join(texts, "\n"), res.IsError
}

// ok calls a tool that must succeed and returns its text.
func (p *mcpPeer) ok(name, args string) string {
	p.t.Helper()
	text, failed := p.call(name, args)
	if failed {
		p.t.Fatalf("%s %s failed: %s", name, args, text)
	}
	return text
}

func (p *mcpPeer) waitChange() {
	p.t.Helper()
	select {
	case <-p.changes:
	case <-time.After(testwait.Failsafe):
		p.t.Fatalf("no notifications/tools/list_changed\n%s", p.stderr)
	}
}

// waitGroups waits until load_tool_group's listing has each group:
// toolroute mcp answers before its MCP servers are up, and each that comes
// up later arrives with list_changed.
func (p *mcpPeer) waitGroups(groups ...string) {
	p.t.Helper()
	for {
		desc := p.tools()[0].Description
		if !slices.ContainsFunc(groups, func(g string) bool { return !strings.Contains(desc, "\n- "+g+": ") }) {
			return
		}
		p.waitChange()
	}
}

// coreTools is what `toolroute tokens --json` says a routed conversation's
// first model call sends in chat, less exec and browser, which toolroute
// mcp does not offer: its clients' users are not at this machine's
// terminal to be asked about every command; and less create_agent, as it
// calls no model to run an agent with.
func (u *user) coreTools() []string {
	u.t.Helper()
	res := u.run("", "tokens", "--json")
	if res.code != 0 {
		u.t.Fatalf("tokens: %d %s", res.code, res.stderr)
	}
	var rep schematokens.Report
	if err := json.Unmarshal([]byte(res.stdout), &rep); err != nil {
		u.t.Fatal(err)
	}
	for _, s := range rep.Scenarios {
		if s.Name == schematokens.CoreOnly {
			return slices.DeleteFunc(slices.Clone(s.Tools), func(n string) bool { return n == "exec" || n == "browser" || n == "create_agent" })
		}
	}
	u.t.Fatal("tokens has no core only scenario")
	return nil
}

// A client of toolroute mcp starts with the tools a new conversation's
// first model call sends, load_tool_group listing the groups; a load grows
// its list and it hears of it; a JS tool runs in toolroute's sandbox; what
// cannot run says why.
func TestServeMCPStdio(t *testing.T) {
	u := newUser(t, nil, "")
	c := u.mcpClient(nil)
	if got := c.InitializeResult().ProtocolVersion; got != "2026-07-28" {
		t.Errorf("over stdio the Go SDK's client and toolroute speak %s, want the stateless 2026-07-28", got)
	}
	if diff := cmp.Diff(u.coreTools(), c.names()); diff != "" {
		t.Errorf("tools/list on connect against tokens' core only (-want +got):\n%s", diff)
	}
	load := c.tools()[0]
	mustContain(t, "load_tool_group's description", load.Description,
		"Load all tools in a tool group to make them available for use.",
		"\n\n## Available Tool Groups\n\nUse `load_tool_group` to load tools from a group before using them.\n\n",
		"\n- config: ", "\n- google_gmail: ", "\n- js_tool_management: ")
	mustContain(t, "the instructions", c.InitializeResult().Instructions,
		"toolroute routes tools by group.", "call load_tool_group with its name", "- config: ")

	if got := c.ok("js_eval", `{"code":"6 * 7"}`); got != "42" {
		t.Errorf("js_eval: %q", got)
	}
	if got := c.ok("write_file", `{"path":"notes/a.txt","content":"hello"}`); !strings.Contains(got, "notes/a.txt") {
		t.Errorf("write_file: %q", got)
	}
	if got := c.ok("read_file", `{"path":"notes/a.txt"}`); !strings.Contains(got, "hello") {
		t.Errorf("read_file of the sandbox file: %q", got)
	}

	got := c.ok("load_tool_group", `{"group_name":"config"}`)
	mustContain(t, "the load's answer", got, "Loaded 17 tools from group 'Configuration':\n- list_providers: ")
	c.waitChange()
	want := append(u.coreTools(), "list_providers", "create_provider", "update_provider", "delete_provider",
		"list_models", "fetch_models", "set_default_model", "add_model", "delete_model", "list_agents", "update_agent", "delete_agent",
		"get_config", "set_config", "manage_env_var", "list_tool_states", "set_tool_enabled")
	if diff := cmp.Diff(want, c.names()); diff != "" {
		t.Errorf("after the load (-want +got):\n%s", diff)
	}
	mustContain(t, "get_config", c.ok("get_config", `{}`), "- model = ")

	for _, tt := range []struct{ tool, args, want string }{
		{"load_tool_group", `{"group_name":"nope"}`, "Error (not_found): Tool group 'nope' not found. Available groups: pdf, config, "},
		{"gmail_send", `{"to":"a@b.c","subject":"s","body":"b"}`, "Error (tool_not_loaded): Tool 'gmail_send' is not loaded: it belongs to tool group 'google_gmail'. Call load_tool_group with group_name 'google_gmail' first"},
		{"format_disk", `{}`, "Error (unknown_tool): Tool 'format_disk' is not one of your tools."},
		{"js_eval", `{"cod":"1"}`, "Error (invalid_arguments): The arguments for 'js_eval' miss the required parameter(s): code."},
		{"js_eval", `"6 * 7"`, "Error (invalid_arguments): The arguments for 'js_eval' are not a JSON object"},
		{"js_eval", `{"code":"throw new Error('boom')"}`, "Error (execution_error): "},
	} {
		text, failed := c.call(tt.tool, tt.args)
		if !failed || !strings.HasPrefix(text, tt.want) {
			t.Errorf("%s %s: isError %v, %q; want %q", tt.tool, tt.args, failed, text, tt.want)
		}
	}
	if got := c.ok("js_eval", `{"code":"1 + 1"}`); got != "2" {
		t.Errorf("after the failures: %q", got)
	}
}

// A tool that asks first (save_memory writes) asks the user through the
// client: it runs when they accept, not when they decline. A client that
// cannot ask gets the command that allows the tool, and once the user
// runs it, the tool runs unasked.
func TestServeMCPApproval(t *testing.T) {
	u := newUser(t, nil, "")
	var mu sync.Mutex
	var asked []string
	answer := "accept"
	c := u.mcpClient(func(req *mcp.ElicitRequest) *mcp.ElicitResult {
		mu.Lock()
		defer mu.Unlock()
		asked = append(asked, req.Params.Message)
		return &mcp.ElicitResult{Action: answer}
	})
	if got := c.ok("save_memory", `{"text":"The user likes tea."}`); !strings.HasPrefix(got, "Saved memory #") {
		t.Errorf("accepted: %q", got)
	}
	mu.Lock()
	answer = "decline"
	mu.Unlock()
	if text, failed := c.call("save_memory", `{"text":"The user likes coffee."}`); !failed || !strings.HasPrefix(text, "Error (denied): The user denied this call of 'save_memory'") {
		t.Errorf("declined: %v %q", failed, text)
	}
	mu.Lock()
	if diff := cmp.Diff([]string{
		`The model wants to run save_memory (write, memories) with {"text":"The user likes tea."}. Allow it?`,
		`The model wants to run save_memory (write, memories) with {"text":"The user likes coffee."}. Allow it?`,
	}, asked[:2]); diff != "" {
		t.Errorf("the questions (-want +got):\n%s", diff)
	}
	mu.Unlock()

	// Secrets are the user's to grant, and their values never reach the
	// client.
	if res := u.run("sk-weather-secret-4242\n", "env", "set", "WEATHER_KEY"); res.code != 0 {
		t.Fatalf("env set: %d %s", res.code, res.stderr)
	}
	mu.Lock()
	answer = "accept"
	mu.Unlock()
	if got := c.ok("js_eval", `{"code":"'key: ' + _env.WEATHER_KEY","secrets":["WEATHER_KEY"]}`); got != "key: [redacted WEATHER_KEY]" {
		t.Errorf("js_eval with a granted secret: %q", got)
	}
	mu.Lock()
	mustContain(t, "the question", asked[len(asked)-1], "It asks to read your secrets: the variables WEATHER_KEY. Allow it with them?")
	mu.Unlock()

	plain := u.mcpClient(nil)
	if text, failed := plain.call("js_eval", `{"code":"_env.WEATHER_KEY","secrets":["WEATHER_KEY"]}`); !failed || !strings.Contains(text, "which only the user can grant when asked") {
		t.Errorf("secrets without elicitation: %v %q", failed, text)
	}
	text, failed := plain.call("save_memory", `{"text":"The user likes water."}`)
	if !failed || !strings.HasSuffix(text, "It did not run. The user can allow it with: toolroute policy set tool save_memory allow") {
		t.Errorf("without elicitation: %v %q", failed, text)
	}
	if res := u.run("", "policy", "set", "tool", "save_memory", "allow"); res.code != 0 {
		t.Fatalf("policy set: %d %s", res.code, res.stderr)
	}
	if got := plain.ok("save_memory", `{"text":"The user likes water."}`); !strings.HasPrefix(got, "Saved memory #") {
		t.Errorf("allowed by the rule: %q", got)
	}
	// The memories saved are the accepted one and the allowed one.
	db, err := store.Open(context.Background(), u.dbPath())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	mems, err := db.Memories(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var texts []string
	for _, m := range mems {
		texts = append(texts, m.Text)
	}
	if diff := cmp.Diff([]string{"The user likes tea.", "The user likes water."}, texts); diff != "" {
		t.Errorf("the memories saved (-want +got):\n%s", diff)
	}
}

// MCP servers of mcp.json are groups of toolroute mcp like any other: an
// npm server's tool runs through it, and a server that adds a tool mid
// session (list_changed upstream) grows the client's list.
func TestServeMCPUpstream(t *testing.T) {
	u := newUser(t, nil, "")
	mcpServers(t, u.mcpConfig(),
		mcpEntry{"everything", stdio(mcptest.NPMServer(t, "server-everything", "stdio")...)},
		mcpEntry{"lab", stdio(mcptest.TestServer(t, tmpRoot))})
	if res := u.run("", "policy", "set", "group", "lab", "allow"); res.code != 0 {
		t.Fatalf("policy set: %d %s", res.code, res.stderr)
	}
	c := u.mcpClient(nil)
	c.waitGroups("everything", "lab")
	mustContain(t, "load_tool_group's description", c.tools()[0].Description, "\n- everything: Everything Server", "\n- lab: ")
	c.ok("load_tool_group", `{"group_name":"everything"}`)
	c.waitChange()
	if got := c.ok("get_sum", `{"a":2,"b":3}`); got != "The sum of 2 and 3 is 5." {
		t.Errorf("get_sum: %q", got)
	}
	c.ok("load_tool_group", `{"group_name":"lab"}`)
	c.waitChange()
	if got := c.ok("add_tool", `{"name":"shout"}`); got != "added shout" {
		t.Errorf("add_tool: %q", got)
	}
	c.waitChange()
	names := c.names()
	if names[len(names)-1] != "shout" {
		t.Errorf("after add_tool the list ends %v", names[len(names)-4:])
	}
	if got := c.ok("shout", `{}`); got != "shout ran" {
		t.Errorf("shout: %q", got)
	}
}

// Over HTTP toolroute mcp wants serve's token as a bearer; with it, a
// session gets its own list, loads, and is asked about tools that act.
func TestServeMCPHTTP(t *testing.T) {
	u := newUser(t, nil, "")
	const token = "e2e-token-0123456789"
	port := mcptest.FreePort(t)
	out := &lockedBuffer{}
	cmd := exec.Command(binary(t), "mcp", "--http", "--port", strconv.Itoa(port), "--token", token)
	cmd.Env, cmd.Dir, cmd.Stdout, cmd.Stderr = u.env, u.home, out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Signal(os.Interrupt)
		cmd.Wait()
	})
	endpoint := fmt.Sprintf("http://127.0.0.1:%d/mcp", port)
	waitListening(t, port, out)
	// The token's line is written after the address's: under a load of 20
	// on 2 cores the test once read between the two.
	waitFor(t, out, "toolroute: clients send the header Authorization: Bearer "+token+" (the token from serve's --token flag)", testwait.Failsafe)
	mustContain(t, "what it prints", out.String(), "toolroute: serving MCP over Streamable HTTP on "+endpoint)

	resp, err := http.Post(endpoint, "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("without the token: HTTP %d", resp.StatusCode)
	}
	// The TS SDK's clients refused for want of the token show toolroute's
	// message: an OAuth-aware one (it follows the 401's resource metadata,
	// then registers where the spec says) said only that OAuth failed.
	sdk := filepath.Join(mcptest.Root(t), "testdata", "mcp", "node_modules", "@modelcontextprotocol", "sdk")
	probe, err := exec.Command(mcptest.Node(t), "testdata/oauth-probe.mjs", sdk, endpoint).CombinedOutput()
	if err != nil {
		t.Fatalf("the TS SDK probe: %v\n%s", err, probe)
	}
	mustContain(t, "what the TS SDK's clients show", string(probe),
		"oauth: toolroute takes no OAuth sign-in: have the client send the header Authorization: Bearer with the token from serve's --token flag",
		`plain: Streamable HTTP error: Error POSTing to endpoint: {"error":"toolroute needs its token here: send Authorization: Bearer with the token from serve's --token flag"}`)

	connect := func(elicit elicitor) *mcpPeer {
		p := &mcpPeer{t: t, changes: make(chan struct{}, 16), stderr: &bytes.Buffer{}}
		return p.connect(&mcp.StreamableClientTransport{Endpoint: endpoint, HTTPClient: &http.Client{Transport: header{"Authorization", "Bearer " + token}}}, elicit, "")
	}
	a := connect(func(*mcp.ElicitRequest) *mcp.ElicitResult { return &mcp.ElicitResult{Action: "accept"} })
	b := connect(nil)
	if got := a.InitializeResult().ProtocolVersion; got != "2025-11-25" {
		t.Errorf("protocol %s", got)
	}
	a.ok("load_tool_group", `{"group_name":"config"}`)
	a.waitChange()
	if n := len(a.names()); n != len(u.coreTools())+17 {
		t.Errorf("the loading session lists %d tools", n)
	}
	if diff := cmp.Diff(u.coreTools(), b.names()); diff != "" {
		t.Errorf("the other session (-want +got):\n%s", diff)
	}
	if got := a.ok("set_config", `{"key":"model","value":"gpt-test"}`); !strings.Contains(got, "gpt-test") {
		t.Errorf("set_config, accepted: %q", got)
	}
	if got := a.ok("js_eval", `{"code":"[1,2,3].length"}`); got != "3" {
		t.Errorf("js_eval: %q", got)
	}
}

// header is a transport that sends a header, as a client configured with
// "headers" does.
type header struct{ key, value string }

func (h header) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set(h.key, h.value)
	return http.DefaultTransport.RoundTrip(r)
}

// lockedBuffer is a process's output, read while it runs.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// waitListening waits until the program says it serves on port.
func waitListening(t *testing.T, port int, out *lockedBuffer) {
	t.Helper()
	for deadline := time.Now().Add(testwait.Failsafe); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if strings.Contains(out.String(), fmt.Sprintf("127.0.0.1:%d/mcp", port)) {
			return
		}
	}
	t.Fatalf("toolroute mcp --http did not start; it wrote:\n%s", out)
}

// What an MCP client of toolroute mcp puts before its model, against what
// a server listing every tool would: tools/list on connect, and after one
// load, as the tools array of an OpenAI request (what toolroute tokens
// counts), and the instructions. With -v it prints the figures
// docs/users/mcp.md gives, for the built-in tools and with the three npm
// MCP servers of its mcp.json connected.
func TestServeMCPTokens(t *testing.T) {
	count := func(tools []*mcp.Tool) (int, int) {
		t.Helper()
		defs := make([]wire.ToolDef, len(tools))
		for i, tl := range tools {
			schema, err := json.Marshal(tl.InputSchema)
			if err != nil {
				t.Fatal(err)
			}
			defs[i] = wire.ToolDef{Name: tl.Name, Description: tl.Description, Parameters: schema}
		}
		text, err := wire.OpenAIToolsJSON(defs)
		if err != nil {
			t.Fatal(err)
		}
		n, err := tokens.Count(tokens.O200kBase, text)
		if err != nil {
			t.Fatal(err)
		}
		return len(tools), n
	}
	for _, tt := range []struct {
		name    string
		servers func(u *user) []mcpEntry
		load    string
	}{
		{name: "built-in tools", load: "config"},
		{name: "with everything, filesystem and memory", load: "filesystem", servers: func(u *user) []mcpEntry {
			return []mcpEntry{
				{"everything", stdio(mcptest.NPMServer(t, "server-everything", "stdio")...)},
				{"filesystem", stdio(mcptest.NPMServer(t, "server-filesystem", u.home)...)},
				{"memory", map[string]any{"command": mcptest.NPMServer(t, "server-memory")[0], "args": mcptest.NPMServer(t, "server-memory")[1:],
					"env": map[string]string{"MEMORY_FILE_PATH": u.home + "/memory.jsonl"}}},
			}
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			u := newUser(t, nil, "")
			if tt.servers != nil {
				mcpServers(t, u.mcpConfig(), tt.servers(u)...)
			}
			res := u.run("", "tokens", "--json")
			var rep schematokens.Report
			if err := json.Unmarshal([]byte(res.stdout), &rep); err != nil {
				t.Fatalf("tokens: %v\n%s", err, res.stderr)
			}
			all := rep.Scenarios[0]
			if all.Name != schematokens.AllTools {
				t.Fatalf("the first scenario is %q", all.Name)
			}
			allTokens := all.Tokens[0].Tokens // o200k_base

			c := u.mcpClient(nil)
			if tt.servers != nil {
				c.waitGroups("everything", "filesystem", "memory")
			}
			n, onConnect := count(c.tools())
			ins, err := tokens.Count(tokens.O200kBase, c.InitializeResult().Instructions)
			if err != nil {
				t.Fatal(err)
			}
			c.ok("load_tool_group", fmt.Sprintf(`{"group_name":%q}`, tt.load))
			c.waitChange()
			m, afterLoad := count(c.tools())
			if onConnect*5 > allTokens || afterLoad >= allTokens {
				t.Errorf("on connect %d tokens, after loading %s %d, against %d for every tool", onConnect, tt.load, afterLoad, allTokens)
			}
			t.Logf("%s: on connect %d tools, %d o200k tokens (+%d of instructions); after loading %s %d tools, %d; every tool listed: %d tools, %d (%.1f%% fewer on connect, %.1f%% with the instructions)",
				tt.name, n, onConnect, ins, tt.load, m, afterLoad, len(all.Tools), allTokens,
				100*float64(allTokens-onConnect)/float64(allTokens), 100*float64(allTokens-onConnect-ins)/float64(allTokens))
		})
	}
}

// The two client configurations for toolroute mcp that docs/users/mcp.md
// shows, run as a
// client runs them: the stdio one with its command and args, the HTTP one
// with its URL's path and its header, on a free port and with the token.
func TestServeMCPReadme(t *testing.T) {
	text, err := os.ReadFile(filepath.Join(mcptest.Root(t), "docs", "users", "mcp.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(text), "**mcp** serves the routed tools")
	if !ok {
		t.Fatal("docs/users/mcp.md has no **mcp** section")
	}
	var configs []map[string]map[string]map[string]any
	for _, block := range strings.Split(section, "```json\n")[1:3] {
		var cfg map[string]map[string]map[string]any
		body, _, _ := strings.Cut(block, "```")
		if err := json.Unmarshal([]byte(body), &cfg); err != nil {
			t.Fatalf("a config of docs/users/mcp.md is not JSON: %v\n%s", err, body)
		}
		configs = append(configs, cfg)
	}
	u := newUser(t, nil, "")

	local := configs[0]["mcpServers"]["toolroute"]
	if local["command"] != "toolroute" {
		t.Fatalf("the stdio config runs %v", local["command"])
	}
	var args []string
	for _, a := range local["args"].([]any) {
		args = append(args, a.(string))
	}
	cmd := exec.Command(binary(t), args...)
	cmd.Env, cmd.Dir = u.env, u.home
	p := (&mcpPeer{t: t, changes: make(chan struct{}, 16), stderr: &bytes.Buffer{}}).connect(&mcp.CommandTransport{Command: cmd}, nil, "")
	if diff := cmp.Diff(u.coreTools(), p.names()); diff != "" {
		t.Errorf("the stdio config's tools (-want +got):\n%s", diff)
	}

	remote := configs[1]["mcpServers"]["toolroute"]
	url, _ := remote["url"].(string)
	auth, _ := remote["headers"].(map[string]any)["Authorization"].(string)
	if !strings.HasPrefix(url, "http://127.0.0.1:8378/") || auth != "Bearer TOKEN" {
		t.Fatalf("the HTTP config: %v", remote)
	}
	port := mcptest.FreePort(t)
	out := &lockedBuffer{}
	const token = "readme-token-0123456789"
	srv := exec.Command(binary(t), "mcp", "--http", "--port", strconv.Itoa(port), "--token", token)
	srv.Env, srv.Dir, srv.Stdout, srv.Stderr = u.env, u.home, out, out
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		srv.Process.Signal(os.Interrupt)
		srv.Wait()
	})
	waitListening(t, port, out)
	endpoint := strings.Replace(url, ":8378/", fmt.Sprintf(":%d/", port), 1)
	h := (&mcpPeer{t: t, changes: make(chan struct{}, 16), stderr: &bytes.Buffer{}}).connect(
		&mcp.StreamableClientTransport{Endpoint: endpoint, HTTPClient: &http.Client{Transport: header{"Authorization", strings.Replace(auth, "TOKEN", token, 1)}}}, nil, "")
	if diff := cmp.Diff(u.coreTools(), h.names()); diff != "" {
		t.Errorf("the HTTP config's tools (-want +got):\n%s", diff)
	}
}

// What a client writes that is not MCP gets a JSON-RPC error, and the
// session goes on: a call after it is answered.
func TestServeMCPBadInput(t *testing.T) {
	u := newUser(t, nil, "")
	meta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`
	lines := []string{
		"this is not json",
		`[{"jsonrpc":"2.0","id":1,"method":"tools/list"}]`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"js_eval","arguments":7,` + meta + `}}`,
		`{"jsonrpc":"2.0","id":3,"method":"no/such/method","params":{` + meta + `}}`,
		`{"jsonrpc":"2.0","id":99,"result":{}}`,
		`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"js_eval","arguments":{"code":"1 + 1"},` + meta + `}}`,
	}
	// Standard input stays open until the last answer: a client that
	// closes it has gone, and its calls with it.
	cmd := exec.Command(binary(t), "mcp")
	cmd.Env, cmd.Dir = u.env, u.home
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// A server that stops answering fails the test, not its timeout.
	defer time.AfterFunc(testwait.Failsafe, func() { cmd.Process.Kill() }).Stop()
	io.WriteString(stdin, strings.Join(lines, "\n")+"\n")
	var answers []string
	sc := bufio.NewScanner(stdout)
	sc.Buffer(nil, 1<<20)
	// The server answers calls as they finish, not in the order sent: read
	// until the last two calls have both answered.
	for sc.Scan() {
		answers = append(answers, sc.Text())
		all := strings.Join(answers, "\n")
		if strings.Contains(all, `"id":2,`) && strings.Contains(all, `"id":4,`) {
			break
		}
	}
	stdin.Close()
	if err := cmd.Wait(); err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	mustContain(t, "what it answered", strings.Join(answers, "\n"),
		`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"not JSON: send one JSON-RPC message a line"}}`,
		`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"JSON-RPC batches are not taken: send one message a line"}}`,
		`"id":2,"result":{`, `Error (invalid_arguments): The arguments for 'js_eval' are not a JSON object`,
		`{"jsonrpc":"2.0","id":3,"error":{"code":-32601,"message":"method not found: \"no/such/method\""}}`,
		`"id":4,"result":{`, `"content":[{"type":"text","text":"2"}]`)
}

// A client's connect does not wait on the MCP servers: with one server
// that never answers initialize and one slow to start configured,
// toolroute mcp answered initialize only once each had answered or its
// timeoutSeconds had passed, and a TS SDK client with its default 60 s
// gave up. The connect now completes while the slow server is still held
// back (it waits for a file the test writes after) and the hung one still
// hangs; the slow server's group then arrives with list_changed, and its
// tool runs.
func TestServeMCPConnectDoesNotWait(t *testing.T) {
	u := newUser(t, nil, "")
	dir := t.TempDir()
	gate := filepath.Join(dir, "gate")
	slow := filepath.Join(dir, "slow")
	script := "#!/bin/sh\nwhile [ ! -e '" + gate + "' ]; do sleep 0.05; done\nexec '" + mcptest.TestServer(t, tmpRoot) + "' \"$@\"\n"
	if err := os.WriteFile(slow, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	hung := filepath.Join(dir, "hung")
	if err := os.WriteFile(hung, []byte("#!/bin/sh\nexec sleep 600\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	// A first run compiles the module into the cache, which takes seconds
	// on a busy machine: done before the servers are configured.
	if res := u.run("", "tokens"); res.code != 0 {
		t.Fatalf("tokens: %d %s", res.code, res.stderr)
	}
	// Both have 600 s: before, the connect waited that long.
	mcpServers(t, u.mcpConfig(),
		mcpEntry{"hung", map[string]any{"command": hung, "timeoutSeconds": 600}},
		mcpEntry{"lab", map[string]any{"command": slow, "timeoutSeconds": 600}})
	if res := u.run("", "policy", "set", "group", "lab", "allow"); res.code != 0 {
		t.Fatalf("policy set: %d %s", res.code, res.stderr)
	}

	cmd := exec.Command(binary(t), "mcp")
	cmd.Env, cmd.Dir = u.env, u.home
	p := &mcpPeer{t: t, changes: make(chan struct{}, 16), stderr: &bytes.Buffer{}}
	cmd.Stderr = p.stderr
	// The bound: a connect with a hung server configured takes
	// under a second; 10 s leaves a loaded machine room. What the test
	// holds is that the connect does not wait for lab, whose gate opens
	// only after it.
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "e2e", Version: "1"}, &mcp.ClientOptions{
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) { p.changes <- struct{}{} },
		Capabilities:           &mcp.ClientCapabilities{},
	}).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connecting with a hung and a slow server configured: %v\nits stderr:\n%s", err, p.stderr)
	}
	p.ClientSession = cs
	t.Cleanup(func() { cs.Close() })
	if desc := p.tools()[0].Description; strings.Contains(desc, "\n- lab: ") || strings.Contains(desc, "\n- hung: ") {
		t.Errorf("a group of a server not up yet is listed:\n%s", desc)
	}
	// A model that loads the hung server's group reads why it has no tools.
	text, failed := p.call("load_tool_group", `{"group_name":"hung"}`)
	if !failed || !strings.Contains(text, "Tool group 'hung' has no tools yet: MCP server 'hung' is starting") {
		t.Errorf("load_tool_group hung: failed %v, %q", failed, text)
	}

	if err := os.WriteFile(gate, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	p.waitChange()
	mustContain(t, "load_tool_group's description once lab is up", p.tools()[0].Description, "\n- lab: ")
	p.ok("load_tool_group", `{"group_name":"lab"}`)
	p.waitChange()
	if got := p.ok("echo", `{"text":"late but here"}`); got != "late but here" {
		t.Errorf("lab's echo: %q", got)
	}
}
