package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/toolroute/toolroute/registry/check"
	"golang.org/x/oauth2"
)

// An MCP server over HTTP may need authorization (the MCP authorization
// spec: OAuth 2.1 with the server as a protected resource). `toolroute mcp
// login NAME` signs the user in once (Login), in a browser, and keeps the
// tokens in AuthFile; the running program sends them, refreshes the access
// token when it expires and keeps the new one. A server that refuses
// toolroute (HTTP 401, or 403 asking for more scopes) is not started again
// and again: it needs authorization, and is started again once the file
// holds new credentials for it.

// AuthFile is the file, in the config folder, that keeps what toolroute
// holds to reach MCP servers that need authorization: per server, the OAuth
// client it registered, its tokens, or a static bearer token. It is
// readable by the user alone, as google.json is.
const AuthFile = "mcp-auth.json"

// authEntry is one server's credentials. A server is known by its key and
// URL together: the same key given another URL is another resource, which
// the tokens were not granted for.
type authEntry struct {
	Key string `json:"key"`
	URL string `json:"url"`
	// Bearer is a static token the user gave (login --token), sent as
	// Authorization: Bearer.
	Bearer string `json:"bearer_token,omitempty"`
	// The OAuth client toolroute registered (or the user's pre-registered
	// one), the authorization server's endpoints, and the tokens.
	ClientID     string           `json:"client_id,omitempty"`
	ClientSecret string           `json:"client_secret,omitempty"`
	AuthStyle    oauth2.AuthStyle `json:"auth_style,omitempty"`
	AuthURL      string           `json:"authorization_endpoint,omitempty"`
	TokenURL     string           `json:"token_endpoint,omitempty"`
	Scopes       []string         `json:"scopes,omitempty"`
	// Resource is the resource indicator the token was asked for (the
	// server's, from its metadata), sent again with each refresh.
	Resource string        `json:"resource,omitempty"`
	Token    *oauth2.Token `json:"token,omitempty"`
	// Challenge is the last refusal's WWW-Authenticate and status: login
	// answers it (a 403 naming the scopes a call needs, which no listing
	// shows).
	Challenge       []string `json:"challenge,omitempty"`
	ChallengeStatus int      `json:"challenge_status,omitempty"`
}

// credentials is what the entry gives a server, to tell when it changed.
func (e authEntry) credentials() string {
	if e.Token != nil {
		return e.Bearer + "\x00" + e.Token.AccessToken + "\x00" + e.Token.RefreshToken
	}
	return e.Bearer
}

type authFileContent struct {
	Servers []authEntry `json:"servers"`
}

// authMu serializes this process's writes to the auth files.
var authMu sync.Mutex

// readAuth reads the auth file; a missing one is empty.
func readAuth(path string) (authFileContent, error) {
	var f authFileContent
	if path == "" {
		return f, nil
	}
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return f, nil
	}
	if err != nil {
		return f, err
	}
	if err := json.Unmarshal(b, &f); err != nil {
		return f, fmt.Errorf("%s is not toolroute's MCP credentials file (%v): remove it and run toolroute mcp login again", path, err)
	}
	return f, nil
}

// find is the entry of server c, if any.
func (f authFileContent) find(key, url string) (authEntry, bool) {
	i := slices.IndexFunc(f.Servers, func(e authEntry) bool { return e.Key == key && e.URL == url })
	if i < 0 {
		return authEntry{}, false
	}
	return f.Servers[i], true
}

// updateAuth changes the entry of key and url (a new one when there is
// none; removed when change returns false) and writes the file whole,
// readable by the user alone, to a temporary file renamed over it, holding
// the file's lock: two programs (a serve, a login) do not lose each
// other's changes.
func updateAuth(path, key, url string, change func(*authEntry) bool) error {
	defer lockAuthFile(path)()
	return writeAuth(path, key, url, change)
}

// writeAuth is updateAuth for a caller that holds the file's lock.
func writeAuth(path, key, url string, change func(*authEntry) bool) error {
	if path == "" {
		return nil // a manager without an auth file keeps nothing
	}
	authMu.Lock()
	defer authMu.Unlock()
	f, err := readAuth(path)
	if err != nil {
		return err
	}
	i := slices.IndexFunc(f.Servers, func(e authEntry) bool { return e.Key == key && e.URL == url })
	e := authEntry{Key: key, URL: url}
	if i >= 0 {
		e = f.Servers[i]
	}
	keep := change(&e)
	switch {
	case keep && i >= 0:
		f.Servers[i] = e
	case keep:
		f.Servers = append(f.Servers, e)
	case i >= 0:
		f.Servers = slices.Delete(f.Servers, i, i+1)
	default:
		return nil
	}
	b, err := json.MarshalIndent(f, "", " ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".mcp-auth-*.json")
	if err != nil {
		return err
	}
	_, werr := tmp.Write(append(b, '\n'))
	cerr := tmp.Close()
	if werr != nil || cerr != nil {
		os.Remove(tmp.Name())
		return errors.Join(werr, cerr)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	return nil
}

// authStamp identifies the file's version cheaply: its size and time.
func authStamp(path string) string {
	fi, err := os.Stat(path)
	if err != nil {
		return ""
	}
	return fmt.Sprintf("%d/%d", fi.Size(), fi.ModTime().UnixNano())
}

// errNeedsAuthorization is what a request refused for want of
// authorization fails with: the user must sign in.
var errNeedsAuthorization = errors.New("it needs authorization")

// oauth is the OAuth handler of a running server's connection
// (auth.OAuthHandler): it sends the tokens of the auth file, refreshing
// and keeping them, and at a refusal it tries a refresh once, else notes
// the challenge for login and fails the request: toolroute never opens a
// browser on its own.
type oauth struct {
	path, key, url string

	mu      sync.Mutex
	stamp   string // the file's version last read
	entry   authEntry
	source  oauth2.TokenSource
	refused string // why the server refused, since the last reset
	forced  bool   // a refresh was forced since a token last came by itself
}

func newOAuth(path, key, url string) *oauth {
	return &oauth{path: path, key: key, url: url}
}

// reset forgets a refusal, before a new connection.
func (o *oauth) reset() {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.refused = ""
}

// refusal says why the server refused toolroute, if it did since reset.
func (o *oauth) refusal() string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.refused
}

// load reads the server's entry again if the file changed (a login in
// another process, a refreshed token); o.mu is held.
func (o *oauth) load() {
	stamp := authStamp(o.path)
	if stamp == o.stamp && o.stamp != "" {
		return
	}
	o.stamp = stamp
	f, err := readAuth(o.path)
	if err != nil {
		return
	}
	e, _ := f.find(o.key, o.url)
	if e.credentials() == o.entry.credentials() && o.source != nil {
		o.entry = e
		return
	}
	o.entry, o.source = e, nil
	switch {
	case e.Bearer != "":
		o.source = oauth2.StaticTokenSource(&oauth2.Token{AccessToken: e.Bearer, TokenType: "Bearer"})
	case e.Token != nil:
		o.source = &keptSource{o: o, config: o.config(e), resource: e.Resource, tok: e.Token}
	}
}

// config is the OAuth client of an entry, for refreshing its token.
func (o *oauth) config(e authEntry) *oauth2.Config {
	return &oauth2.Config{ClientID: e.ClientID, ClientSecret: e.ClientSecret, Scopes: e.Scopes,
		Endpoint: oauth2.Endpoint{AuthURL: e.AuthURL, TokenURL: e.TokenURL, AuthStyle: e.AuthStyle}}
}

// refreshContext carries the client refreshes use, which adds the
// resource indicator; it outlives requests.
func refreshContext(resource string) context.Context {
	return context.WithValue(context.Background(), oauth2.HTTPClient, &http.Client{Timeout: 30 * time.Second, Transport: withResource{resource}})
}

// withResource is a transport that adds the resource indicator (RFC 8707)
// to refresh requests, as the MCP authorization spec asks of every token
// request; golang.org/x/oauth2 has no option for it.
type withResource struct{ resource string }

func (w withResource) RoundTrip(r *http.Request) (*http.Response, error) {
	if w.resource == "" || r.Method != http.MethodPost || r.Body == nil || !strings.HasPrefix(r.Header.Get("Content-Type"), "application/x-www-form-urlencoded") {
		return http.DefaultTransport.RoundTrip(r)
	}
	b, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	r.Body.Close()
	if err != nil {
		return nil, err
	}
	if v, err := url.ParseQuery(string(b)); err == nil && v.Get("grant_type") == "refresh_token" && v.Get("resource") == "" {
		v.Set("resource", w.resource)
		b = []byte(v.Encode())
	}
	r = r.Clone(r.Context())
	r.Body, r.ContentLength, r.GetBody = io.NopCloser(bytes.NewReader(b)), int64(len(b)), nil
	return http.DefaultTransport.RoundTrip(r)
}

// TokenSource gives the server's token: a static one, or an OAuth one
// refreshed when it expires; nil when toolroute holds none.
func (o *oauth) TokenSource(context.Context) (oauth2.TokenSource, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.load()
	return o.source, nil
}

// Authorize is called when the server answered 401 or 403. The module's
// rule (check.MCPRefusal) says whether it refuses toolroute for want of
// authorization, and why: a 403 that asks for no scopes is the server's
// answer, passed on. Otherwise a refresh token is tried once; failing that
// the challenge is kept for login and the request fails with
// errNeedsAuthorization.
func (o *oauth) Authorize(ctx context.Context, req *http.Request, resp *http.Response) error {
	defer resp.Body.Close()
	o.mu.Lock()
	o.load()
	e := o.entry
	held := e.credentials() != ""
	o.mu.Unlock()
	refusal := check.MCPRefusal{Status: resp.StatusCode, Challenge: strings.Join(resp.Header.Values("WWW-Authenticate"), ", "), Token: held, Authorize: check.MCPAuthorizeLogin}.Decide()
	if !refusal.NeedsAuthorization {
		return nil
	}
	if resp.StatusCode == http.StatusUnauthorized && e.Token != nil && e.Token.RefreshToken != "" && o.forceRefresh(e) {
		return nil
	}
	why := refusal.Why
	updateAuth(o.path, o.key, o.url, func(e *authEntry) bool {
		e.Challenge, e.ChallengeStatus = resp.Header.Values("WWW-Authenticate"), resp.StatusCode
		return true
	})
	o.mu.Lock()
	o.refused = why
	o.stamp = "" // read again: the file was written
	o.mu.Unlock()
	return fmt.Errorf("%w: %s", errNeedsAuthorization, why)
}

// forceRefresh refreshes the token now, once until a refresh succeeds by
// itself again: a server may refuse a token before its expiry. Another
// process that refreshed it meanwhile (its token is in the file now) has
// done it: the next request sends that one.
func (o *oauth) forceRefresh(e authEntry) bool {
	o.mu.Lock()
	if o.forced {
		o.mu.Unlock()
		return false
	}
	o.forced = true
	o.mu.Unlock()
	defer lockAuthFile(o.path)()
	if now := o.fileToken(); now != nil && now.AccessToken != e.Token.AccessToken {
		o.mu.Lock()
		o.stamp = "" // read the file again
		o.mu.Unlock()
		return true
	}
	tok, err := o.config(e).TokenSource(refreshContext(e.Resource), &oauth2.Token{RefreshToken: e.Token.RefreshToken}).Token()
	if err != nil {
		return false
	}
	o.keep(tok)
	o.mu.Lock()
	o.stamp = ""
	o.mu.Unlock()
	return true
}

// fileToken is the server's token in the auth file as it is now, or nil.
func (o *oauth) fileToken() *oauth2.Token {
	f, err := readAuth(o.path)
	if err != nil {
		return nil
	}
	e, _ := f.find(o.key, o.url)
	return e.Token
}

// keep writes a new token to the file; the caller holds its lock.
func (o *oauth) keep(tok *oauth2.Token) {
	writeAuth(o.path, o.key, o.url, func(e *authEntry) bool {
		if tok.RefreshToken == "" && e.Token != nil {
			tok.RefreshToken = e.Token.RefreshToken
		}
		e.Token = tok
		return true
	})
}

// keptSource is an OAuth token source that writes each new token (a
// refresh's) to the auth file. A refresh takes the file's lock
// (lockAuthFile), and first reads the file: a token another process
// refreshed meanwhile is taken as it is, rather than refreshed again with a
// refresh token the authorization server may have rotated away. A refresh
// the authorization server refuses, or an expired token without a refresh
// token, sends no token: the server's 401 then says the user must sign in
// again.
type keptSource struct {
	o        *oauth
	config   *oauth2.Config
	resource string

	mu  sync.Mutex
	tok *oauth2.Token
}

func (k *keptSource) Token() (*oauth2.Token, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.tok.Valid() {
		return k.tok, nil
	}
	defer lockAuthFile(k.o.path)()
	if now := k.o.fileToken(); now.Valid() && now.AccessToken != k.tok.AccessToken {
		k.tok = now
		return now, nil
	}
	if k.tok.RefreshToken == "" {
		return nil, nil
	}
	tok, err := k.config.TokenSource(refreshContext(k.resource), &oauth2.Token{RefreshToken: k.tok.RefreshToken}).Token()
	var re *oauth2.RetrieveError
	switch {
	case errors.As(err, &re):
		return nil, nil
	case err != nil:
		return nil, err
	}
	if tok.RefreshToken == "" {
		tok.RefreshToken = k.tok.RefreshToken
	}
	k.tok = tok
	k.o.keep(tok)
	k.o.mu.Lock()
	k.o.forced = false
	k.o.mu.Unlock()
	return tok, nil
}

var _ auth.OAuthHandler = (*oauth)(nil)

// LoginAdvice is what the user does for a server that needs
// authorization (the module's words, as the model reads them).
func LoginAdvice(key string) string { return check.MCPLoginAdvice(key) }
