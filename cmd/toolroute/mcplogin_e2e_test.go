package main

// End-to-end tests of toolroute's OAuth client for MCP servers that need
// authorization: a server on loopback behind the Go SDK's bearer-token
// middleware, with an authorization server of the test's own (metadata,
// dynamic registration, PKCE, codes, refresh tokens).

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/modelcontextprotocol/go-sdk/oauthex"

	"github.com/toolroute/toolroute/host/mcp"
	"github.com/toolroute/toolroute/internal/fakemodel"
	"github.com/toolroute/toolroute/internal/testwait"
)

// oauthServer is an MCP server that needs authorization and its
// authorization server, both on loopback. It checks what the MCP
// authorization spec asks of a client: PKCE with S256, the server's URL as
// the resource, the redirect URI registered.
type oauthServer struct {
	t              *testing.T
	mcpURL, asURL  string
	mu             sync.Mutex
	redirects      []string             // registered
	challenge      string               // the last authorization request's
	codes          map[string]string    // code → its PKCE challenge
	access         map[string]time.Time // access token → expiry
	refresh        string               // the refresh token that works
	issued         int
	registrations  int
	refreshes      int
	badRequests    []string
	authorizations int
}

func newOAuthServer(t *testing.T) *oauthServer {
	o := &oauthServer{t: t, codes: map[string]string{}, access: map[string]time.Time{}}
	as := httptest.NewServer(http.HandlerFunc(o.serveAS))
	t.Cleanup(as.Close)
	o.asURL = as.URL

	server := sdk.NewServer(&sdk.Implementation{Name: "private-notes", Version: "1.0.0"}, nil)
	sdk.AddTool(server, &sdk.Tool{Name: "whoami", Description: "Say who the token belongs to"},
		func(context.Context, *sdk.CallToolRequest, struct{}) (*sdk.CallToolResult, any, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "you are signed in"}}}, nil, nil
		})
	mux := http.NewServeMux()
	mcpSrv := httptest.NewServer(mux)
	t.Cleanup(mcpSrv.Close)
	o.mcpURL = mcpSrv.URL + "/mcp"
	mux.Handle("/.well-known/oauth-protected-resource/mcp", auth.ProtectedResourceMetadataHandler(&oauthex.ProtectedResourceMetadata{
		Resource: o.mcpURL, AuthorizationServers: []string{o.asURL}, ScopesSupported: []string{"notes"}}))
	mux.Handle("/mcp", auth.RequireBearerToken(o.verify, &auth.RequireBearerTokenOptions{
		ResourceMetadataURL: mcpSrv.URL + "/.well-known/oauth-protected-resource/mcp"})(
		sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return server }, nil)))
	return o
}

func (o *oauthServer) verify(_ context.Context, token string, _ *http.Request) (*auth.TokenInfo, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	exp, ok := o.access[token]
	if !ok || time.Now().After(exp) {
		return nil, auth.ErrInvalidToken
	}
	return &auth.TokenInfo{Scopes: []string{"notes"}, Expiration: exp}, nil
}

// bad notes a request the spec does not allow, and answers 400.
func (o *oauthServer) bad(w http.ResponseWriter, format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	o.badRequests = append(o.badRequests, msg)
	http.Error(w, `{"error":"invalid_request","error_description":"`+msg+`"}`, http.StatusBadRequest)
}

// issue makes a new access and refresh token; o.mu is held.
func (o *oauthServer) issue(w http.ResponseWriter) {
	o.issued++
	at, rt := fmt.Sprintf("access-%d", o.issued), fmt.Sprintf("refresh-%d", o.issued)
	o.access[at], o.refresh = time.Now().Add(time.Hour), rt
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{"access_token": at, "token_type": "Bearer", "expires_in": 3600, "refresh_token": rt, "scope": "notes"})
}

// expire makes every access token issued so far expired.
func (o *oauthServer) expire() {
	o.mu.Lock()
	defer o.mu.Unlock()
	for k := range o.access {
		o.access[k] = time.Now().Add(-time.Minute)
	}
}

func (o *oauthServer) serveAS(w http.ResponseWriter, r *http.Request) {
	o.mu.Lock()
	defer o.mu.Unlock()
	switch r.URL.Path {
	case "/.well-known/oauth-authorization-server":
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"issuer": o.asURL, "authorization_endpoint": o.asURL + "/authorize",
			"token_endpoint": o.asURL + "/token", "registration_endpoint": o.asURL + "/register",
			"response_types_supported": []string{"code"}, "grant_types_supported": []string{"authorization_code", "refresh_token"},
			"code_challenge_methods_supported": []string{"S256"}, "token_endpoint_auth_methods_supported": []string{"none"}})
	case "/register":
		var m struct {
			RedirectURIs []string `json:"redirect_uris"`
		}
		json.NewDecoder(r.Body).Decode(&m)
		o.registrations++
		o.redirects = m.RedirectURIs
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusCreated)
		json.NewEncoder(w).Encode(map[string]any{"client_id": "toolroute-client", "redirect_uris": m.RedirectURIs, "token_endpoint_auth_method": "none"})
	case "/authorize":
		q := r.URL.Query()
		o.authorizations++
		switch {
		case q.Get("code_challenge") == "" || q.Get("code_challenge_method") != "S256":
			o.bad(w, "no S256 code_challenge")
			return
		case q.Get("resource") != o.mcpURL:
			o.bad(w, "resource %q is not the server's URL", q.Get("resource"))
			return
		case len(o.redirects) == 0 || q.Get("redirect_uri") != o.redirects[0]:
			o.bad(w, "redirect_uri %q was not registered", q.Get("redirect_uri"))
			return
		}
		code := fmt.Sprintf("code-%d", o.authorizations)
		o.codes[code] = q.Get("code_challenge")
		http.Redirect(w, r, q.Get("redirect_uri")+"?code="+code+"&state="+q.Get("state"), http.StatusFound)
	case "/token":
		r.ParseForm()
		switch r.Form.Get("grant_type") {
		case "authorization_code":
			sum := sha256.Sum256([]byte(r.Form.Get("code_verifier")))
			challenge, ok := o.codes[r.Form.Get("code")]
			delete(o.codes, r.Form.Get("code"))
			switch {
			case !ok:
				o.bad(w, "unknown code")
			case base64.RawURLEncoding.EncodeToString(sum[:]) != challenge:
				o.bad(w, "the code_verifier does not match the code_challenge")
			case r.Form.Get("resource") != o.mcpURL:
				o.bad(w, "the token request's resource %q is not the server's URL", r.Form.Get("resource"))
			default:
				o.issue(w)
			}
		case "refresh_token":
			if r.Form.Get("resource") != o.mcpURL {
				o.bad(w, "the refresh's resource %q is not the server's URL", r.Form.Get("resource"))
				return
			}
			if r.Form.Get("refresh_token") != o.refresh {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(http.StatusBadRequest)
				fmt.Fprint(w, `{"error":"invalid_grant"}`)
				return
			}
			o.refreshes++
			o.issue(w)
		default:
			o.bad(w, "grant_type %q", r.Form.Get("grant_type"))
		}
	default:
		http.NotFound(w, r)
	}
}

// login runs toolroute mcp login NAME as a user would, the test being the
// browser: it reads the sign-in address the program prints and follows
// it, the authorization server sending it back to the program's loopback
// server at once.
func (o *oauthServer) login(t *testing.T, u *user, name string) string {
	t.Helper()
	out := &lockedBuffer{}
	cmd := u.start(t, nil, out, "mcp", "login", name, "--no-browser")
	addr := regexp.MustCompile(`\n  (http://\S+)\n`)
	var page string
	for deadline := time.Now().Add(testwait.Failsafe); page == ""; time.Sleep(20 * time.Millisecond) {
		if m := addr.FindStringSubmatch(out.String()); m != nil {
			page = m[1]
		}
		if time.Now().After(deadline) {
			t.Fatalf("toolroute mcp login printed no sign-in address:\n%s", out)
		}
	}
	resp, err := http.Get(page)
	if err != nil {
		t.Fatalf("following the sign-in address %s: %v", page, err)
	}
	resp.Body.Close()
	if err := cmd.Wait(); err != nil {
		t.Fatalf("toolroute mcp login: %v\n%s\nthe authorization server refused: %v", err, out, o.badRequests)
	}
	return out.String()
}

// A server that needs authorization: without a login, toolroute check and
// the model say to run toolroute mcp login, and a running serve does not
// start it again and again; toolroute mcp login registers, signs in with
// PKCE and the resource, keeps the tokens readable by the user alone, and
// the running serve connects with them within seconds; a call succeeds;
// an expired access token is refreshed and the new one kept; logout
// forgets them.
func TestMCPLogin(t *testing.T) {
	o := newOAuthServer(t)
	model := fakemodel.New(fakemodel.OpenAI,
		fakemodel.ToolCall("load_tool_group", `{"group_name":"notes"}`),
		fakemodel.Text("It needs you to sign in."),
	)
	defer model.Close()
	u := newUser(t, model, fakemodel.OpenAI)
	mcpServers(t, u.mcpConfig(), mcpEntry{"notes", map[string]any{"url": o.mcpURL}})
	advice := "MCP server 'notes' needs authorization: run `toolroute mcp login notes`"

	res := u.run("", "check")
	if res.code != 1 {
		t.Errorf("check before login: exit %d, want 1\n%s", res.code, res.stdout)
	}
	mustContain(t, "check before login", res.stdout, advice+" (it answered HTTP 401 and toolroute holds no token for it)")
	t.Logf("toolroute check before login:\n%s", res.stdout)

	res = u.run("Use my notes\n", "chat")
	if res.code != 0 {
		t.Fatalf("chat: exit %d\n%s\n%s", res.code, res.stdout, res.stderr)
	}
	if n := len(model.Requests()); n != 2 {
		t.Fatalf("the model got %d requests, want 2", n)
	}
	mustContain(t, "what the model read", requestText(model.Requests()[1]), advice)

	// serve runs meanwhile: it reports the server, and waits for the login.
	cmd := exec.Command(binary(t), "serve", "--port", "0", "--token", "login-token-123456")
	cmd.Env = u.env
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	serveAddr, _, _ := servedAt(line)
	health := waitHealth(t, serveAddr, "notes needs_authorization 0")
	mustContain(t, "serve's problems", strings.Join(health.Problems, "\n"), advice)
	if got := health.MCP[0].Advice; got != advice {
		t.Errorf("health's advice for the server: %q, want %q (the page's catalogue shows it)", got, advice)
	}
	o.mu.Lock()
	tries := o.authorizations + o.registrations
	o.mu.Unlock()
	if tries != 0 {
		t.Errorf("toolroute went to the authorization server %d times before a login", tries)
	}

	out := o.login(t, u, "notes")
	mustContain(t, "toolroute mcp login", out, "Signed in to MCP server 'notes' (scopes notes): it lists 1 tool.")
	t.Logf("toolroute mcp login notes --no-browser:\n%s", out)
	file := filepath.Join(filepath.Dir(u.mcpConfig()), mcp.AuthFile)
	if fi, err := os.Stat(file); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("%s: %v, %v: want a file readable by the user alone", file, fi, err)
	}
	waitHealth(t, serveAddr, "notes connected 1")

	res = u.run("", "call", "whoami")
	if res.code != 0 || !strings.Contains(res.stdout, "you are signed in") {
		t.Fatalf("call after login: exit %d\n%s\n%s", res.code, res.stdout, res.stderr)
	}

	o.expire()
	kept, _ := os.ReadFile(file)
	os.WriteFile(file, regexp.MustCompile(`"expiry": "[^"]*"`).ReplaceAll(kept, []byte(`"expiry": "2001-01-01T00:00:00Z"`)), 0o600)
	res = u.run("", "call", "whoami")
	if res.code != 0 || !strings.Contains(res.stdout, "you are signed in") {
		t.Fatalf("call with an expired token: exit %d\n%s\n%s", res.code, res.stdout, res.stderr)
	}
	o.mu.Lock()
	refreshes, current := o.refreshes, o.refresh
	o.mu.Unlock()
	kept, _ = os.ReadFile(file)
	if refreshes != 1 || !strings.Contains(string(kept), current) {
		t.Errorf("%d refreshes, want 1; the file holds:\n%s\nwant the refresh token %s", refreshes, kept, current)
	}

	res = u.run("", "mcp", "logout", "notes")
	mustContain(t, "logout", res.stdout, "Forgot the credentials of MCP server 'notes'")
	if kept, _ := os.ReadFile(file); strings.Contains(string(kept), "access-") {
		t.Errorf("after logout the file still holds a token:\n%s", kept)
	}
	if len(o.badRequests) > 0 {
		t.Errorf("the authorization server refused: %v", o.badRequests)
	}
}

// A static token kept with toolroute mcp login NAME --token is sent as
// Authorization: Bearer, and is not written in mcp.json.
func TestMCPLoginStaticToken(t *testing.T) {
	o := newOAuthServer(t)
	o.mu.Lock()
	o.access["static-token-0123"] = time.Now().Add(time.Hour)
	o.mu.Unlock()
	u := newUser(t, nil, "")
	mcpServers(t, u.mcpConfig(), mcpEntry{"notes", map[string]any{"url": o.mcpURL}})
	res := u.run("static-token-0123\n", "mcp", "login", "notes", "--token")
	if res.code != 0 {
		t.Fatalf("login --token: exit %d\n%s", res.code, res.stderr)
	}
	res = u.run("", "call", "whoami")
	if res.code != 0 || !strings.Contains(res.stdout, "you are signed in") {
		t.Fatalf("call with the static token: exit %d\n%s\n%s", res.code, res.stdout, res.stderr)
	}
	if b, _ := os.ReadFile(u.mcpConfig()); strings.Contains(string(b), "static-token") {
		t.Errorf("mcp.json holds the token:\n%s", b)
	}
}

type healthAnswer struct {
	Problems []string     `json:"problems"`
	MCP      []mcp.Status `json:"mcp"`
}

// waitHealth waits until serve's /api/health gives the servers as want
// ("KEY STATE TOOLS").
func waitHealth(t *testing.T, addr, want string) healthAnswer {
	t.Helper()
	var h healthAnswer
	var states []string
	for deadline := time.Now().Add(testwait.Failsafe); strings.Join(states, ", ") != want; time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the servers: %v, want %s; problems: %v", states, want, h.Problems)
		}
		req, _ := http.NewRequest("GET", addr+"/api/health", nil)
		req.Header.Set("Authorization", "Bearer login-token-123456")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		h = healthAnswer{}
		err = json.NewDecoder(resp.Body).Decode(&h)
		resp.Body.Close()
		if err != nil {
			t.Fatal(err)
		}
		states = states[:0]
		for _, st := range h.MCP {
			states = append(states, fmt.Sprintf("%s %s %d", st.Key, st.State, len(st.Tools)))
		}
	}
	return h
}
