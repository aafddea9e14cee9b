package builtin_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/toolroute/toolroute/host"
	"github.com/toolroute/toolroute/host/jsrun"
	"github.com/toolroute/toolroute/host/store"
	"github.com/toolroute/toolroute/internal/builtin"
	"github.com/toolroute/toolroute/internal/testcache"
	"github.com/toolroute/toolroute/registry"
	"github.com/toolroute/toolroute/registry/session"
)

// fixture is the built-in tools over a real store and JS runner, with a
// catalogue that the tools' Reload and SetDisabled update.
type fixture struct {
	deps     builtin.Deps
	disabled []string
	reloads  int
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	ctx := opCtx(t)
	db, err := store.Open(ctx, filepath.Join(t.TempDir(), "t.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	js, err := jsrun.New(jsrun.Options{SandboxRoot: t.TempDir(), Warm: 1, CacheDir: testcache.QuickJS("")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(js.Close)
	f := &fixture{}
	f.deps = builtin.Deps{
		Store: db, JS: js,
		ToolsDir:    filepath.Join(t.TempDir(), "tools"),
		Reload:      func(context.Context) error { f.reloads++; return nil },
		SetDisabled: func(names []string) { f.disabled = names },
		Tools: func(context.Context) ([]registry.ToolState, error) {
			states := []registry.ToolState{{Name: "load_tool_group", Origin: registry.Origin{Kind: registry.OriginMeta}, Enabled: true}}
			for _, name := range []string{"js_eval", "read_file", "list_settings"} {
				states = append(states, registry.ToolState{Name: name, Enabled: !slices.Contains(f.disabled, name)})
			}
			return states, nil
		},
		Settings: []builtin.SettingSpec{
			{Key: "model", Description: "the model to call", Default: "m-default", Check: func(s string) error {
				if strings.Contains(s, " ") {
					return errors.New("a model name has no spaces")
				}
				return nil
			}},
		},
	}
	return f
}

// The toolroute bridge's operations over the store, as the built-in JS
// tools save_memory and search_history reach them (internal/app's tests run
// the tools end to end).
func TestOps(t *testing.T) {
	f := newFixture(t)
	ctx := opCtx(t)
	ops := builtin.Ops(f.deps)
	call := func(op, args string) (string, error) {
		v, err := ops[op](ctx, json.RawMessage(args))
		if err != nil {
			return "", err
		}
		b, _ := json.Marshal(v)
		return string(b), nil
	}
	out, err := call("memories.save", `{"text":"  The user's cat is called Ada. "}`)
	if err != nil || !strings.HasPrefix(out, `{"id":1,"text":"The user's cat is called Ada.","time":"`) {
		t.Errorf("memories.save = %s, %v", out, err)
	}
	for _, bad := range []string{`{"text":"  "}`, `{"text":"` + strings.Repeat("x", builtin.MaxMemoryChars+1) + `"}`, `{"text":3}`} {
		var te *host.ToolError
		if _, err := call("memories.save", bad); !errors.As(err, &te) || te.Type != "invalid_arguments" {
			t.Errorf("memories.save %.40s = %v, want invalid_arguments", bad, err)
		}
	}
	if out, err := call("memories.list", `{}`); err != nil || !strings.HasPrefix(out, `[{"id":1,"text":"The user's cat is called Ada."`) {
		t.Errorf("memories.list = %s, %v", out, err)
	}

	if err := f.deps.Store.Append(ctx, "old", session.Message{Type: session.User, Content: "what do pelicans eat?"},
		session.Message{Type: session.Assistant, Content: "Pelicans eat fish."}); err != nil {
		t.Fatal(err)
	}
	out, err = call("history.search", `{"query":"pelicans","limit":1}`)
	if err != nil || strings.Count(out, `"session":"old"`) != 1 || !strings.Contains(out, "**") {
		t.Errorf("history.search = %s, %v", out, err)
	}
	if out, err := call("history.search", `{"query":"walrus"}`); err != nil || out != "[]" {
		t.Errorf("no match = %s, %v", out, err)
	}
}

// The config group's operations over the store, as the built-in JS tools
// of manifests/config.* reach them (internal/app's tests run the tools end to
// end): the answers' shapes, and each refusal's type and words.
func TestConfigOps(t *testing.T) {
	f := newFixture(t)
	ctx := opCtx(t)
	ops := builtin.Ops(f.deps)
	call := func(op, args string) (string, error) {
		t.Helper()
		v, err := ops[op](ctx, json.RawMessage(args))
		if err != nil {
			return "", err
		}
		b, _ := json.Marshal(v)
		return string(b), nil
	}
	ok := func(op, args, want string) {
		t.Helper()
		if got, err := call(op, args); err != nil || got != want {
			t.Errorf("%s %s = %s, %v; want %s", op, args, got, err, want)
		}
	}
	fails := func(op, args, errType, want string) {
		t.Helper()
		_, err := call(op, args)
		var te *host.ToolError
		if !errors.As(err, &te) || te.Type != errType || !strings.Contains(te.Message, want) {
			t.Errorf("%s %s: err = %v, want a %s error containing %q", op, args, err, errType, want)
		}
	}

	ok("settings.list", `{}`, `[{"key":"model","value":"","default":"m-default","description":"the model to call"}]`)
	ok("settings.set", `{"key":"model","value":"m-2"}`, `{"key":"model","value":"m-2","default":"m-default","description":"the model to call"}`)
	if v, set, _ := f.deps.Store.Setting(ctx, "model"); !set || v != "m-2" {
		t.Errorf("model setting = %q, %v", v, set)
	}
	fails("settings.set", `{"key":"model","value":"two words"}`, "invalid_arguments", "no spaces")
	fails("settings.set", `{"key":"colour","value":"red"}`, "not_found", `no setting "colour": use one of model`)
	ok("settings.set", `{"key":"model","value":""}`, `{"key":"model","value":"","default":"m-default","description":"the model to call"}`)
	if _, set, _ := f.deps.Store.Setting(ctx, "model"); set {
		t.Errorf("an empty value did not restore the default")
	}

	ok("env.list", `{}`, `[]`)
	ok("env.set", `{"name":"WEATHER_KEY","value":"s3cret"}`, `{"name":"WEATHER_KEY","set":true}`)
	ok("env.set", `{"name":"A_KEY","value":"x"}`, `{"name":"A_KEY","set":true}`)
	ok("env.list", `{}`, `["A_KEY","WEATHER_KEY"]`) // names only, sorted
	if v, _, _ := f.deps.Store.Setting(ctx, builtin.EnvPrefix+"WEATHER_KEY"); v != "s3cret" {
		t.Errorf("stored value = %q", v)
	}
	ok("env.set", `{"name":"A_KEY","value":""}`, `{"name":"A_KEY","set":false}`)
	ok("env.list", `{}`, `["WEATHER_KEY"]`)
	fails("env.set", `{"name":"1BAD","value":"x"}`, "invalid_arguments", `"1BAD" is not a variable name: use letters, digits and _, not starting with a digit`)
	fails("env.set", `{"name":"A-B","value":"x"}`, "invalid_arguments", "not a variable name")

	ok("tools.setEnabled", `{"name":"read_file","enabled":false}`, `{"name":"read_file","group":"","origin":"","enabled":false}`)
	if !slices.Equal(f.disabled, []string{"read_file"}) || f.reloads != 1 {
		t.Errorf("disabled = %v after %d reloads", f.disabled, f.reloads)
	}
	if got, _ := builtin.DisabledTools(ctx, f.deps); !slices.Equal(got, []string{"read_file"}) {
		t.Errorf("stored disabled tools = %v", got)
	}
	ok("tools.list", `{}`, `[{"name":"load_tool_group","group":"","origin":"meta","enabled":true},`+
		`{"name":"js_eval","group":"","origin":"","enabled":true},{"name":"read_file","group":"","origin":"","enabled":false},`+
		`{"name":"list_settings","group":"","origin":"","enabled":true}]`)
	ok("tools.setEnabled", `{"name":"read_file","enabled":true}`, `{"name":"read_file","group":"","origin":"","enabled":true}`)
	if len(f.disabled) != 0 {
		t.Errorf("disabled = %v after enabling", f.disabled)
	}
	fails("tools.setEnabled", `{"name":"load_tool_group","enabled":false}`, "invalid_arguments", "load_tool_group cannot be disabled")
	fails("tools.setEnabled", `{"name":"nope","enabled":false}`, "not_found", `no tool "nope": list_tool_states lists them`)
	fails("tools.setEnabled", `{"name":"read_file"}`, "invalid_arguments", "enabled is missing")
	fails("tools.setEnabled", `{"name":"read_file","enabled":"false"}`, "invalid_arguments", "do not match")
}

// TestToolFileOps checks the toolfiles operations' files and answers; the
// js_tool_management group over them is replayed in every host by
// testdata/builtins/js_tool_management.txtar, and create_js_tool's secrets
// by cmd/toolroute's secrets tests.
func TestToolFileOps(t *testing.T) {
	f := newFixture(t)
	dir := f.deps.ToolsDir
	ops := builtin.Ops(f.deps)
	op := func(name, args string) (string, error) {
		v, err := ops[name](opCtx(t), json.RawMessage(args))
		if err != nil {
			return "", err
		}
		out, _ := json.Marshal(v)
		return string(out), nil
	}
	fails := func(name, args, errType, want string) {
		t.Helper()
		_, err := op(name, args)
		var te *host.ToolError
		if !errors.As(err, &te) || te.Type != errType || !strings.Contains(te.Message, want) {
			t.Errorf("%s %s: err = %v, want a %s error containing %q", name, args, err, errType, want)
		}
	}
	if out, err := op("toolfiles.list", `{}`); err != nil || out != `{"place":"in the tools folder","files":[]}` {
		t.Errorf("list of no folder = %s, %v", out, err)
	}
	out, err := op("toolfiles.write", `{"manifest":{"name":"double","description":"Double a number","parameters":{"type":"object","properties":{"n":{"type":"number"}}}},"code":"function execute(p) { return p.n * 2 }"}`)
	if err != nil || !strings.Contains(out, `"place":"in the tools folder","handEdit":"double.json in the tools folder"`) {
		t.Fatalf("write = %s, %v", out, err)
	}
	manifest, err := os.ReadFile(filepath.Join(dir, "double.json"))
	if err != nil {
		t.Fatal(err)
	}
	rep := registry.New().LoadManifest(registry.Manifest{File: "double.json", Text: manifest, Source: "double.js"})
	if !rep.OK() || len(rep.Loaded) != 1 {
		t.Errorf("the loader's report on double.json: %+v", rep)
	}
	if code, _ := os.ReadFile(filepath.Join(dir, "double.js")); string(code) != "function execute(p) { return p.n * 2 }" {
		t.Errorf("double.js = %q", code)
	}
	if f.reloads != 1 {
		t.Errorf("%d reloads after write, want 1", f.reloads)
	}
	if out, err := op("toolfiles.read", `{"name":"double"}`); err != nil || !strings.Contains(out, `"code":"function execute(p) { return p.n * 2 }"`) {
		t.Errorf("read = %s, %v", out, err)
	}
	// What the tool's code cannot be trusted with.
	fails("toolfiles.write", `{"manifest":{"name":"stealer","description":"x","env":["OPENAI_API_KEY"]},"code":"function execute(p) {}"}`, "refused", "leave env and requiredPermissions out")
	fails("toolfiles.write", `{"manifest":{"name":"stealer","description":"x","requiredPermissions":["memories"]},"code":"function execute(p) {}"}`, "refused", "leave env")
	fails("toolfiles.write", `{"manifest":{"name":"double","description":"x","requiredPermissions":["toolfiles"]},"code":"function execute(p) { return p.n * 2 }","replace":true}`, "refused", `cannot add "toolfiles"`)
	fails("toolfiles.write", `{"manifest":{"name":"fresh","description":"x"},"code":"function execute() {}","replace":true}`, "not_found", "create_js_tool")
	fails("toolfiles.write", `{"manifest":{"name":"../x","description":"x"},"code":"function execute() {}"}`, "invalid_arguments", "snake_case")
	fails("toolfiles.write", `{"manifest":{"name":"nocode","description":"x"}}`, "invalid_arguments", "code is missing")
	for _, name := range []string{"stealer", "fresh", "nocode"} {
		if _, err := os.Stat(filepath.Join(dir, name+".json")); err == nil {
			t.Errorf("a refused tool was saved: %s.json", name)
		}
	}
	// A tool that holds a secret keeps its code.
	os.WriteFile(filepath.Join(dir, "mail.json"), []byte(`{"name":"mail","description":"Mail","env":["MAIL_KEY"]}`), 0o644)
	os.WriteFile(filepath.Join(dir, "mail.js"), []byte(`function execute(p) { return 1 }`), 0o644)
	fails("toolfiles.write", `{"manifest":{"name":"mail","description":"Mail","env":["MAIL_KEY"]},"code":"function execute(p) { return p._env.MAIL_KEY }","replace":true}`, "refused", "ask the user to edit mail.js by hand")
	if _, err := op("toolfiles.write", `{"manifest":{"name":"mail","description":"Mail, changed","env":["MAIL_KEY"]},"code":"function execute(p) { return 1 }","replace":true}`); err != nil {
		t.Errorf("a description change of a tool with secrets: %v", err)
	}
	// A broken file someone wrote by hand is listed with its problem.
	os.WriteFile(filepath.Join(dir, "hand.json"), []byte(`{"name":"hand"`), 0o644)
	out, err = op("toolfiles.list", `{}`)
	if err != nil || !strings.Contains(out, `{"file":"double.json","tools":[{"name":"double","description":"Double a number"}],"problems":[]}`) ||
		!strings.Contains(out, `{"file":"hand.json","tools":[],"problems":["`) {
		t.Errorf("list = %s, %v", out, err)
	}
	fails("toolfiles.read", `{"name":"../etc"}`, "invalid_arguments", "not a tool name")
	if _, err := op("toolfiles.remove", `{"name":"double"}`); err != nil {
		t.Fatal(err)
	}
	for _, file := range []string{"double.json", "double.js"} {
		if _, err := os.Stat(filepath.Join(dir, file)); err == nil {
			t.Errorf("%s is still there after remove", file)
		}
	}
	fails("toolfiles.remove", `{"name":"double"}`, "not_found", "list_user_tools")
	fails("toolfiles.remove", `{"name":"../etc"}`, "invalid_arguments", "not a tool name")
}
