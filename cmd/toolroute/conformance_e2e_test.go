package main

// The official MCP conformance suite (@modelcontextprotocol/conformance,
// installed in testdata/conformance by `make mcp-conformance`): its server
// scenarios against `toolroute mcp --http`, its client scenarios against
// toolroute's MCP client (host/mcp, through `toolroute check` and
// `toolroute call` with an mcp.json naming the suite's server). Every
// scenario the suite lists is either run, and must pass, or listed
// with why it does not apply, in testdata/conformance/scenarios.json (which
// web/packages/toolroute/test/conformance.test.js reads too, for the JS
// hosts' client); a scenario a new version of the suite adds fails the
// test until it is sorted there.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"log"
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

	"github.com/toolroute/toolroute/host/mcp"
	"github.com/toolroute/toolroute/internal/mcptest"
	"github.com/toolroute/toolroute/internal/testwait"
)

// scenario is one of the suite's scenarios, as testdata/conformance/
// scenarios.json sorts it: run, or why it does not apply to toolroute.
type scenario struct {
	Name         string `json:"name"`
	DoesNotApply string `json:"doesNotApply"`
	// Call is the tool a client scenario's client calls.
	Call *struct {
		Tool      string          `json:"tool"`
		Arguments json.RawMessage `json:"arguments"`
	} `json:"call"`
	// LateOK is a check whose failure for coming back very late passes.
	LateOK string `json:"lateOK"`
	// Login: the client signs in first (toolroute mcp login).
	Login bool `json:"login"`
	// Answers are typed to the questions the scenario's server asks
	// during the call (toolroute call reads them from standard input).
	Answers string `json:"answers"`
	// JSDoesNotApply is why the JS hosts' client does not run it.
	JSDoesNotApply string `json:"jsDoesNotApply"`
}

// scenarios reads testdata/conformance/scenarios.json, the JS test's too.
func scenarios(t *testing.T) (server, client []scenario, reasons map[string]string) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(mcptest.Root(t), "testdata", "conformance", "scenarios.json"))
	if err != nil {
		t.Fatal(err)
	}
	var f struct {
		Reasons        map[string]string
		Server, Client []scenario
	}
	if err := json.Unmarshal(data, &f); err != nil {
		t.Fatalf("scenarios.json: %v", err)
	}
	for _, s := range slices.Concat(f.Server, f.Client) {
		for _, why := range []string{s.DoesNotApply, s.JSDoesNotApply} {
			if why != "" && f.Reasons[why] == "" {
				t.Fatalf("scenarios.json: %s does not apply for the reason %q, which reasons lacks", s.Name, why)
			}
		}
	}
	return f.Server, f.Client, f.Reasons
}

// conformance runs the suite with args in env and returns its output.
func conformance(t *testing.T, env []string, args ...string) (string, error) {
	t.Helper()
	dir := filepath.Join(mcptest.Root(t), "testdata", "conformance")
	script := filepath.Join(dir, "node_modules", "@modelcontextprotocol", "conformance", "dist", "index.js")
	if _, err := os.Stat(script); err != nil {
		t.Fatalf("the MCP conformance suite is not installed (%v): run make mcp-conformance (npm ci in testdata/conformance)", err)
	}
	cmd := exec.Command(mcptest.Node(t), append([]string{script}, args...)...)
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
		names = append(names, s.Name)
	}
	if !slices.Equal(suite, names) {
		t.Errorf("the suite's %s scenarios are not those testdata/conformance/scenarios.json sorts: say of each new one whether it applies.\nthe suite: %v\nscenarios.json: %v", which, suite, names)
	}
}

// check is one result of checks.json.
type check struct {
	ID           string `json:"id"`
	Status       string `json:"status"`
	ErrorMessage string `json:"errorMessage"`
}

// results are the files named like pattern the suite wrote under dir, in
// its run's folder: dir/SCENARIO-TIME, or dir/auth/NAME-TIME for a
// scenario named auth/NAME.
func results(dir, pattern string) []string {
	one, _ := filepath.Glob(filepath.Join(dir, "*", pattern))
	two, _ := filepath.Glob(filepath.Join(dir, "*", "*", pattern))
	return append(one, two...)
}

// checks reads the checks.json the suite wrote under dir.
func checks(t *testing.T, dir, out string) []check {
	t.Helper()
	files := results(dir, "checks.json")
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

// passed fails the test for a check that failed (but s.LateOK's for
// coming back very late) or a run without one success.
func passed(t *testing.T, s scenario, cs []check, out string) {
	t.Helper()
	ok := 0
	for _, c := range cs {
		switch {
		case c.Status == "SUCCESS":
			ok++
		case c.Status == "FAILURE" && !(c.ID == s.LateOK && strings.Contains(c.ErrorMessage, "very late")):
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
	ours, _, reasons := scenarios(t)
	sorted(t, "server", listed(t, u.env, "server"), ours)

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
		// A stream the suite closes is no news.
		ErrorLog: log.New(io.Discard, "", 0),
	})
	t.Cleanup(proxy.Close)
	endpoint := proxy.URL + "/mcp"

	for _, s := range ours {
		t.Run(s.Name, func(t *testing.T) {
			if s.DoesNotApply != "" {
				t.Skip("does not apply: " + reasons[s.DoesNotApply])
			}
			dir := t.TempDir()
			text, _ := conformance(t, u.env, "server", "--url", endpoint, "--scenario", s.Name, "-o", dir)
			passed(t, s, checks(t, dir, text), text+"\ntoolroute mcp wrote:\n"+out.String())
		})
	}
}

// loginScript is the part of a client scenario's script that signs in
// before run, as a user would: toolroute mcp login, with the pre-registered
// client the scenario's context gives, if any, and a "browser" (BROWSER,
// which toolroute opens the authorization page with) that follows the
// authorization server's redirect back to toolroute's loopback server, as
// the suite's answers without a user. When run says the server needs
// authorization (a call's 403 asking for more scopes), the user does as
// it says: signs in again, and runs it again.
func loginScript(t *testing.T, u *user, run string) string {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatalf("node is not on PATH (%v): the MCP conformance suite needs Node.js 20 or newer", err)
	}
	bin := shellQuote(binary(t))
	clientArgs := `const c = JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT || "{}"); if (c.client_id) console.log("--client-id", c.client_id, "--client-secret", c.client_secret);`
	return "rm -f " + shellQuote(filepath.Join(filepath.Dir(u.mcpConfig()), mcp.AuthFile)) + "\n" +
		"export BROWSER=" + shellQuote(node+" -e fetch(process.argv[1]).then(r=>r.text()).catch(e=>{console.error(e);process.exit(1)})") + "\n" +
		"set -- $(" + shellQuote(node) + " -e " + shellQuote(clientArgs) + ")\n" +
		bin + ` mcp login conformance "$@" || exit 1` + "\n" +
		"if out=$(" + run + " 2>&1); then printf '%s\\n' \"$out\"; exit 0; fi\n" +
		"printf '%s\\n' \"$out\"\n" +
		`case "$out" in *"needs authorization"*) ;; *) exit 1;; esac` + "\n" +
		bin + ` mcp login conformance "$@" || exit 1` + "\n"
}

// The suite's client scenarios against toolroute's MCP client: the suite
// starts a server for the scenario and runs a command with its URL; the
// command writes an mcp.json naming it and runs toolroute check (which
// connects and lists the tools) or, where the scenario wants a call,
// toolroute call.
func TestConformanceClient(t *testing.T) {
	u := newUser(t, nil, "")
	_, ours, reasons := scenarios(t)
	sorted(t, "client", listed(t, u.env, "client"), ours)
	os.MkdirAll(filepath.Dir(u.mcpConfig()), 0o755)
	for _, s := range ours {
		t.Run(s.Name, func(t *testing.T) {
			if s.DoesNotApply != "" {
				t.Skip("does not apply: " + reasons[s.DoesNotApply])
			}
			run := shellQuote(binary(t)) + " check"
			if s.Call != nil {
				run = shellQuote(binary(t)) + " call " + shellQuote(s.Call.Tool) + " --params " + shellQuote(string(s.Call.Arguments))
			}
			if s.Answers != "" {
				answers := filepath.Join(t.TempDir(), "answers")
				if err := os.WriteFile(answers, []byte(s.Answers), 0o644); err != nil {
					t.Fatal(err)
				}
				run += " < " + shellQuote(answers)
			}
			client := filepath.Join(t.TempDir(), "client.sh")
			script := "#!/bin/sh\n# $1 is the URL of the suite's server for the scenario.\n" +
				`printf '{"mcpServers": {"conformance": {"url": "%s"}}}\n' "$1" > ` + shellQuote(u.mcpConfig()) + "\n"
			if s.Login {
				script += loginScript(t, u, run)
			}
			script += "exec " + run + "\n"
			if err := os.WriteFile(client, []byte(script), 0o755); err != nil {
				t.Fatal(err)
			}
			dir := t.TempDir()
			text, _ := conformance(t, u.env, "client", "--command", client, "--scenario", s.Name,
				"--timeout", strconv.Itoa(int(testwait.Failsafe.Milliseconds())), "-o", dir)
			files := results(dir, "std*.txt")
			var logs bytes.Buffer
			for _, f := range files {
				b, _ := os.ReadFile(f)
				fmt.Fprintf(&logs, "\n%s:\n%s", filepath.Base(f), b)
			}
			passed(t, s, checks(t, dir, text), text+logs.String())
		})
	}
}
