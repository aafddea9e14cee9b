package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"golang.org/x/oauth2"
)

// rotatingTokens is an authorization server's token endpoint that rotates
// refresh tokens: each refresh answers a new access token and a new
// refresh token, and refuses the refresh token it replaced (invalid_grant).
type rotatingTokens struct {
	mu      sync.Mutex
	current string // the refresh token it takes
	grants  int    // refreshes it answered
	refused int
}

func (r *rotatingTokens) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	req.ParseForm()
	// Slow, as a real one over the network: without the lock, both
	// programs would be refreshing at once here.
	time.Sleep(50 * time.Millisecond)
	r.mu.Lock()
	defer r.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	if req.Form.Get("grant_type") != "refresh_token" || req.Form.Get("refresh_token") != r.current {
		r.refused++
		w.WriteHeader(http.StatusBadRequest)
		w.Write([]byte(`{"error":"invalid_grant"}`))
		return
	}
	r.grants++
	r.current = fmt.Sprintf("refresh-%d", r.grants)
	json.NewEncoder(w).Encode(map[string]any{"access_token": fmt.Sprintf("access-%d", r.grants), "refresh_token": r.current, "token_type": "Bearer", "expires_in": 3600})
}

// TestRefreshAcrossPrograms: two programs (each its own handler, as serve
// and toolroute mcp have) whose kept token expired refresh it once between
// them: the second finds the first's token in the file instead of
// refreshing with a refresh token the server has rotated away, which would
// have left it signed out.
func TestRefreshAcrossPrograms(t *testing.T) {
	tokens := &rotatingTokens{current: "refresh-0"}
	srv := httptest.NewServer(tokens)
	defer srv.Close()
	path := filepath.Join(t.TempDir(), AuthFile)
	const key, url = "notes", "https://notes.example/mcp"
	if err := updateAuth(path, key, url, func(e *authEntry) bool {
		e.ClientID, e.TokenURL = "toolroute", srv.URL
		e.Token = &oauth2.Token{AccessToken: "access-0", RefreshToken: "refresh-0", TokenType: "Bearer", Expiry: time.Now().Add(-time.Hour)}
		return true
	}); err != nil {
		t.Fatal(err)
	}
	got := make([]string, 4)
	var wg sync.WaitGroup
	for i := range got {
		wg.Add(1)
		go func() {
			defer wg.Done()
			src, err := newOAuth(path, key, url).TokenSource(context.Background())
			if err != nil || src == nil {
				got[i] = fmt.Sprintf("no token source (%v)", err)
				return
			}
			tok, err := src.Token()
			switch {
			case err != nil:
				got[i] = err.Error()
			case tok == nil:
				got[i] = "no token"
			default:
				got[i] = tok.AccessToken
			}
		}()
	}
	wg.Wait()
	for i, g := range got {
		if g != "access-1" {
			t.Errorf("program %d got %q, want the one refreshed token access-1", i, g)
		}
	}
	if tokens.grants != 1 || tokens.refused != 0 {
		t.Errorf("the token endpoint answered %d refreshes and refused %d, want 1 and 0", tokens.grants, tokens.refused)
	}
	f, err := readAuth(path)
	if err != nil {
		t.Fatal(err)
	}
	if e, _ := f.find(key, url); e.Token == nil || e.Token.RefreshToken != "refresh-1" || e.Token.AccessToken != "access-1" {
		t.Errorf("the file keeps %+v, want the refreshed tokens", e.Token)
	}
}
