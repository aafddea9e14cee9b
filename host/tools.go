package host

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/toolroute/toolroute/internal/calltimer"
	"github.com/toolroute/toolroute/internal/module"
	"github.com/toolroute/toolroute/registry"
	"github.com/toolroute/toolroute/registry/session"
)

// NativeTool is a tool the host implements in Go.
type NativeTool struct {
	// Tool is the definition the model sees: name, description, parameters,
	// group and timeout. Its Origin is set by the host.
	Tool registry.Tool
	// Run runs a call with the arguments the model sent, already checked for
	// the required parameters. Its string is the result; its error, the
	// failure the model reads (a *ToolError sets the error type).
	Run func(ctx context.Context, input json.RawMessage) (string, error)
	// RunOutput, when set, runs calls instead of Run, for a tool whose
	// results may carry pictures: a screenshot, a page of a PDF, an MCP
	// server's image.
	RunOutput func(ctx context.Context, input json.RawMessage) (Output, error)
}

// Output is a native tool's result with pictures. The model sees the
// images beside the text where the wire format carries them (Anthropic);
// the text should name each with a placeholder, such as
// "[image image/png, 1234 bytes]", for the formats that do not. Images
// past the caps in registry.CheckImages are left out with a note.
type Output struct {
	Text   string
	Images []registry.Image
	// Documents are PDFs the model reads where the wire format carries
	// them (registry.CheckDocuments' caps), named in Text too.
	Documents []registry.Document
	// MCP is the MCP CallToolResult the output was read from, for an MCP
	// server's tool: toolroute mcp passes it to its client whole.
	MCP json.RawMessage
	// Asked are the questions the tool's MCP server put to the user during
	// the call, as answered (ElicitReply.Said): the log keeps them on the
	// result (registry.Result.Asked).
	Asked []string
}

// ToolError is a tool failure with an error type, such as "not_found".
type ToolError struct {
	Type    string
	Message string
	// MCP is the MCP CallToolResult (isError) the failure was read from,
	// for an MCP server's tool: toolroute mcp passes it to its client
	// whole.
	MCP json.RawMessage
	// Asked is Output.Asked, for a call that failed.
	Asked []string
}

// Error is the type, then the message.
func (e *ToolError) Error() string { return e.Type + ": " + e.Message }

// JSCall is one call of a JS tool.
type JSCall struct {
	// Tool is the tool's name, for messages.
	Tool string
	// SourceRef names the JS source; Source is its text.
	SourceRef string
	Source    []byte
	// Function is the function to call: the manifest's, or "execute".
	Function string
	// Params is the model's arguments, a JSON object; the runner adds _env.
	Params json.RawMessage
	// Env holds the environment variables the tool may read.
	Env map[string]string
	// Google lets the call use the google bridge: its manifest lists
	// "google" in requiredPermissions. Without it the bridge refuses.
	Google bool
	// Timeout bounds the call.
	Timeout time.Duration
	// Ops serves the toolroute bridge (toolroute.memories.save(...) in JS):
	// an operation's name and arguments in, its answer out, both JSON. It
	// refuses operations the tool's manifest does not grant; nil refuses
	// all.
	Ops func(ctx context.Context, op string, args json.RawMessage) (json.RawMessage, error)
}

// HostOps are the toolroute bridge's operations, by name: NAMESPACE.VERB,
// such as "memories.save". Each gets its arguments as JSON and answers a
// value that is encoded as JSON for the tool. An error's message is what
// the tool's code catches; of a *ToolError, its Message alone (a type does
// not cross into JS, in any host).
type HostOps map[string]func(ctx context.Context, args json.RawMessage) (any, error)

// opsFor serves the toolroute bridge for one call: only the namespaces its
// manifest lists in requiredPermissions.
func (h *Host) opsFor(c session.Call) func(ctx context.Context, op string, args json.RawMessage) (json.RawMessage, error) {
	return func(ctx context.Context, op string, args json.RawMessage) (json.RawMessage, error) {
		// Only the namespaces the manifest lists: the module's rule
		// (bridge_op), its refusal the error the tool's code catches.
		err := h.CheckArgs(ctx, "bridge_op", struct {
			Op                  string   `json:"op"`
			Tool                string   `json:"tool"`
			RequiredPermissions []string `json:"required_permissions"`
		}{op, c.Tool, c.RequiredPermissions}, nil)
		var refused *module.Refused
		if errors.As(err, &refused) {
			return nil, errors.New(refused.Message)
		}
		if err != nil {
			return nil, err
		}
		f, ok := h.opts.Ops[op]
		if !ok {
			return nil, fmt.Errorf("toolroute.%s: this host does not offer it", op)
		}
		if len(args) == 0 {
			args = json.RawMessage(`{}`)
		}
		// An operation that keeps secrets for a tool (toolfiles.write)
		// reads what the user granted this call.
		// Its argument checks ask the module (module.CheckArgs).
		ctx = module.WithChecker(ctx, h.pool)
		v, err := f(context.WithValue(ctx, grantKey{}, h.grant(c.Granted)), args)
		if err != nil {
			// A *ToolError keeps its type: the tool's code catches an
			// error with .type and its message, as in the JS hosts.
			return nil, err
		}
		return json.Marshal(v)
	}
}

// CheckArgs asks the module whether op's arguments pass (wasm/ABI.md,
// toolroute_check) before the caller does op's I/O: nil, with the
// arguments to use decoded into into when the module changed them, or a
// *Refused. Bridge operations ask through their context
// (module.CheckArgs); the HTTP API (a session's title) asks here.
func (h *Host) CheckArgs(ctx context.Context, op string, args, into any) error {
	return module.CheckArgs(module.WithChecker(ctx, h.pool), op, args, into)
}

// CheckContext is ctx carrying the host's module checker
// (module.WithChecker), for an operation outside a tool call whose reading
// the module checks, as a bridge operation's is: serve's model list
// (builtin.FetchModels, whose pages the module reads).
func (h *Host) CheckContext(ctx context.Context) context.Context {
	return module.WithChecker(ctx, h.pool)
}

// JSResult is a JS call's outcome and the console lines it wrote, each as
// "level: text".
type JSResult struct {
	registry.Result
	Logs []string
}

// JSRunner runs JS tools. toolroute's QuickJS runner (host/jsrun)
// implements it.
type JSRunner interface {
	Run(ctx context.Context, call JSCall) JSResult
}

// Grant is what the user granted one call at approval, of the secrets it
// asked for: a native tool, or a toolroute bridge operation, that keeps
// secrets for a tool (toolfiles.write, for create_js_tool) reads it.
type Grant struct {
	// Names are the granted secrets, as asked.
	Names []string
	// Env holds the granted variables that are set.
	Env map[string]string
	// Google lets the call use the google bridge.
	Google bool
}

type grantKey struct{}

// GrantFrom returns the grant of the call ctx belongs to: none unless the
// user granted secrets at approval.
func GrantFrom(ctx context.Context) Grant {
	g, _ := ctx.Value(grantKey{}).(Grant)
	return g
}

// grant resolves granted secret names: "google" and the variables set.
func (h *Host) grant(names []string) Grant {
	g := Grant{Names: names, Env: map[string]string{}}
	for _, n := range names {
		if n == registry.PermissionGoogle {
			g.Google = true
		} else if v, ok := h.env(n); ok {
			g.Env[n] = v
		}
	}
	return g
}

// run performs one call the engine asked for and returns its result, with
// the known secrets redacted: the module adds the console output and cuts
// it (session.FinishResult).
func (h *Host) run(ctx context.Context, c session.Call) session.Result {
	return h.runWith(ctx, c, time.Duration(c.TimeoutSeconds)*time.Second)
}

// runWith is run with the call's time limit.
func (h *Host) runWith(ctx context.Context, c session.Call, timeout time.Duration) session.Result {
	defer h.idle.enter()()
	if ctx.Value(slotKey{}) == nil {
		release, err := h.slots.take(ctx, ctx.Value(ownerKey{}))
		if err != nil {
			return session.Result{ID: c.ID, Result: registry.Failure("canceled", fmt.Sprintf("tool '%s' was canceled before it ran", c.Tool))}
		}
		defer release()
		ctx = context.WithValue(ctx, slotKey{}, true)
	}
	res := h.runCall(ctx, c, timeout)
	red := h.redactor(context.WithoutCancel(ctx))
	res.Result = red.result(res.Result)
	for i, line := range res.Console {
		res.Console[i] = red.text(line)
	}
	return res
}

// ownerKey marks whose share of the tool slots a call takes: its session's
// (a sub-agent's is its parent's), or an MCP client's.
type ownerKey struct{}

// slots bounds the tool calls running at once: all of them in all, and one
// fewer for any one owner, so that a turn whose calls all wait on slow
// tools (four 30 s JS calls) leaves a slot to the other sessions.
type slots struct {
	all   chan struct{} // one token per call running
	share int           // the most one owner runs at once

	mu     sync.Mutex
	owners map[any]*owned
}

// owned is one owner's tokens and how many calls hold or wait for one.
type owned struct {
	tokens chan struct{}
	users  int
}

func newSlots(n int) *slots {
	return &slots{all: make(chan struct{}, n), share: max(1, n-1), owners: map[any]*owned{}}
}

// take waits for a slot of owner's share (none for a nil owner) and one of
// all, until ctx ends; release gives them back.
func (s *slots) take(ctx context.Context, owner any) (release func(), err error) {
	var own *owned
	if owner != nil {
		s.mu.Lock()
		own = s.owners[owner]
		if own == nil {
			own = &owned{tokens: make(chan struct{}, s.share)}
			s.owners[owner] = own
		}
		own.users++
		s.mu.Unlock()
	}
	leave := func() {
		if own == nil {
			return
		}
		s.mu.Lock()
		if own.users--; own.users == 0 {
			delete(s.owners, owner)
		}
		s.mu.Unlock()
	}
	if own != nil {
		select {
		case own.tokens <- struct{}{}:
		case <-ctx.Done():
			leave()
			return nil, ctx.Err()
		}
	}
	select {
	case s.all <- struct{}{}:
	case <-ctx.Done():
		if own != nil {
			<-own.tokens
		}
		leave()
		return nil, ctx.Err()
	}
	return func() {
		<-s.all
		if own != nil {
			<-own.tokens
		}
		leave()
	}, nil
}

// MaxResultChars is the most characters of a tool's result the model reads
// (docs/reference/routing.md): the module cuts a longer one, with a note
// saying so (session.MaxResultChars).
const MaxResultChars = session.MaxResultChars

// runCall runs a call with its time limit. A JS tool's console output
// goes in the result's Console, for the module to show (session.WithConsole).
func (h *Host) runCall(ctx context.Context, c session.Call, timeout time.Duration) session.Result {
	res := session.Result{ID: c.ID}
	switch c.Origin.Kind {
	case registry.OriginHost:
		h.mu.RLock()
		tool, ok := h.native[c.Tool]
		h.mu.RUnlock()
		if !ok {
			res.Result = registry.Failure("execution_error", fmt.Sprintf("the host has no implementation of tool '%s'", c.Tool))
			return res
		}
		// The call's time starts again at each report of its progress (an
		// MCP server's), which goes on, with the call's id, to whoever
		// asked for it.
		ctx, restart, cancel := calltimer.New(WithCallID(ctx, c.ID), timeout)
		defer cancel()
		report := ProgressFrom(ctx)
		ctx = WithProgress(ctx, func(p Progress) {
			restart()
			if report != nil {
				p.CallID = c.ID
				report(p)
			}
		})
		if len(c.Granted) > 0 {
			ctx = context.WithValue(ctx, grantKey{}, h.grant(c.Granted))
		}
		out, err := runNative(module.WithChecker(ctx, h.pool), tool, c.Input)
		// A tool that says what went wrong (an MCP server that did not
		// answer in time, say) is believed over the deadline.
		var te *ToolError
		switch {
		case err == nil:
			res.Result = registry.Success(out.Text)
			res.Images, res.Documents, res.MCP, res.Asked = out.Images, out.Documents, out.MCP, out.Asked
		case errors.As(err, &te):
			res.Result = registry.Failure(te.Type, te.Message)
			res.MCP, res.Asked = te.MCP, te.Asked
		case errors.Is(ctx.Err(), context.DeadlineExceeded):
			res.Result = registry.Failure("timeout", fmt.Sprintf("tool '%s' timed out after %s", c.Tool, timeout))
		default:
			res.Result = registry.Failure("execution_error", err.Error())
		}
	case registry.OriginSearch:
		return h.search.answer(c)
	case registry.OriginJS:
		if h.js == nil {
			res.Result = registry.Failure("execution_error", fmt.Sprintf("JS tools cannot run here: no JS runner is configured (tool '%s')", c.Tool))
			return res
		}
		h.mu.RLock()
		src := h.sources[c.Origin.Source]
		h.mu.RUnlock()
		env := map[string]string{}
		for _, name := range c.Env {
			if v, ok := h.env(name); ok {
				env[name] = v
			}
		}
		granted := h.grant(c.Granted)
		maps.Copy(env, granted.Env)
		// The runner's bridges ask the module to word their refusals
		// (toolroute_check's js_bridge).
		out := h.js.Run(module.WithChecker(ctx, h.pool), JSCall{
			Tool: c.Tool, SourceRef: c.Origin.Source, Source: src, Function: c.Origin.Function,
			Params: c.Input, Env: env, Timeout: timeout,
			Google: granted.Google || slices.Contains(c.RequiredPermissions, registry.PermissionGoogle),
			Ops:    h.opsFor(c),
		})
		res.Result, res.Console = out.Result, out.Logs
	default:
		res.Result = registry.Failure("execution_error", fmt.Sprintf("tool '%s' has origin %q, which the host cannot run", c.Tool, c.Origin.Kind))
	}
	return res
}

// runNative runs a native tool, turning a panic into a failure.
func runNative(ctx context.Context, tool NativeTool, input json.RawMessage) (out Output, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("tool '%s' failed inside the host (%s): try other arguments, or report it", tool.Tool.Name, PanicText(r))
		}
	}()
	if tool.RunOutput != nil {
		return tool.RunOutput(ctx, input)
	}
	if tool.Run == nil {
		return Output{}, fmt.Errorf("tool '%s' has no implementation in the host: set its Run or RunOutput", tool.Tool.Name)
	}
	text, err := tool.Run(ctx, input)
	return Output{Text: text}, err
}

// goSource matches a Go source position, such as /home/u/x/y.go:12: a
// panic's text must not tell the model the host's paths.
var goSource = regexp.MustCompile(`\S*\.go:\d+`)

// PanicText is what a panic value says, in one short line without paths or
// stacks.
func PanicText(r any) string {
	s, _, _ := strings.Cut(fmt.Sprint(r), "\n")
	s = goSource.ReplaceAllString(s, "")
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return strings.TrimSpace(s)
}
