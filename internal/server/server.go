// Package server is `toolroute serve`'s HTTP API: sessions, their messages,
// turns streamed as server-sent events, and the catalogue, on localhost.
// Its routes, their bodies and answers are docs/reference/http.md, which
// TestHTTPReference (cmd/toolroute) checks against Handler's mux and
// against the edge worker's routes (web/apps/worker/api.js), which answer the
// same API.
//
// Every /api/ request must carry the server's token (Options.Token), as
// the HttpOnly cookie the page sets when opened at /?login=CODE (a one-use
// code of Options.Logins) or /?token=T, or as Authorization: Bearer T:
// other local processes and users cannot use the provider's key or the
// Google account without it. The page and its static files need no token
// and hold nothing secret: the browser UI (package webui) at /, or the
// minimal page (MinimalPage), which runs turns through the API.
//
// Every POST, PUT and PATCH takes JSON (Content-Type: application/json): a page on
// another site cannot send that without a CORS preflight, which the server
// never grants. Requests whose Host is not a loopback name are refused (DNS
// rebinding). A request body has Options.BodyTimeout to arrive, and a
// response Options.StallTimeout to go through whenever it stalls: a client
// that stops reading a turn's stream ends the turn as closing it does.
package server

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"mime"
	"net"
	"net/http"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/toolroute/toolroute/host"
	"github.com/toolroute/toolroute/host/jsrun"
	"github.com/toolroute/toolroute/host/mcp"
	"github.com/toolroute/toolroute/host/store"
	"github.com/toolroute/toolroute/internal/app"
	"github.com/toolroute/toolroute/internal/module"
	"github.com/toolroute/toolroute/internal/safehttp"
	"github.com/toolroute/toolroute/internal/webui"
	"github.com/toolroute/toolroute/registry/check"
	"github.com/toolroute/toolroute/registry/session"
	"github.com/toolroute/toolroute/wasm"
)

// MaxBody bounds a request body; MaxModelBody a model call's, which
// carries a whole conversation.
const (
	MaxBody      = 1 << 20
	MaxModelBody = 32 << 20
	// MaxMessageBody bounds a message's, which carries its attached files
	// (session.AttachFiles: 5 MiB of images in base64, 100,000 bytes of
	// text, each escaped in JSON at most 6 bytes a byte).
	MaxMessageBody = 8 << 20
)

// DefaultBodyTimeout is how long a request body may take to arrive when
// Options.BodyTimeout is zero: ample on loopback for MaxModelBody.
const DefaultBodyTimeout = 30 * time.Second

// Options configure Handler.
type Options struct {
	// Token is what every /api/ request must carry; required (LoadToken
	// gives the data folder's).
	Token string
	// TokenFrom says where a client finds the token, such as the token
	// file's path, for the answer to a request without it.
	TokenFrom string
	// Page is served at / and every path outside /api/: default the
	// browser chat UI built into the program (webui.Files, with the
	// program's module as toolroute.wasm).
	Page http.Handler
	// BodyTimeout bounds the time a request body takes to arrive; zero
	// means DefaultBodyTimeout.
	BodyTimeout time.Duration
	// Approvals, also the app's Config.Approver, holds the questions its
	// turns ask; nil means they ask none (such calls are refused).
	Approvals *Approvals
	// Logins are the one-use codes /?login=CODE signs the page in with;
	// nil means none (the page signs in with /?token=T only).
	Logins *Logins
	// StallTimeout is how long a response may wait on a client that
	// takes none of it (WriteDeadlines); zero means DefaultStallTimeout.
	StallTimeout time.Duration
}

// Handler returns the HTTP API of a running app.
//
// # Notes
//
// It panics without a token: a server that answers anyone is never meant.
func Handler(a *app.App, o Options) http.Handler {
	if o.Token == "" {
		panic("server: Handler needs Options.Token")
	}
	if o.TokenFrom == "" {
		o.TokenFrom = "toolroute serve's output"
	}
	if o.BodyTimeout <= 0 {
		o.BodyTimeout = DefaultBodyTimeout
	}
	auth := &auth{token: o.Token, sum: sha256.Sum256([]byte(o.Token)), from: o.TokenFrom, logins: o.Logins}
	if o.Approvals == nil {
		o.Approvals = NewApprovals(0) // never asked: every question is 404
	}
	s := &server{a: a, approvals: o.Approvals}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /api/health", s.health)
	mux.HandleFunc("GET /api/sessions", s.sessions)
	mux.HandleFunc("POST /api/sessions", s.createSession)
	mux.HandleFunc("GET /api/sessions/{id}", withID(s.session))
	mux.HandleFunc("PATCH /api/sessions/{id}", withID(s.renameSession))
	mux.HandleFunc("DELETE /api/sessions/{id}", withID(s.deleteSession))
	mux.HandleFunc("GET /api/sessions/{id}/messages", withID(s.messages))
	mux.HandleFunc("GET /api/sessions/{id}/usage", withID(s.usage))
	mux.HandleFunc("POST /api/sessions/{id}/messages", withID(s.send))
	mux.HandleFunc("POST /api/sessions/{id}/clear", withID(s.clear))
	mux.HandleFunc("POST /api/sessions/{id}/compact", withID(s.compact))
	mux.HandleFunc("GET /api/sessions/{id}/approvals", withID(s.pendingApproval))
	mux.HandleFunc("POST /api/sessions/{id}/approvals", withID(s.answerApproval))
	mux.HandleFunc("GET /api/policies", s.policies)
	mux.HandleFunc("PUT /api/policies", s.setPolicy)
	mux.HandleFunc("GET /api/catalogue", s.catalogue)
	mux.HandleFunc("GET /api/models", s.models)
	mux.HandleFunc("POST /api/model", s.model)
	mux.HandleFunc("GET /api/ui/catalogue", s.browserCatalogue)
	mux.HandleFunc("GET /api/ui/events", s.catalogueEvents)
	mux.HandleFunc("POST /api/ui/tools/{name}", s.runForBrowser)
	mux.HandleFunc("POST /api/ui/elicitations/{id}", s.answerElicitation)
	mux.HandleFunc("GET /api/google/token", s.googleToken)
	mux.HandleFunc("/api/", func(w http.ResponseWriter, r *http.Request) {
		fail(w, http.StatusNotFound, "no such endpoint: "+r.Method+" "+r.URL.Path+"; see GET /api/health")
	})
	page := o.Page
	if page == nil {
		page = webui.Handler(webui.Files, wasm.Binary)
	}
	// The API has a mux of its own behind the token: a request reaches its
	// handlers only through the outer /api/ route, after whatever path
	// cleaning the outer mux does.
	outer := http.NewServeMux()
	outer.Handle("/api/", auth.api(jsonOnly(mux)))
	outer.Handle("/", auth.page(page))
	return WriteDeadlines(guard(outer, o.BodyTimeout), o.StallTimeout)
}

// withID answers 400 with the rule to a request whose path's session id
// cannot be one (store.CheckSessionID), which both stores refuse too: the
// handlers see only ids that every store holds.
func withID(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if err := store.CheckSessionID(r.PathValue("id")); err != nil {
			badID(w, err)
			return
		}
		h(w, r)
	}
}

func badID(w http.ResponseWriter, err error) {
	fail(w, http.StatusBadRequest, strings.TrimPrefix(err.Error(), "store: ")+"; POST /api/sessions makes one, GET /api/sessions lists them")
}

type server struct {
	a         *app.App
	approvals *Approvals
	// asks are the MCP servers' questions waiting for the page (elicit.go).
	asks asks
	// pageCatalogue holds the page's catalogue compressed, once per version:
	// hundreds of KB of JSON, a good part of a first visit.
	pageCatalogue webui.Versioned
	// describeCatalogue is GET /api/catalogue's last answer compressed:
	// as large, and what a page whose chats serve keeps reads on opening.
	describeCatalogue webui.Versioned
}

// guard refuses non-loopback Host headers and bounds the time a body
// takes to arrive.
func guard(next http.Handler, bodyTimeout time.Duration) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		host := r.Host
		if h, _, err := net.SplitHostPort(r.Host); err == nil {
			host = h
		}
		if ip := net.ParseIP(host); !(host == "localhost" || ip != nil && ip.IsLoopback()) {
			fail(w, http.StatusForbidden, "toolroute serve answers only on localhost: use http://127.0.0.1 or http://localhost")
			return
		}
		bodyDeadline(w, r, bodyTimeout)
		next.ServeHTTP(w, r)
	})
}

// jsonOnly refuses POSTs, PUTs and PATCHes that are not JSON and bounds
// their size.
func jsonOnly(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost || r.Method == http.MethodPut || r.Method == http.MethodPatch {
			mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
			if mt != "application/json" {
				fail(w, http.StatusUnsupportedMediaType, "send JSON with Content-Type: application/json")
				return
			}
			limit := int64(MaxBody)
			switch {
			case r.URL.Path == "/api/model":
				limit = MaxModelBody
			case strings.HasPrefix(r.URL.Path, "/api/sessions/") && strings.HasSuffix(r.URL.Path, "/messages"):
				limit = MaxMessageBody
			}
			r.Body = http.MaxBytesReader(unstalled(w), r.Body, limit)
		}
		next.ServeHTTP(w, r)
	})
}

func (s *server) health(w http.ResponseWriter, r *http.Request) {
	problems := s.a.Problems()
	if problems == nil {
		problems = []string{}
	}
	servers := s.a.MCPStatus()
	if servers == nil {
		servers = []mcp.Status{}
	}
	asked, used, note := s.a.Routing()
	routing := map[string]string{"asked": string(asked), "used": string(used)}
	if note != "" {
		routing["note"] = note
	}
	// page_chats tells the browser UI that its chats are this server's
	// sessions, the ones toolroute chat and this API see: the page lists,
	// opens and starts them here, and their turns run in the program.
	reply(w, map[string]any{"ok": true, "provider": s.a.Provider.String(), "format": s.a.Format(), "model": s.a.Model(), "problems": problems,
		"mcp": servers, "routing": routing, "page_chats": "server"})
}

// maxSearchedHits bounds the messages a search of the sessions (GET
// /api/sessions?q=) reads to find which sessions match: a session beyond
// them is still found by its title.
const maxSearchedHits = 1000

// sessions lists the sessions, newest first; with q, those whose title or
// messages (user, assistant, tool results) have every word of q, each
// with the snippet of its best matching message.
func (s *server) sessions(w http.ResponseWriter, r *http.Request) {
	list, err := s.a.Store.Sessions(r.Context())
	if err != nil {
		fail(w, http.StatusInternalServerError, err.Error())
		return
	}
	q, searching := r.URL.Query()["q"]
	var snippets map[string]string
	if searching {
		query := strings.Join(q, " ")
		hits, err := s.a.Store.Search(r.Context(), query, maxSearchedHits)
		if err != nil {
			fail(w, http.StatusInternalServerError, err.Error())
			return
		}
		snippets = make(map[string]string, len(hits))
		for _, h := range hits {
			if _, seen := snippets[h.SessionID]; !seen {
				snippets[h.SessionID] = h.Snippet
			}
		}
		list = slices.DeleteFunc(list, func(x store.Session) bool {
			_, hit := snippets[x.ID]
			return !hit && !store.TitleMatches(x.Title, query)
		})
	}
	out := make([]sessionJSON, len(list))
	for i, x := range list {
		out[i] = toJSON(x)
		out[i].Snippet = snippets[x.ID]
	}
	reply(w, out)
}

// createSession answers a new session: an id, stored by nothing until the
// session's first message (POST .../messages), which titles it. The
// module refuses a title rather than dropping it: the first message gives
// it, PATCH changes it.
func (s *server) createSession(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Agent string `json:"agent"`
	}
	if !s.decode(w, r, &req) {
		return
	}
	id := app.NewSessionID()
	if req.Agent != "" && !s.setAgent(w, r, id, req.Agent) {
		return
	}
	newSession(w, id, req.Agent)
}

// setAgent makes session id's turns the stored agent name's, answering
// 404 itself for an agent that is not stored.
func (s *server) setAgent(w http.ResponseWriter, r *http.Request, id, name string) bool {
	err := s.a.SetSessionAgent(r.Context(), id, name)
	switch {
	case errors.Is(err, app.ErrNoAgent):
		fail(w, http.StatusNotFound, err.Error())
		return false
	case err != nil:
		fail(w, http.StatusInternalServerError, err.Error())
		return false
	}
	return true
}

// newSession answers 201 with a new session's id, storing nothing but its
// agent, if it has one.
func newSession(w http.ResponseWriter, id, agent string) {
	now := time.Now()
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusCreated)
	x := toJSON(store.Session{ID: id, Created: now, Updated: now})
	x.Agent = agent
	json.NewEncoder(w).Encode(x)
}

func (s *server) session(w http.ResponseWriter, r *http.Request) {
	s.sessionReply(w, r, r.PathValue("id"), http.StatusOK)
}

func (s *server) sessionReply(w http.ResponseWriter, r *http.Request, id string, status int) {
	x, ok, err := s.a.Store.Session(r.Context(), id)
	switch {
	case err != nil:
		fail(w, http.StatusInternalServerError, err.Error())
	case !ok:
		noSession(w, id)
	default:
		out := toJSON(x)
		out.Agent, _ = s.a.SessionAgent(r.Context(), id)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		json.NewEncoder(w).Encode(out)
	}
}

// renameSession gives a session the title {"title"} asks for.
func (s *server) renameSession(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	// The module gives the title cleaned, or says why it cannot be one.
	var req struct {
		Title string `json:"title"`
	}
	if !s.decode(w, r, &req) {
		return
	}
	err := s.a.Store.Rename(r.Context(), id, req.Title)
	switch {
	case errors.Is(err, store.ErrNotFound):
		noSession(w, id)
	case err != nil:
		fail(w, http.StatusInternalServerError, err.Error())
	default:
		s.sessionReply(w, r, id, http.StatusOK)
	}
}

// deleteSession deletes a session and its log, unless a turn runs in it
// (here, or in toolroute chat on the same database).
func (s *server) deleteSession(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	err := s.a.Store.DeleteSession(r.Context(), id)
	switch {
	case errors.Is(err, store.ErrNotFound):
		noSession(w, id)
	case errors.Is(err, store.ErrSessionBusy):
		fail(w, http.StatusConflict, fmt.Sprintf("session %q has a turn running: wait for its done or failed event, or stop it (close its stream; Ctrl-C in toolroute chat), then delete it", id))
	case err != nil:
		fail(w, http.StatusInternalServerError, err.Error())
	default:
		_ = s.a.ForgetSessionAgent(context.WithoutCancel(r.Context()), id)
		w.WriteHeader(http.StatusNoContent)
	}
}

func noSession(w http.ResponseWriter, id string) {
	fail(w, http.StatusNotFound, fmt.Sprintf("no session %q: GET /api/sessions lists them (a session is stored with its first message)", id))
}

func (s *server) messages(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	if _, ok, err := s.a.Store.Session(r.Context(), id); err != nil || !ok {
		noSession(w, id)
		return
	}
	msgs, err := s.a.Store.Messages(r.Context(), id)
	if err != nil {
		fail(w, http.StatusInternalServerError, err.Error())
		return
	}
	if msgs == nil {
		msgs = []session.Message{} // [], not null, for an empty session
	}
	reply(w, msgs)
}

// send runs a turn and streams its events: "event: TYPE" and "data: JSON"
// per event, the last being done or failed (hostFailure's, for a host
// failure).
// An approval event's calls wait for POST .../approvals; the turn waits
// with them, and ends if the client goes away meanwhile. A client that
// stops reading ends it too, after Options.StallTimeout (WriteDeadlines).
func (s *server) send(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	var req struct {
		Text        string               `json:"text"`
		Agent       string               `json:"agent"`
		Model       string               `json:"model"`
		Attachments []session.Attachment `json:"attachments"`
	}
	if !s.decode(w, r, &req) {
		return
	}
	if req.Agent != "" && !s.setAgent(w, r, id, req.Agent) {
		return
	}
	ctx, events := s.asker(w, r)
	s.stream(w, r, id, events, s.a.Host.Session(id).WithModel(req.Model).Send(ctx, req.Text, req.Attachments...))
}

// models lists the models of the server's provider, for the browser UI's
// model picker: {model: the one turns call unless a message names
// another, models: the provider's list}. A provider that cannot list them
// is a 502 saying what it answered.
func (s *server) models(w http.ResponseWriter, r *http.Request) {
	current, list, err := s.a.Models(r.Context())
	if err != nil {
		fail(w, http.StatusBadGateway, "the provider's models could not be listed: "+err.Error())
		return
	}
	if list == nil {
		list = []string{}
	}
	reply(w, map[string]any{"model": current, "models": list})
}

// compact summarises a session's earlier messages now (/compact) and
// streams that one-call turn's events as send does.
func (s *server) compact(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	if !s.decode(w, r, &struct{}{}) {
		return
	}
	if _, ok, err := s.a.Store.Session(r.Context(), id); err != nil || !ok {
		noSession(w, id)
		return
	}
	ctx, events := s.asker(w, r)
	s.stream(w, r, id, events, s.a.Host.Session(id).Compact(ctx))
}

// asker gives a turn's context, whose MCP servers' questions go down the
// turn's stream as elicitation events (elicit.go) and whose calls'
// progress as progress events, and that stream's writer, which stream
// opens.
func (s *server) asker(w http.ResponseWriter, r *http.Request) (context.Context, *sse) {
	out := &sse{w: w, rc: http.NewResponseController(w)}
	a := &pageAsker{asks: &s.asks, send: func(ev any) error {
		if !out.write("elicitation", ev) {
			return errors.New("the stream is closed")
		}
		return nil
	}}
	ctx := host.WithProgress(host.WithAsker(r.Context(), a), func(p host.Progress) {
		out.write("progress", progressEvent(p))
	})
	return ctx, out
}

// progressEvent is a call's progress as the turn's stream says it.
func progressEvent(p host.Progress) map[string]any {
	ev := map[string]any{"type": "progress", "progress": p.Progress}
	if p.CallID != "" {
		ev["call_id"] = p.CallID
	}
	if p.Total > 0 {
		ev["total"] = p.Total
	}
	if p.Message != "" {
		ev["message"] = p.Message
	}
	return ev
}

// sse writes server-sent events: a turn's, and the questions its calls'
// servers ask from other goroutines meanwhile.
type sse struct {
	mu   sync.Mutex
	w    http.ResponseWriter
	rc   *http.ResponseController
	open bool
	// done: the handler returned, and w is no longer to be written (a
	// call still running after its turn asks no one).
	done bool
}

// write sends one event, reporting whether it went.
func (e *sse) write(kind string, v any) bool {
	data, err := json.Marshal(v)
	if err != nil {
		return false
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.done {
		return false
	}
	e.begin()
	if _, err := fmt.Fprintf(e.w, "event: %s\ndata: %s\n\n", kind, data); err != nil {
		return false
	}
	// A flush that stalls past the limit fails: the turn stops there,
	// not at its next event, which may be minutes away.
	err = e.rc.Flush()
	return err == nil || errors.Is(err, http.ErrNotSupported)
}

// begin starts the response once; e.mu is held.
func (e *sse) begin() {
	if !e.open {
		e.w.Header().Set("Content-Type", "text/event-stream")
		e.w.Header().Set("Cache-Control", "no-cache")
		e.w.WriteHeader(http.StatusOK)
		e.open = true
	}
}

// stream writes a turn's events as server-sent events.
func (s *server) stream(w http.ResponseWriter, r *http.Request, id string, out *sse, events iter.Seq2[host.Event, error]) {
	out.mu.Lock()
	out.begin()
	out.mu.Unlock()
	defer func() {
		out.mu.Lock()
		out.done = true
		out.mu.Unlock()
	}()
	write := out.write
	var asked *question // closed when the turn ends, answered or not
	defer func() {
		if asked != nil {
			s.approvals.drop(id, asked)
		}
	}()
	for ev, err := range events {
		if err != nil {
			write(string(host.EventFailed), hostFailure(err))
			return
		}
		switch {
		case ev.Type == host.EventFailed && ev.Failure != nil:
			ev.Failure.Message = s.a.Hint(ev.Failure.Message)
		case ev.Type == host.EventApproval:
			asked = s.approvals.ask(id, ev.Calls) // before the client can answer
		}
		if !write(string(ev.Type), ev) {
			return // the client went away: the turn stops, what was done stays
		}
	}
}

// The codes of a failed event that ends a turn for the server's own
// reason rather than the turn's: every stream of a turn ends with done or
// failed.
const (
	// failureTurnRunning: another process (serve or chat on the same
	// database) runs a turn of the session; the turn did not start.
	failureTurnRunning = "turn_running"
	// failureHostError: the server itself failed (its store: a full disk,
	// a PostgreSQL server down; its module); the message says what.
	failureHostError = "host_error"
	// failureRefused: the module refused the message before the turn
	// began, a file it cannot send say; nothing was logged, and the
	// message says what to change.
	failureRefused = "refused"
)

// hostFailure is the failed event of a turn that Send ended with a host
// error: what the turn committed before stays in the log.
func hostFailure(err error) host.Event {
	code := failureHostError
	var busy *host.TurnRunningError
	var refused *host.RefusedError
	switch {
	case errors.As(err, &busy):
		code = failureTurnRunning
	case errors.As(err, &refused):
		code = failureRefused
	}
	return host.Event{Type: host.EventFailed, Failure: &session.Failure{Code: code, Message: strings.TrimPrefix(err.Error(), "host: ")}}
}

// usage answers a session's tokens: the sum of its model calls' usage,
// which its log keeps on each assistant message, and the number of calls.
func (s *server) usage(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	if _, ok, err := s.a.Store.Session(r.Context(), id); err != nil || !ok {
		noSession(w, id)
		return
	}
	msgs, err := s.a.Store.Messages(r.Context(), id)
	if err != nil {
		fail(w, http.StatusInternalServerError, err.Error())
		return
	}
	total, calls := session.UsageOf(msgs)
	reply(w, map[string]any{"session": id, "model_calls": calls, "usage": total})
}

// clear answers a new session, as createSession does, with the agent of
// the one cleared: /clear.
func (s *server) clear(w http.ResponseWriter, r *http.Request) {
	if !s.decode(w, r, &struct{}{}) {
		return
	}
	id := app.NewSessionID()
	agent, err := s.a.SessionAgent(r.Context(), r.PathValue("id"))
	if err == nil && agent != "" && !s.setAgent(w, r, id, agent) {
		return
	}
	newSession(w, id, agent)
}

// RetriesHeader is the header of the model proxy's answer to a call the
// provider answered 429 or 5xx: the retry policy, as a model_error event's
// retries (wasm/ABI.md), that the caller's module tries the call again
// with. The proxy sends each call once.
const RetriesHeader = "Toolroute-Retries"

// model forwards a model call to the provider, once, and streams its
// answer back as the provider sent it: status, content type and body.
func (s *server) model(w http.ResponseWriter, r *http.Request) {
	// A conversation may be megabytes: the body is decoded here, and the
	// module asked only for what it does not need (api_body words a body
	// that is not JSON; ModelCall's model_proxy checks the fields).
	data, ok := readBody(w, r)
	if !ok {
		return
	}
	var req session.ModelRequest // an empty body is {}, as every route's
	if err := json.Unmarshal(data, &req); err != nil && strings.TrimSpace(string(data)) != "" {
		if s.decodeData(w, r, data, &struct{}{}) {
			fail(w, http.StatusBadRequest, err.Error()) // a body the module takes, Go's json not
		}
		return
	}
	// The page's model call is work the host does not count itself: its
	// memory is not given back while the reply streams (Host.Busy).
	defer s.a.Host.Busy()()
	resp, retries, err := s.a.ModelCall(r.Context(), &req)
	var refused *module.Refused
	if errors.As(err, &refused) && refused.Type == "invalid_arguments" {
		fail(w, http.StatusBadRequest, refused.Message)
		return
	}
	if err != nil {
		fail(w, http.StatusBadGateway, string(s.a.Host.Redact(r.Context(), []byte(s.a.Hint(err.Error())))))
		return
	}
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); ct != "" {
		w.Header().Set("Content-Type", ct)
	}
	if ra := resp.Header.Get("Retry-After"); ra != "" {
		w.Header().Set("Retry-After", ra)
	}
	if retries != nil && (resp.StatusCode < 200 || resp.StatusCode > 299) {
		// The page's module tries again as the provider would have, and
		// its user sees each retry: the proxy tries once and says how.
		if b, err := json.Marshal(retries); err == nil {
			w.Header().Set(RetriesHeader, string(b))
		}
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		// An error's body is read whole, as the module reads it, so that
		// a key the provider echoes is redacted before the page sees it.
		body, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
		w.WriteHeader(resp.StatusCode)
		w.Write(s.a.Host.Redact(r.Context(), body))
		return
	}
	w.WriteHeader(resp.StatusCode)
	flusher, _ := w.(http.Flusher)
	reply := safehttp.LimitBody(resp.Body, host.MaxResponseBody, "the model's response", "")
	buf := make([]byte, 32<<10)
	for {
		n, err := reply.Read(buf)
		if n > 0 {
			if _, werr := w.Write(buf[:n]); werr != nil {
				return
			}
			if flusher != nil {
				flusher.Flush()
			}
		}
		var tl *safehttp.TooLargeError
		if errors.As(err, &tl) {
			// The status is sent: the page must read a broken answer, not
			// a whole one, and its module then says the stream broke.
			panic(http.ErrAbortHandler)
		}
		if err != nil {
			return
		}
	}
}

// maxErrorBody bounds the body of a provider's error the proxy passes on,
// as the host bounds the one it gives the module.
const maxErrorBody = 1 << 20

// runForBrowser runs a server tool (an MCP server's) for a page whose host
// made the call: {"input": {...}} -> the result, {"status", "output"} or
// {"status": "error", "error_type", "message"}. A page that takes NDJSON
// (Accept) can be asked by the tool's MCP server: the answer is then its
// questions and the result as NDJSON events (elicit.go).
func (s *server) runForBrowser(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Input json.RawMessage `json:"input"`
	}
	if !s.decode(w, r, &req) {
		return
	}
	ctx := r.Context()
	// A page that reads NDJSON can be asked (elicit.go): a server's
	// question comes as an event, and the result as the last one.
	var out *lines
	if wantsNDJSON(r) {
		out = &lines{w: w, rc: http.NewResponseController(w)}
		ctx = host.WithAsker(ctx, &pageAsker{asks: &s.asks, send: out.send})
		ctx = host.WithProgress(ctx, func(p host.Progress) { out.send(progressEvent(p)) })
	}
	res, err := s.a.RunForBrowser(ctx, r.PathValue("name"), req.Input)
	switch {
	case out != nil && out.streaming() && err != nil:
		out.send(map[string]any{"type": "error", "error": strings.TrimPrefix(err.Error(), "host: ")})
	case out != nil && out.streaming():
		out.send(map[string]any{"type": "result", "result": res})
	case err != nil:
		fail(w, http.StatusBadRequest, strings.TrimPrefix(err.Error(), "host: "))
	default:
		reply(w, res)
	}
	if out != nil {
		out.close()
	}
}

func (s *server) browserCatalogue(w http.ResponseWriter, r *http.Request) {
	bc, err := s.a.ForBrowser()
	if err != nil {
		fail(w, http.StatusInternalServerError, err.Error())
		return
	}
	data, err := json.Marshal(bc)
	if err != nil {
		fail(w, http.StatusInternalServerError, err.Error())
		return
	}
	s.pageCatalogue.Serve(w, r, "application/json", append(data, '\n'))
}

// catalogueEvents streams the catalogue's generation: one event now, one
// at every change (a tool created or deleted, a file of the tools folder
// changed, a tool disabled), so a page running the turns itself loads the
// new catalogue before its next model call. A comment every 30 s keeps
// proxies from closing the stream.
func (s *server) catalogueEvents(w http.ResponseWriter, r *http.Request) {
	flusher, ok := w.(http.Flusher)
	if !ok {
		fail(w, http.StatusInternalServerError, "this connection cannot stream")
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-store")
	keepAlive := time.NewTicker(30 * time.Second)
	defer keepAlive.Stop()
	for {
		gen, next := s.a.Changes()
		fmt.Fprintf(w, "event: catalogue\ndata: {\"generation\":%d}\n\n", gen)
		flusher.Flush()
	wait:
		for {
			select {
			case <-next:
				break wait
			case <-keepAlive.C:
				fmt.Fprint(w, ": still here\n\n")
				flusher.Flush()
			case <-r.Context().Done():
				return
			}
		}
	}
}

// googleToken gives the page's JS tools the Google account of the server.
// A page of another site cannot read it: the server grants no CORS, and
// answers only to loopback Host names.
func (s *server) googleToken(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Cache-Control", "no-store")
	tok, err := s.a.Google.AccessToken(r.Context())
	if errors.Is(err, jsrun.ErrNotConnected) {
		// The sentence is the module's, as the runners' google bridge
		// words it (toolroute_check's js_bridge).
		var refused *module.Refused
		if err := s.a.Host.CheckArgs(r.Context(), "js_bridge", check.JSBridge{Code: "google_not_connected"}, nil); !errors.As(err, &refused) {
			fail(w, http.StatusInternalServerError, fmt.Sprintf("server: asking the module to word the missing Google account: %v", err))
			return
		}
		fail(w, http.StatusNotFound, refused.Message)
		return
	}
	if err != nil {
		fail(w, http.StatusBadGateway, err.Error())
		return
	}
	out := map[string]string{"access_token": tok}
	if email, err := s.a.Google.AccountEmail(r.Context()); err == nil {
		out["email"] = email
	}
	reply(w, out)
}

func (s *server) catalogue(w http.ResponseWriter, r *http.Request) {
	id := r.URL.Query().Get("session")
	if id != "" {
		if err := store.CheckSessionID(id); err != nil {
			badID(w, err)
			return
		}
	}
	describe := s.a.Host.Describe
	if r.URL.Query().Has("tools_json") {
		// The tools' schemas as a call sends them: the page's meter.
		describe = s.a.Host.DescribeTools
	}
	d, err := describe(r.Context(), id)
	if err != nil {
		fail(w, http.StatusInternalServerError, err.Error())
		return
	}
	data, err := json.Marshal(d)
	if err != nil {
		fail(w, http.StatusInternalServerError, err.Error())
		return
	}
	s.describeCatalogue.Serve(w, r, "application/json", append(data, '\n'))
}

type sessionJSON struct {
	ID       string `json:"id"`
	Title    string `json:"title"`
	Created  string `json:"created"`
	Updated  string `json:"updated"`
	Messages int    `json:"messages"`
	// Agent is the stored agent the session's turns are, if any.
	Agent string `json:"agent,omitempty"`
	// Snippet is, in a search's answer, the best matching message's text
	// around the words found, marked **like this**; none when the title
	// alone matched.
	Snippet string `json:"snippet,omitempty"`
}

func toJSON(x store.Session) sessionJSON {
	const layout = "2006-01-02T15:04:05.000Z07:00"
	return sessionJSON{ID: x.ID, Title: x.Title, Created: x.Created.Format(layout), Updated: x.Updated.Format(layout), Messages: x.Messages}
}

// decode reads a request's JSON body into v as the module gives it
// (toolroute_check's api_body, for the route r's pattern names), answering
// 400 with the module's refusal itself: what each route's body must be is
// the module's to say, as it is for the worker.
func (s *server) decode(w http.ResponseWriter, r *http.Request, v any) bool {
	data, ok := readBody(w, r)
	return ok && s.decodeData(w, r, data, v)
}

func (s *server) decodeData(w http.ResponseWriter, r *http.Request, data []byte, v any) bool {
	err := s.a.Host.CheckArgs(r.Context(), "api_body", check.APIBody{Route: r.Pattern, Body: string(data)}, v)
	var refused *module.Refused
	switch {
	case errors.As(err, &refused):
		fail(w, http.StatusBadRequest, refused.Message)
		return false
	case err != nil:
		fail(w, http.StatusInternalServerError, err.Error())
		return false
	}
	return true
}

// readBody reads a request's body, answering itself when it is too large
// or too slow to arrive.
func readBody(w http.ResponseWriter, r *http.Request) ([]byte, bool) {
	data, err := io.ReadAll(r.Body)
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			fail(w, http.StatusRequestEntityTooLarge, fmt.Sprintf("the body is over %d bytes", tooBig.Limit))
			return nil, false
		}
		if errors.Is(err, os.ErrDeadlineExceeded) {
			fail(w, http.StatusRequestTimeout, "the body took too long to arrive: send it whole")
			return nil, false
		}
		fail(w, http.StatusBadRequest, err.Error())
		return nil, false
	}
	return data, true
}

func reply(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(v)
}

func fail(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(map[string]string{"error": msg})
}
