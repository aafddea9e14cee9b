package server_test

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/toolroute/toolroute/internal/fakemodel"
	"github.com/toolroute/toolroute/internal/server"
	"github.com/toolroute/toolroute/internal/testwait"
)

// Every API route wants the token, as a bearer or as the page's cookie;
// nothing reaches the store, the model or the Google account without it.
func TestTokenRequired(t *testing.T) {
	// A turn and a model call for each of the three passes that get in.
	model := fakemodel.New(fakemodel.OpenAI, slices.Repeat([]fakemodel.Reply{fakemodel.Text("Yes.")}, 6)...)
	defer model.Close()
	srv := startWith(t, model, server.Options{Token: token, TokenFrom: "/data/serve-token"}, "GOOGLE_ACCESS_TOKEN", "ya29.secret")
	modelCall := `{"format":"openai","path":"/chat/completions","body":{"model":"fake-model","messages":[{"role":"user","content":"hi"}]}}`
	routes := []struct{ method, path, body string }{
		{"GET", "/api/health", ""},
		{"GET", "/api/sessions", ""},
		{"POST", "/api/sessions", `{}`},
		{"GET", "/api/sessions/s", ""},
		{"GET", "/api/sessions/s/messages", ""},
		{"POST", "/api/sessions/s/messages", `{"text":"hi"}`},
		{"POST", "/api/sessions/s/clear", `{}`},
		{"GET", "/api/catalogue?session=s", ""},
		{"GET", "/api/ui/catalogue", ""},
		{"GET", "/api/google/token", ""},
		{"POST", "/api/model", modelCall},
		{"PATCH", "/api/sessions/s", `{"title":"y"}`},
		{"DELETE", "/api/sessions/s", ""},
		{"GET", "/api/nothing", ""},
	}
	port := srv.Listener.Addr().(*net.TCPAddr).Port
	cookie := fmt.Sprintf("toolroute-token-%d", port)
	for _, c := range []struct {
		name   string
		header map[string]string
		ok     bool
	}{
		{"none", nil, false},
		{"wrong bearer", map[string]string{"Authorization": "Bearer wrong-token-0123456789abcdef"}, false},
		{"token in the query", nil, false},
		{"token as basic", map[string]string{"Authorization": "Basic " + token}, false},
		{"wrong cookie", map[string]string{"Cookie": cookie + "=wrong-token-0123456789abcdef"}, false},
		{"another port's cookie", map[string]string{"Cookie": "toolroute-token-1=" + token}, false},
		{"bearer", map[string]string{"Authorization": "Bearer " + token}, true},
		{"bearer, any case", map[string]string{"Authorization": "bearer " + token}, true},
		{"cookie", map[string]string{"Cookie": cookie + "=" + token}, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			for _, r := range routes {
				u := srv.URL + r.path
				if c.name == "token in the query" {
					u += map[bool]string{true: "&", false: "?"}[strings.Contains(u, "?")] + "token=" + token
				}
				req, _ := http.NewRequest(r.method, u, strings.NewReader(r.body))
				if r.body != "" {
					req.Header.Set("Content-Type", "application/json")
				}
				for k, v := range c.header {
					req.Header.Set(k, v)
				}
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				body, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				if c.ok {
					if resp.StatusCode == http.StatusUnauthorized {
						t.Errorf("%s %s: HTTP 401 %s", r.method, r.path, body)
					}
					continue
				}
				var e struct{ Error string }
				json.Unmarshal(body, &e)
				if resp.StatusCode != http.StatusUnauthorized || !strings.Contains(e.Error, "open the sign-in link it printed") ||
					!strings.Contains(e.Error, "Authorization: Bearer") || !strings.Contains(e.Error, "/data/serve-token") {
					t.Errorf("%s %s: HTTP %d %s", r.method, r.path, resp.StatusCode, body)
				}
				if strings.Contains(string(body), "ya29") || resp.Header.Get("Content-Type") != "application/json" {
					t.Errorf("%s %s: %s %s", r.method, r.path, resp.Header.Get("Content-Type"), body)
				}
			}
		})
		if !c.ok && len(model.Requests()) != 0 {
			t.Fatalf("%s: a request without the token reached the model", c.name)
		}
	}
	var tok map[string]string
	get(t, srv, "/api/google/token", http.StatusOK, &tok)
	if tok["access_token"] != "ya29.secret" {
		t.Errorf("with the token: %v", tok)
	}
}

// The page loads without the token; /?token=T trades the token for a
// cookie the page's requests then carry, and leaves the address bar.
func TestTokenPage(t *testing.T) {
	model := fakemodel.New(fakemodel.OpenAI)
	defer model.Close()
	srv := start(t, model)
	noRedirect := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}

	resp, err := noRedirect.Get(srv.URL + "/")
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || len(resp.Cookies()) != 0 || strings.Contains(string(page), token) {
		t.Errorf("the page without the token: HTTP %d, cookies %v", resp.StatusCode, resp.Cookies())
	}

	resp, err = noRedirect.Get(srv.URL + "/?token=wrong-token-0123456789abcdef")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized || len(resp.Cookies()) != 0 || !strings.Contains(string(body), "open the sign-in link it printed") {
		t.Errorf("a wrong token: HTTP %d %s, cookies %v", resp.StatusCode, body, resp.Cookies())
	}

	resp, err = noRedirect.Get(srv.URL + "/?token=" + token)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	cookies := resp.Cookies()
	port := srv.Listener.Addr().(*net.TCPAddr).Port
	if resp.StatusCode != http.StatusFound || resp.Header.Get("Location") != "/" || len(cookies) != 1 {
		t.Fatalf("the token: HTTP %d to %q, cookies %v", resp.StatusCode, resp.Header.Get("Location"), cookies)
	}
	c := cookies[0]
	if c.Name != fmt.Sprintf("toolroute-token-%d", port) || c.Value != token || !c.HttpOnly || c.SameSite != http.SameSiteStrictMode || c.Path != "/" {
		t.Errorf("cookie = %+v", c)
	}

	// A browser: the token in the address, then the page and its API calls.
	jar, _ := cookiejar.New(nil)
	browser := &http.Client{Jar: jar}
	resp, err = browser.Get(srv.URL + "/?token=" + token)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 || resp.Request.URL.String() != srv.URL+"/" {
		t.Errorf("the browser ended at %s with HTTP %d", resp.Request.URL, resp.StatusCode)
	}
	resp, err = browser.Get(srv.URL + "/api/health")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Errorf("the page's API call: HTTP %d", resp.StatusCode)
	}
}

// A sign-in code opens the page once: /?login=CODE trades it for the
// cookie, and the same link then fails, saying what to do, as does an
// expired or unknown code. Codes are in no address a process's command line
// shows (serve --open hands the browser a file), and never the token.
func TestSignInCodes(t *testing.T) {
	model := fakemodel.New(fakemodel.OpenAI)
	defer model.Close()
	logins := server.NewLogins()
	srv := startWith(t, model, server.Options{Token: token, Logins: logins})
	noRedirect := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	get := func(query string) (*http.Response, string) {
		t.Helper()
		resp, err := noRedirect.Get(srv.URL + "/?" + query)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		return resp, string(body)
	}

	code := logins.New(time.Minute)
	if code == token || len(code) < 32 {
		t.Fatalf("code %q", code)
	}
	resp, _ := get("login=" + code)
	cookies := resp.Cookies()
	if resp.StatusCode != http.StatusFound || resp.Header.Get("Location") != "/" || len(cookies) != 1 || cookies[0].Value != token || !cookies[0].HttpOnly {
		t.Fatalf("a fresh code: HTTP %d to %q, cookies %v", resp.StatusCode, resp.Header.Get("Location"), cookies)
	}
	if resp.Header.Get("Cache-Control") != "no-store" {
		t.Errorf("Cache-Control %q", resp.Header.Get("Cache-Control"))
	}
	for _, c := range []struct{ name, query string }{
		{"the same code again", "login=" + code},
		{"an unknown code", "login=0123456789abcdef0123456789abcdef"},
		{"an expired code", "login=" + logins.New(-time.Second)},
		{"no code", "login="},
		{"the token as a code", "login=" + token},
	} {
		resp, body := get(c.query)
		if resp.StatusCode != http.StatusUnauthorized || len(resp.Cookies()) != 0 || !strings.Contains(body, "this sign-in link was used already or has expired") {
			t.Errorf("%s: HTTP %d %s, cookies %v", c.name, resp.StatusCode, body, resp.Cookies())
		}
	}
	// A server without codes takes none.
	plain := start(t, model)
	resp, err := noRedirect.Get(plain.URL + "/?login=" + logins.New(time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("a server without Logins: HTTP %d", resp.StatusCode)
	}
}

// The token file is made once, readable by the user alone, and kept.
func TestLoadToken(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	tok, err := server.LoadToken(dir)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, server.TokenFile)
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(tok) != 64 || strings.Trim(tok, "0123456789abcdef") != "" || server.CheckToken(tok) != nil {
		t.Errorf("token %q", tok)
	}
	if runtime.GOOS != "windows" && st.Mode().Perm() != 0o600 {
		t.Errorf("%s has mode %04o, want 0600", path, st.Mode().Perm())
	}
	if again, err := server.LoadToken(dir); err != nil || again != tok {
		t.Errorf("the second serve got %q, %v; want %q", again, err, tok)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("the data folder holds %d files, want the token alone", len(entries))
	}

	// Serves starting together agree on one token.
	dir = filepath.Join(t.TempDir(), "data")
	toks := make([]string, 8)
	var wg sync.WaitGroup
	for i := range toks {
		wg.Add(1)
		go func() {
			defer wg.Done()
			toks[i], _ = server.LoadToken(dir)
		}()
	}
	wg.Wait()
	for _, tk := range toks {
		if tk != toks[0] || tk == "" {
			t.Fatalf("concurrent serves got %q", toks)
		}
	}

	for _, c := range []struct {
		name    string
		content string
		mode    os.FileMode
		wantErr string
	}{
		{"user's own", "my-own-token-0123456789\n", 0o600, ""},
		{"readable by others", "my-own-token-0123456789\n", 0o644, "may be read by others (mode 0644)"},
		{"empty", "", 0o600, "holds no token"},
		{"short", "abc", 0o600, "holds no token"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if c.mode&0o077 != 0 && runtime.GOOS == "windows" {
				t.Skip("no Unix modes")
			}
			dir := t.TempDir()
			path := filepath.Join(dir, server.TokenFile)
			os.WriteFile(path, []byte(c.content), c.mode)
			os.Chmod(path, c.mode) // past the umask
			tok, err := server.LoadToken(dir)
			switch {
			case c.wantErr == "" && (err != nil || tok != strings.TrimSpace(c.content)):
				t.Errorf("got %q, %v", tok, err)
			case c.wantErr != "" && (err == nil || !strings.Contains(err.Error(), c.wantErr)):
				t.Errorf("got %q, %v; want an error with %q", tok, err, c.wantErr)
			}
		})
	}
}

func TestCheckToken(t *testing.T) {
	for _, c := range []struct {
		input   string
		wantErr bool
	}{
		{strings.Repeat("ab", 32), false},
		{"A-b_c.d~e-0123456789", false},
		{"0123456789abcdef", false},
		{"0123456789abcde", true},
		{"", true},
		{"with space 0123456789", true},
		{"semi;colon0123456789", true},
		{"amp&ersand0123456789", true},
		{"ünicode-0123456789", true},
	} {
		if err := server.CheckToken(c.input); (err != nil) != c.wantErr || err != nil && !errors.Is(err, server.ErrBadToken) {
			t.Errorf("CheckToken(%q) = %v", c.input, err)
		}
	}
}

// A body sent a byte at a time cannot hold a connection past BodyTimeout,
// with the token or without.
func TestSlowBody(t *testing.T) {
	model := fakemodel.New(fakemodel.OpenAI)
	defer model.Close()
	const limit = 300 * time.Millisecond
	srv := startWith(t, model, server.Options{Token: token, BodyTimeout: limit})
	for _, c := range []struct {
		name, auth string
		status     string
	}{
		{"with the token", "Authorization: Bearer " + token + "\r\n", "HTTP/1.1 408"},
		{"without", "", "HTTP/1.1 401"},
	} {
		t.Run(c.name, func(t *testing.T) {
			conn, err := net.Dial("tcp", srv.Listener.Addr().String())
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			start := time.Now()
			fmt.Fprintf(conn, "POST /api/sessions HTTP/1.1\r\nHost: 127.0.0.1\r\n%sContent-Type: application/json\r\nContent-Length: 200000\r\n\r\n{", c.auth)
			stop := make(chan struct{})
			defer close(stop)
			go func() {
				for {
					select {
					case <-stop:
						return
					case <-time.After(20 * time.Millisecond):
					}
					if _, err := conn.Write([]byte(" ")); err != nil {
						return
					}
				}
			}()
			// The body trickles in for an hour: a server without the body's
			// deadline holds the connection past the read's failsafe. (Under
			// 256 KB, so that net/http reads what is left of it after a
			// refusal, rather than closing at once.)
			conn.SetReadDeadline(time.Now().Add(testwait.Failsafe))
			got, err := io.ReadAll(conn)
			elapsed := time.Since(start)
			// A reset is a close too: the server drops what is still coming.
			if ne := net.Error(nil); errors.As(err, &ne) && ne.Timeout() {
				t.Fatalf("the connection was still open after %v: %v; read %q", elapsed, err, got)
			}
			if !strings.HasPrefix(string(got), c.status) {
				t.Errorf("answer %q, want %s", got, c.status)
			}
			if elapsed < limit {
				t.Errorf("closed after %v, before the body's %v", elapsed, limit)
			}
		})
	}
}

// A turn streams on long after its body's deadline: the deadline is for
// the body alone, and a read deadline passing under a handler would cancel
// its context.
func TestStreamOutlivesBodyTimeout(t *testing.T) {
	model := fakemodel.New(fakemodel.OpenAI, fakemodel.Text("Slow."))
	defer model.Close()
	target, _ := url.Parse(model.URL)
	proxy := httputil.NewSingleHostReverseProxy(target)
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(600 * time.Millisecond)
		proxy.ServeHTTP(w, r)
	}))
	defer slow.Close()
	srv := startWith(t, model, server.Options{Token: token, BodyTimeout: 100 * time.Millisecond}, "OPENAI_BASE_URL", slow.URL+"/v1")
	resp := post(t, srv, "/api/sessions/s/messages", `{"text":"hi"}`)
	defer resp.Body.Close()
	var last string
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		if strings.HasPrefix(sc.Text(), "event: ") {
			last = sc.Text()
		}
	}
	if last != "event: done" {
		t.Errorf("the last event is %q, want done", last)
	}
}
