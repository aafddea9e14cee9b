package check

import (
	"fmt"
	"strings"
)

// MCPRefusal is the mcp_refusal op's request: an HTTP answer of an MCP
// server to one of the host's requests. Whether it refuses toolroute for
// want of authorization, and the user's words for why, are decided here
// for every host: the Go program's OAuth client and the JS hosts' fetch
// give what the server answered.
type MCPRefusal struct {
	// Status is the answer's HTTP status.
	Status int `json:"status"`
	// Challenge is its WWW-Authenticate header, several joined by ", ".
	Challenge string `json:"challenge"`
	// Token tells whether the request carried a token: the config's
	// Authorization header, or one toolroute holds from a login.
	Token bool `json:"token"`
	// Authorize is how the user authorizes a server in this host, as
	// mcp_catalogue's.
	Authorize string `json:"authorize,omitempty"`
}

// MCPRefusalAnswer is mcp_refusal's answer: whether the server needs
// authorization, and why in the user's words when it does.
type MCPRefusalAnswer struct {
	NeedsAuthorization bool   `json:"needs_authorization"`
	Why                string `json:"why,omitempty"`
}

// Decide says whether the answer refuses toolroute for want of
// authorization: an HTTP 401, or a 403 whose Bearer challenge says
// insufficient_scope (RFC 6750, 3.1); another 403 is the server's answer to
// pass on, as any other status.
func (r MCPRefusal) Decide() MCPRefusalAnswer {
	bearer := bearerChallenge(r.Challenge)
	switch {
	case r.Status == 403 && bearer["error"] == "insufficient_scope":
		why := "its token lacks a scope it needs (HTTP 403 insufficient_scope)"
		if scope := bearer["scope"]; scope != "" {
			why = fmt.Sprintf("its token lacks a scope it needs (HTTP 403 insufficient_scope, scope %q)", scope)
		}
		return MCPRefusalAnswer{NeedsAuthorization: true, Why: why}
	case r.Status != 401:
		return MCPRefusalAnswer{}
	}
	headers := r.Authorize == MCPAuthorizeHeaders
	why := ""
	switch {
	case r.Token && headers:
		why = "it refused the token in its Authorization header (HTTP 401)"
	case r.Token:
		why = "it refused toolroute's token (HTTP 401)"
	case headers:
		why = "it answered HTTP 401 and its entry gives no Authorization header"
		if _, ok := bearer["resource_metadata"]; ok {
			why += "; it offers OAuth sign-in, which only the toolroute command does"
		}
	default:
		why = "it answered HTTP 401 and toolroute holds no token for it"
	}
	return MCPRefusalAnswer{NeedsAuthorization: true, Why: why}
}

// bearerChallenge reads a WWW-Authenticate value (RFC 9110, 11.6.1:
// challenges, each a scheme and its parameters, all separated by commas)
// for the parameters of its Bearer challenge, their names in lower case;
// nil when it has none.
func bearerChallenge(h string) map[string]string {
	var params map[string]string
	inBearer := false
	i := 0
	token := func() string {
		start := i
		for i < len(h) && !strings.ContainsRune(" \t,=\"", rune(h[i])) {
			i++
		}
		return h[start:i]
	}
	space := func() {
		for i < len(h) && (h[i] == ' ' || h[i] == '\t') {
			i++
		}
	}
	for i < len(h) {
		space()
		if i < len(h) && (h[i] == ',' || h[i] == '"' || h[i] == '=') {
			i++ // a separator, or a stray character
			continue
		}
		name := token()
		space()
		if i >= len(h) || h[i] != '=' {
			// A scheme begins a challenge.
			inBearer = strings.EqualFold(name, "bearer")
			if inBearer && params == nil {
				params = map[string]string{}
			}
			continue
		}
		i++ // '='
		space()
		value := ""
		if i < len(h) && h[i] == '"' {
			var b strings.Builder
			for i++; i < len(h) && h[i] != '"'; i++ {
				if h[i] == '\\' && i+1 < len(h) {
					i++
				}
				b.WriteByte(h[i])
			}
			i++ // the closing quote
			value = b.String()
		} else {
			value = token()
		}
		if inBearer {
			params[strings.ToLower(name)] = value
		}
	}
	return params
}
