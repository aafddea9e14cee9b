package mcpserve

import (
	"bytes"
	"cmp"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolroute/toolroute/host"
	"github.com/toolroute/toolroute/registry"
	"github.com/toolroute/toolroute/registry/session"
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
	parked  []*parked       // 2026-07-28 calls waiting for their client's answer (park.go)

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
	c := &client{s: s, calls: s.h.NewModelCalls(), note: make(chan struct{})}
	offer, err := s.h.Offer(context.Background(), nil)
	if err != nil {
		s.opts.Logger.Error("mcpserve: " + err.Error())
	}
	c.srv = mcp.NewServer(s.implementation(), &mcp.ServerOptions{
		Instructions: offer.Instructions,
		Logger:       s.opts.Logger,
		Capabilities: &mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{ListChanged: true}},
	})
	c.srv.AddReceivingMiddleware(c.receiving)
	c.srv.AddSendingMiddleware(c.sending)
	c.gen.Store(gen)
	if err == nil {
		c.offer(offer)
	}
	return c
}

// sync makes the client's tool list what the module offers a
// conversation with its loaded groups (Host.Offer), telling the SDK only
// what changed. It reports whether anything did.
func (c *client) sync(ctx context.Context) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	offer, err := c.s.h.Offer(ctx, c.loaded)
	if err != nil {
		c.s.opts.Logger.Error("mcpserve: " + err.Error())
		return false
	}
	return c.offerLocked(offer)
}

// offer lists offer's tools.
func (c *client) offer(offer session.Offer) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.offerLocked(offer)
}

func (c *client) offerLocked(offer session.Offer) bool {
	want := offer.Tools
	wanted := make(map[string]bool, len(want))
	for _, t := range want {
		wanted[t.Name] = true
	}
	had := map[string]int{}
	var gone []string
	for i, t := range c.offered {
		had[t.Name] = i
		if !wanted[t.Name] {
			gone = append(gone, t.Name)
		}
	}
	var offered []registry.Tool
	changed := len(gone) > 0
	if len(gone) > 0 {
		c.srv.RemoveTools(gone...)
	}
	for _, t := range want {
		if i, ok := had[t.Name]; ok && c.offered[i].Description == t.Description && bytes.Equal(c.offered[i].Parameters, t.Parameters) &&
			bytes.Equal(c.offered[i].OutputSchema, t.OutputSchema) {
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
func (c *client) syncAt(ctx context.Context, gen uint64) {
	c.gen.Store(gen)
	c.sync(ctx)
}

// generation is the catalogue generation the client's list was made from.
func (c *client) generation() uint64 { return c.gen.Load() }

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
	tool := &mcp.Tool{Name: t.Name, Description: t.Description, InputSchema: t.Parameters, Annotations: Annotations(t)}
	if len(t.OutputSchema) > 0 {
		// An MCP server's tool: its result's structuredContent is passed
		// on as the server sent it (result).
		tool.OutputSchema = t.OutputSchema
	}
	c.srv.AddTool(tool, h)
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
				_, refused, err := c.calls.CheckLoaded(ctx, p.Name, p.Arguments, c.loadedGroups())
				if err != nil {
					return nil, err
				}
				if refused != nil {
					return result(*refused), nil
				}
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

// loadedGroups are the groups the client loaded, in order.
func (c *client) loadedGroups() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.loaded)
}

// loadGroup runs load_tool_group: the module's answer, and the group's
// tools added to the client's list.
func (c *client) loadGroup(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	before := c.loadedGroups()
	res, loaded, err := c.calls.Meta(ctx, registry.LoadToolGroupName, req.Params.Arguments, before)
	if err != nil {
		return nil, err
	}
	if res.Status != registry.StatusSuccess || len(loaded) == len(before) {
		return result(res), nil
	}
	note := c.nextNote()
	c.mu.Lock()
	added := false
	for _, g := range loaded {
		if !slices.Contains(c.loaded, g) {
			c.loaded = append(c.loaded, g)
			added = true
		}
	}
	c.mu.Unlock()
	if added && c.sync(ctx) && c.hears(req.Session) {
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
	res, _, err := c.calls.Meta(ctx, registry.LoadSkillName, req.Params.Arguments, c.loadedGroups())
	if err != nil {
		return nil, err
	}
	return result(res), nil
}

// result is a tool's result as MCP carries it: the output as text, or a
// failure marked isError with its type and message.
//
// A successful result's images follow its text as image content, those a
// model cannot take left out with a note, as the turn engine does; its
// documents follow as embedded resources.
//
// An MCP server's tool's result (r.MCP) is given as its server sent it:
// its content blocks (text, images, audio, resource links, embedded
// resources) and structuredContent, not the text a model reads of them.
func result(r registry.Result) *mcp.CallToolResult {
	if len(r.MCP) > 0 {
		var res mcp.CallToolResult
		if err := json.Unmarshal(r.MCP, &res); err == nil {
			return &res
		}
	}
	if r.Status == registry.StatusSuccess {
		text, images := registry.CheckImages(r.Output, r.Images)
		text, docs := registry.CheckDocuments(text, images, r.Documents)
		content := []mcp.Content{&mcp.TextContent{Text: text}}
		for _, img := range images {
			data, err := base64.StdEncoding.DecodeString(img.Data) // checked by CheckImages
			if err == nil {
				content = append(content, &mcp.ImageContent{MIMEType: img.MIMEType, Data: data})
			}
		}
		for _, d := range docs {
			data, err := base64.StdEncoding.DecodeString(d.Data) // checked by CheckDocuments
			if err == nil {
				content = append(content, &mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: d.Name, MIMEType: d.MIMEType, Blob: data}})
			}
		}
		return &mcp.CallToolResult{Content: content}
	}
	return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: r.Content()}}}
}
