package server_test

import (
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/toolroute/toolroute/internal/server"
)

// The profiles answer only requests with the token, as Bearer or as the
// API's sign-in cookie (of the API's port, not another serve's), and only
// to loopback Host names; with it, a heap profile go tool pprof reads.
func TestDebugHandler(t *testing.T) {
	const tok = "0123456789abcdef-token"
	h := server.DebugHandler(server.DebugOptions{Token: tok, TokenFrom: "DATA/serve-token", CookiePort: 8377})
	tests := []struct {
		name   string
		path   string
		host   string
		header map[string]string
		want   int
	}{
		{name: "no token", path: "/debug/pprof/heap", want: http.StatusUnauthorized},
		{name: "no token, the index", path: "/debug/pprof/", want: http.StatusUnauthorized},
		{name: "no token, a goroutine dump", path: "/debug/pprof/goroutine?debug=2", want: http.StatusUnauthorized},
		{name: "another token", path: "/debug/pprof/heap", header: map[string]string{"Authorization": "Bearer " + tok + "x"}, want: http.StatusUnauthorized},
		{name: "another port's cookie", path: "/debug/pprof/heap", header: map[string]string{"Cookie": "toolroute-token-9000=" + tok}, want: http.StatusUnauthorized},
		{name: "the cookie with another token", path: "/debug/pprof/heap", header: map[string]string{"Cookie": "toolroute-token-8377=x" + tok}, want: http.StatusUnauthorized},
		{name: "a wrong Bearer beside the right cookie", path: "/debug/pprof/heap", header: map[string]string{"Authorization": "Bearer nope", "Cookie": "toolroute-token-8377=" + tok}, want: http.StatusUnauthorized},
		{name: "the token, from another site's name", path: "/debug/pprof/heap", host: "evil.example:6060", header: map[string]string{"Authorization": "Bearer " + tok}, want: http.StatusForbidden},
		{name: "Bearer", path: "/debug/pprof/heap", header: map[string]string{"Authorization": "Bearer " + tok}, want: http.StatusOK},
		{name: "the API's cookie", path: "/debug/pprof/heap", header: map[string]string{"Cookie": "toolroute-token-8377=" + tok}, want: http.StatusOK},
		{name: "the index", path: "/debug/pprof/", header: map[string]string{"Authorization": "Bearer " + tok}, want: http.StatusOK},
		{name: "outside the profiles", path: "/api/health", header: map[string]string{"Authorization": "Bearer " + tok}, want: http.StatusNotFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := httptest.NewRequest("GET", tt.path, nil)
			r.Host = "127.0.0.1:6060"
			if tt.host != "" {
				r.Host = tt.host
			}
			for k, v := range tt.header {
				r.Header.Set(k, v)
			}
			w := httptest.NewRecorder()
			h.ServeHTTP(w, r)
			if w.Code != tt.want {
				t.Fatalf("HTTP %d, want %d: %s", w.Code, tt.want, w.Body)
			}
			switch {
			case w.Code == http.StatusUnauthorized:
				if body := w.Body.String(); !strings.Contains(body, "Authorization: Bearer with the token from DATA/serve-token") || strings.Contains(body, "heap") {
					t.Errorf("the 401 says %s", body)
				}
			case w.Code == http.StatusOK && strings.HasSuffix(tt.path, "/heap"):
				// A protocol buffer, gzipped, as go tool pprof reads it;
				// its strings name the sample types.
				zr, err := gzip.NewReader(bytes.NewReader(w.Body.Bytes()))
				if err != nil {
					t.Fatalf("not a gzipped profile: %v", err)
				}
				raw, err := io.ReadAll(zr)
				if err != nil || !bytes.Contains(raw, []byte("inuse_space")) || !bytes.Contains(raw, []byte("alloc_space")) {
					t.Errorf("not a heap profile (%v): %.200q", err, raw)
				}
			}
		})
	}
}

// The profiles listen on loopback alone.
func TestListenDebug(t *testing.T) {
	for _, addr := range []string{"0.0.0.0:0", ":0", "[::]:0", "192.0.2.1:0", "example.com:0", "127.0.0.1"} {
		if ln, err := server.ListenDebug(addr); !errors.Is(err, server.ErrDebugAddr) {
			if ln != nil {
				ln.Close()
			}
			t.Errorf("%q: %v, want ErrDebugAddr", addr, err)
		}
	}
	for _, addr := range []string{"127.0.0.1:0", "localhost:0"} {
		ln, err := server.ListenDebug(addr)
		if err != nil {
			t.Errorf("%q: %v", addr, err)
			continue
		}
		ln.Close()
	}
}
