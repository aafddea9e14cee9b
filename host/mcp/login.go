package mcp

import (
	"context"
	"errors"
	"fmt"
	"html"
	"net"
	"net/http"
	"net/url"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
	"golang.org/x/oauth2"
)

// Login signs toolroute in to an MCP server over HTTP that needs
// authorization, as the MCP authorization spec has it: the server's
// protected resource metadata names its authorization server, whose
// metadata gives the endpoints; toolroute registers itself there (dynamic
// client registration) unless given a client, sends the user's browser to
// the authorization page with a PKCE challenge and the server's URL as the
// resource, takes the code at a one-time server on 127.0.0.1 and exchanges
// it for tokens, kept in File for the program to use and refresh.
type Login struct {
	Server ServerConfig
	// File is the auth file (AuthFile in the config folder).
	File string
	// ClientID and ClientSecret are a client registered beforehand with
	// the server's authorization server, for one that takes no dynamic
	// registration; the secret may be empty (a public client).
	ClientID, ClientSecret string
	// Show tells the user the authorization page's address (and may open
	// a browser at it).
	Show func(authURL string)
	// Timeout bounds the wait for the browser; 0 means 5 minutes.
	Timeout time.Duration
}

// LoginResult is what a login ended with.
type LoginResult struct {
	// Tools is how many tools the server listed with the new token.
	Tools int
	// Scopes are those asked for.
	Scopes []string
}

// ErrNoAuthorization is Login's error for a server that let toolroute in
// without asking for authorization.
var ErrNoAuthorization = errors.New("it did not ask for authorization")

// Run signs in. When the server refused toolroute before for want of
// scopes (a call's 403), that refusal is answered, asking for them;
// otherwise toolroute connects without a token, and the server's 401 starts
// the flow. The tokens are kept once the code is exchanged; the server is
// then connected to with them, and its tools listed, to show they work.
func (l Login) Run(ctx context.Context) (LoginResult, error) {
	if l.Server.URL == "" {
		return LoginResult{}, fmt.Errorf("MCP server '%s' is started as a command, not reached at a URL: give it its credentials in its entry's \"env\"", l.Server.Key)
	}
	timeout := l.Timeout
	if timeout == 0 {
		timeout = 5 * time.Minute
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return LoginResult{}, fmt.Errorf("a loopback port for the authorization server's redirect: %w", err)
	}
	redirect := "http://" + ln.Addr().String() + "/callback"
	answers := make(chan answer, 1)
	srv := &http.Server{ReadHeaderTimeout: 10 * time.Second, Handler: callback(l.Server.Key, answers)}
	go srv.Serve(ln)
	defer srv.Close()

	var got struct {
		cfg      *oauth2.Config
		tok      *oauth2.Token
		resource string
	}
	hc := &http.Client{Timeout: 30 * time.Second}
	config := &auth.AuthorizationCodeHandlerConfig{
		RedirectURL: redirect,
		DynamicClientRegistrationConfig: &auth.DynamicClientRegistrationConfig{Metadata: &oauthex.ClientRegistrationMetadata{
			RedirectURIs: []string{redirect}, ClientName: "toolroute",
			GrantTypes: []string{"authorization_code", "refresh_token"}, ResponseTypes: []string{"code"},
		}},
		RequestRefreshToken: true,
		Client:              hc,
		AuthorizationCodeFetcher: func(ctx context.Context, args *auth.AuthorizationArgs) (*auth.AuthorizationResult, error) {
			if u, err := url.Parse(args.URL); err == nil {
				got.resource = u.Query().Get("resource")
			}
			if l.Show != nil {
				l.Show(args.URL)
			}
			select {
			case a := <-answers:
				return a.res, a.err
			case <-ctx.Done():
				return nil, ctx.Err()
			case <-time.After(timeout):
				return nil, fmt.Errorf("no answer from the browser in %s: run toolroute mcp login %s again", timeout, l.Server.Key)
			}
		},
		NewTokenSource: func(ctx context.Context, cfg *oauth2.Config, tok *oauth2.Token) (oauth2.TokenSource, error) {
			got.cfg, got.tok = cfg, tok
			return cfg.TokenSource(ctx, tok), nil
		},
	}
	if l.ClientID != "" {
		config.PreregisteredClient = &oauthex.ClientCredentials{ClientID: l.ClientID}
		if l.ClientSecret != "" {
			config.PreregisteredClient.ClientSecretAuth = &oauthex.ClientSecretAuth{ClientSecret: l.ClientSecret}
		}
	}
	h, err := auth.NewAuthorizationCodeHandler(config)
	if err != nil {
		return LoginResult{}, err
	}
	f, err := readAuth(l.File)
	if err != nil {
		return LoginResult{}, err
	}
	before, _ := f.find(l.Server.Key, l.Server.URL)
	var flowErr error
	if len(before.Challenge) > 0 {
		// Answer the refusal the program met: a 403 names scopes a
		// listing does not ask for.
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, l.Server.URL, nil)
		resp := &http.Response{StatusCode: before.ChallengeStatus, Header: http.Header{"Www-Authenticate": before.Challenge}, Body: http.NoBody}
		flowErr = h.Authorize(ctx, req, resp)
	} else {
		// Connect without a token: the server's refusal starts the flow.
		_, flowErr = l.connect(ctx, &mcp.StreamableClientTransport{Endpoint: l.Server.URL, OAuthHandler: h,
			HTTPClient: &http.Client{Transport: headers{host: hostOf(l.Server.URL), values: l.Server.Headers}}})
	}
	if got.tok == nil {
		switch {
		case ctx.Err() != nil:
			return LoginResult{}, ctx.Err()
		case flowErr != nil:
			return LoginResult{}, fmt.Errorf("signing in to MCP server '%s' failed: %s", l.Server.Key, clip(sdkError(flowErr), 400))
		}
		return LoginResult{}, fmt.Errorf("MCP server '%s': %w: its tools are usable as it is", l.Server.Key, ErrNoAuthorization)
	}
	err = updateAuth(l.File, l.Server.Key, l.Server.URL, func(e *authEntry) bool {
		*e = authEntry{Key: l.Server.Key, URL: l.Server.URL, ClientID: got.cfg.ClientID, ClientSecret: got.cfg.ClientSecret,
			AuthStyle: got.cfg.Endpoint.AuthStyle, AuthURL: got.cfg.Endpoint.AuthURL, TokenURL: got.cfg.Endpoint.TokenURL,
			Scopes: got.cfg.Scopes, Resource: got.resource, Token: got.tok}
		return true
	})
	if err != nil {
		return LoginResult{}, fmt.Errorf("keeping the tokens: %w", err)
	}
	// Show the token works, as the program will send it.
	o := newOAuth(l.File, l.Server.Key, l.Server.URL)
	n, err := l.connect(ctx, &mcp.StreamableClientTransport{Endpoint: l.Server.URL, OAuthHandler: o,
		HTTPClient: &http.Client{Transport: headers{host: hostOf(l.Server.URL), values: l.Server.Headers}}})
	res := LoginResult{Tools: n, Scopes: got.cfg.Scopes}
	if err != nil {
		why := o.refusal()
		if why == "" {
			why = clip(sdkError(err), 300)
		}
		return res, fmt.Errorf("toolroute signed in to MCP server '%s', but it still refuses: %s", l.Server.Key, why)
	}
	return res, nil
}

// connect connects, lists the tools and hangs up.
func (l Login) connect(ctx context.Context, t mcp.Transport) (int, error) {
	ctx, cancel := context.WithTimeout(ctx, time.Duration(max(l.Server.TimeoutSeconds, 1))*time.Second+l.timeout())
	defer cancel()
	client := mcp.NewClient(&mcp.Implementation{Name: "toolroute", Version: version()}, &mcp.ClientOptions{Capabilities: &mcp.ClientCapabilities{}})
	cs, err := client.Connect(ctx, t, nil)
	if err != nil {
		return 0, err
	}
	defer cs.Close()
	tools, err := listTools(ctx, cs)
	return len(tools), err
}

func (l Login) timeout() time.Duration {
	if l.Timeout == 0 {
		return 5 * time.Minute
	}
	return l.Timeout
}

// Logout forgets what toolroute holds for the server (its tokens and
// client, or its static token); ok is false when it held nothing.
func Logout(file string, s ServerConfig) (ok bool, err error) {
	err = updateAuth(file, s.Key, s.URL, func(e *authEntry) bool {
		ok = e.credentials() != "" || e.ClientID != "" || len(e.Challenge) > 0
		return false
	})
	return ok, err
}

// SetBearer keeps a static token for the server, sent as Authorization:
// Bearer, in place of any OAuth tokens: for a server that takes a token
// the user makes on its site.
func SetBearer(file string, s ServerConfig, token string) error {
	if s.URL == "" {
		return fmt.Errorf("MCP server '%s' is started as a command, not reached at a URL: give it its token in its entry's \"env\"", s.Key)
	}
	return updateAuth(file, s.Key, s.URL, func(e *authEntry) bool {
		*e = authEntry{Key: s.Key, URL: s.URL, Bearer: token}
		return true
	})
}

// answer is what the browser brought back: the code, or why not.
type answer struct {
	res *auth.AuthorizationResult
	err error
}

// callback is the one-time server the authorization server sends the
// browser back to: it passes the code and state on, once.
func callback(key string, answers chan<- answer) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/callback" {
			http.NotFound(w, r)
			return
		}
		q := r.URL.Query()
		a := answer{res: &auth.AuthorizationResult{Code: q.Get("code"), State: q.Get("state"), Iss: q.Get("iss")}}
		msg := fmt.Sprintf("toolroute has the answer of MCP server '%s''s authorization server. You can close this tab.", key)
		if e := q.Get("error"); e != "" {
			a = answer{err: fmt.Errorf("the authorization server answered %s (%s): the sign-in was not completed", e, q.Get("error_description"))}
			msg = "toolroute could not sign in: " + a.err.Error()
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, "<!doctype html><title>toolroute</title><p>%s</p>", html.EscapeString(msg))
		select {
		case answers <- a:
		default:
		}
	})
}

// hostOf is a URL's host, for the headers transport.
func hostOf(u string) string {
	p, _ := url.Parse(u)
	if p == nil {
		return ""
	}
	return p.Host
}
