package server

import (
	"crypto/sha256"
	"encoding/json"
	"net/http"
	"strings"
)

// RequireBearer lets through only the requests that send token as
// Authorization: Bearer, as serve's API takes it: `toolroute mcp --http`
// asks for serve's token. The cookie the page gets does not count, so a
// browser page cannot use what it is not given. Any other request gets 401
// with a message saying where the token is (from), in the body and, as
// the MCP authorization spec's resource servers answer, in a Bearer
// challenge (RFC 6750) naming the protected resource metadata
// (resourceMetadata, RFC 9728; see ServeMCPAuth) when it is not empty.
func RequireBearer(token, from, resourceMetadata string, next http.Handler) http.Handler {
	a := &auth{sum: sha256.Sum256([]byte(token)), from: from}
	msg := "toolroute needs its token here: send Authorization: Bearer with the token from " + a.from
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		tok, sent := bearer(r)
		if sent && a.match(tok) {
			next.ServeHTTP(w, r)
			return
		}
		challenge := `Bearer realm="toolroute"`
		if resourceMetadata != "" {
			challenge += `, resource_metadata="` + resourceMetadata + `"`
		}
		if sent {
			// RFC 6750: an error code only when a token came; the
			// description is what a client that shows one shows.
			challenge += `, error="invalid_token", error_description="` + quotable(msg) + `"`
		}
		w.Header().Set("WWW-Authenticate", challenge)
		fail(w, http.StatusUnauthorized, msg)
	})
}

// quotable is s fit for a quoted-string of an HTTP header: no quotes or
// backslashes (RFC 6750 limits error_description to printable ASCII
// without them).
func quotable(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '"' || r == '\\' || r < 0x20 || r > 0x7e {
			return '\''
		}
		return r
	}, s)
}

// ResourceMetadataPath is the well-known path of an MCP endpoint's
// protected resource metadata (RFC 9728, section 3.1): the prefix, then
// the endpoint's path.
const ResourceMetadataPath = "/.well-known/oauth-protected-resource"

// ServeMCPAuth adds to mux what an OAuth-aware MCP client asks for when
// the endpoint at base+path refuses it (RequireBearer): the protected
// resource metadata, at ResourceMetadataPath+path and at
// ResourceMetadataPath alone, which names the resource and the header
// the token goes in, and no authorization server, as toolroute takes a
// token it made, not OAuth; and, where such a client then registers (the
// spec's fallback: /register on the endpoint's origin, when no
// authorization server is named), an OAuth error whose description says
// where the token is, so that the client shows toolroute's message rather
// than its own "OAuth required". The authorization server's metadata
// paths answer 404.
func ServeMCPAuth(mux *http.ServeMux, base, path, from string) {
	metadata := func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "no-store")
		reply(w, map[string]any{
			"resource":                 base + path,
			"resource_name":            "toolroute",
			"bearer_methods_supported": []string{"header"},
		})
	}
	mux.HandleFunc("GET "+ResourceMetadataPath+path, metadata)
	mux.HandleFunc("GET "+ResourceMetadataPath, metadata)
	mux.HandleFunc("POST /register", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Cache-Control", "no-store")
		w.WriteHeader(http.StatusBadRequest)
		json.NewEncoder(w).Encode(map[string]string{"error": "access_denied",
			"error_description": "toolroute takes no OAuth sign-in: have the client send the header Authorization: Bearer with the token from " + from})
	})
}
