package mcp

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolroute/toolroute/registry"
)

// protected is an MCP server over HTTP behind the SDK's bearer-token
// middleware, taking the tokens in good; hits counts its requests.
type protected struct {
	url  string
	hits atomic.Int32
	mu   sync.Mutex
	good map[string]bool
}

func newProtected(t *testing.T) *protected {
	p := &protected{good: map[string]bool{}}
	server := mcp.NewServer(&mcp.Implementation{Name: "vault", Version: "1.0.0"}, nil)
	mcp.AddTool(server, &mcp.Tool{Name: "open", Description: "Open the vault"},
		func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "open"}}}, nil, nil
		})
	verify := func(_ context.Context, token string, _ *http.Request) (*auth.TokenInfo, error) {
		p.mu.Lock()
		defer p.mu.Unlock()
		if !p.good[token] {
			return nil, auth.ErrInvalidToken
		}
		return &auth.TokenInfo{Expiration: time.Now().Add(time.Hour)}, nil
	}
	h := auth.RequireBearerToken(verify, &auth.RequireBearerTokenOptions{ResourceMetadataURL: "http://127.0.0.1:1/none"})(
		mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, nil))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p.hits.Add(1)
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	p.url = srv.URL + "/mcp"
	return p
}

func (p *protected) allow(token string, ok bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.good[token] = ok
}

// A server that answers 401 needs authorization: it is not down and not
// started again and again; its group and Problems say to run toolroute mcp
// login. Once the auth file holds a token for it (another process's
// login), it is connected without a restart; a token it later refuses
// makes a call say the same.
func TestNeedsAuthorization(t *testing.T) {
	p := newProtected(t)
	file := filepath.Join(t.TempDir(), AuthFile)
	opts := fast
	opts.AuthFile, opts.AuthPoll = file, 20*time.Millisecond
	cfg := ServerConfig{Key: "vault", URL: p.url}
	m := start(t, opts, cfg)

	st := status(t, m, "vault")
	if st.State != NeedsAuthorization || !st.RetryAt.IsZero() || st.Error != "it answered HTTP 401 and toolroute holds no token for it" {
		t.Fatalf("without a token: %+v", st)
	}
	advice := "MCP server 'vault' needs authorization: run `toolroute mcp login vault`"
	mustContain(t, "the problems", strings.Join(Problems(m.Status()), "\n"), advice+" (it answered HTTP 401")
	g := offered(t, m, registry.Catalogue{}).group(t, "vault")
	mustContain(t, "the group", g.Unavailable, advice)
	hits := p.hits.Load()
	// Many polls, and more than the first restart's backoff: no request.
	time.Sleep(20*opts.AuthPoll + 2*opts.MinBackoff)
	if now := p.hits.Load(); now != hits {
		t.Errorf("toolroute sent %d more requests to a server that needs authorization", now-hits)
	}

	p.allow("vault-token-1", true)
	if err := SetBearer(file, cfg, "vault-token-1"); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(file); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("the auth file: %v, %v; want it readable by the user alone", fi, err)
	}
	eventually(t, "vault is connected with the token", func() bool { return status(t, m, "vault").State == Connected })
	tool := offered(t, m, registry.Catalogue{}).tool(t, "open")
	if got := call(t, tool, `{}`); got.Text != "open" {
		t.Fatalf("open with the token: %+v", got)
	}

	p.allow("vault-token-1", false)
	got := call(t, tool, `{}`)
	if got.ErrorType != ErrorUnavailable || !strings.HasPrefix(got.Text, advice+" (the user does this)") {
		t.Errorf("a call with a token refused: %+v", got)
	}
	if st := status(t, m, "vault"); st.State != NeedsAuthorization || st.Error != "it refused toolroute's token (HTTP 401)" {
		t.Errorf("after the refusal: %+v", st)
	}
	p.allow("vault-token-2", true)
	SetBearer(file, cfg, "vault-token-2")
	eventually(t, "vault is connected with the new token", func() bool { return status(t, m, "vault").State == Connected })
	if got := call(t, tool, `{}`); got.Text != "open" {
		t.Fatalf("open with the new token: %+v", got)
	}
}
