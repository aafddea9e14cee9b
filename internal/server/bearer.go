package server

import (
	"crypto/sha256"
	"net/http"
)

// RequireBearer lets through only the requests that send token as
// Authorization: Bearer, as serve's API takes it: `toolroute mcp --http`
// asks for serve's token. The cookie the page gets does not count, so a
// browser page cannot use what it is not given. Any other request gets 401
// with a Bearer challenge and a message saying where the token is (from).
func RequireBearer(token, from string, next http.Handler) http.Handler {
	a := &auth{sum: sha256.Sum256([]byte(token)), from: from}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if tok, ok := bearer(r); ok && a.match(tok) {
			next.ServeHTTP(w, r)
			return
		}
		w.Header().Set("WWW-Authenticate", `Bearer realm="toolroute"`)
		fail(w, http.StatusUnauthorized, "toolroute needs its token here: send Authorization: Bearer with the token from "+a.from)
	})
}
