package manifests_test

// The Google Workspace tools, run as the program runs them (the host, the
// QuickJS runner, the google_api library), against internal/fakegoogle.
// Each group's tests are in google_GROUP_test.go; this file holds the
// harness and the checks that span the groups: every tool called, the
// manifests clean, the error paths.

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/toolroute/toolroute/host"
	"github.com/toolroute/toolroute/host/jsrun"
	"github.com/toolroute/toolroute/internal/catalog"
	"github.com/toolroute/toolroute/internal/fakegoogle"
	"github.com/toolroute/toolroute/internal/module"
	"github.com/toolroute/toolroute/internal/testcache"
	"github.com/toolroute/toolroute/manifests"
	"github.com/toolroute/toolroute/registry"
	"github.com/toolroute/toolroute/registry/wire"
)

// googleGroups are the Google Workspace groups, in the order docs/reference/routing.md lists them.
var googleGroups = []string{
	"google_gmail", "google_gmail_settings", "google_drive", "google_calendar", "google_contacts",
	"google_docs", "google_sheets", "google_slides", "google_forms", "google_tasks",
}

var (
	cacheDir string
	calledMu sync.Mutex
	called   = map[string]bool{} // tools that succeeded at least once
)

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "toolroute-google-test")
	if err != nil {
		panic(err)
	}
	cacheDir = dir
	code := m.Run()
	os.RemoveAll(dir)
	// With every test run, every Google tool must have been called.
	if code == 0 && flag.Lookup("test.run").Value.String() == "" && flag.Lookup("test.skip").Value.String() == "" {
		if missing := untested(); len(missing) > 0 {
			fmt.Fprintf(os.Stderr, "FAIL: these Google tools were never called successfully: %s\n", strings.Join(missing, ", "))
			code = 1
		}
	}
	os.Exit(code)
}

// loadBuiltins loads the built-in manifests as the program does.
func loadBuiltins(t testing.TB) (*registry.Registry, []registry.Report) {
	t.Helper()
	f, err := catalog.ReadFolder(manifests.FS, "builtin", false)
	if err != nil {
		t.Fatal(err)
	}
	reg := registry.New()
	return reg, f.Load(reg)
}

// untested lists the Google tools no test called successfully.
func untested() []string {
	reg, _ := loadBuiltins(&testing.T{})
	calledMu.Lock()
	defer calledMu.Unlock()
	var missing []string
	for _, g := range googleGroups {
		for _, t := range reg.GroupTools(g) {
			if !called[t.Name] {
				missing = append(missing, t.Name)
			}
		}
	}
	return missing
}

// creds is the Google account the runner sees.
type creds struct {
	mu    sync.Mutex
	token string
}

func (c *creds) AccessToken(context.Context) (string, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.token == "" {
		return "", jsrun.ErrNotConnected
	}
	return c.token, nil
}

func (c *creds) AccountEmail(context.Context) (string, error) { return fakegoogle.Email, nil }

// gtest is one test's Google: the fake server and a host whose JS tools
// reach it.
type gtest struct {
	t     *testing.T
	G     *fakegoogle.Server
	h     *host.Host
	creds *creds
}

func newGoogle(t *testing.T) *gtest {
	t.Helper()
	g := &gtest{t: t, G: fakegoogle.New(t), creds: &creds{token: fakegoogle.Token}}
	h := toolHost(t, jsrun.Options{
		SandboxRoot: t.TempDir(),
		Libraries:   []fs.FS{manifests.Lib},
		Fetch:       jsrun.FetchOptions{AllowPrivate: true, Rewrites: g.G.Rewrites()},
		Google:      g.creds,
		Warm:        1,
	})
	g.h = h
	return g
}

// Token makes the runner use this access token from now on.
func (g *gtest) Token(tok string) {
	g.creds.mu.Lock()
	defer g.creds.mu.Unlock()
	g.creds.token = tok
}

// run calls a tool with the arguments as JSON text.
func (g *gtest) run(tool, params string) registry.Result {
	g.t.Helper()
	res, err := g.h.CallTool(context.Background(), tool, json.RawMessage(params))
	if err != nil {
		g.t.Fatalf("%s %s: %v", tool, params, err)
	}
	return res
}

// Call calls a tool that must succeed and returns its output, which must
// contain every want.
func (g *gtest) Call(tool, params string, wants ...string) string {
	g.t.Helper()
	res := g.run(tool, params)
	if res.Status != registry.StatusSuccess {
		g.t.Fatalf("%s %s failed: %s: %s", tool, params, res.ErrorType, res.Message)
	}
	for _, w := range wants {
		if !strings.Contains(res.Output, w) {
			g.t.Errorf("%s %s: the output lacks %q:\n%s", tool, params, w, res.Output)
		}
	}
	calledMu.Lock()
	called[tool] = true
	calledMu.Unlock()
	return res.Output
}

// Fail calls a tool that must fail, with a message containing every want.
func (g *gtest) Fail(tool, params string, wants ...string) string {
	g.t.Helper()
	res := g.run(tool, params)
	if res.Status == registry.StatusSuccess {
		g.t.Fatalf("%s %s succeeded: %s", tool, params, res.Output)
	}
	for _, w := range wants {
		if !strings.Contains(res.Message, w) {
			g.t.Errorf("%s %s: the error lacks %q:\n%s", tool, params, w, res.Message)
		}
	}
	return res.Message
}

// Last is the last request the fake received.
func (g *gtest) Last() fakegoogle.Request { return g.G.Last() }

// The ten groups load from the built-in manifests with no error and no
// warning, each with its _meta display name.
func TestGoogleManifestsLoadClean(t *testing.T) {
	reg, reports := loadBuiltins(t)
	for _, r := range reports {
		if len(r.Skipped) > 0 || len(r.Warnings) > 0 {
			t.Errorf("%s: skipped %v, warnings %v", r.File, r.Skipped, r.Warnings)
		}
	}
	total := 0
	for _, name := range googleGroups {
		g, ok := reg.Group(name)
		if !ok {
			t.Errorf("no group %s", name)
			continue
		}
		tools := reg.GroupTools(name)
		total += len(tools)
		if !strings.HasPrefix(g.DisplayName, "Google ") || g.Description == "" || len(tools) == 0 {
			t.Errorf("group %s: %+v with %d tools", name, g, len(tools))
		}
		for _, tool := range tools {
			if tool.TimeoutSeconds <= 0 || !strings.Contains(string(tool.Parameters), `"type":"object"`) {
				t.Errorf("%s: timeout %d, parameters %s", tool.Name, tool.TimeoutSeconds, tool.Parameters)
			}
		}
	}
	t.Logf("%d Google tools in %d groups", total, len(googleGroups))
}

// Every group's errors say what to do: 401 reconnect, 403 the missing
// scope, 429 retry later. (404 is tested with each group's tools.)
func TestGoogleErrors(t *testing.T) {
	for _, group := range googleGroups {
		t.Run(group, func(t *testing.T) {
			i := slices.IndexFunc(errorProbes, func(p errorProbe) bool { return p.group == group })
			if i < 0 {
				t.Fatalf("no error probe for %s: add one to errorProbes", group)
			}
			probe := errorProbes[i]
			g := newGoogle(t)
			g.Token("ya29.revoked")
			g.Fail(probe.tool, probe.params, "HTTP 401", "reconnect the Google account")
			g.Token(g.G.TokenWith("https://www.googleapis.com/auth/userinfo.email"))
			g.Fail(probe.tool, probe.params, "HTTP 403", "scope", "https://www.googleapis.com/auth/")
			g.Token(fakegoogle.Token)
			g.G.FailNext(429, "30")
			g.Fail(probe.tool, probe.params, "HTTP 429", "retry later, after 30 seconds")
			g.Token("")
			g.Fail(probe.tool, probe.params, "Google account not connected")
		})
	}
}

// errorProbe is a tool call of a group that succeeds against the fake's
// seed data; the error tests break it.
type errorProbe struct{ group, tool, params string }

// errorProbes: one per group, added by each group's test file.
var errorProbes []errorProbe

func moduleConfig() module.Config { return module.Config{CacheDir: testcache.Module(cacheDir)} }

// toolHost is a host whose JS tools run in a runner of opts; its tools are
// called directly, so its provider is never used.
func toolHost(t testing.TB, opts jsrun.Options) *host.Host {
	t.Helper()
	opts.CacheDir = testcache.QuickJS(cacheDir)
	runner, err := jsrun.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(runner.Close)
	h, err := host.New(context.Background(), host.Options{
		Provider: &host.HTTPProvider{Wire: wire.OpenAI, BaseURL: "http://127.0.0.1:1/v1", ModelName: "unused"},
		JS:       runner,
		Module:   moduleConfig(),
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close(context.Background()) })
	return h
}
