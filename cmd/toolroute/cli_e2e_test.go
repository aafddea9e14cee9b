package main

// End-to-end tests of the commands a tool author uses: tools, call, help,
// and serve without a provider.

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/toolroute/toolroute/internal/mcptest"
)

// writeTool writes NAME.json and NAME.js into dir.
func writeTool(t testing.TB, dir, name, manifest, code string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name+".json"), []byte(manifest), 0o644); err != nil {
		t.Fatal(err)
	}
	if code != "" {
		if err := os.WriteFile(filepath.Join(dir, name+".js"), []byte(code), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// toolroute call as a tool author uses it: the console output shown, the
// folder's problems only when they concern the tool, errors without the
// host's prefixes or the built-ins' stack lines, a --timeout, hints built
// from the tool's own schema.
func TestCallForToolAuthors(t *testing.T) {
	u := newUser(t, nil, "")
	dir := u.toolsDir()
	writeTool(t, dir, "greet", `{"name":"greet","description":"Greet someone","parameters":{"properties":{"name":{"type":"string"},"times":{"type":"integer","minimum":1}},"required":["name","times"]}}`,
		"function execute(p) {\n  console.log('greeting', p.name);\n  if (p.name === 'boom') { const o = null; return o.field; }\n  return 'Hello, ' + p.name;\n}\n")
	writeTool(t, dir, "spin", `{"name":"spin","description":"Spin forever","timeoutSeconds":30}`, "function execute() { while (true) {} }\n")
	writeTool(t, dir, "broken", `{"name":"broken","description":"Its code is missing"}`, "")

	cases := []struct {
		name      string
		args      []string
		code      int
		stdout    []string
		stderr    []string
		notStderr []string
		// maxCPU bounds the program's CPU time: a timeout that did not
		// apply runs the tool on for its own 30 s. (The clock's time says
		// nothing on a busy machine.)
		maxCPU time.Duration
	}{
		{name: "console output", args: []string{"call", "greet", "--params", `{"name":"Ada","times":1}`},
			stdout: []string{"Hello, Ada\n\nConsole output:\nlog: greeting Ada\n"}, notStderr: []string{"broken"}},
		{name: "a thrown error keeps the tool's own line", args: []string{"call", "greet", "--params", `{"name":"boom","times":1}`}, code: 1,
			stderr:    []string{"greet failed (execution_error): TypeError: cannot read property 'field' of null\n    at execute (" + dir + "/greet.js:3:", "Console output:\nlog: greeting boom"},
			notStderr: []string{"broken", "host:"}},
		{name: "a built-in's stack is left out", args: []string{"call", "read_file", "--params", `{"path":"missing.txt"}`}, code: 1,
			stderr: []string{"read_file failed (execution_error): "}, notStderr: []string{"    at ", "builtin/", "host:"}},
		{name: "--verbose keeps the whole stack", args: []string{"call", "read_file", "--params", `{"path":"missing.txt"}`, "--verbose"}, code: 1,
			stderr: []string{"    at execute (builtin/read_file.js:"}},
		{name: "--timeout in a Go duration", args: []string{"call", "spin", "--timeout", "300ms"}, code: 1,
			stderr: []string{"spin failed (timeout): JS tool 'spin' execution timed out after 300ms\n", "--timeout 2m gives it longer"}, maxCPU: 10 * time.Second},
		{name: "--timeout in seconds", args: []string{"call", "js_eval", "--params", `{"code":"while (true) {}"}`, "--timeout", "1"}, code: 1,
			stderr: []string{"timed out after 1s\n"}, maxCPU: 10 * time.Second},
		{name: "a bad --timeout", args: []string{"call", "spin", "--timeout", "soon"}, code: 2,
			stderr: []string{`"soon" is not a time: give seconds, such as 10, or a duration, such as 500ms or 2m`}},
		{name: "a tool that did not load says why", args: []string{"call", "broken"}, code: 1,
			stderr: []string{"toolroute: not loaded: " + dir + "/broken.json: Missing corresponding .js file: broken.js\n", `toolroute call: no tool "broken": toolroute tools lists the tools you can call`}},
		{name: "--problems prints them all", args: []string{"call", "greet", "--params", `{"name":"Ada","times":1}`, "--problems"},
			stderr: []string{"not loaded: " + dir + "/broken.json"}},
		{name: "missing parameters: an example from the schema", args: []string{"call", "greet"}, code: 1,
			stderr: []string{`toolroute call: greet needs the parameters name, times: give them with --params, such as --params '{"name":"...","times":1}' (toolroute tools --group core --json shows its schema)`}},
		{name: "js_eval's example is js_eval's", args: []string{"call", "js_eval"}, code: 1,
			stderr: []string{`--params '{"code":"..."}'`}, notStderr: []string{"notes.md", "host:"}},
		{name: "a group tool's hint names its group", args: []string{"call", "set_config"}, code: 1,
			stderr: []string{`toolroute tools --group config --json`}},
		{name: "not an object", args: []string{"call", "greet", "--params", `[1]`}, code: 1,
			stderr: []string{"toolroute call: the parameters of greet must be a JSON object: give them with --params, such as"}},
		{name: "no tool named", args: []string{"call"}, code: 2,
			stderr: []string{"toolroute tools lists the tools you can call"}},
		{name: "a meta-tool", args: []string{"call", "search_tools", "--params", `{"query":"mail"}`}, code: 1,
			stderr: []string{"toolroute call: search_tools works only inside a conversation: the model calls it in toolroute chat or serve"}},
		{name: "the model setting's default", args: []string{"call", "get_config"},
			stdout: []string{"- model = none, as no model provider is configured (set OPENAI_API_KEY, ANTHROPIC_API_KEY or GEMINI_API_KEY) (default): the model to call"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res := u.run("", c.args...)
			if res.code != c.code {
				t.Errorf("exit %d, want %d\nstdout: %s\nstderr: %s", res.code, c.code, res.stdout, res.stderr)
			}
			mustContain(t, "stdout", res.stdout, c.stdout...)
			mustContain(t, "stderr", res.stderr, c.stderr...)
			for _, no := range c.notStderr {
				if strings.Contains(res.stderr, no) {
					t.Errorf("stderr has %q:\n%s", no, res.stderr)
				}
			}
			if c.maxCPU > 0 && res.cpu > c.maxCPU {
				t.Errorf("used %v of CPU time", res.cpu)
			}
		})
	}
	// With a provider configured, the default is its model.
	u.setenv("OPENAI_API_KEY=sk-test")
	res := u.run("", "call", "get_config")
	mustContain(t, "get_config with OpenAI", res.stdout, "- model = gpt-4.1-mini (default): the model to call")
}

// toolroute tools lists every tool the model could be offered, with its
// source, state and schema tokens; the meta-tools say when they are.
func TestToolsCommand(t *testing.T) {
	u := newUser(t, nil, "")
	dir := u.toolsDir()
	writeTool(t, dir, "shout", `{"name":"shout","description":"Say a text in capitals","parameters":{"properties":{"text":{"type":"string"}},"required":["text"]}}`, "function execute(p) { return p.text.toUpperCase(); }")
	writeTool(t, dir, "notes", `[{"_meta":true,"display_name":"Notes","description":"Keep notes"},{"name":"note_add","description":"Add a note","function":"add","parameters":{"properties":{"text":{"type":"string"}}}},{"name":"note_list","description":"List the notes","function":"list"}]`,
		"function add(p) { return 'ok'; }\nfunction list() { return ''; }\n")
	mcpServers(t, u.mcpConfig(), mcpEntry{"lab", stdio(mcptest.TestServer(t, tmpRoot))})
	if res := u.run("", "call", "set_tool_enabled", "--params", `{"name":"note_list","enabled":false}`); res.code != 0 {
		t.Fatalf("disabling note_list: %s", res.stderr)
	}

	list := func(args ...string) toolList {
		t.Helper()
		res := u.run("", append([]string{"tools", "--json"}, args...)...)
		if res.code != 0 {
			t.Fatalf("tools %v: exit %d: %s", args, res.code, res.stderr)
		}
		var l toolList
		if err := json.Unmarshal([]byte(res.stdout), &l); err != nil {
			t.Fatalf("%v: %s", err, res.stdout)
		}
		return l
	}
	core := func(l toolList, name string) listedTool {
		t.Helper()
		for _, c := range l.Core {
			if c.Name == name {
				return c
			}
		}
		t.Fatalf("no core tool %s in %+v", name, l.Core)
		return listedTool{}
	}
	group := func(l toolList, name string) listedGroup {
		t.Helper()
		for _, g := range l.Groups {
			if g.Name == name {
				return g
			}
		}
		t.Fatalf("no group %s", name)
		return listedGroup{}
	}

	l := list()
	var names []string
	for _, c := range l.Core {
		names = append(names, c.Name)
	}
	wantCore := []string{"load_tool_group", "search_tools", "unload_tool_group", "load_skill", "create_agent", "get_current_time", "http_request", "js_eval", "read_file", "save_memory", "search_history", "webfetch", "write_file", "shout"}
	if !slices.Equal(names, wantCore) {
		t.Errorf("core tools %v, want %v", names, wantCore)
	}
	for _, c := range []struct {
		name, source string
		enabled      bool
	}{{"load_tool_group", "meta", true}, {"search_tools", "meta", false}, {"unload_tool_group", "meta", false}, {"load_skill", "meta", false},
		{"js_eval", "built-in", true}, {"shout", "user file", true}} {
		got := core(l, c.name)
		if got.Source != c.source || got.Enabled != c.enabled || got.Tokens <= 0 {
			t.Errorf("%s: %+v, want source %s, enabled %v and tokens", c.name, got, c.source, c.enabled)
		}
	}
	if o := core(l, "search_tools").Offered; !strings.Contains(o, "--search-tools") {
		t.Errorf("search_tools says it is offered %q", o)
	}
	if f := core(l, "shout").File; f != filepath.Join(dir, "shout.json") {
		t.Errorf("shout's file %q", f)
	}
	for _, g := range []struct{ name, source string }{{"pdf", "native"}, {"config", "built-in"}, {"notes", "user file"}, {"lab", "MCP server"}} {
		if got := group(l, g.name); got.Source != g.source || !got.Enabled || got.Tokens <= 0 {
			t.Errorf("group %s: source %q, enabled %v, %d tokens; want %s", g.name, got.Source, got.Enabled, got.Tokens, g.source)
		}
	}
	notes := group(l, "notes")
	if len(notes.Tools) != 2 || !notes.Tools[0].Enabled || notes.Tools[1].Enabled {
		t.Errorf("notes' tools %+v: want note_add enabled, note_list disabled", notes.Tools)
	}

	// A group's tokens are what loading it adds to a call, as toolroute
	// tokens counts it: its tools' array, joined to the core's.
	var rep struct {
		Scenarios []struct {
			Name   string `json:"name"`
			Tokens []struct {
				Encoding string `json:"encoding"`
				Tokens   int    `json:"tokens"`
			} `json:"tokens"`
		} `json:"scenarios"`
	}
	res := u.run("", "tokens", "--json")
	if err := json.Unmarshal([]byte(res.stdout), &rep); err != nil {
		t.Fatalf("tokens: %v %s", err, res.stderr)
	}
	o200k := map[string]int{}
	for _, s := range rep.Scenarios {
		for _, c := range s.Tokens {
			if c.Encoding == "o200k_base" {
				o200k[s.Name] = c.Tokens
			}
		}
	}
	for _, g := range []string{"config", "notes", "google_tasks"} {
		added := o200k["core + "+g] - o200k["core only"]
		if got := group(l, g).Tokens; got < added-3 || got > added+3 {
			t.Errorf("group %s: %d tokens; loading it adds %d", g, got, added)
		}
	}

	// The settings that offer the other meta-tools.
	on := list("--search-tools", "--tool-budget", "3000")
	if !core(on, "search_tools").Enabled || !core(on, "unload_tool_group").Enabled {
		t.Errorf("with --search-tools and --tool-budget: %+v", on.Core[:3])
	}
	one := list("--group", "notes")
	if len(one.Core) != 0 || len(one.Groups) != 1 || one.Groups[0].Name != "notes" {
		t.Errorf("--group notes lists %+v", one)
	}
	bad := u.run("", "tools", "--group", "nope")
	if bad.code != 1 || !strings.Contains(bad.stderr, `toolroute tools: no group "nope": the groups are core, pdf, lab, config,`) {
		t.Errorf("an unknown group: exit %d, %q", bad.code, bad.stderr)
	}

	disabled := u.run("", "call", "note_list")
	mustContain(t, "calling a disabled tool", disabled.stderr, `toolroute call: tool "note_list" is disabled: enable it with toolroute call set_tool_enabled --params '{"name":"note_list","enabled":true}'`)
	defer func() {
		// The hint's command works.
		if res := u.run("", "call", "set_tool_enabled", "--params", `{"name":"note_list","enabled":true}`); res.code != 0 {
			t.Errorf("enabling note_list: %s", res.stderr)
		}
		if res := u.run("", "call", "note_list"); res.code != 0 {
			t.Errorf("note_list after enabling it: exit %d, %s", res.code, res.stderr)
		}
	}()

	text := u.run("", "tools")
	mustContain(t, "the text list", text.stdout,
		"Core tools: sent on every model call",
		"  (shout: a single-tool manifest is a core tool, sent on every call;",
		"notes (Notes): user file notes.json, 2 tools, ",
		"lab (",
		"pdf (PDF Tools): native, 3 tools, ")
	if regexp.MustCompile(`(?m) +$`).MatchString(text.stdout) {
		t.Errorf("lines end in spaces:\n%s", text.stdout)
	}
	if !regexp.MustCompile(`(?m)^  note_list +\d+ +disabled$`).MatchString(text.stdout) {
		t.Errorf("note_list is not shown disabled:\n%s", text.stdout)
	}
}

// toolroute help lists every flag of every command, and each command's
// --help prints its flags, with exit status 0.
func TestHelpListsEveryFlag(t *testing.T) {
	var help bytes.Buffer
	if code := run([]string{"help"}, nil, &help, io.Discard); code != 0 {
		t.Fatalf("help: exit %d", code)
	}
	flagLine := regexp.MustCompile(`(?m)^  -([a-z0-9-]+)`)
	for _, c := range commands {
		if c.name == "help" {
			continue
		}
		var out bytes.Buffer
		if code := run([]string{c.name, "--help"}, strings.NewReader(""), &out, &out); code != 0 {
			t.Errorf("%s --help: exit %d\n%s", c.name, code, out.String())
		}
		flags := flagLine.FindAllStringSubmatch(out.String(), -1)
		if len(flags) == 0 {
			t.Errorf("%s --help lists no flag:\n%s", c.name, out.String())
		}
		for _, f := range flags {
			if !regexp.MustCompile(`[\s\[|]--?` + regexp.QuoteMeta(f[1]) + `\b`).MatchString(help.String()) {
				t.Errorf("toolroute help does not list %s's --%s", c.name, f[1])
			}
		}
		if !strings.Contains(out.String(), "usage: "+c.synopsis) {
			t.Errorf("%s --help lacks its synopsis:\n%s", c.name, out.String())
		}
	}
	var one bytes.Buffer
	if code := run([]string{"help", "serve"}, nil, &one, io.Discard); code != 0 {
		t.Errorf("help serve: exit %d", code)
	}
	mustContain(t, "help serve", one.String(), "-ui string", "-open", "-release-idle duration", "-routing", "-search-tools", "-tool-budget", "-minimal-page")
	mustContain(t, "help", help.String(), "--ui DIR", "--open", "--routing", "--search-tools", "--tool-budget", "--minimal-page", "--with-builtin")
}

// serve starts without a provider: the page can bring its own key, and a
// turn through the API fails saying what to set.
func TestServeWithoutProvider(t *testing.T) {
	u := newUser(t, nil, "")
	cmd := exec.Command(binary(t), "serve", "--port", "0")
	cmd.Env = u.env
	stdout, _ := cmd.StdoutPipe()
	var errOut bytes.Buffer
	cmd.Stderr = &errOut
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	r := bufio.NewReader(stdout)
	first, err := r.ReadString('\n')
	if err != nil {
		t.Fatalf("%v: %s", err, errOut.String())
	}
	second, _ := r.ReadString('\n')
	addr, _, ok := servedAt(first)
	if !ok {
		t.Fatalf("first line %q", first)
	}
	token := keptToken(t, u)
	mustContain(t, "serve's output", first+second, "with no model provider", "the page can use its own key, kept in the browser")
	req, _ := http.NewRequest("POST", addr+"/api/sessions/web/messages", strings.NewReader(`{"text":"hi"}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	events, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	mustContain(t, "the turn's events", string(events), "event: failed", "no model provider is configured", "OPENAI_API_KEY", "ANTHROPIC_API_KEY")
	cmd.Process.Signal(syscall.SIGTERM)
	if err := cmd.Wait(); err != nil {
		t.Errorf("serve did not stop cleanly: %v\n%s", err, errOut.String())
	}
}
