package app

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/toolroute/toolroute/host/jsrun"
	"github.com/toolroute/toolroute/host/safehttp"
)

// Google's endpoints for credentials.
const (
	GoogleTokenURL    = "https://oauth2.googleapis.com/token"
	GoogleUserinfoURL = "https://www.googleapis.com/oauth2/v3/userinfo"
)

// googleCredentials serves google.getAccessToken and getAccountEmail from the
// environment: GOOGLE_ACCESS_TOKEN as it is, or GOOGLE_REFRESH_TOKEN with
// GOOGLE_CLIENT_ID and GOOGLE_CLIENT_SECRET exchanged at Google's token
// endpoint, the token cached until a minute before it expires. The account's
// email is asked of the userinfo endpoint once.
type googleCredentials struct {
	getenv func(string) string
	client *safehttp.Client
	now    func() time.Time

	mu     sync.Mutex
	token  string
	expiry time.Time
	email  string
}

// EnvGoogle returns the credential provider for JS tools' google bridge.
func EnvGoogle(getenv func(string) string, client *safehttp.Client) jsrun.CredentialProvider {
	return &googleCredentials{getenv: getenv, client: client, now: time.Now}
}

// AccessToken implements jsrun.CredentialProvider.
func (g *googleCredentials) AccessToken(ctx context.Context) (string, error) {
	if t := g.getenv("GOOGLE_ACCESS_TOKEN"); t != "" {
		return t, nil
	}
	refresh, id, secret := g.getenv("GOOGLE_REFRESH_TOKEN"), g.getenv("GOOGLE_CLIENT_ID"), g.getenv("GOOGLE_CLIENT_SECRET")
	if refresh == "" {
		return "", jsrun.ErrNotConnected
	}
	if id == "" || secret == "" {
		return "", fmt.Errorf("GOOGLE_REFRESH_TOKEN is set but GOOGLE_CLIENT_ID and GOOGLE_CLIENT_SECRET are not: set them to the OAuth client the token was issued to")
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.token != "" && g.now().Before(g.expiry) {
		return g.token, nil
	}
	form := url.Values{"grant_type": {"refresh_token"}, "refresh_token": {refresh}, "client_id": {id}, "client_secret": {secret}}
	var out struct {
		AccessToken      string `json:"access_token"`
		ExpiresIn        int    `json:"expires_in"`
		Error            string `json:"error"`
		ErrorDescription string `json:"error_description"`
	}
	status, err := g.do(ctx, http.MethodPost, GoogleTokenURL, "application/x-www-form-urlencoded", form.Encode(), "", &out)
	if err != nil {
		return "", err
	}
	if status != http.StatusOK || out.AccessToken == "" {
		return "", fmt.Errorf("Google's token endpoint refused the refresh token (HTTP %d: %s %s): set a new GOOGLE_REFRESH_TOKEN, or GOOGLE_ACCESS_TOKEN", status, out.Error, out.ErrorDescription)
	}
	g.token = out.AccessToken
	g.expiry = g.now().Add(time.Duration(out.ExpiresIn)*time.Second - time.Minute)
	return g.token, nil
}

// AccountEmail implements jsrun.CredentialProvider.
func (g *googleCredentials) AccountEmail(ctx context.Context) (string, error) {
	g.mu.Lock()
	email := g.email
	g.mu.Unlock()
	if email != "" {
		return email, nil
	}
	token, err := g.AccessToken(ctx)
	if err != nil {
		return "", err
	}
	var out struct {
		Email string `json:"email"`
	}
	status, err := g.do(ctx, http.MethodGet, GoogleUserinfoURL, "", "", token, &out)
	if err != nil {
		return "", err
	}
	if status != http.StatusOK || out.Email == "" {
		return "", fmt.Errorf("Google's userinfo endpoint gave no email (HTTP %d): the token needs the email scope", status)
	}
	g.mu.Lock()
	g.email = out.Email
	g.mu.Unlock()
	return out.Email, nil
}

func (g *googleCredentials) do(ctx context.Context, method, raw, contentType, body, bearer string, out any) (int, error) {
	u, rewritten, err := g.client.Target(raw)
	if err != nil {
		return 0, err
	}
	req, err := http.NewRequestWithContext(ctx, method, u.String(), strings.NewReader(body))
	if err != nil {
		return 0, err
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	if bearer != "" {
		req.Header.Set("Authorization", "Bearer "+bearer)
	}
	resp, err := g.client.Do(req, rewritten)
	if err != nil {
		return 0, fmt.Errorf("reaching Google: %v", err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return 0, err
	}
	json.Unmarshal(data, out)
	return resp.StatusCode, nil
}
