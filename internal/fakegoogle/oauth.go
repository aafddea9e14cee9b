package fakegoogle

import (
	"crypto/sha256"
	"encoding/base64"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/toolroute/toolroute/internal/safehttp"
)

// OAuth fakes Google's OAuth 2.0 endpoints for installed apps: the token
// endpoint (authorization_code with PKCE, and refresh_token grants), the
// OpenID Connect userinfo endpoint and the revoke endpoint, for the
// OAuth client "cid" with secret "cs". The authorization code it accepts
// is OAuthCode; the refresh token it issues and accepts is OAuthRefresh.
type OAuth struct {
	*httptest.Server

	mu        sync.Mutex
	exchanges []url.Values
	revoked   []string
	challenge string
}

// The fake OAuth client and the values the fake issues.
const (
	OAuthClientID     = "cid"
	OAuthClientSecret = "cs"
	OAuthCode         = "4/0AQSTgQ-fake-code"
	OAuthRefresh      = "1//0g-fake-refresh"
	OAuthAccess       = "ya29.fake-fresh-access"
)

// NewOAuth starts the OAuth fake.
func NewOAuth(t testing.TB) *OAuth {
	f := &OAuth{}
	f.Server = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.Close)
	return f
}

// Client is an HTTP client whose requests to Google's OAuth hosts reach the
// fake.
func (f *OAuth) Client() *safehttp.Client {
	return safehttp.New(safehttp.Options{AllowPrivate: true, Rewrites: []safehttp.Rewrite{
		{From: "https://oauth2.googleapis.com/", To: f.URL + "/"},
		{From: "https://openidconnect.googleapis.com/", To: f.URL + "/"},
	}})
}

// Consent plays the user on Google's consent page at authURL: it records
// the PKCE challenge and sends the browser back to the redirect with the
// answer ("code=..." or "error=access_denied"). It returns the query the
// consent page was given.
func (f *OAuth) Consent(t testing.TB, authURL, answer string) url.Values {
	u, err := url.Parse(authURL)
	if err != nil {
		t.Errorf("consent page %q: %v", authURL, err)
		return nil
	}
	q := u.Query()
	f.mu.Lock()
	f.challenge = q.Get("code_challenge")
	f.mu.Unlock()
	go func() {
		resp, err := http.Get(q.Get("redirect_uri") + "/?state=" + url.QueryEscape(q.Get("state")) + "&" + answer)
		if err != nil {
			t.Errorf("the redirect to %s: %v", q.Get("redirect_uri"), err)
			return
		}
		resp.Body.Close()
	}()
	return q
}

// Exchanges returns the token endpoint's requests.
func (f *OAuth) Exchanges() []url.Values {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]url.Values(nil), f.exchanges...)
}

// Revoked returns the revoked tokens.
func (f *OAuth) Revoked() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.revoked...)
}

func (f *OAuth) serve(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	r.ParseForm()
	f.mu.Lock()
	defer f.mu.Unlock()
	fail := func(status int, body string) {
		w.WriteHeader(status)
		w.Write([]byte(body))
	}
	switch r.URL.Path {
	case "/token":
		f.exchanges = append(f.exchanges, r.PostForm)
		if r.PostForm.Get("client_id") != OAuthClientID || r.PostForm.Get("client_secret") != OAuthClientSecret {
			fail(http.StatusUnauthorized, `{"error":"invalid_client","error_description":"The OAuth client was not found."}`)
			return
		}
		switch r.PostForm.Get("grant_type") {
		case "refresh_token":
			if r.PostForm.Get("refresh_token") != OAuthRefresh {
				fail(http.StatusBadRequest, `{"error":"invalid_grant","error_description":"Token has been expired or revoked."}`)
				return
			}
			w.Write([]byte(`{"access_token":"` + OAuthAccess + `","expires_in":3599,"scope":"https://www.googleapis.com/auth/tasks","token_type":"Bearer"}`))
		case "authorization_code":
			sum := sha256.Sum256([]byte(r.PostForm.Get("code_verifier")))
			if r.PostForm.Get("code") != OAuthCode || base64.RawURLEncoding.EncodeToString(sum[:]) != f.challenge ||
				!strings.HasPrefix(r.PostForm.Get("redirect_uri"), "http://127.0.0.1:") {
				fail(http.StatusBadRequest, `{"error":"invalid_grant","error_description":"Bad Request"}`)
				return
			}
			w.Write([]byte(`{"access_token":"` + OAuthAccess + `","expires_in":3599,"refresh_token":"` + OAuthRefresh +
				`","scope":"openid https://www.googleapis.com/auth/tasks","token_type":"Bearer","id_token":"eyJhbGciOiJSUzI1NiJ9.e30.c2ln"}`))
		default:
			fail(http.StatusBadRequest, `{"error":"unsupported_grant_type","error_description":"Invalid grant_type: `+r.PostForm.Get("grant_type")+`"}`)
		}
	case "/v1/userinfo":
		if r.Header.Get("Authorization") != "Bearer "+OAuthAccess {
			fail(http.StatusUnauthorized, `{"error":"invalid_request","error_description":"Invalid Credentials"}`)
			return
		}
		w.Write([]byte(`{"sub":"110169484474386276334","email":"` + Email + `","email_verified":true}`))
	case "/revoke":
		f.revoked = append(f.revoked, r.PostForm.Get("token"))
		w.Write([]byte(`{}`))
	default:
		http.NotFound(w, r)
	}
}
