// Package mcpserve serves a Host's tools to MCP clients with group routing
// (`toolroute mcp`): a client's tool list starts with the core tools a new
// conversation's first model call sends and load_tool_group, whose
// description lists the groups; a load adds the group's tools to that
// client's list and tells it (notifications/tools/list_changed); a call
// runs through host.ModelCalls, and a tool that asks first asks the user
// through the client (MCP elicitation).
//
// Each client session has its own MCP server (the official Go SDK's) and so
// its own tool list: over stdio the process serves one client; over
// Streamable HTTP every session the handler starts is a new one. Routing
// itself is the registry's, used natively: the same core tools, listing and
// load_tool_group answers as a turn of the module.
//
// The package holds the MCP side only: it opens no listener and reads no
// configuration; cmd/toolroute does.
package mcpserve

import (
	"cmp"
	"context"
	"io"
	"log/slog"
	"net/http"
	"runtime/debug"
	"slices"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolroute/toolroute/host"
)

// Options configure a Server.
type Options struct {
	// Version is the server's version, as initialize answers it; empty
	// means the program's module version, or "devel".
	Version string
	// Changes gives the catalogue's generation and a channel closed at its
	// next change (app.App.Changes): Watch follows it. Nil means the
	// catalogue does not change.
	Changes func() (uint64, <-chan struct{})
	// Logger gets the SDK's own messages; nil discards them.
	Logger *slog.Logger
	// SessionTimeout closes an HTTP session no request has used for that
	// long, and forgets its loaded groups; 0 means DefaultSessionTimeout.
	// A client that comes back after it starts a new session (the MCP
	// clients do, on the 404 the old one's requests get).
	SessionTimeout time.Duration
}

// ReplayBytes bounds what the HTTP streams' events are kept in, for all
// sessions together: a client that resumes a stream (Last-Event-ID) after
// the store dropped the events it missed, the oldest first, is refused
// and must call again.
const ReplayBytes = 10 << 20

// DefaultSessionTimeout is how long an idle HTTP session is kept: a client
// that went away without closing it does not keep its memory for ever.
const DefaultSessionTimeout = 30 * time.Minute

// Server serves a Host's tools to MCP clients.
type Server struct {
	h    *host.Host
	opts Options
	// probe answers the HTTP handler's question of the protocol versions
	// for requests of a session that exists: it serves no one.
	probe *mcp.Server
	// events keeps what the HTTP streams sent, with their event ids, so
	// that a client whose stream broke resumes it (Last-Event-ID).
	events *mcp.MemoryEventStore

	mu      sync.Mutex
	clients []*client // those that have sent a request, oldest first
}

// New returns a Server of h's tools.
func New(h *host.Host, opts Options) *Server {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if opts.Version == "" {
		opts.Version = "devel"
		if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" {
			opts.Version = bi.Main.Version
		}
	}
	s := &Server{h: h, opts: opts, events: mcp.NewMemoryEventStore(nil)}
	s.events.SetMaxBytes(ReplayBytes)
	s.probe = mcp.NewServer(s.implementation(), &mcp.ServerOptions{Logger: opts.Logger})
	return s
}

func (s *Server) implementation() *mcp.Implementation {
	return &mcp.Implementation{Name: "toolroute", Title: "toolroute", Version: s.opts.Version}
}

// Run serves one client over t (mcp.StdioTransport for `toolroute mcp`)
// until it goes or ctx ends. When ctx ends, the calls running end too: the
// SDK waits for them before it returns, and their own contexts do not
// end with ctx (a call could otherwise hold SIGTERM for its whole timeout).
func (s *Server) Run(ctx context.Context, t mcp.Transport) error {
	c := s.newClient()
	c.ended = ctx
	defer s.drop(c)
	return c.srv.Run(ctx, t)
}

// Handler serves MCP over Streamable HTTP, a client for each session it
// starts. Its event streams carry event ids: a client whose stream broke
// (a call's, or the session's notifications) asks for it again with
// Last-Event-ID and gets what it missed, from the last ReplayBytes of
// events kept in memory. It keeps the SDK's protections: a request to a loopback address
// must name a loopback host (against DNS rebinding), and a browser's
// cross-origin request is refused. Whoever serves it checks who may use
// it.
func (s *Server) Handler() http.Handler {
	type slot struct {
		once sync.Once
		srv  *mcp.Server
	}
	type slotKey struct{}
	// The SDK asks for a server twice for a request that starts a session
	// (the protocol versions, then the session's server): the slot makes it
	// one client.
	h := mcp.NewStreamableHTTPHandler(func(r *http.Request) *mcp.Server {
		if r.Header.Get("Mcp-Session-Id") != "" {
			return s.probe // the session's own server answers it
		}
		sl, ok := r.Context().Value(slotKey{}).(*slot)
		if !ok {
			return s.newClient().srv
		}
		sl.once.Do(func() { sl.srv = s.newClient().srv })
		return sl.srv
	}, &mcp.StreamableHTTPOptions{
		Logger:                s.opts.Logger,
		EventStore:            s.events,
		CrossOriginProtection: http.NewCrossOriginProtection(),
		SessionTimeout:        cmp.Or(s.opts.SessionTimeout, DefaultSessionTimeout),
	})
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), slotKey{}, &slot{})))
	})
}

// Watch follows the catalogue's changes until ctx ends: each client's tool
// list is made again from the new catalogue (a tool of a loaded group
// added, changed or gone, the listing in load_tool_group's description),
// and the clients whose list changed are told. It does nothing without
// Options.Changes.
func (s *Server) Watch(ctx context.Context) {
	if s.opts.Changes == nil {
		return
	}
	_, changed := s.opts.Changes()
	for {
		select {
		case <-ctx.Done():
			return
		case <-changed:
		}
		// The next change's channel is taken before the catalogue is read,
		// so that a change while the clients are synced wakes the loop
		// again rather than going unseen.
		gen, next := s.opts.Changes()
		changed = next
		for _, c := range s.live() {
			c.syncAt(ctx, gen)
		}
	}
}

// generation is the catalogue's generation now, 0 without Options.Changes.
func (s *Server) generation() uint64 {
	if s.opts.Changes == nil {
		return 0
	}
	gen, _ := s.opts.Changes()
	return gen
}

// used records a client once it has sent a request, so that Watch keeps
// its list up to date.
func (s *Server) used(c *client) {
	s.mu.Lock()
	if slices.Contains(s.clients, c) {
		s.mu.Unlock()
		return
	}
	// The sessions that ended since the last change go now, so that
	// clients coming and going do not pile up.
	s.clients = slices.DeleteFunc(s.clients, func(c *client) bool { return !c.connected() })
	s.clients = append(s.clients, c)
	s.mu.Unlock()
	// A change between the client's making and now was synced without it.
	if gen := s.generation(); gen != c.generation() {
		c.syncAt(context.Background(), gen)
	}
}

// drop forgets a client whose session ended.
func (s *Server) drop(c *client) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.clients = slices.DeleteFunc(s.clients, func(x *client) bool { return x == c })
}

// Clients is how many clients have a session now, over either transport.
func (s *Server) Clients() int {
	return len(s.live())
}

// live returns the clients with a session, forgetting the others: an HTTP
// session ends without telling the server (a DELETE, the client gone).
func (s *Server) live() []*client {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.clients = slices.DeleteFunc(s.clients, func(c *client) bool { return !c.connected() })
	return slices.Clone(s.clients)
}
