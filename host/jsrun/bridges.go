package jsrun

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strings"
	"time"

	"github.com/toolroute/toolroute/host"
	"github.com/toolroute/toolroute/internal/module"
	"github.com/toolroute/toolroute/registry"
	"github.com/toolroute/toolroute/registry/check"
)

// MaxLogBytes bounds the console output kept from one call.
const MaxLogBytes = 64 << 10

// callState is what the bridges of one call share.
type callState struct {
	runner *Runner
	ctx    context.Context
	env    map[string]string
	tool   string
	google bool
	ops    func(ctx context.Context, op string, args json.RawMessage) (json.RawMessage, error)
	// noNetwork and sandboxOff refuse the bridges' requests and fs:
	// toolroute check runs a file's top level, which should only define
	// functions.
	noNetwork  bool
	sandboxOff bool
	logs       []LogLine
	logBytes   int
	dropped    bool
}

// files is the sandbox folder fs and the transfers reach: none while
// toolroute check runs a file's top level.
func (s *callState) files() *sandbox {
	if s.sandboxOff {
		return &sandbox{}
	}
	return s.runner.sandbox
}

func (s *callState) log(level, text string) {
	if s.logBytes+len(text) > MaxLogBytes {
		if !s.dropped {
			s.logs = append(s.logs, LogLine{Level: "warn", Text: fmt.Sprintf("[console output over %d KB dropped]", MaxLogBytes>>10)})
			s.dropped = true
		}
		return
	}
	switch level {
	case "log", "info", "debug", "warn", "error":
	default:
		level = "log"
	}
	s.logBytes += len(text)
	s.logs = append(s.logs, LogLine{Level: level, Text: text})
}

// time is _time(timezone, format): the current time in an IANA time zone
// (the host's when empty), as iso8601 (the default, with the offset) or
// human_readable.
func (s *callState) time(zone, format string) (string, error) {
	now := s.runner.opts.Now()
	if zone != "" {
		loc, err := time.LoadLocation(zone)
		if err != nil || zone == "Local" {
			return "", refused(s.ctx, check.JSBridge{Code: "time_zone", Zone: zone})
		}
		now = now.In(loc)
	}
	if err := ask(s.ctx, check.JSBridge{Code: "time_format", Format: format}); err != nil {
		return "", err
	}
	if format == "human_readable" {
		return now.Format("Monday, January 2, 2006 at 3:04:05 PM MST"), nil
	}
	return now.Format("2006-01-02T15:04:05-07:00"), nil
}

// google serves the credential bridge.
func (s *callState) googleBridge(what string) (string, error) {
	if !s.google {
		return "", refused(s.ctx, check.JSBridge{Code: "google_not_granted", Tool: s.tool})
	}
	p := s.runner.opts.Google
	var v string
	err := ErrNotConnected
	if p != nil {
		switch what {
		case "token":
			v, err = p.AccessToken(s.ctx)
		case "email":
			v, err = p.AccountEmail(s.ctx)
		default:
			return "", fmt.Errorf("google: unknown request %q", what)
		}
	}
	if errors.Is(err, ErrNotConnected) {
		return "", refused(s.ctx, check.JSBridge{Code: "google_not_connected"})
	}
	if err != nil {
		return "", fmt.Errorf("google: %v", err)
	}
	return v, nil
}

// hostOp serves the toolroute bridge, an operation of the host's, the
// google bridge ("google.token", "google.email") and downloadToFile and
// uploadMultipart ("net.download", "net.upload"), with JSON arguments and
// answer.
//
// The answer is {"ok": value} or {"error": {"type", "message"}}: the
// prelude throws the error with its type (a *host.ToolError's; none for
// another error).
func (s *callState) hostOp(op, args string) (string, error) {
	out, err := s.hostAnswer(op, args)
	if err != nil {
		e := struct {
			Type    string `json:"type,omitempty"`
			Message string `json:"message"`
		}{Message: err.Error()}
		var te *host.ToolError
		if errors.As(err, &te) {
			e.Type, e.Message = te.Type, te.Message
		}
		b, _ := json.Marshal(map[string]any{"error": e})
		return string(b), nil
	}
	return `{"ok":` + string(out) + `}`, nil
}

func (s *callState) hostAnswer(op, args string) (json.RawMessage, error) {
	if what, ok := strings.CutPrefix(op, "google."); ok {
		v, err := s.googleBridge(what)
		if err != nil {
			return nil, err
		}
		b, _ := json.Marshal(v)
		return b, nil
	}
	if strings.HasPrefix(op, "net.") {
		return s.netOp(op, args)
	}
	if s.ops == nil {
		ns, _, _ := strings.Cut(op, ".")
		return nil, fmt.Errorf("toolroute.%s: this host does not offer it", ns)
	}
	if !json.Valid([]byte(args)) {
		return nil, fmt.Errorf("toolroute.%s: the arguments are not JSON", op)
	}
	return s.ops(s.ctx, op, json.RawMessage(args))
}

// MaxLibraryBytes bounds a library's source.
const MaxLibraryBytes = 1 << 20

// library returns the source of lib(name): NAME.min.js, else NAME.js, from
// the first library folder that has either: tool files written for other
// agent hosts expect libraries shipped minified.
func (r *Runner) library(ctx context.Context, name string) (string, error) {
	if err := ask(ctx, check.JSBridge{Code: "library_name", Name: name}); err != nil {
		return "", err
	}
	for _, dir := range r.opts.Libraries {
		for _, file := range []string{name + ".min.js", name + ".js"} {
			b, err := fs.ReadFile(dir, file)
			if errors.Is(err, fs.ErrNotExist) {
				continue
			}
			if err != nil {
				return "", fmt.Errorf("lib: reading '%s': %v", file, err)
			}
			if len(b) > MaxLibraryBytes {
				return "", fmt.Errorf("lib: library '%s' is over %d bytes", file, MaxLibraryBytes)
			}
			return string(b), nil
		}
	}
	return "", refused(ctx, check.JSBridge{Code: "library_not_found", Name: name})
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

func sortedRefs(m map[string][]byte) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// The bridges' rules that need no I/O, and the refusals of what the host
// observed doing its I/O or enforcing its sandbox, are the module's to
// word (toolroute_check's js_bridge, wasm/ABI.md), as the JS hosts ask
// it: the call's context carries the module's checker (host.Host gives
// it; module.WithChecker). The host still decides what it observed (an
// address dialed, a path leading out of the sandbox folder): a tool can
// reach the bridges past the prelude.

// refusal is a refusal the host decided where it holds no context to ask
// the module (the sandbox folder's): the bridge's caller words it (word).
type refusal struct{ q check.JSBridge }

// Error names the code only: word gives the sentence.
func (r *refusal) Error() string {
	return "jsrun: refused (" + r.q.Code + "), not worded by the module"
}

// ask asks the module the question q: nil when it passes, the module's
// refusal (a *module.Refused), or the host's failure to ask. The call may
// be ending (its time up): the question is still asked.
func ask(ctx context.Context, q check.JSBridge) error {
	err := module.CheckArgs(context.WithoutCancel(ctx), "js_bridge", q, nil)
	if err == nil || errors.As(err, new(*module.Refused)) {
		return err
	}
	return fmt.Errorf("jsrun: asking the module (js_bridge %s): %w", q.Code, err)
}

// refused is the module's sentence for q, which the host decided: an
// error whatever the module answers.
func refused(ctx context.Context, q check.JSBridge) error {
	if err := ask(ctx, q); err != nil {
		return err
	}
	return fmt.Errorf("jsrun: the module let js_bridge %s pass, which it refuses always", q.Code)
}

// word gives err in the module's words when it is a *refusal, else as it
// is.
func word(ctx context.Context, err error) error {
	var r *refusal
	if errors.As(err, &r) {
		return refused(ctx, r.q)
	}
	return err
}

// worded is a call's failure the module words (q's Type and message).
func worded(ctx context.Context, q check.JSBridge) Result {
	err := refused(ctx, q)
	var r *module.Refused
	if errors.As(err, &r) {
		return Result{Result: registry.Failure(r.Type, r.Message)}
	}
	return Result{Result: registry.Failure("execution_error", err.Error())}
}

// cutNote is the note a body cut at max bytes ends with (js_bridge's
// body_cut); total is the body's length when the response said it, else 0.
func cutNote(ctx context.Context, q check.JSBridge) (string, error) {
	q.Code = "body_cut"
	var a struct {
		Note string `json:"note"`
	}
	err := module.CheckArgs(context.WithoutCancel(ctx), "js_bridge", q, &a)
	if err != nil {
		return "", fmt.Errorf("jsrun: asking the module (js_bridge body_cut): %w", err)
	}
	return a.Note, nil
}
