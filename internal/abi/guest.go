package abi

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"runtime/debug"
	"strconv"
	"time"
	"unsafe"

	"github.com/toolroute/toolroute/registry"
	"github.com/toolroute/toolroute/registry/check"
	"github.com/toolroute/toolroute/registry/demo"
	"github.com/toolroute/toolroute/registry/session"
	"github.com/toolroute/toolroute/registry/wire"
	"github.com/toolroute/toolroute/registry/wordvec"
)

// Guest is the module's state and its side of every export: the registry
// loaded last, and the open turns. Every method answers with an Envelope,
// never panics, and leaves the Guest usable after any input.
type Guest struct {
	reg   *registry.Registry
	turns map[uint32]*openTurn
	next  uint32
	// logs keeps the state of the sessions whose turns ended here, for
	// their next turns.
	logs session.Logs
	// given is, by the address of its first byte, the turn whose body
	// TurnBody handed out: when the host frees it (Freed), the turn may
	// build its next body in that memory.
	given map[*byte]uint32
	// vecs is the word vectors search ranks with, given by the host
	// (WordVectors), kept across catalogues.
	vecs *wordvec.Vectors
	// answered is the first byte of the last answer of actions; spare
	// is that answer's memory once the host freed it (Freed), for the
	// next answer.
	answered *byte
	spare    []byte
}

// openTurn is a turn and what the host takes of it apart from its actions.
type openTurn struct {
	*session.Turn
	session string
	// body is the request body of the turn's last call_model action, until
	// the host takes it (TurnBody).
	body []byte
}

// Load builds the registry from a catalogue (a registry.Catalogue as JSON)
// and answers with its registry.BuildReport. Open turns keep the registry
// they started with.
func (g *Guest) Load(req []byte) (out []byte) {
	defer recoverInto(&out)
	c, err := registry.UnmarshalCatalogue(req)
	if err != nil {
		return fail(CodeBadJSON, "the catalogue is not a JSON catalogue object: "+err.Error())
	}
	reg, rep := registry.Build(c)
	reg.SetWordVectors(g.vecs)
	g.reg = reg
	return ok(rep)
}

// WordVectors takes a table of word vectors (package wordvec's layout, as
// assets/wordvec/vectors.bin holds it) for search_tools to rank with, in this
// catalogue and every one loaded after; an empty table takes them away. A
// table that does not read is refused and the one before kept.
func (g *Guest) WordVectors(table []byte) (out []byte) {
	defer recoverInto(&out)
	var v *wordvec.Vectors
	if len(table) > 0 {
		var err error
		if v, err = wordvec.Parse(table); err != nil {
			return fail(CodeBadVectors, err.Error()+"; the search keeps the table it had")
		}
	}
	g.vecs = v
	if g.reg != nil {
		g.reg.SetWordVectors(v)
	}
	if v == nil {
		return ok(WordVectorsInfo{})
	}
	return ok(WordVectorsInfo{Words: v.Len(), Dimensions: v.Dim()})
}

// Describe answers with a Description of the catalogue and, when the request
// has a history, of that session's active tools.
func (g *Guest) Describe(req []byte) (out []byte) {
	defer recoverInto(&out)
	if g.reg == nil {
		return noCatalogue()
	}
	var r DescribeRequest
	if err := registry.CheckDepth(req); err != nil {
		return fail(CodeBadJSON, "the request "+err.Error()+": no describe request holds that much; send its fields as wasm/ABI.md shows them")
	}
	if len(bytes.TrimSpace(req)) > 0 {
		if err := json.Unmarshal(req, &r); err != nil {
			return fail(CodeBadJSON, "the request is not a JSON describe request: "+err.Error())
		}
	}
	reg := g.reg.Restrict(r.AllowedGroups)
	// Read a message at a time: a long history costs its text alone.
	active, err := session.ActiveToolsJSON(reg, r.History)
	if err != nil {
		return fail(CodeBadJSON, "history is not an array of messages: "+err.Error())
	}
	d := Describe(reg, session.WithMemories(r.SystemPrompt, r.Memories), active)
	// The meta-tools a turn with these settings adds to the active list.
	f, _ := wire.ParseFormat(r.Format) // checked below
	set := session.Settings{Format: f, Routing: session.Routing(r.Routing), SearchTools: r.SearchTools, ToolBudget: r.ToolBudget}
	d.Active = toolNamesOf(session.OfferedTools(reg, set, active.Tools()))
	if r.ToolsJSON {
		tj, err := DescribeToolsJSON(reg, active, set)
		if err != nil {
			return fail(CodeInternal, "encoding the tools: "+err.Error())
		}
		d.ToolsJSON = &tj
	}
	if r.Format != "" {
		f, err := wire.ParseFormat(r.Format)
		if err != nil {
			return fail(CodeBadJSON, "format: "+err.Error())
		}
		asked := session.Routing(r.Routing)
		if asked == "" {
			asked = session.RoutingClassic
		}
		used, note := session.RoutingFor(f, asked)
		d.Routing = &RoutingInfo{Asked: string(asked), Used: string(used), Note: note}
	}
	out, err = appendDescription(append(make([]byte, 0, 64<<10), `{"ok":`...), d)
	if err != nil {
		return fail(CodeInternal, "encoding the answer: "+err.Error())
	}
	return append(out, '}')
}

// DescribeToolsJSON gives the schemas of a session's active tools
// (session.ActiveTools) and of every enabled tool but the meta-tools, as
// a model call sends them.
func DescribeToolsJSON(reg *registry.Registry, active *registry.Active, set session.Settings) (ToolsJSON, error) {
	// All: every enabled tool as without routing, so no meta-tool, as
	// `toolroute tokens`'s "all tools".
	var all []registry.Tool
	for _, st := range reg.ToolStates() {
		if st.Enabled && st.Origin.Kind != registry.OriginMeta {
			t, _ := reg.Definition(st.Name)
			all = append(all, t)
		}
	}
	tools := session.OfferedTools(reg, set, active.Tools())
	offered, err := wire.OpenAIToolsJSON(session.ToolDefs(tools))
	if err != nil {
		return ToolsJSON{}, err
	}
	every, err := wire.OpenAIToolsJSON(session.ToolDefs(all))
	return ToolsJSON{Active: offered, All: every}, err
}

// Demo answers a model request's body (OpenAI Chat Completions) as the
// demo model (registry/demo) would: its "ok" is the response body. It needs
// no catalogue.
func (g *Guest) Demo(req []byte) (out []byte) {
	defer recoverInto(&out)
	body, err := demo.Respond(req)
	if err != nil {
		return fail(CodeBadJSON, err.Error())
	}
	return envelope(body)
}

// RetryRequest is a failed model call outside a turn, for Retry: what a
// model_error event gives (Status, RetryAfter, Body, Retries, Now) and
// which try it was (Attempt, from 1).
type RetryRequest struct {
	Status     int             `json:"status"`
	RetryAfter string          `json:"retry_after,omitempty"`
	Body       session.Bytes   `json:"body,omitempty"`
	Attempt    int             `json:"attempt"`
	Now        time.Time       `json:"now,omitzero"`
	Retries    session.Retries `json:"retries"`
}

// Retry decides whether a model call made outside a turn (a model
// proxy's) is tried again, as a turn decides for its own calls
// (session.Retries.Decide): {"retry": {...}} to wait and send it again,
// {} to give up and pass the answer on.
func (g *Guest) Retry(req []byte) (out []byte) {
	defer recoverInto(&out)
	if err := registry.CheckDepth(req); err != nil {
		return fail(CodeBadJSON, "the request "+err.Error()+": give the error body as a string")
	}
	var r RetryRequest
	if err := json.Unmarshal(req, &r); err != nil {
		return fail(CodeBadJSON, "the request is not a JSON retry request: "+err.Error())
	}
	retry, again := r.Retries.Decide(r.Status, r.RetryAfter, r.Body, r.Attempt, r.Now)
	if !again {
		return envelope([]byte("{}"))
	}
	return ok(struct {
		Retry session.Retry `json:"retry"`
	}{retry})
}

// Check answers whether a host operation's arguments pass the module's
// rules (package check): {} or {"args": {...}} when they do, {"error":
// {"type", "message"}} when they do not. It needs no catalogue.
func (g *Guest) Check(req []byte) (out []byte) {
	defer recoverInto(&out)
	if err := registry.CheckDepth(req); err != nil {
		return fail(CodeBadJSON, "the request "+err.Error()+": no check takes that much")
	}
	var r check.Request
	if err := json.Unmarshal(req, &r); err != nil {
		return fail(CodeBadJSON, "the request is not a JSON check request: "+err.Error())
	}
	switch r.Op {
	case ModelCallOp:
		return g.modelCall(r.Args)
	case OfferOp:
		return g.offer(r.Args)
	}
	a, err := check.Run(r)
	if err != nil {
		return fail(CodeBadJSON, err.Error())
	}
	return ok(a)
}

// ModelCallOp is the check that needs the catalogue: a call of a model
// whose turns the host does not run, decided as a turn decides a tool call
// (session.DecideModelCall).
const ModelCallOp = "model_call"

// OfferOp asks what a conversation without turns (an MCP client's) lists,
// given the groups it loaded (session.OfferFor). It needs the catalogue.
const OfferOp = "offer"

// offer answers the offer op: {"args": {"instructions", "tools", "loaded"}}.
func (g *Guest) offer(args json.RawMessage) []byte {
	if g.reg == nil {
		return noCatalogue()
	}
	var a struct {
		Loaded []string `json:"loaded"`
	}
	if err := json.Unmarshal(args, &a); err != nil || len(args) == 0 || string(args) == "null" {
		why := "it is not an object"
		if err != nil {
			why = err.Error()
		}
		return fail(CodeBadJSON, "check offer: args must be {\"loaded\": [group names]}: "+why)
	}
	return ok(check.Answer{Args: session.OfferFor(g.reg, a.Loaded)})
}

// modelCall answers the model_call check: {"args": {"call", "ask"}} for a
// call the host may run (or must ask about first), {"error"} with the
// failure result the model reads for one it may not.
func (g *Guest) modelCall(args json.RawMessage) []byte {
	if g.reg == nil {
		return noCatalogue()
	}
	var mc session.ModelCall
	if err := json.Unmarshal(args, &mc); err != nil || len(args) == 0 || string(args) == "null" {
		why := "it is not an object"
		if err != nil {
			why = err.Error()
		}
		return fail(CodeBadJSON, "check model_call: args must be {\"id\", \"tool\", \"input\", \"loaded\", \"policies\", \"answers\"}: "+why)
	}
	if mc.Tool == "" {
		return fail(CodeBadJSON, "check model_call: args has no tool: give the name the model called")
	}
	d, refused, err := session.DecideModelCall(g.reg, mc)
	switch {
	case err != nil:
		return fail(CodeBadJSON, "check model_call: "+err.Error())
	case refused != nil:
		return ok(check.Answer{Error: &check.Refusal{Type: refused.ErrorType, Message: refused.Message}})
	}
	return ok(check.Answer{Args: d})
}

// TurnNew opens a turn and answers with its handle.
func (g *Guest) TurnNew() (out []byte) {
	defer recoverInto(&out)
	if g.reg == nil {
		return noCatalogue()
	}
	if len(g.turns) >= MaxTurns {
		return fail(CodeTooManyTurns, fmt.Sprintf("%d turns are open: free finished turns with %s", MaxTurns, ExportTurnFree))
	}
	if g.turns == nil {
		g.turns = map[uint32]*openTurn{}
	}
	for {
		g.next++
		if g.next != 0 && g.turns[g.next] == nil {
			break
		}
	}
	g.turns[g.next] = &openTurn{Turn: session.NewTurn(g.reg)}
	// ok(TurnHandle{Turn: g.next}), without encoding/json's reflection.
	return append(strconv.AppendUint([]byte(`{"ok":{"turn":`), uint64(g.next), 10), "}}"...)
}

// TurnEvent feeds a turn one event (a session.Event as JSON) and answers with
// the actions, a JSON array of session.Action. req becomes the guest's: a
// start event's history stays in it (session.ReadEvent), for the turn and
// the session state kept after it, rather than in a copy; the caller must
// not change it afterwards (the module's host frees it, and never writes
// memory it freed).
func (g *Guest) TurnEvent(h uint32, req []byte) (out []byte) {
	defer recoverInto(&out)
	t, found := g.turns[h]
	if !found {
		return unknownTurn(h)
	}
	e, err := session.ReadEvent(req, t.Format())
	var deep *registry.DepthError
	if errors.As(err, &deep) {
		return fail(CodeBadJSON, err.Error()) // it says what the event is
	}
	if err != nil {
		return fail(CodeBadJSON, "the event is not a JSON event object: "+err.Error())
	}
	if e.Type == session.EventChunk {
		return fail(CodeBadJSON, fmt.Sprintf("send chunks as raw bytes with %s, not as JSON", ExportTurnChunk))
	}
	if e.Type == session.EventReload {
		if err := t.Reload(g.reg); err != nil {
			code := CodeInternal
			if errors.Is(err, session.ErrEvent) {
				code = CodeBadEvent
			}
			return fail(code, err.Error())
		}
		return ok([]session.Action{})
	}
	if e.Type == session.EventStart {
		acts, resume, err := g.logs.Start(t.Turn, e)
		if err != nil {
			return fail(CodeBadEvent, err.Error())
		}
		if !resume {
			return g.actions(acts)
		}
		t.session = e.Session
	}
	out = g.handle(t, e)
	g.logs.End(t.session, t.Turn)
	return out
}

// TurnChunk feeds a turn the next raw bytes of a streamed response body.
func (g *Guest) TurnChunk(h uint32, data []byte) (out []byte) {
	defer recoverInto(&out)
	t, found := g.turns[h]
	if !found {
		return unknownTurn(h)
	}
	out = g.handle(t, session.Event{Type: session.EventChunk, Data: data})
	g.logs.End(t.session, t.Turn)
	return out
}

// TurnBody hands out the request body of the turn's last call_model
// action, once: nil for an unknown turn, or when there is none to take.
func (g *Guest) TurnBody(h uint32) []byte {
	t, found := g.turns[h]
	if !found {
		return nil
	}
	body := t.body
	t.body = nil
	if len(body) > 0 {
		if g.given == nil {
			g.given = map[*byte]uint32{}
		}
		g.given[unsafe.SliceData(body)] = h
	}
	return body
}

// Freed tells the guest the host freed b, a result: a body TurnBody handed
// out goes back to its turn, to build the next in, and the last answer
// of actions to the guest, to write the next answer in.
func (g *Guest) Freed(b []byte) {
	p := unsafe.SliceData(b)
	if p == g.answered && p != nil {
		g.answered, g.spare = nil, b[:0]
		return
	}
	h, found := g.given[p]
	if !found {
		return
	}
	delete(g.given, p)
	if t, open := g.turns[h]; open {
		t.ReuseBody(b)
	}
}

// TurnFree closes a turn; freeing an unknown handle does nothing.
func (g *Guest) TurnFree(h uint32) {
	delete(g.turns, h)
}

// OpenTurns is how many turns are open.
func (g *Guest) OpenTurns() int { return len(g.turns) }

// KeptSessions is how many sessions' state the instance keeps.
func (g *Guest) KeptSessions() int { return g.logs.Len() }

// handle feeds a turn an event. A call_model action's body is kept for
// TurnBody rather than sent in the action.
func (g *Guest) handle(t *openTurn, e session.Event) []byte {
	acts, err := t.Handle(e)
	if err != nil {
		code := CodeInternal
		if errors.Is(err, session.ErrEvent) {
			code = CodeBadEvent
		}
		return fail(code, err.Error())
	}
	for i := range acts {
		// Each call_model action's request is the turn's new one, held
		// by nothing else: its body moves out of it.
		if r := acts[i].Request; r != nil {
			t.body, r.Body = r.Body, nil
		}
	}
	return g.actions(acts)
}

// actions is the envelope of acts, encoded in place: in the memory of the
// last such answer when the host freed it.
func (g *Guest) actions(acts []session.Action) []byte {
	b := g.spare
	g.spare = nil
	if cap(b) < 1024 {
		b = make([]byte, 0, 1024)
	}
	b = actions(b[:0], acts)
	g.answered = unsafe.SliceData(b)
	return b
}

// actions appends the envelope of acts to dst.
func actions(dst []byte, acts []session.Action) []byte {
	b := append(dst, `{"ok":`...)
	b, err := session.AppendActions(b, acts)
	if err != nil {
		return fail(CodeInternal, "encoding the actions: "+err.Error())
	}
	return append(b, '}')
}

// Describe builds a Description natively, active being a session's active
// tools (session.ActiveTools); the module's toolroute_describe answers
// with the same.
func Describe(reg *registry.Registry, systemPrompt string, active *registry.Active) Description {
	d := Description{
		SystemPrompt: reg.SystemPrompt(systemPrompt),
		Groups:       []GroupInfo{}, Tools: []ToolInfo{}, Files: []FileInfo{}, Skills: []SkillInfo{},
		Active: []string{}, LoadedGroups: []string{},
	}
	available := map[string]bool{}
	for _, g := range reg.AvailableGroups() {
		available[g.Name] = true
	}
	for _, g := range reg.Groups() {
		info := GroupInfo{Group: g, Tools: []string{}, Available: available[g.Name]}
		for _, t := range reg.GroupTools(g.Name) {
			info.Tools = append(info.Tools, t.Name)
		}
		d.Groups = append(d.Groups, info)
	}
	for _, st := range reg.ToolStates() {
		t, _ := reg.Definition(st.Name)
		d.Tools = append(d.Tools, ToolInfo{Tool: t, Enabled: st.Enabled})
		if st.Origin.Kind != registry.OriginJS {
			continue
		}
		i := len(d.Files) - 1
		if i < 0 || d.Files[i].File != st.Origin.File {
			d.Files = append(d.Files, FileInfo{File: st.Origin.File, Source: st.Origin.Source, Group: st.Group, Tools: []string{}})
			i++
		}
		d.Files[i].Tools = append(d.Files[i].Tools, st.Name)
	}
	for _, s := range reg.Skills() {
		d.Skills = append(d.Skills, SkillInfo{Name: s.Name, Description: s.Description})
	}
	for _, t := range active.Tools() {
		d.Active = append(d.Active, t.Name)
	}
	d.LoadedGroups = append(d.LoadedGroups, active.Groups()...)
	return d
}

func ok(v any) []byte {
	b, err := marshal(v)
	if err != nil {
		return fail(CodeInternal, "encoding the answer: "+err.Error())
	}
	return envelope(b)
}

func envelope(payload []byte) []byte {
	out := make([]byte, 0, len(payload)+7)
	out = append(out, `{"ok":`...)
	out = append(out, payload...)
	return append(out, '}')
}

func fail(code, message string) []byte {
	b, _ := marshal(Envelope{Error: &Error{Code: code, Message: message}})
	return b
}

func noCatalogue() []byte {
	return fail(CodeNoCatalogue, "no catalogue is loaded: call "+ExportLoad+" first")
}

func unknownTurn(h uint32) []byte {
	return fail(CodeUnknownTurn, fmt.Sprintf("no open turn has handle %d: open one with %s", h, ExportTurnNew))
}

// recoverInto turns a panic into a CodeInternal envelope.
func recoverInto(out *[]byte) {
	if r := recover(); r != nil {
		*out = fail(CodeInternal, fmt.Sprintf("panic: %v\n%s", r, debug.Stack()))
	}
}

func marshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

func toolNamesOf(tools []registry.Tool) []string {
	names := make([]string, len(tools))
	for i, t := range tools {
		names[i] = t.Name
	}
	return names
}
