package jsrun

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/toolroute/toolroute/host"
	"github.com/toolroute/toolroute/internal/checktest"
	"github.com/toolroute/toolroute/internal/module"
	"github.com/toolroute/toolroute/registry/check"
)

// otherModule is a module whose js_bridge refuses DELETE and words every
// other refusal its own way: a host that kept a rule or a sentence of its
// own would not follow it.
type otherModule struct{ module.Checker }

func (o otherModule) Check(ctx context.Context, op string, args any) (module.CheckAnswer, error) {
	var q check.JSBridge
	b, _ := json.Marshal(args)
	if op != "js_bridge" || json.Unmarshal(b, &q) != nil || q.Code == "body_cut" || q.Code == "multipart" {
		return o.Checker.Check(ctx, op, args)
	}
	if (q.Code == "fetch_method" && q.Method != "DELETE") || (q.Code == "library_name" || q.Code == "time_format") {
		return module.CheckAnswer{}, nil
	}
	return module.CheckAnswer{Error: &check.Refusal{Type: "other_type", Message: "this module says no: " + q.Code}}, nil
}

// The runner's rules and refusals are the module's: given another module,
// it follows that one.
func TestTheModuleDecides(t *testing.T) {
	r := newRunner(t, Options{SandboxRoot: t.TempDir()})
	ctx := module.WithChecker(t.Context(), otherModule{checktest.Checker(t)})
	for _, tt := range []struct {
		name, source, want string
	}{
		{"a method it refuses", `async function execute() { try { await fetch("http://127.0.0.1:1/", {method: "DELETE"}); } catch (e) { return e.message; } }`, "this module says no: fetch_method"},
		{"an address the host refuses, in its words", `async function execute() { try { await fetch("http://127.0.0.1:1/"); } catch (e) { return e.message; } }`, "this module says no: private_address"},
		{"a path outside the sandbox folder", `function execute() { try { fs.readFile("../x"); } catch (e) { return e.message; } }`, "this module says no: sandbox_outside"},
		{"a library it lets pass, not found", `function execute() { try { lib("nope"); } catch (e) { return e.message; } }`, "this module says no: library_not_found"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			res := r.Call(ctx, host.JSCall{Tool: "t", SourceRef: "t.js", Source: []byte(tt.source), Function: "execute", Timeout: failsafe})
			if res.Status != "success" || !strings.Contains(res.Output, tt.want) {
				t.Errorf("%s %s: %s%s, want %q", res.Status, res.ErrorType, res.Message, res.Output, tt.want)
			}
		})
	}
	res := r.Call(ctx, host.JSCall{Tool: "t", SourceRef: "t.js", Source: []byte(`function execute() { for (;;) {} }`), Function: "execute", Timeout: 200 * time.Millisecond})
	if res.ErrorType != "other_type" || res.Message != "this module says no: timeout" {
		t.Errorf("a call past its time: %s: %s, want the module's type and sentence", res.ErrorType, res.Message)
	}
}
