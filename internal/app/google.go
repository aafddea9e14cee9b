package app

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/toolroute/toolroute/host"
	"github.com/toolroute/toolroute/host/jsrun"
	"github.com/toolroute/toolroute/internal/safehttp"
)

// Google's OAuth endpoints.
const (
	GoogleAuthURL     = "https://accounts.google.com/o/oauth2/v2/auth"
	GoogleTokenURL    = "https://oauth2.googleapis.com/token"
	GoogleRevokeURL   = "https://oauth2.googleapis.com/revoke"
	GoogleUserinfoURL = "https://openidconnect.googleapis.com/v1/userinfo"
)

// GoogleFile is the file `toolroute google login` keeps the account in,
// under the config folder, readable by the user alone.
const GoogleFile = "google.json"

// GoogleAccount is a connected Google account: the OAuth client it was
// granted to and its refresh token.
type GoogleAccount struct {
	ClientID     string   `json:"client_id"`
	ClientSecret string   `json:"client_secret"`
	RefreshToken string   `json:"refresh_token"`
	Email        string   `json:"email,omitempty"`
	Scopes       []string `json:"scopes,omitempty"`
}

// ReadGoogleAccount reads the account file; ok is false when there is none.
func ReadGoogleAccount(path string) (acct GoogleAccount, ok bool, err error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return acct, false, nil
	}
	if err != nil {
		return acct, false, err
	}
	if err := json.Unmarshal(data, &acct); err != nil || acct.RefreshToken == "" {
		return acct, false, fmt.Errorf("%s is not a Google account file (%v): run toolroute google login again", path, err)
	}
	return acct, true, nil
}

// WriteGoogleAccount writes the account file, readable by the user alone.
func WriteGoogleAccount(path string, acct GoogleAccount) error {
	data, err := json.MarshalIndent(acct, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".google-*.json")
	if err != nil {
		return err
	}
	_, werr := tmp.Write(append(data, '\n'))
	cerr := tmp.Close()
	if werr != nil || cerr != nil {
		os.Remove(tmp.Name())
		return errors.Join(werr, cerr)
	}
	return os.Rename(tmp.Name(), path)
}

// googleCredentials serves google.getAccessToken and getAccountEmail:
// GOOGLE_ACCESS_TOKEN as it is; or a refresh token, GOOGLE_REFRESH_TOKEN
// with GOOGLE_CLIENT_ID and GOOGLE_CLIENT_SECRET, else the account file of
// `toolroute google login`, exchanged at Google's token endpoint, the token
// cached until a minute before it expires. The account's email is asked of
// the userinfo endpoint once.
type googleCredentials struct {
	getenv func(string) string
	client *safehttp.Client
	file   string
	now    func() time.Time

	mu     sync.Mutex
	token  string
	expiry time.Time
	email  string
}

// NewGoogle returns the credential provider for JS tools' google bridge;
// file is the account file ("" for none).
func NewGoogle(getenv func(string) string, client *safehttp.Client, file string) jsrun.CredentialProvider {
	return &googleCredentials{getenv: getenv, client: client, file: file, now: time.Now}
}

// account finds the refresh token to use.
func (g *googleCredentials) account() (GoogleAccount, error) {
	acct := GoogleAccount{RefreshToken: g.getenv("GOOGLE_REFRESH_TOKEN"), ClientID: g.getenv("GOOGLE_CLIENT_ID"), ClientSecret: g.getenv("GOOGLE_CLIENT_SECRET")}
	if acct.RefreshToken != "" {
		if acct.ClientID == "" || acct.ClientSecret == "" {
			return acct, errors.New("GOOGLE_REFRESH_TOKEN is set but GOOGLE_CLIENT_ID and GOOGLE_CLIENT_SECRET are not: set them to the OAuth client the token was issued to")
		}
		return acct, nil
	}
	if g.file == "" {
		return acct, jsrun.ErrNotConnected
	}
	acct, ok, err := ReadGoogleAccount(g.file)
	if err != nil {
		return acct, err
	}
	if !ok {
		return acct, jsrun.ErrNotConnected
	}
	return acct, nil
}

// AccessToken implements jsrun.CredentialProvider.
func (g *googleCredentials) AccessToken(ctx context.Context) (string, error) {
	if t := g.getenv("GOOGLE_ACCESS_TOKEN"); t != "" {
		return t, nil
	}
	acct, err := g.account()
	if err != nil {
		return "", err
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.token != "" && g.now().Before(g.expiry) {
		return g.token, nil
	}
	tok, err := exchange(ctx, g.client, url.Values{"grant_type": {"refresh_token"}, "refresh_token": {acct.RefreshToken},
		"client_id": {acct.ClientID}, "client_secret": {acct.ClientSecret}})
	if err != nil {
		return "", fmt.Errorf("%w: reconnect with toolroute google login, or set a new GOOGLE_REFRESH_TOKEN or GOOGLE_ACCESS_TOKEN", err)
	}
	g.token = tok.AccessToken
	g.expiry = g.now().Add(time.Duration(tok.ExpiresIn)*time.Second - time.Minute)
	if acct.Email != "" && g.email == "" {
		g.email = acct.Email
	}
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
	if email, err = userEmail(ctx, g.client, token); err != nil {
		return "", err
	}
	g.mu.Lock()
	g.email = email
	g.mu.Unlock()
	return email, nil
}

// tokenReply is the token endpoint's answer.
type tokenReply struct {
	AccessToken      string `json:"access_token"`
	ExpiresIn        int    `json:"expires_in"`
	RefreshToken     string `json:"refresh_token"`
	Scope            string `json:"scope"`
	Error            string `json:"error"`
	ErrorDescription string `json:"error_description"`
}

// exchange posts a grant to Google's token endpoint.
func exchange(ctx context.Context, c *safehttp.Client, form url.Values) (tokenReply, error) {
	var out tokenReply
	status, err := googleDo(ctx, c, http.MethodPost, GoogleTokenURL, "application/x-www-form-urlencoded", form.Encode(), "", &out)
	if err != nil {
		return out, err
	}
	if status != http.StatusOK || out.AccessToken == "" {
		return out, fmt.Errorf("Google's token endpoint refused the %s grant (HTTP %d: %s %s)", form.Get("grant_type"), status, out.Error, out.ErrorDescription)
	}
	return out, nil
}

// userEmail asks the userinfo endpoint for the account's address.
func userEmail(ctx context.Context, c *safehttp.Client, token string) (string, error) {
	var out struct {
		Email string `json:"email"`
	}
	status, err := googleDo(ctx, c, http.MethodGet, GoogleUserinfoURL, "", "", token, &out)
	if err != nil {
		return "", err
	}
	if status != http.StatusOK || out.Email == "" {
		return "", fmt.Errorf("Google's userinfo endpoint gave no email (HTTP %d): the account must grant the email scope (toolroute google login asks for it)", status)
	}
	return out.Email, nil
}

// maxGoogleAnswer bounds what googleDo reads of an answer.
const maxGoogleAnswer = 1 << 20

// googleDo makes one request to a Google endpoint and decodes its JSON.
func googleDo(ctx context.Context, c *safehttp.Client, method, raw, contentType, body, bearer string, out any) (int, error) {
	u, rewritten, err := c.Target(raw)
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
	resp, err := c.Do(req, rewritten)
	if err != nil {
		return 0, fmt.Errorf("reaching Google: %v", err)
	}
	defer resp.Body.Close()
	data, err := safehttp.ReadAll(resp.Body, maxGoogleAnswer, "Google's answer",
		"a token or an account's address is far shorter, so something between toolroute and Google answered: check the network's proxy")
	if err != nil {
		return 0, fmt.Errorf("reading the answer of %s: %w", raw, err)
	}
	if out != nil {
		json.Unmarshal(data, out)
	}
	return resp.StatusCode, nil
}

// secrets are the Google credentials known now, for redaction: the
// variables', the account file's and the access token last handed out.
func (g *googleCredentials) secrets() []host.Secret {
	var out []host.Secret
	for _, name := range []string{"GOOGLE_ACCESS_TOKEN", "GOOGLE_REFRESH_TOKEN", "GOOGLE_CLIENT_SECRET"} {
		if v := g.getenv(name); v != "" {
			out = append(out, host.Secret{Name: name, Value: v})
		}
	}
	if g.file != "" {
		if acct, ok, err := ReadGoogleAccount(g.file); err == nil && ok {
			out = append(out, host.Secret{Name: "Google refresh token", Value: acct.RefreshToken},
				host.Secret{Name: "Google client secret", Value: acct.ClientSecret})
		}
	}
	g.mu.Lock()
	if g.token != "" {
		out = append(out, host.Secret{Name: "Google access token", Value: g.token})
	}
	g.mu.Unlock()
	return out
}
