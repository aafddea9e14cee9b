package main

// The official MCP conformance suite (@modelcontextprotocol/conformance,
// installed in testdata/conformance by `make mcp-conformance`): its server
// scenarios against `toolroute mcp --http`, its client scenarios against
// toolroute's MCP client (host/mcp, through `toolroute check` and
// `toolroute call` with an mcp.json naming the suite's server). Every
// scenario the suite lists is either run, and must pass, or listed below
// with why it does not apply; a scenario a new version of the suite adds
// fails the test until it is sorted.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/toolroute/toolroute/internal/mcptest"
	"github.com/toolroute/toolroute/internal/testwait"
)

// scenario is one of the suite's scenarios: run (notApplies empty), or why
// it does not apply to toolroute.
type scenario struct {
	name       string
	notApplies string
}

// The reasons shared by several scenarios.
const (
	fixtureTools = "it calls a tool of the suite's reference server (test_image_content, test_tool_with_progress, ...): " +
		"toolroute mcp serves its own catalogue, behind load_tool_group, not those tools " +
		"(progress and cancellation through toolroute mcp are TestServeMCPProgressAndCancel's, a dropped stream resumed TestHTTPStreamResumes')"
	noResources   = "toolroute mcp serves no resources (its resources/list answers an empty list, which resources-list checks)"
	noPrompts     = "toolroute mcp serves no prompts (its prompts/list answers an empty list, which prompts-list checks)"
	noElicitation = "toolroute's MCP client declares no elicitation: an upstream server that asks the user is refused"
	noOAuth       = "toolroute's MCP client has no OAuth: a server that needs authorization takes a static token in its entry's \"headers\""
)

// serverScenarios are the suite's server scenarios, in its order (`list
// --server`). The suite drives a server over HTTP alone (--url); stdio is
// TestServeMCPStdio's.
var serverScenarios = []scenario{
	{"server-initialize", ""},
	{"logging-set-level", ""},
	{"ping", ""},
	{"completion-complete", "toolroute mcp has no prompts or resource templates, so nothing to complete"},
	{"tools-list", ""},
	{"tools-call-simple-text", fixtureTools},
	{"tools-call-image", fixtureTools},
	{"tools-call-audio", fixtureTools},
	{"tools-call-embedded-resource", fixtureTools},
	{"tools-call-mixed-content", fixtureTools},
	{"tools-call-with-logging", fixtureTools},
	{"tools-call-error", fixtureTools},
	{"tools-call-with-progress", fixtureTools},
	{"tools-call-sampling", fixtureTools},
	{"tools-call-elicitation", fixtureTools},
	{"json-schema-2020-12", fixtureTools},
	{"elicitation-sep1034-defaults", fixtureTools},
	{"server-sse-polling", fixtureTools},
	{"server-sse-multiple-streams", ""},
	{"elicitation-sep1330-enums", fixtureTools},
	{"resources-list", ""},
	{"resources-read-text", noResources},
	{"resources-read-binary", noResources},
	{"resources-templates-read", noResources},
	{"resources-subscribe", noResources},
	{"resources-unsubscribe", noResources},
	{"prompts-list", ""},
	{"prompts-get-simple", noPrompts},
	{"prompts-get-with-args", noPrompts},
	{"prompts-get-embedded-resource", noPrompts},
	{"prompts-get-with-image", noPrompts},
	{"dns-rebinding-protection", ""},
}

// clientScenarios are the suite's client scenarios, in its order (`list
// --client`).
var clientScenarios = []scenario{
	{"initialize", ""},
	{"tools_call", ""},
	{"elicitation-sep1034-client-defaults", noElicitation},
	{"sse-retry", ""},
	{"auth/metadata-default", noOAuth},
	{"auth/metadata-var1", noOAuth},
	{"auth/metadata-var2", noOAuth},
	{"auth/metadata-var3", noOAuth},
	{"auth/basic-cimd", noOAuth},
	{"auth/scope-from-www-authenticate", noOAuth},
	{"auth/scope-from-scopes-supported", noOAuth},
	{"auth/scope-omitted-when-undefined", noOAuth},
	{"auth/scope-step-up", noOAuth},
	{"auth/scope-retry-limit", noOAuth},
	{"auth/token-endpoint-auth-basic", noOAuth},
	{"auth/token-endpoint-auth-post", noOAuth},
	{"auth/token-endpoint-auth-none", noOAuth},
	{"auth/pre-registration", noOAuth},
	{"auth/2025-03-26-oauth-metadata-backcompat", noOAuth},
	{"auth/2025-03-26-oauth-endpoint-fallback", noOAuth},
	{"auth/resource-mismatch", noOAuth},
	{"auth/offline-access-scope", noOAuth},
	{"auth/offline-access-not-supported", noOAuth},
	{"auth/client-credentials-jwt", noOAuth},
	{"auth/client-credentials-basic", noOAuth},
	{"auth/cross-app-access-complete-flow", noOAuth},
}

// conformance runs the suite with args in env and returns its output.
func conformance(t *testing.T, env []string, args ...string) (string, error) {
	t.Helper()
	dir := filepath.Join(mcptest.Root(t), "testdata", "conformance")
	script := filepath.Join(dir, "node_modules", "@modelcontextprotocol", "conformance", "dist", "index.js")
	if _, err := os.Stat(script); err != nil {
		t.Fatalf("the MCP conformance suite is not installed (%v): run make mcp-conformance (npm ci in testdata/conformance)", err)
	}
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatalf("node is not on PATH (%v): the MCP conformance suite needs Node.js 20 or newer", err)
	}
	cmd := exec.Command(node, append([]string{"--import", "./node20.mjs", script}, args...)...)
	cmd.Dir, cmd.Env = dir, env
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// listed is the scenarios `conformance list --WHICH` names, in order.
func listed(t *testing.T, env []string, which string) []string {
	t.Helper()
	out, err := conformance(t, env, "list", "--"+which)
	if err != nil {
		t.Fatalf("conformance list --%s: %v\n%s", which, err, out)
	}
	var names []string
	for _, m := range regexp.MustCompile(`(?m)^\s+- (\S+) \[`).FindAllStringSubmatch(out, -1) {
		names = append(names, m[1])
	}
	return names
}

// sorted checks that the scenarios the suite lists are those of ours, in
// the same order.
func sorted(t *testing.T, which string, suite []string, ours []scenario) {
	t.Helper()
	var names []string
	for _, s := range ours {
		names = append(names, s.name)
	}
	if !slices.Equal(suite, names) {
		t.Errorf("the suite's %s scenarios are not those this test sorts: say of each new one whether it applies.\nthe suite: %v\nthis test: %v", which, suite, names)
	}
}

// check is one result of checks.json.
type check struct {
	ID           string `json:"id"`
	Status       string `json:"status"`
	ErrorMessage string `json:"errorMessage"`
}

// checks reads the checks.json the suite wrote under dir.
func checks(t *testing.T, dir, out string) []check {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(dir, "*", "checks.json"))
	if len(files) != 1 {
		t.Fatalf("%d checks.json under %s, want 1; the suite wrote:\n%s", len(files), dir, out)
	}
	data, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	var cs []check
	if err := json.Unmarshal(data, &cs); err != nil {
		t.Fatalf("%s: %v", files[0], err)
	}
	return cs
}

// passed fails the test for a check that failed (but those allow lets
// through) or a run without one success.
func passed(t *testing.T, cs []check, out string, allow func(check) bool) {
	t.Helper()
	ok := 0
	for _, c := range cs {
		switch {
		case c.Status == "SUCCESS":
			ok++
		case c.Status == "FAILURE" && (allow == nil || !allow(c)):
			t.Errorf("%s failed: %s", c.ID, c.ErrorMessage)
		}
	}
	if ok == 0 || t.Failed() {
		t.Errorf("%d of %d checks succeeded; the suite wrote:\n%s", ok, len(cs), out)
	}
}

// The suite's server scenarios against toolroute mcp --http. The suite's
// client sends no header, so it reaches toolroute through a proxy on
// loopback that adds the token, as a client's "headers" would, and keeps
// the Host the suite sends (dns-rebinding-protection sends another).
func TestConformanceServer(t *testing.T) {
	u := newUser(t, nil, "")
	suite := listed(t, u.env, "server")
	sorted(t, "server", suite, serverScenarios)

	const token = "conformance-token-0123456789"
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
	waitListening(t, port, out)
	target, _ := url.Parse(fmt.Sprintf("http://127.0.0.1:%d", port))
	proxy := httptest.NewServer(&httputil.ReverseProxy{
		Rewrite: func(r *httputil.ProxyRequest) {
			r.SetURL(target)
			r.Out.Host = r.In.Host
			r.Out.Header.Set("Authorization", "Bearer "+token)
		},
		FlushInterval: -1, // event streams go as they come
	})
	t.Cleanup(proxy.Close)
	endpoint := proxy.URL + "/mcp"

	for _, s := range serverScenarios {
		t.Run(s.name, func(t *testing.T) {
			if s.notApplies != "" {
				t.Skip("does not apply: " + s.notApplies)
			}
			dir := t.TempDir()
			text, _ := conformance(t, u.env, "server", "--url", endpoint, "--scenario", s.name, "-o", dir)
			passed(t, checks(t, dir, text), text+"\ntoolroute mcp wrote:\n"+out.String(), nil)
		})
	}
}

// The suite's client scenarios against toolroute's MCP client: the suite
// starts a server for the scenario and runs a command with its URL; the
// command writes an mcp.json naming it and runs toolroute check (which
// connects and lists the tools) or, where the scenario wants a call,
// toolroute call.
func TestConformanceClient(t *testing.T) {
	u := newUser(t, nil, "")
	suite := listed(t, u.env, "client")
	sorted(t, "client", suite, clientScenarios)

	client := filepath.Join(t.TempDir(), "client.sh")
	script := `#!/bin/sh
# $1 is the URL of the suite's server for the scenario MCP_CONFORMANCE_SCENARIO.
printf '{"mcpServers": {"conformance": {"url": "%s"}}}\n' "$1" > ` + shellQuote(u.mcpConfig()) + `
case "$MCP_CONFORMANCE_SCENARIO" in
tools_call) exec ` + shellQuote(binary(t)) + ` call add_numbers --params '{"a":2,"b":3}' ;;
sse-retry) exec ` + shellQuote(binary(t)) + ` call test_reconnection ;;
*) exec ` + shellQuote(binary(t)) + ` check ;;
esac
`
	os.MkdirAll(filepath.Dir(u.mcpConfig()), 0o755)
	if err := os.WriteFile(client, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, s := range clientScenarios {
		t.Run(s.name, func(t *testing.T) {
			if s.notApplies != "" {
				t.Skip("does not apply: " + s.notApplies)
			}
			dir := t.TempDir()
			text, _ := conformance(t, u.env, "client", "--command", client, "--scenario", s.name,
				"--timeout", strconv.Itoa(int(testwait.Failsafe.Milliseconds())), "-o", dir)
			var allow func(check) bool
			if s.name == "sse-retry" {
				// How soon the client comes back is measured, and "very
				// late" is a failure: a busy machine makes any client late.
				// Too early is not allowed.
				allow = func(c check) bool {
					return c.ID == "client-sse-retry-timing" && strings.Contains(c.ErrorMessage, "very late")
				}
			}
			files, _ := filepath.Glob(filepath.Join(dir, "*", "std*.txt"))
			var logs bytes.Buffer
			for _, f := range files {
				b, _ := os.ReadFile(f)
				fmt.Fprintf(&logs, "\n%s:\n%s", filepath.Base(f), b)
			}
			passed(t, checks(t, dir, text), text+logs.String(), allow)
		})
	}
}
