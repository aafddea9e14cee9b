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
			return "", fmt.Errorf("_time: invalid timezone '%s': use an IANA time zone name such as 'Europe/Paris', 'America/New_York' or 'UTC'", zone)
		}
		now = now.In(loc)
	}
	switch format {
	case "", "iso8601":
		return now.Format("2006-01-02T15:04:05-07:00"), nil
	case "human_readable":
		return now.Format("Monday, January 2, 2006 at 3:04:05 PM MST"), nil
	}
	return "", fmt.Errorf("_time: invalid format '%s': use 'iso8601' or 'human_readable'", format)
}

// google serves the credential bridge.
func (s *callState) googleBridge(what string) (string, error) {
	if !s.google {
		return "", fmt.Errorf("google: '%s' may not use the Google account: only tools whose manifest lists \"google\" in requiredPermissions may, and code the model writes only when the user grants it at approval (js_eval's \"secrets\": [\"google\"])", s.tool)
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
		return "", errors.New("Google account not connected: set GOOGLE_ACCESS_TOKEN, or GOOGLE_REFRESH_TOKEN with GOOGLE_CLIENT_ID and GOOGLE_CLIENT_SECRET, or run `toolroute google login`")
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
func (r *Runner) library(name string) (string, error) {
	if !validLibraryName(name) {
		return "", fmt.Errorf("lib: invalid library name '%s': use letters, digits, '_' and '-', starting with a letter", name)
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
	return "", fmt.Errorf("lib: library '%s' not found in the library folders (as %s.min.js or %s.js)", name, name, name)
}

// validLibraryName checks ^[a-zA-Z][a-zA-Z0-9_-]*$.
func validLibraryName(name string) bool {
	if name == "" || !isASCIILetter(name[0]) {
		return false
	}
	for i := 1; i < len(name); i++ {
		c := name[i]
		if !isASCIILetter(c) && !(c >= '0' && c <= '9') && c != '_' && c != '-' {
			return false
		}
	}
	return true
}

func isASCIILetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

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
