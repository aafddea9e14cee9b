package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/toolroute/toolroute/host"
	"github.com/toolroute/toolroute/internal/module"
	"github.com/toolroute/toolroute/registry"
	"github.com/toolroute/toolroute/registry/check"
)

// Options tune a Manager; the zero value is what the program uses.
type Options struct {
	// MinBackoff is the wait before the first restart of a server that
	// failed; it doubles with each failure in a row up to MaxBackoff.
	// Defaults: 1 s and 60 s.
	MinBackoff, MaxBackoff time.Duration
	// Terminate is how long a stdio server has to exit once its stdin is
	// closed before it is signalled; default 2 s.
	Terminate time.Duration
	// Startup is how long a stdio server's process has from its start to
	// its first message, the answer to initialize; default
	// DefaultStartup. Its timeoutSeconds bounds the rest of the handshake.
	Startup time.Duration
	// CacheFile keeps each server's tools from its last run (CacheFile in
	// the data folder); empty keeps none. A stdio server whose entry is
	// cached is not started until one of its tools is called, unless
	// Eager: its group is listed, loaded and searched from the cache.
	CacheFile string
	// Eager starts every server at once, as without a cache: what
	// `toolroute check` does, to report how each starts.
	Eager bool
	// AuthFile keeps the credentials of the servers over HTTP that need
	// authorization (AuthFile in the config folder, written by Login,
	// SetBearer and the refreshes); empty keeps none.
	AuthFile string
	// AuthPoll is how often a server that needs authorization looks
	// whether the auth file changed (the user signed in); default 1 s.
	AuthPoll time.Duration
	// Ask declares elicitation (forms) to the servers: a server may ask
	// the user something while its tool runs, and the question goes to
	// the call's host.Asker (refused, with why, for a call without one).
	// A program where no one is ever there to answer leaves it false, and
	// servers do not ask.
	Ask bool
}

// DefaultStartup is how long a stdio server may take to start: a runtime
// loading its modules, npx fetching a package, fourteen servers starting at
// once on a busy machine. It is long because only a process alive and
// silent waits it out (one that exits is seen at once), and meanwhile the
// server is starting, not down, and waited for by no one: its tools are
// offered once it is up.
const DefaultStartup = 5 * time.Minute

// hub is what the servers share: the options and who hears of changes.
type hub struct {
	Options
	cacheMu   sync.Mutex // serializes writing CacheFile
	mu        sync.Mutex
	onChange  func()
	gen, seen uint64
	// check is the module's checker the last listing had: it words the
	// refusal of a question that comes while no call runs.
	check module.Checker
}

// checker is the module's checker of the last listing, or one that fails.
func (h *hub) checker() module.Checker {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.check
}

func (h *hub) minBackoff() time.Duration {
	if h.MinBackoff > 0 {
		return h.MinBackoff
	}
	return time.Second
}

func (h *hub) maxBackoff() time.Duration {
	if h.MaxBackoff > 0 {
		return h.MaxBackoff
	}
	return 60 * time.Second
}

func (h *hub) startup() time.Duration {
	if h.Startup > 0 {
		return h.Startup
	}
	return DefaultStartup
}

func (h *hub) authPoll() time.Duration {
	if h.AuthPoll > 0 {
		return h.AuthPoll
	}
	return time.Second
}

func (h *hub) terminate() time.Duration {
	if h.Terminate > 0 {
		return h.Terminate
	}
	return 2 * time.Second
}

// changed records that a server's tools changed and tells the host.
func (h *hub) changed() {
	h.mu.Lock()
	h.gen++
	f := h.onChange
	h.mu.Unlock()
	if f != nil {
		f()
	}
}

// Manager keeps the configured servers running and offers each as a tool
// group. It implements host.ToolSource. It is safe for concurrent use.
type Manager struct {
	cfg       Config
	opts      *hub
	servers   []*server
	closeOnce sync.Once
	began     time.Time // when Start started them

	mu sync.Mutex
	// What the last Tools call made of each server, by index.
	named   [][]Named
	refused []string
}

// Start starts every server that is not disabled, each in the background;
// Wait waits for their first start. A stdio server whose tools the cache
// file knows from its last run (with the same config entry) is not started
// yet, unless opts.Eager: it is Known, offers the cached tools, and starts
// at the first call of one of them. A server that failed is started again,
// with backoff; Close stops them all.
func Start(cfg Config, opts Options) *Manager {
	// An entry written in Go rather than read from mcp.json may leave its
	// timeout at 0, which means the default, as in the file.
	cfg.Servers = slices.Clone(cfg.Servers)
	for i := range cfg.Servers {
		if cfg.Servers[i].TimeoutSeconds <= 0 {
			cfg.Servers[i].TimeoutSeconds = DefaultTimeoutSeconds
		}
	}
	m := &Manager{cfg: cfg, opts: &hub{Options: opts}, began: time.Now()}
	m.named = make([][]Named, len(cfg.Servers))
	m.refused = make([]string, len(cfg.Servers))
	cache := readCache(opts.CacheFile)
	for _, sc := range cfg.Servers {
		s := newServer(sc, m.opts)
		m.servers = append(m.servers, s)
		if sc.Disabled {
			continue
		}
		if e, ok := cache.find(sc); ok {
			s.info, s.instructions, s.protocol, s.tools, s.cached = e.ServerInfo, e.Instructions, e.Protocol, e.Tools, true
			if !opts.Eager && sc.URL == "" {
				// Started by its first call: a process costs memory and
				// its start-up, an HTTP server neither.
				s.state = Known
				continue
			}
		}
		s.wake()
	}
	return m
}

// Wait waits until each server has listed its tools or failed to (a stdio
// server's process has Options.Startup to start, then its timeoutSeconds),
// or until ctx ends.
func (m *Manager) Wait(ctx context.Context) {
	for _, s := range m.servers {
		if s.known() {
			continue // not started until it is called
		}
		select {
		case <-s.started:
		case <-ctx.Done():
			return
		}
	}
}

// Ready is Wait that waits for each server no longer than its
// timeoutSeconds since Start: what a program starting waits for. A server
// still starting then (its process slow to start) is left so, and offers
// its tools once it is up (OnChange).
func (m *Manager) Ready(ctx context.Context) {
	for _, s := range m.servers {
		if s.known() {
			continue
		}
		patience := time.NewTimer(time.Until(m.began.Add(time.Duration(s.cfg.TimeoutSeconds) * time.Second)))
		select {
		case <-s.started:
		case <-patience.C:
		case <-ctx.Done():
			patience.Stop()
			return
		}
		patience.Stop()
	}
}

// OnChange sets what is called, from the manager's goroutines, when a
// server's tools change (it started again, or listed them again after
// notifications/tools/list_changed): the host reloads its catalogue, which
// calls Tools. f may be nil. It reports whether they changed since the
// last Tools call, which f will not hear of.
func (m *Manager) OnChange(f func()) (missed bool) {
	o := m.opts
	o.mu.Lock()
	defer o.mu.Unlock()
	o.onChange = f
	return o.gen != o.seen
}

// Tools gives each server's group and tools as they are now (a server that
// is down keeps its last known tools, whose calls fail as unavailable). cat
// is the catalogue without them. The module names them (toolroute_check's
// mcp_catalogue, asked through ctx: module.WithChecker): a tool whose name
// another tool of cat has is renamed GROUP_NAME, and a server whose group
// name another group has is left out, reported by Status.
func (m *Manager) Tools(ctx context.Context, cat registry.Catalogue) ([]registry.Group, []host.NativeTool) {
	m.opts.mu.Lock()
	m.opts.seen = m.opts.gen
	if c := module.CheckerFrom(ctx); c != nil {
		m.opts.check = c
	}
	m.opts.mu.Unlock()
	req := check.MCPCatalogue{Catalogue: cat, Config: m.file(), Servers: []check.MCPServer{}}
	var asked []int // the index of each server asked about
	for i, s := range m.servers {
		if s.cfg.Disabled {
			continue
		}
		s.mu.Lock()
		list, info, instructions, state, why := s.tools, s.info, s.instructions, s.state, s.why
		s.mu.Unlock()
		srv := check.MCPServer{Key: s.cfg.Key, TimeoutSeconds: s.cfg.TimeoutSeconds, Instructions: instructions, Tools: []json.RawMessage{}}
		switch {
		case info != nil || len(list) > 0:
		case state == Starting:
			srv.State = check.MCPStarting
		case state == Down:
			srv.State, srv.Why = check.MCPDownState, why
		case state == NeedsAuthorization:
			srv.State, srv.Why = check.MCPNeedsAuthorization, why
		}
		if info != nil {
			srv.ServerInfo = &check.MCPServerInfo{Name: info.Name, Title: info.Title, Version: info.Version}
		}
		for _, t := range list {
			if b, err := json.Marshal(t); err == nil && t != nil {
				srv.Tools = append(srv.Tools, b)
			}
		}
		req.Servers = append(req.Servers, srv)
		asked = append(asked, i)
	}
	named := make([][]Named, len(m.servers))
	refused := make([]string, len(m.servers))
	var ans check.MCPCatalogueAnswer
	if len(asked) == 0 {
		m.mu.Lock()
		m.named, m.refused = named, refused
		m.mu.Unlock()
		return nil, nil
	}
	if err := module.CheckArgs(ctx, "mcp_catalogue", req, &ans); err != nil || len(ans.Servers) != len(asked) {
		if err == nil {
			err = fmt.Errorf("it answered for %d of %d servers", len(ans.Servers), len(asked))
		}
		for _, i := range asked {
			refused[i] = "toolroute could not name its tools: " + err.Error()
		}
		m.mu.Lock()
		m.named, m.refused = named, refused
		m.mu.Unlock()
		return nil, nil
	}
	var groups []registry.Group
	for _, g := range ans.Groups {
		groups = append(groups, registry.Group{Name: g.Name, DisplayName: g.DisplayName, Description: g.Description, Unavailable: g.Unavailable})
	}
	byName := map[string]check.MCPTool{}
	for _, t := range ans.Tools {
		byName[t.Name] = t
	}
	var tools []host.NativeTool
	for k, i := range asked {
		listed := ans.Servers[k]
		refused[i] = listed.Refused
		named[i] = make([]Named, 0, len(listed.Tools))
		for _, n := range listed.Tools {
			named[i] = append(named[i], Named{MCPName: n.MCPName, Name: n.Name, Permissions: n.Permissions, Skipped: n.Skipped})
			t, ok := byName[n.Name]
			if n.Name == "" || !ok {
				continue
			}
			tools = append(tools, host.NativeTool{Tool: registry.Tool{Name: t.Name, Description: t.Description, Parameters: t.Parameters,
				Group: t.Group, RequiredPermissions: t.RequiredPermissions, TimeoutSeconds: t.TimeoutSeconds,
				OutputSchema: t.OutputSchema}, RunOutput: m.servers[i].runner(n.MCPName)})
		}
	}
	m.mu.Lock()
	m.named, m.refused = named, refused
	m.mu.Unlock()
	return groups, tools
}

func (s *server) runner(mcpName string) func(context.Context, json.RawMessage) (host.Output, error) {
	return func(ctx context.Context, input json.RawMessage) (host.Output, error) {
		return s.call(ctx, mcpName, input)
	}
}

func (m *Manager) file() string {
	if m.cfg.File == "" {
		return ConfigFile
	}
	return m.cfg.File
}

// Named is an MCP tool as toolroute offers it, or the reason it is not.
type Named struct {
	// MCPName is the tool's name on the server; calls go out with it.
	MCPName string `json:"mcp_name"`
	// Name is the name the model sees: valid, free, and GROUP_NAME when the name was taken.
	Name string `json:"name,omitempty"`
	// Permissions are the tool's requiredPermissions.
	Permissions []string `json:"permissions,omitempty"`
	// Skipped says why the tool is left out.
	Skipped string `json:"skipped,omitempty"`
}

// Renamed reports whether the model sees the tool under another name.
func (n Named) Renamed() bool { return n.Name != "" && n.Name != n.MCPName }

// Status is one server's state, for `toolroute check` and /api/health.
type Status struct {
	Key       string `json:"key"`
	Group     string `json:"group"`
	Transport string `json:"transport"`
	State     State  `json:"state"`
	// Error says why it is down (or was, when it is starting again), or
	// why its group is left out.
	Error string `json:"error,omitempty"`
	// RetryAt is when a server that is down is started again.
	RetryAt time.Time `json:"retry_at,omitzero"`
	// Server is the server's name and version as it gave them; Protocol
	// the MCP revision agreed.
	Server   string `json:"server,omitempty"`
	Protocol string `json:"protocol,omitempty"`
	// Cached says its tools were known from its last run (Options.
	// CacheFile) when the program started; Started that it was started in
	// this run (a Known server is not yet).
	Cached  bool `json:"cached"`
	Started bool `json:"started"`
	// Tools are its tools as the last Tools call named them.
	Tools []Named `json:"tools"`
	// Advice is what the user does for a server that needs
	// authorization (LoginAdvice): the page's catalogue shows it.
	Advice string `json:"advice,omitempty"`
}

// OK reports whether the server is offered with all its tools (a disabled
// one counts as fine).
func (st Status) OK() bool {
	if st.State == Disabled {
		return true
	}
	if (st.State != Connected && st.State != Known) || st.Error != "" {
		return false
	}
	for _, t := range st.Tools {
		if t.Skipped != "" {
			return false
		}
	}
	return true
}

// DownAdvice is what a user can do about a server that is down.
const DownAdvice = `fix the server or its entry, or give the entry "disabled": true`

// Problems are what a user should hear of the statuses, a line each: a
// server down or left out, a tool left out.
func Problems(statuses []Status) []string {
	var out []string
	for _, st := range statuses {
		switch {
		case st.State == Down:
			out = append(out, fmt.Sprintf("MCP server '%s' is down: %s; toolroute starts it again in %d s (%s)", st.Key, st.Error,
				max(1, int(time.Until(st.RetryAt).Round(time.Second)/time.Second)), DownAdvice))
		case st.State == NeedsAuthorization:
			out = append(out, fmt.Sprintf("%s (%s); toolroute connects to it once that is done", LoginAdvice(st.Key), st.Error))
		case st.State == Starting && st.Group != "" && st.Error != "":
			out = append(out, fmt.Sprintf("MCP server '%s' is starting again; it was down: %s", st.Key, st.Error))
		case st.Error != "":
			out = append(out, fmt.Sprintf("MCP server '%s' is left out: %s", st.Key, st.Error))
		case st.State == Starting && st.Server == "":
			// Never reached: its group is not offered until it is up.
			out = append(out, fmt.Sprintf("MCP server '%s' is starting: its tools are offered once it answers the MCP handshake", st.Key))
		}
		for _, t := range st.Tools {
			if t.Skipped != "" {
				out = append(out, fmt.Sprintf("MCP server '%s': tool %q is left out: %s", st.Key, t.MCPName, t.Skipped))
			}
		}
	}
	return out
}

// Status reports every configured server, in the file's order.
func (m *Manager) Status() []Status {
	m.mu.Lock()
	named, refused := m.named, m.refused
	m.mu.Unlock()
	out := make([]Status, len(m.servers))
	for i, s := range m.servers {
		s.mu.Lock()
		st := Status{Key: s.cfg.Key, Group: s.cfg.Group(), Transport: s.cfg.Transport(), State: s.state, Error: s.why,
			Protocol: s.protocol, Tools: named[i], Cached: s.cached, Started: s.state != Known && s.state != Disabled}
		switch s.state {
		case Down:
			st.RetryAt = s.retryAt
		case NeedsAuthorization:
			st.Advice = LoginAdvice(s.cfg.Key)
		}
		if s.info != nil {
			st.Server = s.info.Name + " " + s.info.Version
		}
		s.mu.Unlock()
		if refused[i] != "" {
			st.Error, st.Group = refused[i], ""
		}
		if st.Tools == nil {
			st.Tools = []Named{}
		}
		out[i] = st
	}
	return out
}

// Close stops every server and waits for them to end. Calling it again
// does nothing.
func (m *Manager) Close() {
	m.closeOnce.Do(func() {
		m.OnChange(nil)
		for _, s := range m.servers {
			if !s.cfg.Disabled {
				// One never started is done now, and is not started by a
				// call after this.
				s.wakeOnce.Do(func() { close(s.done) })
				close(s.stop)
			}
		}
		for _, s := range m.servers {
			<-s.done
		}
	})
}
