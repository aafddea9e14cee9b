// Package fakegoogle is a fake of Google Workspace's REST APIs on loopback,
// for the tests of the Google tools: Gmail v1, Drive v3, Calendar v3, People
// v1, Docs v1, Sheets v4, Slides v1, Forms v1 and Tasks v1, as their public
// references describe them.
//
// Every service keeps its state in memory, seeded with a few realistic
// items. Every request is checked the way Google would check it and more
// strictly: the bearer token and its scopes, the method and path, the query
// parameters (an unknown one fails the test), the fields selector (where
// the service lists its resources' field names, an unknown one fails the
// test), the JSON body (an unknown field fails the test). A request no
// route serves fails the test too, so a tool calling a wrong endpoint
// cannot pass.
//
// A test points the JS runner at the server with Rewrites, which send each
// Google host to a folder of the server: https://tasks.googleapis.com/x is
// served as /tasks.googleapis.com/x.
package fakegoogle

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/toolroute/toolroute/host/jsrun"
)

// Token is the access token with every scope.
const Token = "ya29.fake-token-all-scopes"

// Email is the fake account's address.
const Email = "ada@example.com"

// Server is the fake. Close it when done.
type Server struct {
	*httptest.Server
	t testing.TB

	// serve runs one route at a time: the services' state has no locks.
	serve    sync.Mutex
	mu       sync.Mutex
	requests []Request
	tokens   map[string][]string // token -> scopes; nil scopes means all
	fail     []failure
	state    map[string]any
	seq      int
}

// Request is one request the server received.
type Request struct {
	Host, Method, Path string
	Query              url.Values
	Header             http.Header
	Body               []byte
}

type failure struct {
	status     int
	retryAfter string
}

// service is one Google API: its host and its routes, registered by the
// service's file.
type service struct {
	host   string
	routes func(s *Server, r *Router)
}

var services []service

// register adds a service; each service's file calls it from init.
func register(host string, routes func(s *Server, r *Router)) {
	services = append(services, service{host, routes})
}

// New starts a server with every service, seeded. Test failures (a request
// Google would refuse as malformed, an unknown endpoint) are reported to t.
func New(t testing.TB) *Server {
	s := &Server{t: t, tokens: map[string][]string{Token: nil}, state: map[string]any{}}
	mux := http.NewServeMux()
	list := slices.Clone(services)
	slices.SortFunc(list, func(a, b service) int { return strings.Compare(a.host, b.host) })
	for _, svc := range list {
		svc.routes(s, &Router{s: s, mux: mux, host: svc.host})
	}
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		s.t.Errorf("fakegoogle: no such endpoint: %s %s", r.Method, r.URL.Path)
		writeError(w, http.StatusNotFound, "NOT_FOUND", "The requested URL "+r.URL.Path+" was not found on this server.", "notFound")
	})
	s.Server = httptest.NewServer(s.record(mux))
	t.Cleanup(s.Close)
	return s
}

// Hosts lists the Google hosts the server answers for.
func (s *Server) Hosts() []string {
	var hosts []string
	for _, svc := range services {
		if !slices.Contains(hosts, svc.host) {
			hosts = append(hosts, svc.host)
		}
	}
	slices.Sort(hosts)
	return hosts
}

// Rewrites send every Google host the server fakes to it, for the runner's
// fetch.
func (s *Server) Rewrites() []jsrun.Rewrite {
	var out []jsrun.Rewrite
	for _, h := range s.Hosts() {
		out = append(out, jsrun.Rewrite{From: "https://" + h + "/", To: s.URL + "/" + h + "/"})
	}
	return out
}

// TokenWith returns a new token granting only these scopes.
func (s *Server) TokenWith(scopes ...string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.seq++
	tok := fmt.Sprintf("ya29.fake-token-%d", s.seq)
	s.tokens[tok] = append([]string{}, scopes...)
	return tok
}

// FailNext makes the next request fail with this status, as Google fails:
// 429 with a Retry-After of retryAfter seconds when given, 500, 503.
func (s *Server) FailNext(status int, retryAfter string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.fail = append(s.fail, failure{status, retryAfter})
}

// Requests returns the requests received so far.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.requests)
}

// Last returns the last request received.
func (s *Server) Last() Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.requests) == 0 {
		s.t.Fatalf("fakegoogle: no request received")
	}
	return s.requests[len(s.requests)-1]
}

// NewID returns a fresh id with a prefix, for created items.
func (s *Server) NewID(prefix string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.seq++
	return fmt.Sprintf("%s%04d", prefix, s.seq)
}

// first returns the first item of list that match accepts, or nil.
func first[T any](list []*T, match func(*T) bool) *T {
	if i := slices.IndexFunc(list, match); i >= 0 {
		return list[i]
	}
	return nil
}

// State returns a service's state, made by init on first use.
func State[T any](s *Server, name string, init func() *T) *T {
	s.mu.Lock()
	defer s.mu.Unlock()
	if v, ok := s.state[name]; ok {
		return v.(*T)
	}
	v := init()
	s.state[name] = v
	return v
}

// record keeps each request and answers the injected failures.
func (s *Server) record(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(strings.NewReader(string(body)))
		host, path, _ := strings.Cut(strings.TrimPrefix(r.URL.Path, "/"), "/")
		s.mu.Lock()
		s.requests = append(s.requests, Request{Host: host, Method: r.Method, Path: "/" + path, Query: r.URL.Query(), Header: r.Header.Clone(), Body: body})
		var f *failure
		if len(s.fail) > 0 {
			f = &s.fail[0]
			s.fail = s.fail[1:]
		}
		s.mu.Unlock()
		if f != nil {
			if f.retryAfter != "" {
				w.Header().Set("Retry-After", f.retryAfter)
			}
			switch f.status {
			case http.StatusTooManyRequests:
				writeError(w, f.status, "RESOURCE_EXHAUSTED", "Quota exceeded for quota metric 'Queries' and limit 'Queries per minute per user' of service '"+host+"'.", "rateLimitExceeded")
			case http.StatusServiceUnavailable:
				writeError(w, f.status, "UNAVAILABLE", "The service is currently unavailable.", "backendError")
			default:
				writeError(w, f.status, "INTERNAL", "Internal error encountered.", "backendError")
			}
			return
		}
		next.ServeHTTP(w, r)
	})
}

// Router registers one service's routes.
type Router struct {
	s    *Server
	mux  *http.ServeMux
	host string
}

// Handle serves "METHOD /path/{wildcard}" on the service's host for tokens
// holding any of scopes.
func (r *Router) Handle(pattern string, scopes []string, h func(c *Call)) {
	method, path, ok := strings.Cut(pattern, " ")
	if !ok {
		panic("fakegoogle: pattern without a method: " + pattern)
	}
	r.mux.HandleFunc(method+" /"+r.host+path, func(w http.ResponseWriter, req *http.Request) {
		r.s.serve.Lock()
		defer r.s.serve.Unlock()
		c := &Call{W: w, R: req, S: r.s, Query: req.URL.Query()}
		c.Body, _ = io.ReadAll(req.Body)
		if !r.s.authorize(c, scopes) {
			return
		}
		h(c)
	})
}

// authorize checks the bearer token and its scopes, answering 401 or 403.
func (s *Server) authorize(c *Call, scopes []string) bool {
	if _, known := c.token(); !known {
		writeError(c.W, http.StatusUnauthorized, "UNAUTHENTICATED",
			"Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential. See https://developers.google.com/identity/sign-in/web/devconsole-project.", "authError")
		return false
	}
	if !c.Granted(scopes...) {
		writeError(c.W, http.StatusForbidden, "PERMISSION_DENIED", "Request had insufficient authentication scopes.", "insufficientPermissions")
		return false
	}
	return true
}

// token returns the scopes of the call's bearer token (nil for all of
// them) and whether the server issued it.
func (c *Call) token() (scopes []string, known bool) {
	tok, ok := strings.CutPrefix(c.R.Header.Get("Authorization"), "Bearer ")
	c.S.mu.Lock()
	defer c.S.mu.Unlock()
	scopes, known = c.S.tokens[tok]
	return scopes, ok && known
}

// Call is one request to a route.
type Call struct {
	W     http.ResponseWriter
	R     *http.Request
	S     *Server
	Query url.Values
	Body  []byte
}

// Granted reports whether the call's token holds any of scopes, for a
// route whose need depends on the request: Drive's files.get takes the
// metadata scopes, but not for the content (alt=media).
func (c *Call) Granted(scopes ...string) bool {
	granted, known := c.token()
	if !known {
		return false
	}
	return granted == nil || slices.ContainsFunc(scopes, func(sc string) bool { return slices.Contains(granted, sc) })
}

// Path returns a path wildcard's value.
func (c *Call) Path(name string) string { return c.R.PathValue(name) }

// Params checks the query parameters: every required one present, none
// unknown (known are required plus optional). A bad query answers 400 and
// fails the test.
func (c *Call) Params(required []string, optional ...string) bool {
	for _, k := range required {
		if c.Query.Get(k) == "" {
			return c.Bad("the query parameter %q is required", k)
		}
	}
	for k := range c.Query {
		if !slices.Contains(required, k) && !slices.Contains(optional, k) {
			return c.Bad("unknown query parameter %q", k)
		}
	}
	return true
}

// Decode reads the JSON body into v, refusing unknown fields; a bad body
// answers 400 and fails the test.
func (c *Call) Decode(v any) bool {
	dec := json.NewDecoder(strings.NewReader(string(c.Body)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return c.Bad("the JSON body %s does not fit: %v", c.Body, err)
	}
	if ct := c.R.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		return c.Bad("a JSON body sent as %q", ct)
	}
	return true
}

// Bad answers 400 INVALID_ARGUMENT and fails the test: a tool sent what
// Google would refuse.
func (c *Call) Bad(format string, args ...any) bool {
	msg := fmt.Sprintf(format, args...)
	c.S.t.Errorf("fakegoogle: %s %s: %s", c.R.Method, c.R.URL.Path, msg)
	writeError(c.W, http.StatusBadRequest, "INVALID_ARGUMENT", "Invalid request: "+msg, "invalid")
	return false
}

// Invalid answers 400 the way Google answers a bad value, without failing
// the test: for tests of what a tool does with Google's refusal.
func (c *Call) Invalid(msg string) {
	writeError(c.W, http.StatusBadRequest, "INVALID_ARGUMENT", msg, "invalid")
}

// NotFound answers 404 as Google does.
func (c *Call) NotFound() {
	writeError(c.W, http.StatusNotFound, "NOT_FOUND", "Requested entity was not found.", "notFound")
}

// JSON answers 200 with v.
func (c *Call) JSON(v any) { c.Status(http.StatusOK, v) }

// Status answers with a status and v as JSON.
func (c *Call) Status(status int, v any) {
	c.W.Header().Set("Content-Type", "application/json; charset=UTF-8")
	c.W.WriteHeader(status)
	enc := json.NewEncoder(c.W)
	enc.SetIndent("", "  ")
	enc.Encode(v)
}

// Empty answers 204 No Content, as Google's deletes do.
func (c *Call) Empty() { c.W.WriteHeader(http.StatusNoContent) }

// writeError writes Google's error format: the v1 body Gmail, Drive and
// Calendar add "errors" to, which the newer APIs leave out.
func writeError(w http.ResponseWriter, status int, code, message, reason string) {
	w.Header().Set("Content-Type", "application/json; charset=UTF-8")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{
		"code": status, "message": message, "status": code,
		"errors": []map[string]string{{"message": message, "domain": "global", "reason": reason}},
	}})
}
