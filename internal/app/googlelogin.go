package app

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"html"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/toolroute/toolroute/internal/safehttp"
)

// GoogleScopes are the scopes `toolroute google login` asks for: what the
// ten Google Workspace tool groups need, and the account's email.
var GoogleScopes = []string{
	"openid", "email",
	"https://www.googleapis.com/auth/gmail.modify",
	"https://www.googleapis.com/auth/gmail.settings.basic",
	"https://www.googleapis.com/auth/gmail.settings.sharing",
	"https://www.googleapis.com/auth/drive",
	"https://www.googleapis.com/auth/calendar",
	"https://www.googleapis.com/auth/contacts",
	"https://www.googleapis.com/auth/documents",
	"https://www.googleapis.com/auth/spreadsheets",
	"https://www.googleapis.com/auth/presentations",
	"https://www.googleapis.com/auth/forms.body",
	"https://www.googleapis.com/auth/forms.responses.readonly",
	"https://www.googleapis.com/auth/tasks",
}

// GoogleLogin is the OAuth flow for installed apps with a loopback
// redirect: the user opens the consent page in a browser, Google sends the
// browser back to a one-time server on 127.0.0.1 with a code, and the code
// (with its PKCE verifier) is exchanged for a refresh token.
type GoogleLogin struct {
	// ClientID and ClientSecret are the user's OAuth client, of the
	// "Desktop app" type, from the Google Cloud console.
	ClientID, ClientSecret string
	// Scopes default to GoogleScopes.
	Scopes []string
	// Client reaches Google's token and userinfo endpoints.
	Client *safehttp.Client
	// Show tells the user the consent page's address.
	Show func(authURL string)
	// Timeout bounds the wait for the browser; 0 means 5 minutes.
	Timeout time.Duration
}

// Run performs the flow and returns the account to keep.
func (l GoogleLogin) Run(ctx context.Context) (GoogleAccount, error) {
	if l.ClientID == "" || l.ClientSecret == "" {
		return GoogleAccount{}, errors.New("give the OAuth client: create one of type \"Desktop app\" in the Google Cloud console " +
			"(APIs & Services > Credentials), enable the APIs the tools use, then set GOOGLE_CLIENT_ID and GOOGLE_CLIENT_SECRET " +
			"or pass --client-id and --client-secret")
	}
	scopes := l.Scopes
	if len(scopes) == 0 {
		scopes = GoogleScopes
	}
	timeout := l.Timeout
	if timeout == 0 {
		timeout = 5 * time.Minute
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return GoogleAccount{}, fmt.Errorf("a loopback port for Google's redirect: %w", err)
	}
	redirect := "http://" + ln.Addr().String()
	state, verifier := randomString(24), randomString(48)
	sum := sha256.Sum256([]byte(verifier))
	authURL := GoogleAuthURL + "?" + url.Values{
		"client_id":             {l.ClientID},
		"redirect_uri":          {redirect},
		"response_type":         {"code"},
		"scope":                 {strings.Join(scopes, " ")},
		"state":                 {state},
		"code_challenge":        {base64.RawURLEncoding.EncodeToString(sum[:])},
		"code_challenge_method": {"S256"},
		"access_type":           {"offline"},
		"prompt":                {"consent"},
	}.Encode()

	type result struct {
		code string
		err  error
	}
	results := make(chan result, 1)
	srv := &http.Server{ReadHeaderTimeout: 10 * time.Second, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/" {
			http.NotFound(w, r)
			return
		}
		q := r.URL.Query()
		var res result
		switch {
		case q.Get("state") != state:
			http.Error(w, "This is not the answer to toolroute's sign-in: start again with toolroute google login.", http.StatusBadRequest)
			return
		case q.Get("error") != "":
			res.err = fmt.Errorf("Google answered %s: the sign-in was not completed", q.Get("error"))
		case q.Get("code") == "":
			res.err = errors.New("Google's redirect carried no code")
		default:
			res.code = q.Get("code")
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		msg := "toolroute is connected to your Google account. You can close this tab."
		if res.err != nil {
			msg = "toolroute could not connect: " + res.err.Error()
		}
		fmt.Fprintf(w, "<!doctype html><title>toolroute</title><p>%s</p>", html.EscapeString(msg))
		select {
		case results <- res:
		default:
		}
	})}
	go srv.Serve(ln)
	defer srv.Close()

	if l.Show != nil {
		l.Show(authURL)
	}
	var res result
	select {
	case res = <-results:
	case <-ctx.Done():
		return GoogleAccount{}, ctx.Err()
	case <-time.After(timeout):
		return GoogleAccount{}, fmt.Errorf("no answer from the browser in %s: run toolroute google login again", timeout)
	}
	if res.err != nil {
		return GoogleAccount{}, res.err
	}
	tok, err := exchange(ctx, l.Client, url.Values{
		"grant_type": {"authorization_code"}, "code": {res.code}, "redirect_uri": {redirect},
		"client_id": {l.ClientID}, "client_secret": {l.ClientSecret}, "code_verifier": {verifier},
	})
	if err != nil {
		return GoogleAccount{}, err
	}
	if tok.RefreshToken == "" {
		return GoogleAccount{}, errors.New("Google gave no refresh token: remove toolroute's access at https://myaccount.google.com/permissions and run toolroute google login again")
	}
	acct := GoogleAccount{ClientID: l.ClientID, ClientSecret: l.ClientSecret, RefreshToken: tok.RefreshToken, Scopes: strings.Fields(tok.Scope)}
	if email, err := userEmail(ctx, l.Client, tok.AccessToken); err == nil {
		acct.Email = email
	}
	return acct, nil
}

// RevokeGoogle revokes a refresh token at Google.
func RevokeGoogle(ctx context.Context, c *safehttp.Client, refreshToken string) error {
	status, err := googleDo(ctx, c, http.MethodPost, GoogleRevokeURL, "application/x-www-form-urlencoded",
		url.Values{"token": {refreshToken}}.Encode(), "", nil)
	if err != nil {
		return err
	}
	if status != http.StatusOK {
		return fmt.Errorf("Google's revoke endpoint answered HTTP %d (the token may be revoked already)", status)
	}
	return nil
}

func randomString(n int) string {
	b := make([]byte, n)
	rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}
