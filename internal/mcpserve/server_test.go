package mcpserve_test

import (
	"context"
	"encoding/json"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolroute/toolroute/host"
	"github.com/toolroute/toolroute/internal/mcpserve"
	"github.com/toolroute/toolroute/internal/module"
	"github.com/toolroute/toolroute/internal/testcache"
	"github.com/toolroute/toolroute/internal/testwait"
	"github.com/toolroute/toolroute/registry"
	"github.com/toolroute/toolroute/registry/session"
	"github.com/toolroute/toolroute/registry/wire"
)

var cacheDir string

func TestMain(m *testing.M) { os.Exit(testcache.Run(m, &cacheDir)) }

// The revisions the Go SDK speaks: the stateless one, where the server
// asks the user through the call's result, then those with sessions, where
// it sends the client a request, and the two before elicitation.
var (
	revisions   = []string{"2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"}
	elicitation = revisions[:3]
)

// catalogue is a host's changing tools: a ToolSource whose tools a test
// sets, with the generation and channel of app.App.Changes.
type catalogue struct {
	mu      sync.Mutex
	extra   []host.NativeTool
	gen     uint64
	changed chan struct{}
}

func (c *catalogue) Tools(context.Context, registry.Catalogue) ([]registry.Group, []host.NativeTool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return nil, slices.Clone(c.extra)
}

func (c *catalogue) Changes() (uint64, <-chan struct{}) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.gen, c.changed
}

// set replaces the extra tools, reloads h and tells the watchers.
func (c *catalogue) set(t *testing.T, h *host.Host, tools ...host.NativeTool) {
	c.mu.Lock()
	c.extra = tools
	c.mu.Unlock()
	if err := h.Reload(context.Background()); err != nil {
		t.Fatal(err)
	}
	c.mu.Lock()
	c.gen++
	close(c.changed)
	c.changed = make(chan struct{})
	c.mu.Unlock()
}

// tool is a native tool of the notes group, or a core tool when group is
// "", that answers with its name and arguments.
func tool(name, group string, perms ...string) host.NativeTool {
	return host.NativeTool{
		Tool: registry.Tool{Name: name, Description: "The " + name + " tool", Group: group, RequiredPermissions: perms,
			Parameters: json.RawMessage(`{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}`)},
		Run: func(ctx context.Context, in json.RawMessage) (string, error) {
			if slices.Contains(perms, registry.PermissionSecrets) {
				return name + " granted " + strings.Join(host.GrantFrom(ctx).Names, ","), nil
			}
			return name + " did " + string(in), nil
		},
	}
}

// newServer is a server of a host with a core tool and two groups, and the
// user's rules policies.
func newServer(t *testing.T, policies ...session.Policy) (*mcpserve.Server, *host.Host, *catalogue) {
	t.Helper()
	cat := &catalogue{changed: make(chan struct{})}
	h, err := host.New(context.Background(), host.Options{
		Provider:   &host.HTTPProvider{Wire: wire.OpenAI, BaseURL: "http://127.0.0.1:9", ModelName: "unused"},
		NoBuiltins: true,
		Module:     module.Config{CacheDir: testcache.Module(cacheDir)},
		Groups: []registry.Group{
			{Name: "notes", DisplayName: "Notes", Description: "Read and write notes"},
			{Name: "files", DisplayName: "Files", Description: "Files on disk"},
		},
		Tools: []host.NativeTool{
			tool("clock", ""),
			tool("note_read", "notes", registry.PermissionRead),
			tool("note_write", "notes", registry.PermissionWrite),
			tool("note_eval", "notes", registry.PermissionRunCode, registry.PermissionSecrets),
			tool("file_list", "files"),
		},
		ToolSources: []host.ToolSource{cat},
		Policies:    func(context.Context) ([]session.Policy, error) { return policies, nil },
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close(context.Background()) })
	return mcpserve.New(h, mcpserve.Options{Version: "test", Changes: cat.Changes}), h, cat
}

// peer is a client session and what the server sent it.
type peer struct {
	*mcp.ClientSession
	changes chan struct{} // one value per list_changed

	mu   sync.Mutex
	read []string // what the client read, in order: a notification's method, or "response"
}

// recording records what a client reads, in the order it comes.
type recording struct {
	mcp.Transport
	p *peer
}

func (r recording) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := r.Transport.Connect(ctx)
	return &recordingConn{c, r.p}, err
}

type recordingConn struct {
	mcp.Connection
	p *peer
}

func (c *recordingConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	m, err := c.Connection.Read(ctx)
	c.p.mu.Lock()
	defer c.p.mu.Unlock()
	switch m := m.(type) {
	case *jsonrpc.Request:
		c.p.read = append(c.p.read, m.Method)
	case *jsonrpc.Response:
		c.p.read = append(c.p.read, "response")
	}
	return m, err
}

// reads is how many messages the client has read.
func (p *peer) reads() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.read)
}

// heardFirst reports whether, of the messages after the first n, the
// client read a list_changed before a response.
func (p *peer) heardFirst(n int) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, m := range p.read[n:] {
		switch m {
		case "notifications/tools/list_changed":
			return true
		case "response":
			return false
		}
	}
	return false
}

// connect connects a client speaking revision to s over an in-memory
// pipe. elicit, when set, answers the user's questions.
func connect(t *testing.T, s *mcpserve.Server, revision string, elicit func(*mcp.ElicitRequest) *mcp.ElicitResult, more ...func(*mcp.ClientOptions)) *peer {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	ct, st := mcp.NewInMemoryTransports()
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx, st) }()
	p := &peer{changes: make(chan struct{}, 16)}
	opts := &mcp.ClientOptions{
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) { p.changes <- struct{}{} },
		Capabilities:           &mcp.ClientCapabilities{}, // no roots
	}
	if elicit != nil {
		opts.ElicitationHandler = func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			return elicit(req), nil
		}
	}
	for _, f := range more {
		f(opts)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, opts).Connect(ctx, recording{ct, p}, &mcp.ClientSessionOptions{ProtocolVersion: revision})
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	p.ClientSession = cs
	t.Cleanup(func() {
		cs.Close()
		cancel()
		<-done
	})
	if revision >= "2026-07-28" {
		// The SDK's Connect opens the subscriptions/listen stream without
		// waiting for the server: a call made at once may reach the server
		// before it, when the client has not yet asked to hear of changes.
		// A client that wants them first waits for the acknowledgement.
		p.waitRead(t, "notifications/subscriptions/acknowledged")
	}
	return p
}

// waitRead waits until the client has read a message of method.
func (p *peer) waitRead(t *testing.T, method string) {
	t.Helper()
	for deadline := time.Now().Add(testwait.Failsafe); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
		p.mu.Lock()
		found := slices.Contains(p.read, method)
		p.mu.Unlock()
		if found {
			return
		}
	}
	t.Fatalf("the client never read %s", method)
}

func (p *peer) names(t *testing.T) []string {
	t.Helper()
	res, err := p.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range res.Tools {
		names = append(names, tl.Name)
	}
	return names
}

// call calls a tool and returns its text and whether it failed.
func (p *peer) call(t *testing.T, name string, args any) (string, bool) {
	t.Helper()
	res, err := p.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	var texts []string
	for _, c := range res.Content {
		tc, ok := c.(*mcp.TextContent)
		if !ok {
			t.Fatalf("%s answered %T", name, c)
		}
		texts = append(texts, tc.Text)
	}
	return strings.Join(texts, "\n"), res.IsError
}

// waitChange waits for a list_changed.
func (p *peer) waitChange(t *testing.T) {
	t.Helper()
	select {
	case <-p.changes:
	case <-time.After(testwait.Failsafe):
		t.Fatal("no notifications/tools/list_changed")
	}
}

// A client starts with the core tools and load_tool_group, which lists the
// groups as the system prompt would; a load adds the group's tools to its
// list, after the core ones, and the client hears of it before the
// result.
func TestRouting(t *testing.T) {
	for _, rev := range revisions {
		t.Run(rev, func(t *testing.T) {
			s, h, _ := newServer(t)
			reg, _ := registry.Build(h.Catalogue())
			c := connect(t, s, rev, nil)
			if got := c.InitializeResult().ProtocolVersion; got != rev {
				t.Fatalf("speaks %s", got)
			}
			if diff := cmp.Diff([]string{"load_tool_group", "clock"}, c.names(t)); diff != "" {
				t.Errorf("on connect (-want +got):\n%s", diff)
			}
			res, _ := c.ListTools(context.Background(), nil)
			load := res.Tools[0]
			if want := reg.GroupListing(); !strings.HasSuffix(load.Description, "\n\n"+want) ||
				!strings.Contains(want, "- notes: Read and write notes\n- files: Files on disk") {
				t.Errorf("load_tool_group's description:\n%s", load.Description)
			}
			if ins := c.InitializeResult().Instructions; !strings.Contains(ins, "call load_tool_group with its name") || !strings.HasSuffix(ins, reg.GroupListing()) {
				t.Errorf("instructions:\n%s", ins)
			}

			before := c.reads()
			text, failed := c.call(t, "load_tool_group", map[string]any{"group_name": "notes"})
			want, _ := reg.LoadToolGroup(json.RawMessage(`{"group_name":"notes"}`))
			if failed || text != want.Output {
				t.Errorf("load: %v %q, want %q", failed, text, want.Output)
			}
			if !c.heardFirst(before) {
				t.Errorf("the load's result came before its list_changed: the client read %v", c.read)
			}
			c.waitChange(t)
			if diff := cmp.Diff([]string{"load_tool_group", "clock", "note_read", "note_write", "note_eval"}, c.names(t)); diff != "" {
				t.Errorf("after the load (-want +got):\n%s", diff)
			}
			if text, failed := c.call(t, "note_read", map[string]any{"text": "hi"}); failed || text != `note_read did {"text":"hi"}` {
				t.Errorf("note_read: %v %q", failed, text)
			}
			// Loaded again: the same answer, no change to the list.
			if text, failed := c.call(t, "load_tool_group", map[string]any{"group_name": "notes"}); failed || text != want.Output {
				t.Errorf("loaded again: %v %q", failed, text)
			}
		})
	}
}

// Calls that cannot run get a result the model can act on, never a
// protocol error, and the server keeps serving.
func TestBadCalls(t *testing.T) {
	s, _, _ := newServer(t)
	c := connect(t, s, "2025-11-25", nil)
	tests := []struct {
		name string
		tool string
		args any
		want string
	}{
		{name: "an unknown group", tool: "load_tool_group", args: map[string]any{"group_name": "nope"},
			want: "Error (not_found): Tool group 'nope' not found. Available groups: notes, files"},
		{name: "no group named", tool: "load_tool_group", args: map[string]any{"group": 3},
			want: "Error (missing_parameter): Required parameter 'group_name' is missing."},
		{name: "a tool of a group not loaded", tool: "file_list", args: map[string]any{"text": "x"},
			want: "Error (tool_not_loaded): Tool 'file_list' is not loaded: it belongs to tool group 'files'. Call load_tool_group with group_name 'files' first, then call 'file_list' again."},
		{name: "no such tool", tool: "rm_rf", args: map[string]any{},
			want: "Error (unknown_tool): Tool 'rm_rf' is not one of your tools. Call one of the tools you were given, or load a tool group with load_tool_group (its description lists them)."},
		{name: "a name that is no name", tool: strings.Repeat("é", 300), args: nil,
			want: "Error (unknown_tool): Tool '" + strings.Repeat("é", 100) + "…' is not one of your tools."},
		{name: "a required argument missing", tool: "clock", args: map[string]any{},
			want: "Error (invalid_arguments): The arguments for 'clock' miss the required parameter(s): text. Call it again with them."},
		{name: "arguments that are not an object", tool: "clock", args: []int{1, 2},
			want: "Error (invalid_arguments): The arguments for 'clock' are not a JSON object"},
		{name: "load_skill without skills", tool: "load_skill", args: map[string]any{"name": "x"},
			want: "Error (unknown_tool): Tool 'load_skill' is not one of your tools."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			text, failed := c.call(t, tt.tool, tt.args)
			if !failed || !strings.HasPrefix(text, tt.want) {
				t.Errorf("isError %v, text:\n%s\nwant it to start with:\n%s", failed, text, tt.want)
			}
		})
	}
	if text, failed := c.call(t, "clock", map[string]any{"text": "still here"}); failed || text != `clock did {"text":"still here"}` {
		t.Errorf("after the bad calls: %v %q", failed, text)
	}
}

// A tool that asks first asks the user through the client: accepted it
// runs, declined it does not, "always" lets it run unasked for the rest of
// the session. Secrets are granted with the answer. A client that cannot
// ask gets the command that allows the tool.
func TestApproval(t *testing.T) {
	for _, rev := range elicitation {
		t.Run(rev, func(t *testing.T) {
			s, _, _ := newServer(t)
			var mu sync.Mutex
			answer := "decline"
			always := false
			var questions []string
			c := connect(t, s, rev, func(req *mcp.ElicitRequest) *mcp.ElicitResult {
				mu.Lock()
				defer mu.Unlock()
				questions = append(questions, req.Params.Message)
				return &mcp.ElicitResult{Action: answer, Content: map[string]any{"always": always}}
			})
			set := func(a string, al bool) { mu.Lock(); answer, always = a, al; mu.Unlock() }
			c.call(t, "load_tool_group", map[string]any{"group_name": "notes"})

			text, failed := c.call(t, "note_write", map[string]any{"text": "no"})
			if !failed || !strings.HasPrefix(text, "Error (denied): The user denied this call of 'note_write'") {
				t.Errorf("declined: %v %q", failed, text)
			}
			set("accept", false)
			if text, failed := c.call(t, "note_write", map[string]any{"text": "yes"}); failed || text != `note_write did {"text":"yes"}` {
				t.Errorf("accepted: %v %q", failed, text)
			}
			set("accept", true)
			c.call(t, "note_write", map[string]any{"text": "always"})
			set("decline", false)
			if text, failed := c.call(t, "note_write", map[string]any{"text": "unasked"}); failed || text != `note_write did {"text":"unasked"}` {
				t.Errorf("after always: %v %q", failed, text)
			}
			if text, failed := c.call(t, "note_eval", map[string]any{"text": "k", "secrets": []string{"google", "API_KEY"}}); !failed || !strings.Contains(text, "(denied)") {
				t.Errorf("secrets declined: %v %q", failed, text)
			}
			set("accept", false)
			if text, failed := c.call(t, "note_eval", map[string]any{"text": "k", "secrets": []string{"google", "API_KEY"}}); failed || text != "note_eval granted google,API_KEY" {
				t.Errorf("secrets granted: %v %q", failed, text)
			}
			mu.Lock()
			defer mu.Unlock()
			want := []string{
				`The model wants to run note_write (write) with {"text":"no"}. Allow it?`,
				`The model wants to run note_write (write) with {"text":"yes"}. Allow it?`,
				`The model wants to run note_write (write) with {"text":"always"}. Allow it?`,
				`The model wants to run note_eval (run_code, secrets) with {"secrets":["google","API_KEY"],"text":"k"}. It asks to read your secrets: your Google account and the variables API_KEY. Allow it with them?`,
				`The model wants to run note_eval (run_code, secrets) with {"secrets":["google","API_KEY"],"text":"k"}. It asks to read your secrets: your Google account and the variables API_KEY. Allow it with them?`,
			}
			if diff := cmp.Diff(want, questions); diff != "" {
				t.Errorf("questions (-want +got):\n%s", diff)
			}
		})
	}
}

func TestNoOneToAsk(t *testing.T) {
	for _, rev := range revisions {
		t.Run(rev, func(t *testing.T) {
			s, _, _ := newServer(t, session.Policy{Tool: "note_read", Decision: registry.DecisionDeny},
				session.Policy{Group: "files", Decision: registry.DecisionAsk})
			// A client of a revision before elicitation is not asked, even
			// one that says it could be.
			var elicit func(*mcp.ElicitRequest) *mcp.ElicitResult
			if !slices.Contains(elicitation, rev) {
				elicit = func(*mcp.ElicitRequest) *mcp.ElicitResult {
					t.Error("asked the user on " + rev)
					return &mcp.ElicitResult{Action: "accept"}
				}
			}
			c := connect(t, s, rev, elicit)
			c.call(t, "load_tool_group", map[string]any{"group_name": "notes"})
			c.call(t, "load_tool_group", map[string]any{"group_name": "files"})
			tests := []struct {
				tool, want string
				args       map[string]any
			}{
				{tool: "note_write", args: map[string]any{"text": "x"}, want: "Error (approval_needed): 'note_write' asks the user before it runs, and this MCP client cannot ask them (it does not support elicitation). It did not run. The user can allow it with: toolroute policy set tool note_write allow"},
				{tool: "file_list", args: map[string]any{"text": "x"}, want: "Error (approval_needed): 'file_list' asks the user before it runs"},
				{tool: "note_read", args: map[string]any{"text": "x"}, want: "Error (denied): The user does not allow 'note_read' to run (their policy denies it)."},
				{tool: "note_eval", args: map[string]any{"text": "x", "secrets": []string{"google"}}, want: "Error (approval_needed): 'note_eval' asked for secrets (google), which only the user can grant when asked"},
			}
			for _, tt := range tests {
				if text, failed := c.call(t, tt.tool, tt.args); !failed || !strings.HasPrefix(text, tt.want) {
					t.Errorf("%s: %v %q", tt.tool, failed, text)
				}
			}
			if text, failed := c.call(t, "note_eval", map[string]any{"text": "x"}); failed || text != "note_eval granted " {
				t.Errorf("note_eval without secrets runs unasked: %v %q", failed, text)
			}
		})
	}
}

// A client of 2026-07-28 puts the question itself: the call's result asks
// for the answer (input_required) with a state, and the client calls again
// with both. An answer counts only with a state toolroute gave, for the
// same tool and arguments, once: any other call is asked anew.
func TestAnswerOnlyOnce(t *testing.T) {
	s, _, _ := newServer(t)
	// The SDK's client answers input_required itself; without it, the test
	// sees the results and makes up the answers.
	c := connect(t, s, "2026-07-28", nil, func(o *mcp.ClientOptions) {
		o.MultiRoundTrip = &mcp.MultiRoundTripOptions{Disabled: true}
		o.Capabilities = &mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapabilities{Form: &mcp.FormElicitationCapabilities{}}}
	})
	c.call(t, "load_tool_group", map[string]any{"group_name": "notes"})
	accept := mcp.InputResponseMap{"approval": &mcp.ElicitResult{Action: "accept"}}
	call := func(text, state string, answers mcp.InputResponseMap) *mcp.CallToolResult {
		t.Helper()
		res, err := c.CallTool(context.Background(), &mcp.CallToolParams{Name: "note_write", Arguments: map[string]any{"text": text},
			InputResponses: answers, RequestState: state})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	asked := func(what, text, state string, answers mcp.InputResponseMap) string {
		t.Helper()
		res := call(text, state, answers)
		q, ok := res.InputRequests["approval"].(*mcp.ElicitParams)
		if !res.NeedsInput() || !ok || res.RequestState == "" || len(res.Content) > 0 {
			t.Fatalf("%s: not asked: %+v", what, res)
		}
		if want := `The model wants to run note_write (write) with {"text":"` + text + `"}. Allow it?`; q.Message != want {
			t.Errorf("%s: the question is %q", what, q.Message)
		}
		return res.RequestState
	}
	first := asked("the first call", "a", "", nil)
	asked("a made-up state", "a", "made-up", accept)
	asked("the state for other arguments", "b", first, accept)
	asked("the state once used", "a", first, accept)
	second := asked("asked again", "a", "", nil)
	res := call("a", second, accept)
	if res.NeedsInput() || res.IsError || res.Content[0].(*mcp.TextContent).Text != `note_write did {"text":"a"}` {
		t.Errorf("the answer given: %+v", res)
	}
	asked("the answered state again", "a", second, accept)
	third := asked("declined", "a", "", nil)
	res = call("a", third, mcp.InputResponseMap{"approval": &mcp.ElicitResult{Action: "decline"}})
	if !res.IsError || !strings.Contains(res.Content[0].(*mcp.TextContent).Text, "(denied)") {
		t.Errorf("declined: %+v", res)
	}
}

// Over HTTP each session is a client of its own: one's loads are not
// another's, and a new session starts with the core tools again.
func TestHTTPSessions(t *testing.T) {
	s, _, _ := newServer(t)
	srv := httptest.NewServer(s.Handler())
	t.Cleanup(srv.Close) // after the sessions' Close, which run first
	open := func() *mcp.ClientSession {
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, &mcp.ClientOptions{Capabilities: &mcp.ClientCapabilities{}}).
			Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: srv.URL}, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cs.Close() })
		return cs
	}
	names := func(cs *mcp.ClientSession) []string {
		res, err := cs.ListTools(context.Background(), nil)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, tl := range res.Tools {
			out = append(out, tl.Name)
		}
		return out
	}
	a, b := open(), open()
	if _, err := a.CallTool(context.Background(), &mcp.CallToolParams{Name: "load_tool_group", Arguments: map[string]any{"group_name": "files"}}); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"load_tool_group", "clock", "file_list"}, names(a)); diff != "" {
		t.Errorf("the loading session (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"load_tool_group", "clock"}, names(b)); diff != "" {
		t.Errorf("the other session (-want +got):\n%s", diff)
	}
	if got := a.InitializeResult().ProtocolVersion; got != "2025-11-25" {
		t.Errorf("over HTTP it speaks %s, want the 2025-11-25 of a server with sessions", got)
	}

	// A browser page of another site may not use it, nor a name that
	// resolves to loopback by DNS rebinding.
	post := func(header map[string]string, host string) int {
		req, _ := http.NewRequest("POST", srv.URL, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		for k, v := range header {
			req.Header.Set(k, v)
		}
		if host != "" {
			req.Host = host
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if code := post(map[string]string{"Sec-Fetch-Site": "cross-site", "Origin": "https://evil.example"}, ""); code != http.StatusForbidden {
		t.Errorf("a cross-site request: HTTP %d", code)
	}
	if code := post(nil, "evil.example"); code != http.StatusForbidden {
		t.Errorf("a request for another host name: HTTP %d", code)
	}
}

// When the catalogue changes (an MCP server upstream adds a tool, a user
// tool is written), each client's list follows: a tool of a loaded group
// comes, and the listing in load_tool_group's description changes.
func TestCatalogueChanges(t *testing.T) {
	s, h, cat := newServer(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go s.Watch(ctx)
	c := connect(t, s, "2025-11-25", nil)
	other := connect(t, s, "2026-07-28", nil)
	c.call(t, "load_tool_group", map[string]any{"group_name": "notes"})
	c.waitChange(t)

	cat.set(t, h, tool("note_tag", "notes"), tool("file_stat", "files"))
	c.waitChange(t)
	if diff := cmp.Diff([]string{"load_tool_group", "clock", "note_read", "note_write", "note_eval", "note_tag"}, c.names(t)); diff != "" {
		t.Errorf("the loaded group's new tool (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"load_tool_group", "clock"}, other.names(t)); diff != "" {
		t.Errorf("a client without the group (-want +got):\n%s", diff)
	}
	if text, failed := c.call(t, "note_tag", map[string]any{"text": "t"}); failed || text != `note_tag did {"text":"t"}` {
		t.Errorf("the new tool: %v %q", failed, text)
	}

	h.SetDisabled([]string{"file_list", "file_stat"})
	cat.set(t, h)
	other.waitChange(t) // the files group is gone from the listing
	res, _ := other.ListTools(context.Background(), nil)
	if d := res.Tools[0].Description; strings.Contains(d, "- files:") || !strings.Contains(d, "- notes:") {
		t.Errorf("the listing after the files group lost its tools:\n%s", d)
	}
	if diff := cmp.Diff([]string{"load_tool_group", "clock", "note_read", "note_write", "note_eval"}, c.names(t)); diff != "" {
		t.Errorf("the tool gone (-want +got):\n%s", diff)
	}
}

// A tool's images reach the client as image content after the text, those
// a model cannot take left out with a note, as in a chat.
func TestImages(t *testing.T) {
	s, h, cat := newServer(t)
	snapshot := host.NativeTool{
		Tool: registry.Tool{Name: "snapshot", Description: "A picture", Parameters: json.RawMessage(`{"type":"object","properties":{}}`)},
		RunOutput: func(context.Context, json.RawMessage) (host.Output, error) {
			return host.Output{Text: "[image image/png, 8 bytes]\n\n[image image/bmp, 2 bytes]", Images: []registry.Image{
				{MIMEType: "image/png", Data: "iVBORw0KGgo="}, {MIMEType: "image/bmp", Data: "Qk0="}}}, nil
		},
	}
	cat.set(t, h, snapshot)
	c := connect(t, s, "2025-11-25", nil)
	res, err := c.CallTool(context.Background(), &mcp.CallToolParams{Name: "snapshot", Arguments: map[string]any{}})
	if err != nil {
		t.Fatal(err)
	}
	if res.IsError || len(res.Content) != 2 {
		t.Fatalf("%+v", res)
	}
	text, ok := res.Content[0].(*mcp.TextContent)
	if !ok || !strings.HasSuffix(text.Text, "[toolroute: image 2 of 2 was not sent to the model: its type \"image/bmp\" is not one the model reads (PNG, JPEG, GIF or WebP)]") {
		t.Errorf("the text: %+v", res.Content[0])
	}
	img, ok := res.Content[1].(*mcp.ImageContent)
	if !ok || img.MIMEType != "image/png" || string(img.Data) != "\x89PNG\r\n\x1a\n" {
		t.Errorf("the image: %+v", res.Content[1])
	}
}

// An HTTP session no request uses for SessionTimeout is closed: its
// requests then get the SDK's "session not found", and its client, with
// its loaded groups, is forgotten. The timeout is 3 s: with 300 ms, a busy
// machine could close the session between the test's own requests.
func TestHTTPIdleSessionsClosed(t *testing.T) {
	_, h, _ := newServer(t)
	s := mcpserve.New(h, mcpserve.Options{SessionTimeout: 3 * time.Second})
	srv := httptest.NewServer(s.Handler())
	t.Cleanup(srv.Close)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).
		Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: srv.URL}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	if _, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "load_tool_group", Arguments: map[string]any{"group_name": "files"}}); err != nil {
		t.Fatal(err)
	}
	if n := s.Clients(); n != 1 {
		t.Fatalf("%d clients while the session is used, want 1", n)
	}
	deadline := time.Now().Add(testwait.Failsafe)
	for s.Clients() != 0 {
		if time.Now().After(deadline) {
			t.Fatalf("%d clients %v after the session went idle, want 0", s.Clients(), testwait.Failsafe)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if _, err := cs.ListTools(context.Background(), nil); err == nil {
		t.Error("the closed session still answers")
	}
}

// hints is a tool's annotations in words: read-only, writes or destructive,
// then open or closed (its world), "?" where a hint is missing.
func hints(a *mcp.ToolAnnotations) string {
	if a == nil {
		return "none"
	}
	what := "writes"
	switch {
	case a.ReadOnlyHint:
		what = "read-only"
	case a.DestructiveHint == nil:
		what = "?"
	case *a.DestructiveHint:
		what = "destructive"
	}
	world := "?"
	if a.OpenWorldHint != nil {
		world = map[bool]string{true: "open", false: "closed"}[*a.OpenWorldHint]
	}
	return what + " " + world
}

// Each tool's annotations say only what its permissions make known: a tool
// that says nothing is not read-only (a client that runs read-only tools
// unasked must not run it), and its world is open.
func TestAnnotations(t *testing.T) {
	tests := []struct {
		perms []string
		want  string
	}{
		{nil, "destructive open"},
		{[]string{"read"}, "read-only closed"},
		{[]string{"read", "network"}, "read-only open"},
		{[]string{"google", "read"}, "read-only open"},
		{[]string{"read", "history"}, "read-only closed"},
		{[]string{"write", "memories"}, "writes closed"},
		{[]string{"google", "write"}, "writes open"},
		{[]string{"network"}, "destructive open"},
		{[]string{"delete", "schedules"}, "destructive closed"},
		{[]string{"google", "write", "send"}, "destructive open"},
		{[]string{"google", "share"}, "destructive open"},
		{[]string{"write", "run_code"}, "destructive open"},
		{[]string{"run_code", "secrets"}, "destructive open"},
		{[]string{"read", "delete"}, "destructive closed"},
	}
	for _, tt := range tests {
		if got := hints(mcpserve.Annotations(registry.Tool{Name: "x", RequiredPermissions: tt.perms})); got != tt.want {
			t.Errorf("permissions %v: %s, want %s", tt.perms, got, tt.want)
		}
	}
	meta := registry.Tool{Name: registry.LoadToolGroupName, Origin: registry.Origin{Kind: registry.OriginMeta}}
	if got := hints(mcpserve.Annotations(meta)); got != "read-only closed" {
		t.Errorf("load_tool_group: %s, want read-only closed", got)
	}
}

// toolroute mcp's built-in core tools as a client lists them: write_file
// and http_request act, so they are not read-only (they were, having no
// permissions, and a client that runs read-only tools unasked ran them).
func TestBuiltinAnnotations(t *testing.T) {
	h, err := host.New(context.Background(), host.Options{
		Provider: &host.HTTPProvider{Wire: wire.OpenAI, BaseURL: "http://127.0.0.1:9", ModelName: "unused"},
		Module:   module.Config{CacheDir: testcache.Module(cacheDir)},
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close(context.Background()) })
	cs := connect(t, mcpserve.New(h, mcpserve.Options{Version: "test"}), "", nil)
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, tl := range res.Tools {
		got[tl.Name] = hints(tl.Annotations)
	}
	want := map[string]string{
		"load_tool_group":  "read-only closed",
		"get_current_time": "read-only closed",
		"read_file":        "read-only closed",
		"write_file":       "destructive open",
		"http_request":     "destructive open",
		"webfetch":         "read-only open",
		"js_eval":          "destructive open",
		"save_memory":      "writes closed",
		"search_history":   "read-only closed",
	}
	for _, name := range slices.Sorted(maps.Keys(want)) {
		if got[name] != want[name] {
			t.Errorf("%s: %q, want %q", name, got[name], want[name])
		}
	}
}
