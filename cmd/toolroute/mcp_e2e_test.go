package main

// End-to-end tests of MCP servers as tool groups: the toolroute binary with
// an mcp.json naming real servers (the npm ones `make mcp-servers`
// installs, and the Go SDK test server), driven by a scripted model.

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/toolroute/toolroute/host/mcp"
	"github.com/toolroute/toolroute/internal/fakemodel"
	"github.com/toolroute/toolroute/internal/mcptest"
	"github.com/toolroute/toolroute/internal/schematokens"
	"github.com/toolroute/toolroute/internal/testwait"
)

// server is one entry of an mcp.json.
type mcpEntry struct {
	key   string
	entry map[string]any
}

// mcpServers writes an mcp.json of the servers, in order, to path.
func mcpServers(t *testing.T, path string, servers ...mcpEntry) {
	t.Helper()
	var entries []string
	for _, s := range servers {
		k, _ := json.Marshal(s.key)
		v, err := json.Marshal(s.entry)
		if err != nil {
			t.Fatal(err)
		}
		entries = append(entries, "    "+string(k)+": "+string(v))
	}
	os.MkdirAll(filepath.Dir(path), 0o755)
	text := "{\"mcpServers\": {\n" + strings.Join(entries, ",\n") + "\n}}\n"
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func (u *user) mcpConfig() string { return filepath.Join(u.home, ".config", "toolroute", "mcp.json") }

// stdio is an mcp.json entry starting argv.
func stdio(argv ...string) map[string]any {
	return map[string]any{"command": argv[0], "args": argv[1:]}
}

// A server's group is listed in the system prompt, loaded with
// load_tool_group, its tool called; the next process restores the group
// from the log and calls the tool without loading it again.
func TestMCPGroupInChat(t *testing.T) {
	model := fakemodel.New(fakemodel.OpenAI,
		fakemodel.ToolCall("load_tool_group", `{"group_name":"everything"}`),
		fakemodel.ToolCall("get_sum", `{"a":2,"b":3}`),
		fakemodel.Text("It is 5."),
		fakemodel.ToolCall("get_sum", `{"a":20,"b":22}`),
		fakemodel.Text("It is 42."),
	)
	defer model.Close()
	u := newUser(t, model, fakemodel.OpenAI)
	mcpServers(t, u.mcpConfig(), mcpEntry{"everything", stdio(mcptest.NPMServer(t, "server-everything", "stdio")...)})

	first := u.run("What is 2 + 3?\n", "chat", "--session", "sums")
	if first.code != 0 {
		t.Fatalf("exit %d\n%s\n%s", first.code, first.stdout, first.stderr)
	}
	mustContain(t, "the first process's output", first.stdout,
		"→ load_tool_group {\"group_name\":\"everything\"}\n",
		"[loaded group everything: echo, get_annotated_message, get_env, ",
		"← get_sum: The sum of 2 and 3 is 5.\n", "It is 5.\n")
	reqs := model.Requests()
	mustContain(t, "the first request's system prompt", requestText(reqs[0]), `- everything: Everything Server – Server Instructions`)
	if slices.Contains(reqs[0].ToolNames(), "get_sum") || !slices.Contains(reqs[1].ToolNames(), "get_sum") {
		t.Errorf("get_sum offered before the load: %v; after: %v", reqs[0].ToolNames(), reqs[1].ToolNames())
	}
	mustContain(t, "get_sum's schema as sent", requestText(reqs[1]), `"name":"get_sum","description":"Returns the sum of two numbers (MCP tool \"get-sum\")"`)

	second := u.run("And 20 + 22?\n", "chat", "--session", "sums")
	if second.code != 0 {
		t.Fatalf("exit %d\n%s\n%s", second.code, second.stdout, second.stderr)
	}
	mustContain(t, "the second process's output", second.stdout, "← get_sum: The sum of 20 and 22 is 42.\n", "It is 42.\n")
	if strings.Contains(second.stdout, "load_tool_group") {
		t.Errorf("the second process loaded the group again:\n%s", second.stdout)
	}
	if reqs := model.Requests(); !slices.Contains(reqs[3].ToolNames(), "get_sum") {
		t.Errorf("the restarted process's first call lacks get_sum: %v", reqs[3].ToolNames())
	}
}

// A server adds a tool in the middle of a turn (list_changed): the turn's
// next model call offers it and the model calls it. A user rule allows the
// group's tools, whose annotations would have them ask first.
func TestMCPListChangedInChat(t *testing.T) {
	model := fakemodel.New(fakemodel.OpenAI,
		fakemodel.ToolCall("load_tool_group", `{"group_name":"lab"}`),
		fakemodel.ToolCall("add_tool", `{"name":"shout"}`),
		fakemodel.ToolCall("shout", `{}`),
		fakemodel.Text("Shouted."),
	)
	defer model.Close()
	u := newUser(t, model, fakemodel.OpenAI)
	mcpServers(t, u.mcpConfig(), mcpEntry{"lab", stdio(mcptest.TestServer(t, tmpRoot))})
	if res := u.run("", "policy", "set", "group", "lab", "allow"); res.code != 0 {
		t.Fatalf("policy set: %d %s", res.code, res.stderr)
	}
	res := u.run("Add a shout tool and use it\n", "chat")
	if res.code != 0 {
		t.Fatalf("exit %d\n%s\n%s", res.code, res.stdout, res.stderr)
	}
	mustContain(t, "the output", res.stdout, "← add_tool: added shout\n", "← shout: shout ran\n", "Shouted.\n")
	reqs := model.Requests()
	if slices.Contains(reqs[2].ToolNames(), "shout") != true || slices.Contains(reqs[1].ToolNames(), "shout") {
		t.Errorf("shout offered before add_tool: %v; after: %v", reqs[1].ToolNames(), reqs[2].ToolNames())
	}
}

// A server that crashes: its call fails saying so, the calls of another
// server and of the built-in tools in the same turn work.
func TestMCPCrashInChat(t *testing.T) {
	model := fakemodel.New(fakemodel.OpenAI,
		fakemodel.ToolCall("load_tool_group", `{"group_name":"lab"}`),
		fakemodel.ToolCall("crash", `{}`),
		fakemodel.ToolCall("load_tool_group", `{"group_name":"everything"}`),
		// Both servers have an echo: the second one's is renamed.
		fakemodel.ToolCalls(fakemodel.Call{Name: "everything_echo", Args: `{"message":"still here"}`}, fakemodel.Call{Name: "get_current_time", Args: `{}`}),
		fakemodel.Text("The lab server crashed; the rest works."),
	)
	defer model.Close()
	u := newUser(t, model, fakemodel.OpenAI)
	mcpServers(t, u.mcpConfig(),
		mcpEntry{"lab", stdio(mcptest.TestServer(t, tmpRoot))},
		mcpEntry{"everything", stdio(mcptest.NPMServer(t, "server-everything", "stdio")...)})
	u.run("", "policy", "set", "tool", "crash", "allow")
	res := u.run("Crash the lab, then echo\n", "chat")
	if res.code != 0 {
		t.Fatalf("exit %d\n%s\n%s", res.code, res.stdout, res.stderr)
	}
	mustContain(t, "the output", res.stdout,
		`← crash failed (unavailable): Error (unavailable): MCP server 'lab' is unavailable: it exited (exit status 3); it wrote: "crashing on purpose". toolroute starts it again in 1 s`,
		"← everything_echo: Echo: still here\n", "← get_current_time: ", "The lab server crashed; the rest works.\n")
	mustContain(t, "what the model read", requestText(model.Requests()[2]), "The call may or may not have taken effect")
}

// toolroute check reports each server: its group and tools, with the
// renamed ones and whether they ask first, or why it is down.
func TestMCPCheck(t *testing.T) {
	u := newUser(t, nil, "")
	cfg := filepath.Join(u.home, "servers.json")
	root := t.TempDir()
	mcpServers(t, cfg,
		mcpEntry{"everything", stdio(mcptest.NPMServer(t, "server-everything", "stdio")...)},
		mcpEntry{"filesystem", stdio(mcptest.NPMServer(t, "server-filesystem", root)...)},
		mcpEntry{"broken", map[string]any{"command": filepath.Join(u.home, "no-such-server")}},
		mcpEntry{"old", map[string]any{"command": "old-server", "disabled": true}})
	res := u.run("", "check", "--mcp-config", cfg)
	if res.code != 1 {
		t.Errorf("exit %d, want 1 for the server that is down\n%s", res.code, res.stderr)
	}
	mustContain(t, "check's output", res.stdout,
		"MCP servers of "+cfg+":\n",
		"ok    everything: group everything, 13 tools over stdio (mcp-servers/everything 2.0.0, MCP 2025-11-25)\n",
		"      echo: read, runs unasked\n",
		"      get_sum (MCP tool \"get-sum\"): read, runs unasked\n",
		"      toggle_simulated_logging (MCP tool \"toggle-simulated-logging\"): write, asks first\n",
		"ok    filesystem: group filesystem, 14 tools over stdio",
		"      filesystem_read_file (MCP tool \"read_file\"): read, runs unasked\n",
		"      filesystem_write_file (MCP tool \"write_file\"): delete, asks first\n",
		"ERROR broken: down: it could not be started: fork/exec "+filepath.Join(u.home, "no-such-server")+": no such file or directory (check \"command\" in its entry); toolroute starts it again in ",
		"off   old: disabled\n",
		"4 MCP servers: 2 connected; 27 tools offered\n")
	// The wait doubles with each failed start, so a slow machine may show
	// the second one: 1 or 2 s.
	if !regexp.MustCompile(`toolroute starts it again in [12] s \(fix the server or its entry, or give the entry "disabled": true\)\n`).MatchString(res.stdout) {
		t.Errorf("the broken server's line lacks when and what to do:\n%s", res.stdout)
	}

	js := u.run("", "check", "--mcp-config", cfg, "--json")
	var out struct {
		MCP []mcp.Status `json:"mcp"`
	}
	if err := json.Unmarshal([]byte(js.stdout), &out); err != nil {
		t.Fatalf("%v\n%s", err, js.stdout)
	}
	var states []string
	for _, st := range out.MCP {
		states = append(states, st.Key+" "+string(st.State))
	}
	if want := []string{"everything connected", "filesystem connected", "broken down", "old disabled"}; !slices.Equal(states, want) {
		t.Errorf("the servers in JSON: %v, want %v", states, want)
	}

	// The default file is read when there is one; a file given must exist.
	if res := u.run("", "check"); strings.Contains(res.stdout, "MCP servers") {
		t.Errorf("check without an mcp.json reports servers:\n%s", res.stdout)
	}
	missing := u.run("", "check", "--mcp-config", filepath.Join(u.home, "nope.json"))
	if missing.code != 1 || !strings.Contains(missing.stderr, "nope.json: no such file or directory: give an mcp.json in the mcpServers shape, or leave out --mcp-config") {
		t.Errorf("a missing --mcp-config: exit %d, %q", missing.code, missing.stderr)
	}
}

// A configuration that is not valid stops the program with what to fix;
// one that is missing from its default place is no servers.
func TestMCPConfigErrors(t *testing.T) {
	u := newUser(t, nil, "")
	if res := u.run("", "call", "get_current_time"); res.code != 0 {
		t.Fatalf("without an mcp.json: exit %d %s", res.code, res.stderr)
	}
	os.MkdirAll(filepath.Dir(u.mcpConfig()), 0o755)
	os.WriteFile(u.mcpConfig(), []byte(`{"mcpServers": {"notes": {"args": ["x"]}}}`), 0o644)
	res := u.run("", "call", "get_current_time")
	if res.code != 1 || !strings.Contains(res.stderr, `toolroute: mcp: invalid configuration: `+u.mcpConfig()+`: server "notes" has neither "command"`) {
		t.Errorf("an invalid mcp.json: exit %d, %q", res.code, res.stderr)
	}
	other := filepath.Join(u.home, "missing.json")
	res = u.run("", "tokens", "--mcp-config", other)
	if res.code != 1 || !strings.Contains(res.stderr, other) {
		t.Errorf("a missing --mcp-config: exit %d, %q", res.code, res.stderr)
	}
}

// toolroute tokens counts the connected servers' groups: all tools sent
// against routed, with the three npm servers.
func TestMCPTokens(t *testing.T) {
	u := newUser(t, nil, "")
	cfg := filepath.Join(u.home, "servers.json")
	memory := stdio(mcptest.NPMServer(t, "server-memory")...)
	memory["env"] = map[string]string{"MEMORY_FILE_PATH": filepath.Join(t.TempDir(), "memory.jsonl")}
	mcpServers(t, cfg,
		mcpEntry{"everything", stdio(mcptest.NPMServer(t, "server-everything", "stdio")...)},
		mcpEntry{"filesystem", stdio(mcptest.NPMServer(t, "server-filesystem", t.TempDir())...)},
		mcpEntry{"memory", memory})
	res := u.run("", "tokens", "--json", "--mcp-config", cfg)
	if res.code != 0 {
		t.Fatalf("exit %d\n%s", res.code, res.stderr)
	}
	var rep schematokens.Report
	if err := json.Unmarshal([]byte(res.stdout), &rep); err != nil {
		t.Fatalf("%v\n%s", err, res.stdout)
	}
	byName := map[string]schematokens.Scenario{}
	for _, s := range rep.Scenarios {
		byName[s.Name] = s
	}
	all, core := byName["all tools"], byName["core only"]
	for _, name := range []string{"get_sum", "filesystem_read_file", "read_graph"} {
		if !slices.Contains(all.Tools, name) {
			t.Errorf("all tools lacks %s", name)
		}
	}
	for _, g := range []string{"core + everything", "core + filesystem", "core + memory"} {
		if _, ok := byName[g]; !ok {
			t.Errorf("no scenario %q", g)
		}
	}
	if slices.Contains(core.Tools, "get_sum") || all.Bytes < 4*core.Bytes {
		t.Errorf("core only: %d bytes %v; all tools: %d bytes", core.Bytes, core.Tools, all.Bytes)
	}
	text := u.run("", "tokens", "--mcp-config", cfg)
	mustContain(t, "tokens", text.stdout, "core + everything", "core + filesystem", "core + memory", "all tools")
	t.Logf("toolroute tokens --mcp-config with the three npm servers:\n%s", text.stdout)
}

// serve's /api/health reports the servers, and a server that is down among
// the problems.
func TestMCPHealth(t *testing.T) {
	model := fakemodel.New(fakemodel.OpenAI)
	defer model.Close()
	u := newUser(t, model, fakemodel.OpenAI)
	mcpServers(t, u.mcpConfig(),
		mcpEntry{"lab", stdio(mcptest.TestServer(t, tmpRoot))},
		mcpEntry{"broken", stdio(mcptest.TestServer(t, tmpRoot), "-exit-at-start", "no NOTES_DIR set")})
	cmd := exec.Command(binary(t), "serve", "--port", "0", "--token", "health-token-123456")
	cmd.Env = u.env
	stdout, _ := cmd.StdoutPipe()
	cmd.Stderr = io.Discard
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	addr, _, _ := servedAt(line)
	var health struct {
		Problems []string     `json:"problems"`
		MCP      []mcp.Status `json:"mcp"`
	}
	var states []string
	// serve answers before its servers are up: it reports them starting
	// until they are.
	want := []string{"lab connected 10", "broken down 0"}
	for deadline := time.Now().Add(testwait.Failsafe); !slices.Equal(states, want); time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the servers: %v, want %v", states, want)
		}
		req, _ := http.NewRequest("GET", addr+"/api/health", nil)
		req.Header.Set("Authorization", "Bearer health-token-123456")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		err = json.NewDecoder(resp.Body).Decode(&health)
		resp.Body.Close()
		if err != nil {
			t.Fatal(err)
		}
		states = states[:0]
		for _, st := range health.MCP {
			states = append(states, fmt.Sprintf("%s %s %d", st.Key, st.State, len(st.Tools)))
		}
	}
	mustContain(t, "the problems", strings.Join(health.Problems, "\n"),
		`MCP server 'broken' is down: it exited during the MCP handshake (exit status 1); it wrote: "no NOTES_DIR set"; toolroute starts it again in `)
}

// An MCP server's image reaches an Anthropic model as an image block of the
// tool_result, beside the text's placeholder, and stays in the log: the
// next process sends it again.
func TestMCPImageInChat(t *testing.T) {
	model := fakemodel.New(fakemodel.Anthropic,
		fakemodel.ToolCall("load_tool_group", `{"group_name":"everything"}`),
		fakemodel.ToolCall("get_tiny_image", `{}`),
		fakemodel.Text("A tiny picture."),
		fakemodel.Text("Still a tiny picture."),
	)
	defer model.Close()
	u := newUser(t, model, fakemodel.Anthropic)
	mcpServers(t, u.mcpConfig(), mcpEntry{"everything", stdio(mcptest.NPMServer(t, "server-everything", "stdio")...)})
	res := u.run("Show me the tiny image\n", "chat", "--session", "pics")
	if res.code != 0 {
		t.Fatalf("exit %d\n%s\n%s", res.code, res.stdout, res.stderr)
	}
	mustContain(t, "the output", res.stdout, "[image image/png, ", "A tiny picture.\n")
	if again := u.run("And now?\n", "chat", "--session", "pics"); again.code != 0 {
		t.Fatalf("exit %d\n%s\n%s", again.code, again.stdout, again.stderr)
	}
	reqs := model.Requests()
	for _, i := range []int{2, 3} {
		img := toolResultImage(t, reqs[i])
		if img.MediaType != "image/png" {
			t.Errorf("request %d: the image's type is %q", i, img.MediaType)
		}
		data, err := base64.StdEncoding.DecodeString(img.Data)
		if err != nil || !bytes.HasPrefix(data, []byte("\x89PNG\r\n")) {
			t.Errorf("request %d: the image is not a PNG in base64: %v", i, err)
		}
	}
}

type anImage struct {
	MediaType string `json:"media_type"`
	Data      string `json:"data"`
}

// toolResultImage is the one image in the tool_result blocks of an
// Anthropic request.
func toolResultImage(t *testing.T, r fakemodel.Request) anImage {
	t.Helper()
	var body struct {
		Messages []struct {
			Content []struct {
				Type    string `json:"type"`
				Content []struct {
					Type   string   `json:"type"`
					Source *anImage `json:"source"`
				} `json:"content"`
			} `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(r.Body, &body); err != nil {
		t.Fatal(err)
	}
	var found []anImage
	for _, m := range body.Messages {
		for _, b := range m.Content {
			for _, c := range b.Content {
				if b.Type == "tool_result" && c.Type == "image" && c.Source != nil {
					found = append(found, *c.Source)
				}
			}
		}
	}
	if len(found) != 1 {
		t.Fatalf("%d images in the tool results, want 1:\n%s", len(found), r.Body)
	}
	return found[0]
}

// A stdio server is started when a tool needs it: the first run starts it
// to learn its tools and keeps them in the data folder; the next lists,
// loads and searches them without starting it (toolroute tools says it is
// known, not started), and a call of one of its tools starts it.
func TestMCPLazyStart(t *testing.T) {
	u := newUser(t, nil, "")
	starts := filepath.Join(t.TempDir(), "starts")
	mcpServers(t, u.mcpConfig(), mcpEntry{"lab", stdio(mcptest.TestServer(t, tmpRoot), "-starts", starts)})
	count := func() int {
		b, _ := os.ReadFile(starts)
		return strings.Count(string(b), "\n")
	}
	listed := func() toolList {
		t.Helper()
		res := u.run("", "tools", "--json")
		var l toolList
		if err := json.Unmarshal([]byte(res.stdout), &l); err != nil || res.code != 0 {
			t.Fatalf("tools: %d %v\n%s", res.code, err, res.stderr)
		}
		return l
	}
	if l := listed(); l.MCPServers == nil || *l.MCPServers != (mcpCount{Configured: 1, Known: 1, Started: 1}) || count() != 1 {
		t.Fatalf("the first run: %+v, %d starts", l.MCPServers, count())
	}
	l := listed()
	if *l.MCPServers != (mcpCount{Configured: 1, Known: 1, Started: 0}) || count() != 1 {
		t.Fatalf("the next run: %+v, %d starts", l.MCPServers, count())
	}
	i := slices.IndexFunc(l.Groups, func(g listedGroup) bool { return g.Name == "lab" })
	if i < 0 || l.Groups[i].MCP != "known" || len(l.Groups[i].Tools) != 10 {
		t.Fatalf("lab's group from the cache: %+v", l.Groups)
	}
	text := u.run("", "tools").stdout
	mustContain(t, "toolroute tools", text, "its tools from the server's last run (it starts at the first call of one)",
		"MCP servers: 1 configured, 1 known (their tools listed now or kept from their last run), 0 started")
	if res := u.run("", "call", "echo", "--params", `{"text":"woken"}`); res.code != 0 || !strings.Contains(res.stdout, "woken") {
		t.Fatalf("call echo: %d %s %s", res.code, res.stdout, res.stderr)
	}
	if count() != 2 {
		t.Errorf("the call started it %d times", count()-1)
	}
}
