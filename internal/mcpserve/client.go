package mcpserve

import (
	"bytes"
	"cmp"
	"context"
	"encoding/base64"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolroute/toolroute/host"
	"github.com/toolroute/toolroute/registry"
)

// client is one client session: its MCP server, the tools it lists and the
// calls of its model.
type client struct {
	s     *Server
	srv   *mcp.Server
	calls *host.ModelCalls
	// ended, when set, ends the requests being handled (Server.Run's ctx).
	ended context.Context

	mu      sync.Mutex
	loaded  []string        // the groups loaded, in load order
	offered []registry.Tool // what srv lists, in the order a turn sends them
	asked   []asked         // questions a 2026-07-28 client was given to ask

	gen        atomic.Uint64 // the catalogue generation the list was last made from
	registered atomic.Bool   // Server.used knows it
	listening  atomic.Bool   // it opened a subscriptions/listen stream

	noteMu sync.Mutex
	note   chan struct{} // closed when a list_changed has been sent
}

// newClient makes the server of a new client session, listing the core
// tools of the catalogue now.
func (s *Server) newClient() *client {
	gen := s.generation() // before the catalogue is read: a change after it is seen
	reg := s.h.Registry()
	c := &client{s: s, calls: s.h.NewModelCalls(), note: make(chan struct{})}
	c.srv = mcp.NewServer(s.implementation(), &mcp.ServerOptions{
		Instructions: instructions(reg),
		Logger:       s.opts.Logger,
		Capabilities: &mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{ListChanged: true}},
	})
	c.srv.AddReceivingMiddleware(c.receiving)
	c.srv.AddSendingMiddleware(c.sending)
	c.syncAt(gen, reg)
	return c
}

// instructions say how routing works and list the groups (and skills):
// clients that show a server's instructions to the model give it the
// system prompt's listing.
func instructions(reg *registry.Registry) string {
	text := "toolroute's tools. A tool that changes things may ask the user first."
	if reg.GroupListing() != "" {
		text = "toolroute routes tools by group. Your tool list starts with a few core tools and load_tool_group. " +
			"To use the tools of a group listed below, call load_tool_group with its name: its tools join your list " +
			"for the rest of this session (toolroute sends notifications/tools/list_changed). " +
			"A tool that changes things may ask the user first."
	}
	if listing := reg.SystemPrompt(""); listing != "" {
		text += "\n\n" + listing
	}
	return text
}

// sync makes the client's tool list the active list of reg with its loaded
// groups, telling the SDK only what changed. It reports whether anything
// did.
func (c *client) sync(reg *registry.Registry) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	active := reg.NewActive()
	for _, g := range c.loaded {
		active.LoadGroup(g)
	}
	want := active.Tools()
	wanted := map[string]int{}
	for i := range want {
		want[i].Description = offeredDescription(reg, want[i])
		wanted[want[i].Name] = i
	}
	had := map[string]int{}
	var gone []string
	for i, t := range c.offered {
		had[t.Name] = i
		if _, ok := wanted[t.Name]; !ok {
			gone = append(gone, t.Name)
		}
	}
	var offered []registry.Tool
	changed := len(gone) > 0
	if len(gone) > 0 {
		c.srv.RemoveTools(gone...)
	}
	for _, t := range want {
		if i, ok := had[t.Name]; ok && c.offered[i].Description == t.Description && bytes.Equal(c.offered[i].Parameters, t.Parameters) {
			offered = append(offered, t)
			continue
		}
		if err := c.add(t); err != nil {
			c.s.opts.Logger.Error(err.Error())
			continue
		}
		offered = append(offered, t)
		changed = true
	}
	c.offered = offered
	return changed
}

// syncAt syncs the client with the catalogue of generation gen.
func (c *client) syncAt(gen uint64, reg *registry.Registry) {
	c.gen.Store(gen)
	c.sync(reg)
}

// generation is the catalogue generation the client's list was made from.
func (c *client) generation() uint64 { return c.gen.Load() }

// offeredDescription is a tool's description as the client lists it: the
// meta-tools carry the listings the system prompt would.
func offeredDescription(reg *registry.Registry, t registry.Tool) string {
	listing := ""
	switch t.Name {
	case registry.LoadToolGroupName:
		listing = reg.GroupListing()
	case registry.LoadSkillName:
		listing = reg.SkillListing()
	}
	if listing == "" {
		return t.Description
	}
	return t.Description + "\n\n" + listing
}

// add offers a tool. The SDK panics on a schema it cannot take; the
// registry's are object schemas, but a tool the SDK refuses is left out
// rather than the server brought down.
func (c *client) add(t registry.Tool) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("mcpserve: tool %q left out: %s", t.Name, host.PanicText(r))
		}
	}()
	var h mcp.ToolHandler = c.call
	switch t.Name {
	case registry.LoadToolGroupName:
		h = c.loadGroup
	case registry.LoadSkillName:
		h = c.loadSkill
	}
	c.srv.AddTool(&mcp.Tool{Name: t.Name, Description: t.Description, InputSchema: t.Parameters, Annotations: Annotations(t)}, h)
	return nil
}

// Annotations tell a client what a tool does, from its requiredPermissions
// (the reverse of host/mcp's Permissions), saying only what is known:
//
//   - readOnlyHint: the tool says read and none of write, send, delete,
//     share, run_code, secrets or unsandboxed (or it is a meta-tool). A tool that says
//     nothing (write_file, http_request before it said network) is not
//     known to be read-only: clients that run read-only tools unasked must
//     not run it.
//   - destructiveHint, for the others: false only for a tool that says write
//     and nothing that cannot be undone (delete, share, send, run_code,
//     secrets, unsandboxed).
//   - openWorldHint: true for a tool that says network, google, send, share,
//     run_code, secrets or unsandboxed, and for one that says nothing; false for a tool
//     whose permissions all stay inside toolroute (its files, its settings,
//     the user's data it only reads).
//
// Clients use them to warn before a call; toolroute's own approval applies
// whatever the client does.
func Annotations(t registry.Tool) *mcp.ToolAnnotations {
	if t.Origin.Kind == registry.OriginMeta {
		closed := false
		return &mcp.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: &closed}
	}
	var reads, writes, undoable, open bool
	undoable = true
	for _, p := range t.RequiredPermissions {
		switch p {
		case registry.PermissionRead:
			reads = true
		case registry.PermissionWrite:
			writes = true
		case registry.PermissionDelete:
			undoable = false
		case registry.PermissionSend, registry.PermissionShare, registry.PermissionRunCode, registry.PermissionSecrets, registry.PermissionUnsandboxed:
			undoable, open = false, true
		case registry.PermissionNetwork, registry.PermissionGoogle:
			open = true
		}
	}
	open = open || len(t.RequiredPermissions) == 0
	a := &mcp.ToolAnnotations{OpenWorldHint: &open}
	if reads && !writes && undoable {
		a.ReadOnlyHint = true
		return a
	}
	destructive := !writes || !undoable
	a.DestructiveHint = &destructive
	return a
}

// offers reports whether the client lists a tool.
func (c *client) offers(name string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.ContainsFunc(c.offered, func(t registry.Tool) bool { return t.Name == name })
}

// connected reports whether the client's session is still there.
func (c *client) connected() bool {
	for range c.srv.Sessions() {
		return true
	}
	return false
}

// receiving sees every request the client sends: a call of a tool it does
// not list gets a result that says what to do (the SDK's own answer is a
// bare "unknown tool"), and tools/list keeps the order a turn sends.
func (c *client) receiving(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if c.ended != nil {
			var cancel context.CancelFunc
			ctx, cancel = context.WithCancel(ctx)
			defer cancel()
			defer context.AfterFunc(c.ended, cancel)()
		}
		if c.registered.CompareAndSwap(false, true) {
			c.s.used(c)
		}
		switch method {
		case "tools/call":
			if p, ok := req.GetParams().(*mcp.CallToolParamsRaw); ok && p != nil && !c.offers(p.Name) {
				return result(c.notOffered(p.Name)), nil
			}
		case "subscriptions/listen":
			c.listening.Store(true)
		}
		res, err := next(ctx, method, req)
		if method == "tools/list" && err == nil {
			c.order(req, res)
		}
		return res, err
	}
}

// sending sees what the server sends: a list_changed wakes a load waiting
// for it.
func (c *client) sending(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		res, err := next(ctx, method, req)
		if method == "notifications/tools/list_changed" {
			c.noteMu.Lock()
			close(c.note)
			c.note = make(chan struct{})
			c.noteMu.Unlock()
		}
		return res, err
	}
}

// nextNote is closed when the next list_changed has been sent.
func (c *client) nextNote() <-chan struct{} {
	c.noteMu.Lock()
	defer c.noteMu.Unlock()
	return c.note
}

// order sorts a whole tools/list answer in the order a turn sends the
// tools: the core tools, then each group's in load order. The SDK sorts by
// name; a stable order keeps a client's prompt cache on the list's start.
func (c *client) order(req mcp.Request, res mcp.Result) {
	lr, ok := res.(*mcp.ListToolsResult)
	if !ok || lr.NextCursor != "" {
		return
	}
	if p, ok := req.GetParams().(*mcp.ListToolsParams); ok && p != nil && p.Cursor != "" {
		return
	}
	c.mu.Lock()
	pos := make(map[string]int, len(c.offered))
	for i, t := range c.offered {
		pos[t.Name] = i
	}
	c.mu.Unlock()
	at := func(t *mcp.Tool) int {
		if i, ok := pos[t.Name]; ok {
			return i
		}
		return len(pos)
	}
	slices.SortStableFunc(lr.Tools, func(a, b *mcp.Tool) int { return cmp.Compare(at(a), at(b)) })
}

// notOffered is the result of a call of a tool the client does not list.
func (c *client) notOffered(name string) registry.Result {
	if t, ok := c.s.h.Registry().Tool(name); ok && t.Group != "" {
		return registry.Failure("tool_not_loaded", fmt.Sprintf(
			"Tool '%s' is not loaded: it belongs to tool group '%s'. Call load_tool_group with group_name '%s' first, then call '%s' again.",
			name, t.Group, t.Group, name))
	}
	return registry.Failure("unknown_tool", fmt.Sprintf(
		"Tool '%s' is not one of your tools. Call one of the tools you were given, or load a tool group with load_tool_group (its description lists them).",
		shorten(name, 100)))
}

// loadGroup runs load_tool_group: the registry's answer, and the group's
// tools added to the client's list.
func (c *client) loadGroup(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	reg := c.s.h.Registry()
	res, group := reg.LoadToolGroup(req.Params.Arguments)
	if res.Status != registry.StatusSuccess {
		return result(res), nil
	}
	note := c.nextNote()
	c.mu.Lock()
	added := !slices.Contains(c.loaded, group)
	if added {
		c.loaded = append(c.loaded, group)
	}
	c.mu.Unlock()
	if added && c.sync(reg) && c.hears(req.Session) {
		// The SDK sends list_changed 10 ms after the change. The result
		// waits for it, so that a client reading one stream (stdio) knows
		// of the new tools before it reads the result and the model calls
		// them.
		select {
		case <-note:
		case <-ctx.Done():
		case <-time.After(2 * time.Second):
		}
	}
	return result(res), nil
}

// hears reports whether the SDK sends the session list_changed: a session
// of a revision before 2026-07-28 always gets it, a later one once it
// listens for it.
func (c *client) hears(ss *mcp.ServerSession) bool {
	if ss == nil {
		return false
	}
	p := ss.InitializeParams()
	return p == nil || p.ProtocolVersion < stateless || c.listening.Load()
}

// stateless is the first MCP revision without sessions, whose servers may
// not send the client requests of their own.
const stateless = "2026-07-28"

// loadSkill runs load_skill: the skill's instructions.
func (c *client) loadSkill(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	return result(c.s.h.Registry().LoadSkill(req.Params.Arguments)), nil
}

// result is a tool's result as MCP carries it: the output as text, or a
// failure marked isError with its type and message.
//
// A successful result's images follow its text as image content, those a
// model cannot take left out with a note, as the turn engine does.
func result(r registry.Result) *mcp.CallToolResult {
	if r.Status == registry.StatusSuccess {
		text, images := registry.CheckImages(r.Output, r.Images)
		content := []mcp.Content{&mcp.TextContent{Text: text}}
		for _, img := range images {
			data, err := base64.StdEncoding.DecodeString(img.Data) // checked by CheckImages
			if err == nil {
				content = append(content, &mcp.ImageContent{MIMEType: img.MIMEType, Data: data})
			}
		}
		return &mcp.CallToolResult{Content: content}
	}
	return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: r.Content()}}}
}

// shorten keeps the start of a long text.
func shorten(s string, max int) string {
	if r := []rune(s); len(r) > max {
		return string(r[:max]) + "…"
	}
	return s
}
