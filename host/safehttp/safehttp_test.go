package safehttp

import (
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"testing"
)

func TestBlocked(t *testing.T) {
	for addr, blocked := range map[string]bool{
		"127.0.0.1": true, "::1": true, "10.0.0.8": true, "192.168.1.1": true, "172.16.4.4": true,
		"169.254.169.254": true, "fe80::1": true, "0.0.0.0": true, "100.64.1.1": true, "fd00::1": true,
		"::ffff:127.0.0.1": true, "224.0.0.1": true,
		"8.8.8.8": false, "142.250.74.46": false, "2606:4700::1111": false,
	} {
		if got := Blocked(netip.MustParseAddr(addr)); got != blocked {
			t.Errorf("Blocked(%s) = %v, want %v", addr, got, blocked)
		}
	}
}

func TestClient(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "hello "+r.URL.Path) }))
	defer srv.Close()
	get := func(c *Client, raw string) (string, error) {
		u, rewritten, err := c.Target(raw)
		if err != nil {
			return "", err
		}
		req, _ := http.NewRequest("GET", u.String(), nil)
		resp, err := c.Do(req, rewritten)
		if err != nil {
			return "", err
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return string(b), nil
	}
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
	open := New(Options{AllowPrivate: true})
	if got, err := get(open, srv.URL+"/y"); err != nil || got != "hello /y" {
		t.Errorf("allowed: %q %v", got, err)
	}
	for _, bad := range []string{"ftp://x/", "file:///etc/passwd", "nonsense", "http://"} {
		if _, _, err := open.Target(bad); err == nil {
			t.Errorf("Target(%q) accepted", bad)
		}
	}
}
