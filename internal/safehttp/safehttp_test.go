package safehttp

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/toolroute/toolroute/internal/testwait"
)

func TestBlocked(t *testing.T) {
	for _, tc := range []struct {
		name  string
		input string
		want  bool
	}{
		{"loopback v4", "127.0.0.1", true},
		{"loopback v6", "::1", true},
		{"private 10", "10.0.0.8", true},
		{"private 192.168", "192.168.1.1", true},
		{"private 172.16", "172.16.4.4", true},
		{"link-local metadata", "169.254.169.254", true},
		{"link-local v6", "fe80::1", true},
		{"link-local v6 zoned", "fe80::1%eth0", true},
		{"unspecified v4", "0.0.0.0", true},
		{"this network", "0.1.2.3", true},
		{"cgnat", "100.64.1.1", true},
		{"unique local", "fd00::1", true},
		{"multicast v4", "224.0.0.1", true},
		{"multicast v6", "ff02::1", true},
		{"mapped loopback", "::ffff:127.0.0.1", true},
		{"mapped private", "::ffff:10.0.0.1", true},
		{"mapped public", "::ffff:8.8.8.8", false},
		{"reserved 240/4", "240.0.0.1", true},
		{"reserved 250", "250.1.2.3", true},
		{"broadcast", "255.255.255.255", true},
		{"nat64 loopback", "64:ff9b::7f00:1", true},
		{"nat64 private", "64:ff9b::a00:1", true},
		{"nat64 metadata", "64:ff9b::a9fe:a9fe", true},
		{"nat64 broadcast", "64:ff9b::ffff:ffff", true},
		{"nat64 public", "64:ff9b::808:808", false},
		{"nat64 local-use", "64:ff9b:1::808:808", true},
		{"nat64 local-use loopback", "64:ff9b:1:7f00:1::", true},
		{"6to4 loopback", "2002:7f00:1::1", true},
		{"6to4 public", "2002:808:808::1", true},
		{"ipv4-compatible loopback", "::127.0.0.1", true},
		{"ipv4-compatible public", "::8.8.8.8", true},
		{"site-local", "fec0::1", true},
		{"site-local top", "feff:ffff::1", true},
		{"public v4", "8.8.8.8", false},
		{"public v4 google", "142.250.74.46", false},
		{"last before multicast", "223.255.255.255", false},
		{"public v6", "2606:4700::1111", false},
		{"public v6 google", "2001:4860:4860::8888", false},
		{"next to nat64", "64:ff9c::1", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Blocked(netip.MustParseAddr(tc.input)); got != tc.want {
				t.Errorf("Blocked(%s) = %v, want %v", tc.input, got, tc.want)
			}
		})
	}
	if !Blocked(netip.Addr{}) {
		t.Error("Blocked(zero Addr) = false, want true")
	}
}

func TestTarget(t *testing.T) {
	c := New(Options{Rewrites: []Rewrite{
		{From: "https://www.googleapis.com", To: "http://127.0.0.1:9/fake"},
		{From: "https://api.example.com/v1/", To: "http://127.0.0.1:9/v1"},
	}})
	for _, tc := range []struct {
		name          string
		input         string
		want          string
		wantRewritten bool
		wantErr       string
	}{
		{name: "rule", input: "https://www.googleapis.com/drive/v3/files?q=x", want: "http://127.0.0.1:9/fake/drive/v3/files?q=x", wantRewritten: true},
		{name: "rule host only", input: "https://www.googleapis.com", want: "http://127.0.0.1:9/fake", wantRewritten: true},
		{name: "rule case", input: "HTTPS://WWW.GoogleAPIs.com/x", want: "http://127.0.0.1:9/fake/x", wantRewritten: true},
		{name: "rule default port", input: "https://www.googleapis.com:443/x", want: "http://127.0.0.1:9/fake/x", wantRewritten: true},
		{name: "rule trailing dot", input: "https://www.googleapis.com./x", want: "http://127.0.0.1:9/fake/x", wantRewritten: true},
		{name: "rule fragment with @", input: "https://www.googleapis.com#@evil.example/", want: "http://127.0.0.1:9/fake#@evil.example/", wantRewritten: true},
		{name: "rule query with @", input: "https://www.googleapis.com/?@evil.example/", want: "http://127.0.0.1:9/fake/?@evil.example/", wantRewritten: true},
		{name: "rule escapes kept", input: "https://api.example.com/v1/a%2Fb%20c", want: "http://127.0.0.1:9/v1/a%2Fb%20c", wantRewritten: true},
		{name: "path prefix", input: "https://api.example.com/v1/models", want: "http://127.0.0.1:9/v1/models", wantRewritten: true},
		{name: "path prefix exact", input: "https://api.example.com/v1", want: "http://127.0.0.1:9/v1", wantRewritten: true},

		{name: "userinfo host confusion", input: "https://www.googleapis.com@evil.example/", wantErr: "user name or password before '@'"},
		{name: "userinfo password", input: "https://www.googleapis.com:secret@evil.example/", wantErr: "Authorization header"},
		{name: "userinfo escaped slash", input: "https://www.googleapis.com%2f@evil.example/", wantErr: "user name or password"},
		{name: "userinfo backslash", input: `https://www.googleapis.com\@evil.example/`, wantErr: "invalid URL"},
		{name: "userinfo on the rule's host", input: "https://user@www.googleapis.com/x", wantErr: "user name or password"},
		{name: "suffix host", input: "https://www.googleapis.com.evil.example/x", want: "https://www.googleapis.com.evil.example/x"},
		{name: "longer host", input: "https://www.googleapis.comevil.example/", want: "https://www.googleapis.comevil.example/"},
		{name: "other port", input: "https://www.googleapis.com:8443/x", want: "https://www.googleapis.com:8443/x"},
		{name: "other scheme", input: "http://www.googleapis.com/x", want: "http://www.googleapis.com/x"},
		{name: "rule in path", input: "https://evil.example/https://www.googleapis.com/", want: "https://evil.example/https://www.googleapis.com/"},
		{name: "rule in query", input: "https://evil.example/?u=https://www.googleapis.com", want: "https://evil.example/?u=https://www.googleapis.com"},
		{name: "path not at a segment", input: "https://api.example.com/v10/x", want: "https://api.example.com/v10/x"},
		{name: "path outside", input: "https://api.example.com/admin", want: "https://api.example.com/admin"},
		{name: "dot segments", input: "https://api.example.com/v1/../admin", wantErr: "'.' or '..' path segment"},
		{name: "escaped dot segments", input: "https://api.example.com/v1/%2e%2e/admin", wantErr: "'.' or '..' path segment"},
		{name: "escaped slash dot segments", input: "https://api.example.com/v1%2F..%2Fadmin", wantErr: "'.' or '..' path segment"},

		{name: "ftp", input: "ftp://x/", wantErr: "not an http or https URL"},
		{name: "file", input: "file:///etc/passwd", wantErr: "give a full http"},
		{name: "nonsense", input: "nonsense", wantErr: "give a full http"},
		{name: "no host", input: "http://", wantErr: "give a full http"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			u, rewritten, err := c.Target(tc.input)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("Target(%q) = %v, %v; want an error with %q", tc.input, u, err, tc.wantErr)
				}
				if strings.Contains(err.Error(), "secret") {
					t.Errorf("the error shows the password: %v", err)
				}
				return
			}
			if err != nil || u.String() != tc.want || rewritten != tc.wantRewritten {
				t.Errorf("Target(%q) = %v, %v, %v; want %s, %v", tc.input, u, rewritten, err, tc.want, tc.wantRewritten)
			}
		})
	}
}

// Shown gives a rewritten request's final URL under the rule's From: the
// tool sees the URL it asked for, whatever server answered.
func TestShown(t *testing.T) {
	c := New(Options{Rewrites: []Rewrite{
		{From: "https://www.googleapis.com", To: "http://127.0.0.1:9/fake"},
		{From: "https://api.example.com/v1/", To: "http://127.0.0.1:9/v1"},
	}})
	for _, tc := range []struct {
		name  string
		raw   string
		final string
		want  string
	}{
		{name: "rewritten", raw: "https://www.googleapis.com/drive?q=x", final: "http://127.0.0.1:9/fake/drive?q=x", want: "https://www.googleapis.com/drive?q=x"},
		{name: "redirected in the target", raw: "https://www.googleapis.com/a", final: "http://127.0.0.1:9/fake/b/c?d=1", want: "https://www.googleapis.com/b/c?d=1"},
		{name: "path prefix", raw: "https://api.example.com/v1/models", final: "http://127.0.0.1:9/v1/models/x", want: "https://api.example.com/v1/models/x"},
		{name: "escapes kept", raw: "https://api.example.com/v1/a%2Fb", final: "http://127.0.0.1:9/v1/a%2Fb", want: "https://api.example.com/v1/a%2Fb"},
		{name: "no rule", raw: "https://example.com/a", final: "https://example.com/b", want: "https://example.com/b"},
		{name: "final outside the target", raw: "https://www.googleapis.com/a", final: "http://127.0.0.1:9/other", want: "http://127.0.0.1:9/other"},
		{name: "bad raw", raw: "::", final: "https://example.com/b", want: "https://example.com/b"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			final, err := url.Parse(tc.final)
			if err != nil {
				t.Fatal(err)
			}
			if got := c.Shown(tc.raw, final).String(); got != tc.want {
				t.Errorf("Shown(%q, %q) = %q, want %q", tc.raw, tc.final, got, tc.want)
			}
		})
	}
}

func TestTargetBadRule(t *testing.T) {
	for _, tc := range []struct {
		name  string
		input Rewrite
	}{
		{"user in from", Rewrite{From: "https://u@h.example/", To: "http://127.0.0.1:9/"}},
		{"query in from", Rewrite{From: "https://h.example/?a=1", To: "http://127.0.0.1:9/"}},
		{"fragment in to", Rewrite{From: "https://h.example/", To: "http://127.0.0.1:9/#x"}},
		{"scheme of to", Rewrite{From: "https://h.example/", To: "ftp://127.0.0.1/"}},
		{"empty from", Rewrite{To: "http://127.0.0.1:9/"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := New(Options{Rewrites: []Rewrite{tc.input}})
			if _, _, err := c.Target("https://other.example/"); err == nil || !strings.Contains(err.Error(), "safehttp: rewrite rule") {
				t.Errorf("Target with rule %+v: %v, want a rewrite rule error", tc.input, err)
			}
		})
	}
}

// get sends a GET through c as the callers do, Target then Do.
func get(c *Client, raw string) (string, error) {
	u, rewritten, err := c.Target(raw)
	if err != nil {
		return "", err
	}
	ctx, cancel := context.WithTimeout(context.Background(), testwait.Failsafe)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", u.String(), nil)
	resp, err := c.Do(req, rewritten)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return string(b), nil
}

func TestClient(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "hello "+r.URL.Path) }))
	defer srv.Close()
	guarded := New(Options{Rewrites: []Rewrite{{From: "https://api.example.com", To: srv.URL}}})
	if _, err := get(guarded, srv.URL+"/x"); !errors.Is(err, ErrPrivate) {
		t.Errorf("loopback reached: %v", err)
	}
	if got, err := get(guarded, "https://api.example.com/v1"); err != nil || got != "hello /v1" {
		t.Errorf("rewritten: %q %v", got, err)
	}
	// After the rewritten request, the loopback server is still refused
	// directly: the two never share a connection.
	if _, err := get(guarded, srv.URL+"/again"); !errors.Is(err, ErrPrivate) {
		t.Errorf("loopback reached after a rewrite: %v", err)
	}
	// Do refuses a request claimed rewritten that no rule's target holds.
	req, _ := http.NewRequest("GET", "http://127.0.0.2:1/", nil)
	if _, err := guarded.Do(req, true); err == nil || !strings.Contains(err.Error(), "no rewrite target") {
		t.Errorf("Do(rewritten) outside the targets: %v", err)
	}
	open := New(Options{AllowPrivate: true})
	if got, err := get(open, srv.URL+"/y"); err != nil || got != "hello /y" {
		t.Errorf("allowed: %q %v", got, err)
	}
}

// TestOddIPv4 checks the dial-time check against the IPv4 spellings some
// resolvers read as loopback: net either refuses them as names or resolves
// them, and then the dialled address is refused.
func TestOddIPv4(t *testing.T) {
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hits.Add(1) }))
	defer srv.Close()
	port := srv.URL[strings.LastIndex(srv.URL, ":"):]
	c := New(Options{})
	for _, tc := range []struct {
		name  string
		input string
	}{
		{"decimal", "http://2130706433" + port + "/"},
		{"octal", "http://0177.0.0.1" + port + "/"},
		{"hex", "http://0x7f.1" + port + "/"},
		{"short", "http://127.1" + port + "/"},
		{"hex dotted", "http://0x7f.0x0.0x0.0x1" + port + "/"},
		{"mapped", "http://[::ffff:127.0.0.1]" + port + "/"},
		{"mapped hex", "http://[::ffff:7f00:1]" + port + "/"},
		{"ipv4-compatible", "http://[::127.0.0.1]" + port + "/"},
		{"localhost", "http://localhost" + port + "/"},
		{"localhost dot", "http://localhost." + port + "/"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := get(c, tc.input); err == nil {
				t.Errorf("%s reached", tc.input)
			}
		})
	}
	if n := hits.Load(); n != 0 {
		t.Errorf("the loopback server was reached %d times", n)
	}
}

func TestRedirects(t *testing.T) {
	var privateHits atomic.Int32
	private := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		privateHits.Add(1)
		io.WriteString(w, "private")
	}))
	defer private.Close()
	privatePort := private.URL[strings.LastIndex(private.URL, ":")+1:]

	redirects := func(to map[string]string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			if loc, ok := to[r.URL.Path]; ok {
				http.Redirect(w, r, loc, http.StatusFound)
				return
			}
			io.WriteString(w, "ok "+r.URL.Path)
		}
	}
	// target stands for a rewrite rule's test server; public for a public
	// host, which the client below takes for one though it is on loopback.
	target := httptest.NewServer(nil)
	defer target.Close()
	public := httptest.NewServer(nil)
	defer public.Close()
	target.Config.Handler = redirects(map[string]string{
		"/to-self":     "/ok",
		"/sub/to-self": "/sub/ok",
		"/sub/to-up":   "/ok",
		"/to-private":  private.URL + "/",
		"/to-public":   public.URL + "/ok",
		"/to-from":     "https://api.example.com/ok",
		"/to-10":       "http://10.0.0.1/",
		"/to-user":     "http://u:p@" + target.Listener.Addr().String() + "/ok",
	})
	public.Config.Handler = redirects(map[string]string{
		"/to-self":           "/ok",
		"/to-private":        private.URL + "/",
		"/to-private-name":   "http://localhost:" + privatePort + "/",
		"/to-10":             "http://10.0.0.1/",
		"/to-metadata":       "http://169.254.169.254/latest/meta-data/",
		"/to-mapped":         "http://[::ffff:127.0.0.1]:" + privatePort + "/",
		"/to-nat64":          "http://[64:ff9b::7f00:1]:" + privatePort + "/",
		"/to-6to4":           "http://[2002:7f00:1::1]:" + privatePort + "/",
		"/to-rewrite-target": target.URL + "/ok",
		"/to-user":           "http://u:p@" + public.Listener.Addr().String() + "/ok",
		"/to-file":           "file:///etc/passwd",
		"/loop":              "/loop",
	})
	publicAddr := netip.MustParseAddrPort(public.Listener.Addr().String())
	c := newClient(Options{Rewrites: []Rewrite{
		{From: "https://api.example.com", To: target.URL},
		{From: "https://sub.example.com", To: target.URL + "/sub"},
	}}, func(ap netip.AddrPort) bool { return ap != publicAddr && Blocked(ap.Addr()) })

	for _, tc := range []struct {
		name        string
		input       string
		want        string
		wantPrivate bool
		wantErr     string
	}{
		{name: "public to itself", input: public.URL + "/to-self", want: "ok /ok"},
		{name: "public to loopback", input: public.URL + "/to-private", wantPrivate: true},
		{name: "public to a name for loopback", input: public.URL + "/to-private-name", wantPrivate: true},
		{name: "public to private", input: public.URL + "/to-10", wantPrivate: true},
		{name: "public to metadata", input: public.URL + "/to-metadata", wantPrivate: true},
		{name: "public to mapped loopback", input: public.URL + "/to-mapped", wantPrivate: true},
		{name: "public to nat64 loopback", input: public.URL + "/to-nat64", wantPrivate: true},
		{name: "public to 6to4", input: public.URL + "/to-6to4", wantPrivate: true},
		{name: "public to the rewrite target", input: public.URL + "/to-rewrite-target", wantPrivate: true},
		{name: "public to userinfo", input: public.URL + "/to-user", wantErr: "user name or password"},
		{name: "public to file", input: public.URL + "/to-file", wantErr: "redirect to a file URL"},
		{name: "public loop", input: public.URL + "/loop", wantErr: "more than 5 redirects"},

		{name: "rewritten to itself", input: "https://api.example.com/to-self", want: "ok /ok"},
		{name: "rewritten to itself under the path", input: "https://sub.example.com/to-self", want: "ok /sub/ok"},
		{name: "rewritten out of the path", input: "https://sub.example.com/to-up", wantErr: "leaves the rewrite target"},
		{name: "rewritten to another loopback server", input: "https://api.example.com/to-private", wantErr: "leaves the rewrite target"},
		{name: "rewritten to public", input: "https://api.example.com/to-public", wantErr: "leaves the rewrite target"},
		{name: "rewritten to the rule's from", input: "https://api.example.com/to-from", wantErr: "leaves the rewrite target"},
		{name: "rewritten to private", input: "https://api.example.com/to-10", wantErr: "leaves the rewrite target"},
		{name: "rewritten to userinfo", input: "https://api.example.com/to-user", wantErr: "user name or password"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := get(c, tc.input)
			switch {
			case tc.wantPrivate:
				if !errors.Is(err, ErrPrivate) {
					t.Errorf("get(%s) = %q, %v; want ErrPrivate", tc.input, got, err)
				}
			case tc.wantErr != "":
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Errorf("get(%s) = %q, %v; want an error with %q", tc.input, got, err, tc.wantErr)
				}
			default:
				if err != nil || got != tc.want {
					t.Errorf("get(%s) = %q, %v; want %q", tc.input, got, err, tc.want)
				}
			}
		})
	}
	if n := privateHits.Load(); n != 0 {
		t.Errorf("the private server was reached %d times", n)
	}
}
