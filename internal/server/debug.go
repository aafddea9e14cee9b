package server

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/pprof"
	"strconv"
)

// DebugOptions configure DebugHandler.
type DebugOptions struct {
	// Token is what every request must carry: the API's (serve's, or
	// toolroute mcp --http's). Required.
	Token string
	// TokenFrom says where a client finds the token, for the answer to a
	// request without it.
	TokenFrom string
	// CookiePort, when not zero, lets the page's sign-in cookie of the
	// API on that port through too (browsers send a host's cookies to all
	// its ports), so that a signed-in browser opens the profiles as it
	// opens the page. Zero takes Authorization: Bearer alone.
	CookiePort int
}

// DebugHandler serves the Go runtime's profiles (net/http/pprof) under
// /debug/pprof/, to find what holds a long-running process's memory or
// goroutines: `go tool pprof` reads them with the token sent as
// Authorization: Bearer (its -http UI, or curl -H into a file).
//
// # Notes
//
// A profile names the program's functions and shows its memory: it is
// behind the API's token as the API is, and for loopback Host names only
// (DNS rebinding). Give it a listener of its own, apart from the API's:
// the profiles are offered only where a flag asks for them. It panics
// without a token.
func DebugHandler(o DebugOptions) http.Handler {
	if o.Token == "" {
		panic("server: DebugHandler needs DebugOptions.Token")
	}
	if o.TokenFrom == "" {
		o.TokenFrom = "the program's output"
	}
	a := &auth{token: o.Token, sum: sha256.Sum256([]byte(o.Token)), from: o.TokenFrom}
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index) // and every named profile: heap, goroutine, allocs...
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		fail(w, http.StatusNotFound, "this address serves the Go runtime's profiles alone, under /debug/pprof/ (go tool pprof http://"+r.Host+"/debug/pprof/heap, with the token)")
	})
	cookie := ""
	if o.CookiePort != 0 {
		cookie = "toolroute-token-" + strconv.Itoa(o.CookiePort)
	}
	inner := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ok := false
		if tok, has := bearer(r); has {
			ok = a.match(tok)
		} else if c, err := r.Cookie(cookie); cookie != "" && err == nil {
			ok = a.match(c.Value)
		}
		if !ok {
			w.Header().Set("WWW-Authenticate", `Bearer realm="toolroute"`)
			fail(w, http.StatusUnauthorized, "the profiles need the API's token: send Authorization: Bearer with the token from "+a.from)
			return
		}
		w.Header().Set("Cache-Control", "no-store")
		mux.ServeHTTP(w, r)
	})
	return guard(inner, DefaultBodyTimeout)
}

// ErrDebugAddr is the error for a --debug-addr that is not on loopback.
var ErrDebugAddr = errors.New("server: the profiles are served on a loopback address alone, such as 127.0.0.1:6060 (port 0 picks a free one)")

// ListenDebug listens on addr (host:port) for DebugHandler, refusing any
// address that is not a loopback one: a name (localhost) is resolved, and
// every address it gives must be loopback.
func ListenDebug(addr string) (net.Listener, error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrDebugAddr, err)
	}
	if ip := net.ParseIP(host); ip == nil || !ip.IsLoopback() {
		if host != "localhost" {
			return nil, fmt.Errorf("%w: %q is not one", ErrDebugAddr, addr)
		}
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	if tcp, ok := ln.Addr().(*net.TCPAddr); !ok || !tcp.IP.IsLoopback() {
		ln.Close()
		return nil, fmt.Errorf("%w: %q listens on %s", ErrDebugAddr, addr, ln.Addr())
	}
	return ln, nil
}
