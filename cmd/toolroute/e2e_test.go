package main

// End-to-end tests: the toolroute binary, built once, run as a user runs it,
// against scripted model servers on loopback that speak the OpenAI and
// Anthropic wire formats and record what they receive.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/toolroute/toolroute/host/store"
	"github.com/toolroute/toolroute/internal/fakemodel"
	"github.com/toolroute/toolroute/internal/pgtest"
	"github.com/toolroute/toolroute/internal/schematokens"
	"github.com/toolroute/toolroute/internal/testcache"
	"github.com/toolroute/toolroute/internal/testwait"
	"github.com/toolroute/toolroute/internal/tokens"
	"github.com/toolroute/toolroute/internal/webui"
	"github.com/toolroute/toolroute/registry/session"
	"github.com/toolroute/toolroute/wasm"
)

var (
	tmpRoot   string
	buildOnce sync.Once
	binPath   string
	buildErr  error
)

func TestMain(m *testing.M) {
	code := testcache.Run(m, &tmpRoot)
	pgtest.StopShared()
	os.Exit(code)
}

// binary builds the program once per test run.
func binary(t testing.TB) string {
	t.Helper()
	buildOnce.Do(func() {
		binPath = filepath.Join(tmpRoot, "toolroute")
		out, err := exec.Command("go", "build", "-o", binPath, ".").CombinedOutput()
		if err != nil {
			buildErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return binPath
}

// user is one user's machine: a home folder with the default folders, and
// the environment the program sees.
type user struct {
	t    testing.TB
	home string
	env  []string
}

// newUser makes a home folder; model, when set, is the provider the
// environment configures.
func newUser(t testing.TB, model *fakemodel.Server, format fakemodel.Format) *user {
	home := t.TempDir()
	u := &user{t: t, home: home}
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(k, "OPENAI_") || strings.HasPrefix(k, "ANTHROPIC_") || strings.HasPrefix(k, "GEMINI_") || strings.HasPrefix(k, "TOOLROUTE_") ||
			strings.HasPrefix(k, "GOOGLE_") || strings.HasPrefix(k, "XDG_") || k == "HOME" {
			continue
		}
		u.env = append(u.env, kv)
	}
	u.env = append(u.env, "HOME="+home,
		"XDG_CONFIG_HOME="+filepath.Join(home, ".config"),
		"XDG_DATA_HOME="+filepath.Join(home, ".local", "share"),
		// The compiled code is shared by every test's processes, and by
		// every package's when testcache.Env is set.
		"XDG_CACHE_HOME="+testcache.Home(filepath.Join(tmpRoot, "cache")))
	switch {
	case model == nil:
	case format == fakemodel.OpenAI || format == fakemodel.Responses:
		// The Responses API also needs --provider responses: providerFlags.
		u.env = append(u.env, "OPENAI_BASE_URL="+model.BaseURL(), "OPENAI_API_KEY=sk-test")
	case format == fakemodel.Gemini:
		u.env = append(u.env, "GEMINI_BASE_URL="+model.BaseURL(), "GEMINI_API_KEY=gm-test")
	default:
		u.env = append(u.env, "ANTHROPIC_BASE_URL="+model.BaseURL(), "ANTHROPIC_API_KEY=sk-ant-test")
	}
	return u
}

// providerFlags are the flags that choose format's provider when its
// variables alone do not: the Responses API shares OpenAI's.
func providerFlags(format fakemodel.Format) []string {
	if format == fakemodel.Responses {
		return []string{"--provider", "responses"}
	}
	return nil
}

// authHeader is the header and value newUser's key goes as in format.
func authHeader(format fakemodel.Format) (string, string) {
	switch format {
	case fakemodel.Anthropic:
		return "x-api-key", "sk-ant-test"
	case fakemodel.Gemini:
		return "x-goog-api-key", "gm-test"
	}
	return "Authorization", "Bearer sk-test"
}

func (u *user) setenv(kv ...string) { u.env = append(u.env, kv...) }

func (u *user) dbPath() string {
	return filepath.Join(u.home, ".local", "share", "toolroute", "toolroute.db")
}

func (u *user) toolsDir() string { return filepath.Join(u.home, ".config", "toolroute", "tools") }

type result struct {
	stdout, stderr string
	code           int
	// cpu is the CPU time the program used, user and system.
	cpu time.Duration
}

// run runs the program to its end with stdin as standard input.
func (u *user) run(stdin string, args ...string) result {
	u.t.Helper()
	cmd := exec.Command(binary(u.t), args...)
	cmd.Env = u.env
	cmd.Dir = u.home
	cmd.Stdin = strings.NewReader(stdin)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	code := 0
	if exit, ok := err.(*exec.ExitError); ok {
		code = exit.ExitCode()
	} else if err != nil {
		u.t.Fatal(err)
	}
	return result{out.String(), errOut.String(), code, cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()}
}

// messages returns what the store holds for a session.
func (u *user) messages(id string) []session.Message {
	u.t.Helper()
	db, err := store.Open(context.Background(), u.dbPath())
	if err != nil {
		u.t.Fatal(err)
	}
	defer db.Close()
	msgs, err := db.Messages(context.Background(), id)
	if err != nil {
		u.t.Fatal(err)
	}
	return msgs
}

func mustContain(t testing.TB, what, text string, wants ...string) {
	t.Helper()
	for _, w := range wants {
		if !strings.Contains(text, w) {
			t.Errorf("%s lacks %q:\n%s", what, w, text)
		}
	}
}

// requestText is everything a request sent as user or tool content, in
// either format, for checks that history was sent.
func requestText(r fakemodel.Request) string { return string(r.Body) }

// Loaded groups restored from the log across processes, in each wire format: a group loaded in one
// process is still loaded in the next, whose first model call sends the
// group's schemas; the model calls its tools without loading it again. The
// log carries what the format needs back: Gemini's thought signatures.
func TestRestartKeepsLoadedGroups(t *testing.T) {
	for _, format := range fakemodel.Formats {
		t.Run(string(format), func(t *testing.T) {
			model := fakemodel.New(format,
				fakemodel.ToolCall("load_tool_group", `{"group_name":"config"}`),
				fakemodel.ToolCall("get_config", `{}`),
				fakemodel.Text("The model is fake-1."),
				fakemodel.ToolCall("list_providers", `{}`),
				fakemodel.Text("No providers are stored."),
			)
			defer model.Close()
			u := newUser(t, model, format)
			args := append([]string{"chat", "--session", "work", "--model", "fake-1"}, providerFlags(format)...)
			first := u.run("Which model is set?\n", args...)
			if first.code != 0 {
				t.Fatalf("first process: exit %d\n%s\n%s", first.code, first.stdout, first.stderr)
			}
			mustContain(t, "the first process's output", first.stdout,
				"you> Which model is set?\n",
				"→ load_tool_group {\"group_name\":\"config\"}\n",
				"[loaded group config: list_providers, create_provider, update_provider, delete_provider, list_models, fetch_models, set_default_model, add_model, delete_model, list_agents, update_agent, delete_agent, get_config, set_config, manage_env_var, list_tool_states, set_tool_enabled]\n",
				"→ get_config {}\n",
				"← get_config: - provider = the program's own (",
				"- model = fake-1 (default): the model to call with the program's own provider",
				"The model is fake-1.\n")

			second := u.run("Any providers?\n", args...)
			if second.code != 0 {
				t.Fatalf("second process: exit %d\n%s\n%s", second.code, second.stdout, second.stderr)
			}
			mustContain(t, "the second process's output", second.stdout, "→ list_providers {}\n", "No providers are stored.\n")
			if strings.Contains(second.stdout, "load_tool_group") {
				t.Errorf("the second process loaded the group again:\n%s", second.stdout)
			}
			reqs := model.Requests()
			if len(reqs) != 5 {
				t.Fatalf("%d model calls, want 5", len(reqs))
			}
			core := reqs[0].ToolNames()
			if slices.Contains(core, "list_providers") || !slices.Contains(core, "load_tool_group") {
				t.Errorf("the first call offered %v", core)
			}
			// The second process's first call: the group's schemas, and the
			// history with the first turn.
			restarted := reqs[3]
			for _, name := range []string{"list_providers", "get_config", "set_config", "manage_env_var"} {
				if !slices.Contains(restarted.ToolNames(), name) {
					t.Errorf("the restarted process's first call lacks %s: %v", name, restarted.ToolNames())
				}
			}
			mustContain(t, "the restarted process's first request", requestText(restarted),
				"Which model is set?", "The model is fake-1.", "Any providers?")
			if format == fakemodel.Gemini {
				// The model is in the path; the first process's calls go
				// back with the signatures Gemini gave them.
				if restarted.Path != "/v1beta/models/fake-1:streamGenerateContent" || restarted.Query != "alt=sse" {
					t.Errorf("path %s?%s", restarted.Path, restarted.Query)
				}
				for _, r := range []string{"r1", "r2"} {
					mustContain(t, "the restarted process's first request", requestText(restarted),
						`"thoughtSignature":"`+base64.StdEncoding.EncodeToString([]byte("signature of "+r))+`"`)
				}
			} else {
				mustContain(t, "the restarted process's first request", requestText(restarted), `"model":"fake-1"`)
			}
			if h, v := authHeader(format); restarted.Header.Get(h) != v {
				t.Errorf("authentication headers: %v", restarted.Header)
			}
		})
	}
}

// /clear starts a new session; a call to a tool of a group that is not
// loaded is refused and does not run.
func TestClearAndBlockedCall(t *testing.T) {
	model := fakemodel.New(fakemodel.OpenAI,
		fakemodel.ToolCall("set_config", `{"key":"model","value":"sneaky"}`),
		fakemodel.Text("I must load the config group first."),
		fakemodel.Text("Hello again."),
	)
	defer model.Close()
	u := newUser(t, model, fakemodel.OpenAI)
	res := u.run("Switch the model\n/clear\nHello\n", "chat", "--model", "fake-1")
	if res.code != 0 {
		t.Fatalf("exit %d\n%s\n%s", res.code, res.stdout, res.stderr)
	}
	mustContain(t, "the output", res.stdout, "→ set_config", "← set_config failed (", "[new session ", "Hello again.\n")
	reqs := model.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d model calls, want 3", len(reqs))
	}
	// The refusal the model read says what to do.
	mustContain(t, "the call after the blocked one", requestText(reqs[1]), "load_tool_group")
	// set_config did not run: the model is still fake-1.
	if m := reqs[2].JSON()["model"]; m != "fake-1" {
		t.Errorf("the model after the blocked call is %v", m)
	}
	// After /clear, nothing of the first session is sent.
	if body := requestText(reqs[2]); strings.Contains(body, "Switch the model") || !strings.Contains(body, "Hello") {
		t.Errorf("the first call after /clear sent:\n%s", body)
	}
}

func TestProviderErrors(t *testing.T) {
	// Each provider's 429, with the wait it asks for: Gemini says it in
	// the body, the others in Retry-After.
	for _, format := range fakemodel.Formats {
		t.Run("429 then success, "+string(format), func(t *testing.T) {
			model := fakemodel.New(format, fakemodel.RateLimited(format, 1), fakemodel.Text("Got through."))
			defer model.Close()
			res := newUser(t, model, format).run("hi\n", append([]string{"chat"}, providerFlags(format)...)...)
			if res.code != 0 {
				t.Fatalf("exit %d\n%s\n%s", res.code, res.stdout, res.stderr)
			}
			mustContain(t, "the output", res.stdout, "[The provider answered 429: trying again in 1 s (retry 1 of 3)]\n", "Got through.\n")
			if n := len(model.Requests()); n != 2 {
				t.Errorf("%d requests, want 2", n)
			}
		})
	}
	// A conversation over the context window is not tried again; the user
	// reads the provider's own words.
	for _, format := range fakemodel.Formats {
		t.Run("context too long, "+string(format), func(t *testing.T) {
			model := fakemodel.New(format, fakemodel.ContextTooLong(format), fakemodel.Text("never"))
			defer model.Close()
			res := newUser(t, model, format).run("hi\n", append([]string{"chat"}, providerFlags(format)...)...)
			if res.code != 1 || len(model.Requests()) != 1 {
				t.Errorf("exit %d after %d requests, want 1 after 1", res.code, len(model.Requests()))
			}
			mustContain(t, "the output", res.stdout, "error: the model call failed: HTTP 400")
			if !strings.Contains(res.stdout, "context") && !strings.Contains(res.stdout, "too long") && !strings.Contains(res.stdout, "exceeds") {
				t.Errorf("the output does not say why:\n%s", res.stdout)
			}
		})
	}
	t.Run("401", func(t *testing.T) {
		model := fakemodel.New(fakemodel.Anthropic,
			fakemodel.Error(401, `{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}`))
		defer model.Close()
		u := newUser(t, model, fakemodel.Anthropic)
		res := u.run("hi\n", "chat", "--session", "s")
		if res.code != 1 {
			t.Errorf("exit %d, want 1", res.code)
		}
		mustContain(t, "the output", res.stdout, "error: the model call failed: HTTP 401: check the API key: invalid x-api-key", "(check ANTHROPIC_API_KEY)\n")
		if n := len(model.Requests()); n != 1 {
			t.Errorf("%d requests, want 1: a 401 is not tried again", n)
		}
		// The user's message is kept for the next try, and the failure
		// with it, for a reader of the log.
		if msgs := u.messages("s"); len(msgs) != 2 || msgs[0].Content != "hi" || msgs[1].Type != session.TurnEnd || msgs[1].ErrorType != "model_error" {
			t.Errorf("messages = %+v", msgs)
		}
	})
	t.Run("unknown model", func(t *testing.T) {
		model := fakemodel.New(fakemodel.OpenAI, fakemodel.Error(404,
			`{"error":{"message":"The model 'gpt-nope' does not exist","type":"invalid_request_error","code":"model_not_found"}}`))
		defer model.Close()
		res := newUser(t, model, fakemodel.OpenAI).run("hi\n", "chat", "--model", "gpt-nope")
		mustContain(t, "the output", res.stdout, "does not exist", `(the model is "gpt-nope": choose another with --model, TOOLROUTE_MODEL or the model setting)`)
	})
	t.Run("unreachable", func(t *testing.T) {
		u := newUser(t, nil, "")
		u.setenv("OPENAI_BASE_URL=http://127.0.0.1:1/v1")
		res := u.run("hi\n", "chat")
		mustContain(t, "the output", res.stdout, "could not be reached", "is the server at http://127.0.0.1:1/v1 running? set OPENAI_BASE_URL to change it")
	})
	t.Run("no provider", func(t *testing.T) {
		res := newUser(t, nil, "").run("hi\n", "chat")
		if res.code != 1 {
			t.Errorf("exit %d, want 1", res.code)
		}
		mustContain(t, "the error", res.stderr, "no model provider is configured", "OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GEMINI_API_KEY", "--provider demo")
	})
}

// Killed in the middle of a turn, the program loses nothing it committed,
// and the next process continues from the log.
func TestKillMidTurn(t *testing.T) {
	hold := make(chan struct{})
	defer close(hold)
	model := fakemodel.New(fakemodel.OpenAI,
		fakemodel.ToolCall("get_current_time", `{}`),
		fakemodel.Reply{Text: "never sent", Hold: hold},
		fakemodel.Text("Carrying on."),
	)
	defer model.Close()
	u := newUser(t, model, fakemodel.OpenAI)
	cmd := exec.Command(binary(t), "chat", "--session", "k")
	cmd.Env = u.env
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	io.WriteString(stdin, "What time is it?\n")
	// Wait for the second model call: the tool has run and its result was
	// committed before the call went out.
	for deadline := time.Now().Add(testwait.Failsafe); len(model.Requests()) < 2; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatalf("the second model call never came:\n%s", out.String())
		}
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()

	msgs := u.messages("k")
	var kinds []string
	for _, m := range msgs {
		kinds = append(kinds, string(m.Type)+" "+m.ToolName)
	}
	if want := []string{"user ", "assistant ", "tool_call get_current_time", "tool_result get_current_time"}; !slices.Equal(kinds, want) {
		t.Fatalf("after the kill the log holds %q, want %q", kinds, want)
	}
	if msgs[3].Status != "success" {
		t.Errorf("the tool result = %+v", msgs[3])
	}

	res := u.run("And now?\n", "chat", "--session", "k")
	if res.code != 0 {
		t.Fatalf("exit %d\n%s\n%s", res.code, res.stdout, res.stderr)
	}
	mustContain(t, "the output", res.stdout, "Carrying on.\n")
	reqs := model.Requests()
	mustContain(t, "the request after the restart", requestText(reqs[2]), "What time is it?", `"tool_call_id"`, msgs[3].Content[:10], "And now?")
}

// A user creates a JS tool with create_js_tool and the model calls it in the
// same turn; the tool stays for later processes.
func TestCreateJSToolInSession(t *testing.T) {
	code := `function execute(p) { return String(p.text.split(/\s+/).filter(Boolean).length) }`
	args, _ := json.Marshal(map[string]any{
		"name": "word_count", "description": "Count the words of a text",
		"parameters": map[string]any{"type": "object", "properties": map[string]any{"text": map[string]any{"type": "string"}}, "required": []string{"text"}},
		"code":       code,
	})
	model := fakemodel.New(fakemodel.OpenAI,
		fakemodel.ToolCall("load_tool_group", `{"group_name":"js_tool_management"}`),
		fakemodel.ToolCall("create_js_tool", string(args)),
		fakemodel.ToolCall("word_count", `{"text":"one two  three"}`),
		fakemodel.Text("It has 3 words."),
	)
	defer model.Close()
	u := newUser(t, model, fakemodel.OpenAI)
	// create_js_tool asks first: the answer comes from standard input.
	res := u.run("Make a word counter and count 'one two  three'\ny\n", "chat", "--ask-stdin")
	if res.code != 0 {
		t.Fatalf("exit %d\n%s\n%s", res.code, res.stdout, res.stderr)
	}
	mustContain(t, "the output", res.stdout, "? create_js_tool {", "Allow it? [y] once, [a] always in this session, [n] no: y\n",
		"← create_js_tool: Created word_count", "← word_count: 3\n", "It has 3 words.\n")
	reqs := model.Requests()
	if !slices.Contains(reqs[2].ToolNames(), "word_count") || slices.Contains(reqs[1].ToolNames(), "word_count") {
		t.Errorf("word_count offered: before %v, after %v", reqs[1].ToolNames(), reqs[2].ToolNames())
	}
	if src, err := os.ReadFile(filepath.Join(u.toolsDir(), "word_count.js")); err != nil || string(src) != code {
		t.Errorf("word_count.js = %q, %v", src, err)
	}
	// A later process has it; so does toolroute call.
	call := u.run("", "call", "word_count", "--params", `{"text":"a b"}`)
	if call.code != 0 || call.stdout != "2\n" {
		t.Errorf("call word_count: exit %d, %q %q", call.code, call.stdout, call.stderr)
	}
}

func TestCall(t *testing.T) {
	u := newUser(t, nil, "")
	for _, c := range []struct {
		args           []string
		stdin          string
		code           int
		stdout, stderr string
	}{
		{[]string{"call", "js_eval", "--params", `{"code":"6 * 7"}`}, "", 0, "42\n", ""},
		{[]string{"call", "js_eval", "--params", "-"}, `{"code":"'from stdin'"}`, 0, "from stdin\n", ""},
		{[]string{"call", "write_file", "--params", `{"path":"notes.txt","content":"hi"}`}, "", 0, "", ""},
		{[]string{"call", "read_file", "--params", `{"path":"notes.txt"}`}, "", 0, "hi\n", ""},
		{[]string{"call", "read_file"}, "", 1, "", "read_file needs the parameters path"},
		{[]string{"call", "read_file", "--params", `{"path":"missing.txt"}`}, "", 1, "", "read_file failed ("},
		{[]string{"call", "js_eval", "--params", `{"code":`}, "", 1, "", "must be a JSON object"},
		{[]string{"call", "nope"}, "", 1, "", `no tool "nope"`},
		{[]string{"call", "load_tool_group", "--params", `{"group_name":"config"}`}, "", 1, "", "only inside a conversation"},
		{[]string{"call"}, "", 2, "", "usage: toolroute call TOOL"},
	} {
		res := u.run(c.stdin, c.args...)
		if res.code != c.code || !strings.HasPrefix(res.stdout, c.stdout) || !strings.Contains(res.stderr, c.stderr) ||
			c.stdout != "" && res.stdout != c.stdout {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want %d, %q, %q", c.args, res.code, res.stdout, res.stderr, c.code, c.stdout, c.stderr)
		}
	}
}

// toolroute tokens counts what the model calls really send: the tools
// arrays of the requests a session makes, recounted here, match the
// report's scenarios.
func TestTokens(t *testing.T) {
	model := fakemodel.New(fakemodel.OpenAI,
		fakemodel.ToolCall("load_tool_group", `{"group_name":"config"}`),
		fakemodel.Text("Loaded."),
		fakemodel.ToolCall("load_tool_group", `{"group_name":"google_tasks"}`),
		fakemodel.Text("Loaded."),
	)
	defer model.Close()
	u := newUser(t, model, fakemodel.OpenAI)
	os.MkdirAll(u.toolsDir(), 0o755)
	os.WriteFile(filepath.Join(u.toolsDir(), "shout.json"), []byte(`{"name":"shout","description":"Say a text in capitals, «loudly»","parameters":{"properties":{"text":{"type":"string"}},"required":["text"]}}`), 0o644)
	os.WriteFile(filepath.Join(u.toolsDir(), "shout.js"), []byte(`function execute(p) { return p.text.toUpperCase() }`), 0o644)

	res := u.run("", "tokens", "--json")
	if res.code != 0 {
		t.Fatalf("exit %d\n%s", res.code, res.stderr)
	}
	var rep schematokens.Report
	if err := json.Unmarshal([]byte(res.stdout), &rep); err != nil {
		t.Fatalf("%v\n%s", err, res.stdout)
	}
	scenario := func(name string) schematokens.Scenario {
		for _, s := range rep.Scenarios {
			if s.Name == name {
				return s
			}
		}
		t.Fatalf("no scenario %q in %s", name, res.stdout)
		return schematokens.Scenario{}
	}
	if all := scenario("all tools"); !slices.Contains(all.Tools, "shout") || slices.Contains(all.Tools, "load_tool_group") {
		t.Errorf("all tools = %v", all.Tools)
	}

	if chat := u.run("Load config\n/clear\nLoad tasks\n", "chat"); chat.code != 0 {
		t.Fatalf("chat: exit %d\n%s\n%s", chat.code, chat.stdout, chat.stderr)
	}
	reqs := model.Requests()
	for i, name := range []string{"core only", "core + config", "core only", "core + google_tasks"} {
		var body struct {
			Tools json.RawMessage `json:"tools"`
		}
		if err := json.Unmarshal(reqs[i].Body, &body); err != nil {
			t.Fatal(err)
		}
		s := scenario(name)
		if !slices.Equal(s.Tools, reqs[i].ToolNames()) || s.Bytes != len(body.Tools) {
			t.Errorf("%s: report %v (%d bytes), request %d sent %v (%d bytes)", name, s.Tools, s.Bytes, i, reqs[i].ToolNames(), len(body.Tools))
		}
		for _, c := range s.Tokens {
			n, err := tokens.Count(c.Encoding, string(body.Tools))
			if err != nil || n != c.Tokens {
				t.Errorf("%s: %s counts %d, the request's tools are %d (%v)", name, c.Encoding, c.Tokens, n, err)
			}
		}
	}

	text := u.run("", "tokens")
	mustContain(t, "tokens", text.stdout, "scenario", "o200k_base", "cl100k_base", "core + js_tool_management", "core + google_tasks", "all groups loaded")
}

// serve answers the API, to the token in the URL it prints, until it is
// stopped; with no flag, / is the browser UI built into the program.
//
// The first line gives the address with a one-use sign-in code, never the
// token, which API clients read from the data folder's serve-token.
func TestServe(t *testing.T) {
	model := fakemodel.New(fakemodel.OpenAI, fakemodel.Text("Served."))
	defer model.Close()
	u := newUser(t, model, fakemodel.OpenAI)
	cmd := exec.Command(binary(t), "serve", "--port", "0")
	cmd.Env = u.env
	stdout, _ := cmd.StdoutPipe()
	var errOut bytes.Buffer
	cmd.Stderr = &errOut
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		t.Fatalf("%v: %s", err, errOut.String())
	}
	addr, login, ok := servedAt(line)
	if !ok || !strings.HasPrefix(addr, "http://127.0.0.1:") {
		t.Fatalf("first line %q", line)
	}
	token := keptToken(t, u)
	if strings.Contains(line, token) || login == token {
		t.Errorf("serve printed its token: %q", line)
	}
	for _, f := range []struct{ path, contentType, from string }{
		{"/", "text/html; charset=utf-8", "index.html"},
		{"/" + webui.Module, "application/wasm", ""},
	} {
		resp, err := http.Get(addr + f.path)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		want := wasm.Binary
		if f.from != "" {
			want, _ = fs.ReadFile(webui.Files, f.from)
		}
		if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != f.contentType || !bytes.Equal(body, want) {
			t.Errorf("GET %s: HTTP %d %s, %d bytes; want the built-in UI's %d", f.path, resp.StatusCode, resp.Header.Get("Content-Type"), len(body), len(want))
		}
	}
	send := func(token string) *http.Response {
		req, _ := http.NewRequest("POST", addr+"/api/sessions/web/messages", strings.NewReader(`{"text":"hi"}`))
		req.Header.Set("Content-Type", "application/json")
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		return resp
	}
	resp := send("")
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("without the token: HTTP %d", resp.StatusCode)
	}
	resp = send(token)
	events, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	mustContain(t, "the events", string(events), "event: done\ndata: {\"type\":\"done\",\"text\":\"Served.\"")
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		t.Errorf("serve did not stop cleanly: %v\n%s", err, errOut.String())
	}
	if msgs := u.messages("web"); len(msgs) != 2 {
		t.Errorf("the store holds %d messages, want 2", len(msgs))
	}
}

// Skills in the skills folder are listed and loaded with load_skill; a
// malformed one is reported and skipped. A user tool replaces a built-in
// one only with --allow-override.
func TestSkillsAndOverride(t *testing.T) {
	model := fakemodel.New(fakemodel.OpenAI,
		fakemodel.ToolCall("load_skill", `{"name":"haiku"}`),
		fakemodel.Text("Autumn moon rises"),
	)
	defer model.Close()
	u := newUser(t, model, fakemodel.OpenAI)
	skills := filepath.Join(u.home, ".config", "toolroute", "skills")
	os.MkdirAll(filepath.Join(skills, "haiku"), 0o755)
	os.MkdirAll(filepath.Join(skills, "broken"), 0o755)
	os.WriteFile(filepath.Join(skills, "haiku", "SKILL.md"), []byte("---\nname: haiku\ndescription: Write a haiku on request\n---\nWrite three lines of 5, 7 and 5 syllables.\n"), 0o644)
	os.WriteFile(filepath.Join(skills, "broken", "SKILL.md"), []byte("---\nname: [unclosed\n---\n"), 0o644)
	res := u.run("A haiku, please\n", "chat")
	if res.code != 0 {
		t.Fatalf("exit %d\n%s\n%s", res.code, res.stdout, res.stderr)
	}
	mustContain(t, "the errors", res.stderr, "toolroute: not loaded: ", "broken")
	mustContain(t, "the output", res.stdout, "← load_skill: ", "Write three lines of 5, 7 and 5 syllables.")
	reqs := model.Requests()
	mustContain(t, "the first request", requestText(reqs[0]), "haiku", "Write a haiku on request")

	os.MkdirAll(u.toolsDir(), 0o755)
	os.WriteFile(filepath.Join(u.toolsDir(), "get_current_time.json"), []byte(`{"name":"get_current_time","description":"A stopped clock"}`), 0o644)
	os.WriteFile(filepath.Join(u.toolsDir(), "get_current_time.js"), []byte(`function execute() { return "always noon" }`), 0o644)
	plain := u.run("", "call", "get_current_time")
	if plain.code != 0 || plain.stdout == "always noon\n" {
		t.Errorf("without --allow-override the user's tool ran: %q", plain.stdout)
	}
	mustContain(t, "the errors without --allow-override", plain.stderr, "not loaded", "get_current_time")
	over := u.run("", "call", "get_current_time", "--allow-override")
	if over.code != 0 || over.stdout != "always noon\n" {
		t.Errorf("with --allow-override: exit %d, %q %q", over.code, over.stdout, over.stderr)
	}
}

// BenchmarkStart measures a whole `toolroute call` process, from start to
// exit, with the compiled code cached and without a cache.
func BenchmarkStart(b *testing.B) {
	u := newUser(b, nil, "")
	for _, c := range []struct {
		name string
		args []string
	}{
		{"cached", []string{"call", "get_current_time"}},
		{"no-cache", []string{"call", "get_current_time", "--no-cache"}},
	} {
		b.Run(c.name, func(b *testing.B) {
			u.run("", c.args...) // fill the cache
			for b.Loop() {
				if res := u.run("", c.args...); res.code != 0 {
					b.Fatalf("exit %d: %s", res.code, res.stderr)
				}
			}
		})
	}
}

// Killed while a tool with a side effect runs, the program has already
// committed the call, pending: the next turn tells the model the call was
// cut off with its outcome unknown, and nothing runs it again (issue 14:
// the outbox once held two emails).
func TestKillMidTool(t *testing.T) {
	model := fakemodel.New(fakemodel.OpenAI,
		fakemodel.ToolCall("send_email", `{"to":"ada@example.com"}`),
		fakemodel.Text("It may have gone out; I will not send it twice."),
	)
	defer model.Close()
	u := newUser(t, model, fakemodel.OpenAI)
	os.MkdirAll(u.toolsDir(), 0o755)
	os.WriteFile(filepath.Join(u.toolsDir(), "send_email.json"), []byte(`{"name":"send_email","description":"Send an email","timeoutSeconds":120,
		"parameters":{"properties":{"to":{"type":"string"}},"required":["to"]}}`), 0o644)
	os.WriteFile(filepath.Join(u.toolsDir(), "send_email.js"), []byte(`function execute(p) { fs.appendFile("outbox.txt", "to " + p.to + "\n"); for (;;) {} }`), 0o644)
	outbox := filepath.Join(u.home, ".local", "share", "toolroute", "files", "outbox.txt")

	cmd := exec.Command(binary(t), "chat", "--session", "m")
	cmd.Env = u.env
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	io.WriteString(stdin, "Email Ada\n")
	// Killed once the email is in the outbox: the file exists a moment
	// before the tool's write fills it.
	for deadline := time.Now().Add(testwait.Failsafe); ; time.Sleep(10 * time.Millisecond) {
		if b, _ := os.ReadFile(outbox); strings.HasSuffix(string(b), "\n") {
			break
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatalf("the tool never wrote the outbox:\n%s", out.String())
		}
	}
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()

	msgs := u.messages("m")
	if n := len(msgs); n != 3 || msgs[2].Type != session.ToolCall || msgs[2].Status != "pending" {
		t.Fatalf("after the kill the log holds %+v, want user, assistant and the pending tool_call", msgs)
	}
	res := u.run("Did it go out?\n", "chat", "--session", "m")
	if res.code != 0 {
		t.Fatalf("exit %d\n%s\n%s", res.code, res.stdout, res.stderr)
	}
	mustContain(t, "the output", res.stdout, "I will not send it twice.")
	reqs := model.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d model requests, want 2", len(reqs))
	}
	mustContain(t, "the request after the restart", requestText(reqs[1]), `Error (interrupted): This call was cut off while it ran`, "Did it go out?")
	if b, _ := os.ReadFile(outbox); string(b) != "to ada@example.com\n" {
		t.Errorf("the outbox holds %q, want one email", b)
	}
}

// A tool whose manifest says it sends asks first. Piped, with no one to
// answer, it is refused with how to allow it; `toolroute policy set` allows
// it; at the prompt, n denies it, and a lets it run unasked for the rest of
// the session, in the next process too.
func TestApprovalInChat(t *testing.T) {
	call := fakemodel.ToolCall("send_note", `{"text":"hi"}`)
	model := fakemodel.New(fakemodel.OpenAI,
		call, fakemodel.Text("Refused."), // piped
		call, fakemodel.Text("Sent."), // allowed by policy
		call, fakemodel.Text("Not sent."), // n
		call, fakemodel.Text("Sent."), // a
		call, fakemodel.Text("Sent again."), // the next process: unasked
	)
	defer model.Close()
	u := newUser(t, model, fakemodel.OpenAI)
	os.MkdirAll(u.toolsDir(), 0o755)
	os.WriteFile(filepath.Join(u.toolsDir(), "send_note.json"), []byte(`{"name":"send_note","description":"Send a note","requiredPermissions":["send"],
		"parameters":{"properties":{"text":{"type":"string"}},"required":["text"]}}`), 0o644)
	os.WriteFile(filepath.Join(u.toolsDir(), "send_note.js"), []byte(`function execute(p) { fs.appendFile("outbox.txt", p.text + "\n"); return "sent"; }`), 0o644)
	outbox := filepath.Join(u.home, ".local", "share", "toolroute", "files", "outbox.txt")
	sentCount := func() int {
		b, _ := os.ReadFile(outbox)
		return strings.Count(string(b), "\n")
	}
	chat := func(stdin string, args ...string) string {
		t.Helper()
		res := u.run(stdin, append([]string{"chat"}, args...)...)
		if res.code != 0 {
			t.Fatalf("chat: exit %d\n%s\n%s", res.code, res.stdout, res.stderr)
		}
		return res.stdout
	}

	out := chat("Send a note\n")
	mustContain(t, "piped chat", out, "← send_note failed (approval_needed)", "toolroute policy set tool send_note allow")
	if sentCount() != 0 {
		t.Fatal("the note was sent with no one to approve it")
	}
	if res := u.run("", "policy", "set", "tool", "send_note", "allow"); res.code != 0 {
		t.Fatalf("policy set: %d %s", res.code, res.stderr)
	}
	out = chat("Send a note\n")
	if sentCount() != 1 || strings.Contains(out, "Allow it?") {
		t.Fatalf("allowed by policy: %d sent\n%s", sentCount(), out)
	}
	if res := u.run("", "policy", "list"); !strings.Contains(res.stdout, "tool send_note: allow") {
		t.Errorf("policy list: %q", res.stdout)
	}
	u.run("", "policy", "reset", "tool", "send_note")

	out = chat("Send a note\nn\n", "--ask-stdin", "--session", "p")
	mustContain(t, "answered n", out, "? send_note {\"text\":\"hi\"} (send)", "send_note will not run.", "← send_note failed (denied)")
	if sentCount() != 1 {
		t.Fatal("sent though denied")
	}
	out = chat("Send it now\na\n", "--ask-stdin", "--session", "p")
	if sentCount() != 2 || !strings.Contains(out, "← send_note: sent") {
		t.Fatalf("answered a: %d sent\n%s", sentCount(), out)
	}
	out = chat("Once more\n", "--ask-stdin", "--session", "p")
	if sentCount() != 3 || strings.Contains(out, "Allow it?") {
		t.Fatalf("approved for the session, the next process asked again or did not send (%d sent):\n%s", sentCount(), out)
	}
	var answers []string
	for _, m := range u.messages("p") {
		if m.Type == session.ApprovalAnswer {
			answers = append(answers, m.Content)
		}
	}
	if !slices.Equal(answers, []string{"deny", "session"}) {
		t.Errorf("the log's answers: %q", answers)
	}
}

// servedAt reads serve's first line: the page's address and the one-use
// sign-in code of the link it prints.
func servedAt(line string) (addr, login string, ok bool) {
	_, printed, ok := strings.Cut(strings.TrimSpace(line), "serving on ")
	printed, _, _ = strings.Cut(printed, " ")
	addr, login, ok2 := strings.Cut(printed, "/?login=")
	return addr, login, ok && ok2
}

// keptToken is the token serve keeps for u, which API clients send.
func keptToken(t *testing.T, u *user) string {
	t.Helper()
	kept, err := os.ReadFile(filepath.Join(u.home, ".local", "share", "toolroute", "serve-token"))
	if err != nil {
		t.Fatalf("serve's token: %v", err)
	}
	return strings.TrimSpace(string(kept))
}
