package server_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/toolroute/toolroute/internal/server"
)

// RequireBearer takes the token as Authorization: Bearer alone: not the
// page's cookie, not another token, not the token without its scheme.
func TestRequireBearer(t *testing.T) {
	const tok = "0123456789abcdef-token"
	h := server.RequireBearer(tok, "DATA/serve-token", "http://127.0.0.1:1/.well-known/oauth-protected-resource/mcp", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "in")
	}))
	tests := []struct {
		name   string
		header map[string]string
		want   int
	}{
		{name: "the token", header: map[string]string{"Authorization": "Bearer " + tok}, want: http.StatusOK},
		{name: "any case of the scheme, spaces around", header: map[string]string{"Authorization": "bearer  " + tok + " "}, want: http.StatusOK},
		{name: "none", want: http.StatusUnauthorized},
		{name: "another token", header: map[string]string{"Authorization": "Bearer " + tok + "x"}, want: http.StatusUnauthorized},
		{name: "without the scheme", header: map[string]string{"Authorization": tok}, want: http.StatusUnauthorized},
		{name: "another scheme", header: map[string]string{"Authorization": "Basic " + tok}, want: http.StatusUnauthorized},
		{name: "the page's cookie", header: map[string]string{"Cookie": "toolroute-token=" + tok}, want: http.StatusUnauthorized},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := httptest.NewRequest("POST", "/mcp", nil)
			for _, k := range []string{"Authorization", "Cookie"} {
				if v, ok := tt.header[k]; ok {
					r.Header.Set(k, v)
				}
			}
			w := httptest.NewRecorder()
			h.ServeHTTP(w, r)
			if w.Code != tt.want {
				t.Fatalf("HTTP %d, want %d", w.Code, tt.want)
			}
			if w.Code == http.StatusUnauthorized {
				if body := w.Body.String(); !strings.Contains(body, "Authorization: Bearer with the token from DATA/serve-token") {
					t.Errorf("the 401 says %s", body)
				}
				// As the MCP authorization spec's resource servers answer:
				// the metadata named, and a token that came refused with
				// its description.
				want := `Bearer realm="toolroute", resource_metadata="http://127.0.0.1:1/.well-known/oauth-protected-resource/mcp"`
				if _, sent := tt.header["Authorization"]; sent && strings.HasPrefix(tt.header["Authorization"], "Bearer") {
					want += `, error="invalid_token", error_description="toolroute needs its token here: send Authorization: Bearer with the token from DATA/serve-token"`
				}
				if c := w.Header().Get("WWW-Authenticate"); c != want {
					t.Errorf("WWW-Authenticate: %q, want %q", c, want)
				}
			}
		})
	}
}
