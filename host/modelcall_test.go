package host_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/toolroute/toolroute/host"
	"github.com/toolroute/toolroute/internal/module"
	"github.com/toolroute/toolroute/internal/testcache"
	"github.com/toolroute/toolroute/registry"
	"github.com/toolroute/toolroute/registry/session"
	"github.com/toolroute/toolroute/registry/wire"
)

// modelCallHost is a host whose native tools read, write and take secrets,
// with the user's rules policies. No model is ever called.
func modelCallHost(t *testing.T, policies []session.Policy) *host.Host {
	t.Helper()
	params := json.RawMessage(`{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}`)
	tool := func(name string, perms []string, run func(ctx context.Context, in json.RawMessage) (string, error)) host.NativeTool {
		return host.NativeTool{Tool: registry.Tool{Name: name, Description: name + " a note", Group: "notes",
			Parameters: params, RequiredPermissions: perms}, Run: run}
	}
	echo := func(_ context.Context, in json.RawMessage) (string, error) { return "did " + string(in), nil }
	h, err := host.New(context.Background(), host.Options{
		Provider:   &host.HTTPProvider{Wire: wire.OpenAI, BaseURL: "http://127.0.0.1:9", ModelName: "unused"},
		NoBuiltins: true,
		Module:     module.Config{CacheDir: testcache.Module(cacheDir)},
		Groups:     []registry.Group{{Name: "notes", Description: "Notes"}},
		Tools: []host.NativeTool{
			tool("note_read", []string{registry.PermissionRead}, echo),
			tool("note_write", []string{registry.PermissionWrite}, echo),
			tool("note_share", []string{registry.PermissionShare}, echo),
			tool("note_off", nil, echo),
			// It shows the secrets it was granted, and leaks a value.
			tool("note_eval", []string{registry.PermissionRunCode, registry.PermissionSecrets}, func(ctx context.Context, in json.RawMessage) (string, error) {
				return "granted " + strings.Join(host.GrantFrom(ctx).Names, ",") + "; key sk-secret-value-123", nil
			}),
		},
		Disabled: []string{"note_off"},
		Policies: func(context.Context) ([]session.Policy, error) { return policies, nil },
		Secrets: func(context.Context) []host.Secret {
			return []host.Secret{{Name: "NOTES_KEY", Value: "sk-secret-value-123"}}
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close(context.Background()) })
	return h
}

// A model's calls that end before they run: each gets a failure the model
// reads, of the type a turn gives.
func TestModelCallsRefused(t *testing.T) {
	h := modelCallHost(t, []session.Policy{{Tool: "note_share", Decision: registry.DecisionDeny}})
	calls := h.NewModelCalls()
	tests := []struct {
		name, tool, input string
		wantType, wantIn  string
	}{
		{name: "no such tool", tool: "note_burn", input: `{"text":"x"}`, wantType: "unknown_tool", wantIn: "Tool 'note_burn' does not exist"},
		{name: "disabled", tool: "note_off", input: `{"text":"x"}`, wantType: "tool_disabled", wantIn: "is disabled"},
		{name: "arguments not an object", tool: "note_read", input: `["x"]`, wantType: "invalid_arguments", wantIn: "not a JSON object"},
		{name: "a required argument missing", tool: "note_read", input: `{}`, wantType: "invalid_arguments", wantIn: "text"},
		{name: "secrets that are not names", tool: "note_eval", input: `{"text":"x","secrets":"all"}`, wantType: "invalid_arguments", wantIn: `"secrets"`},
		{name: "the user's rule denies it", tool: "note_share", input: `{"text":"x"}`, wantType: "denied", wantIn: "their policy denies it"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, res, err := calls.Check(context.Background(), tt.tool, json.RawMessage(tt.input))
			if err != nil {
				t.Fatal(err)
			}
			if res == nil {
				t.Fatal("the call was let through")
			}
			if res.Status != registry.StatusError || res.ErrorType != tt.wantType || !strings.Contains(res.Message, tt.wantIn) {
				t.Errorf("result %+v, want %s with %q", *res, tt.wantType, tt.wantIn)
			}
		})
	}
	if _, _, err := calls.Check(context.Background(), registry.LoadToolGroupName, json.RawMessage(`{"group_name":"notes"}`)); err == nil {
		t.Error("load_tool_group was not refused: its caller runs it")
	}
}

// A tool that acts asks the user each time until they allow it for the
// session; a tool that reads runs unasked; secrets are granted only by the
// user, and a secret's value never comes back.
func TestModelCallsApproval(t *testing.T) {
	ctx := context.Background()
	h := modelCallHost(t, []session.Policy{{Tool: "note_eval", Decision: registry.DecisionAllow}})
	calls := h.NewModelCalls()
	check := func(tool, input string) host.ModelCall {
		t.Helper()
		c, res, err := calls.Check(ctx, tool, json.RawMessage(input))
		if err != nil || res != nil {
			t.Fatalf("%s %s: %v %+v", tool, input, err, res)
		}
		return c
	}
	output := func(r registry.Result) string {
		t.Helper()
		if r.Status != registry.StatusSuccess {
			t.Fatalf("failed: %s", r.Content())
		}
		return r.Output
	}

	if c := check("note_read", `{"text":"a"}`); c.Ask {
		t.Error("a tool that reads asks")
	} else if got := output(calls.Run(ctx, c)); got != `did {"text":"a"}` {
		t.Errorf("read: %q", got)
	}

	w := check("note_write", `{"text":"b"}`)
	if !w.Ask {
		t.Fatal("a tool that writes runs unasked")
	}
	if r := calls.Run(ctx, w); r.ErrorType != "approval_needed" {
		t.Errorf("Run of a call that asks: %+v", r)
	}
	if r := calls.Answer(ctx, w, session.AnswerDeny); r.ErrorType != "denied" || !strings.Contains(r.Message, "The user denied this call of 'note_write'") {
		t.Errorf("denied: %+v", r)
	}
	if got := output(calls.Answer(ctx, w, session.AnswerOnce)); got != `did {"text":"b"}` {
		t.Errorf("allowed once: %q", got)
	}
	if !check("note_write", `{"text":"c"}`).Ask {
		t.Error("once allowed the next call too")
	}
	output(calls.Answer(ctx, check("note_write", `{"text":"c"}`), session.AnswerSession))
	if check("note_write", `{"text":"d"}`).Ask {
		t.Error("allowed for the session, it still asks")
	}
	if other, _, _ := h.NewModelCalls().Check(ctx, "note_write", json.RawMessage(`{"text":"d"}`)); !other.Ask {
		t.Error("another conversation inherited the answer")
	}

	// The user's rule allows note_eval, but secrets are theirs to grant.
	if c := check("note_eval", `{"text":"e"}`); c.Ask {
		t.Error("allowed by the rule, without secrets, it asks")
	} else if got := output(calls.Run(ctx, c)); got != "granted ; key [redacted NOTES_KEY]" {
		t.Errorf("without secrets: %q", got)
	}
	e := check("note_eval", `{"text":"e","secrets":["NOTES_KEY","google"]}`)
	if !e.Ask || len(e.Granted) > 0 {
		t.Fatalf("a call asking for secrets: ask %v, granted %v", e.Ask, e.Granted)
	}
	if got := output(calls.Answer(ctx, e, session.AnswerSession)); got != "granted NOTES_KEY,google; key [redacted NOTES_KEY]" {
		t.Errorf("with secrets: %q", got)
	}
	if again := check("note_eval", `{"text":"e","secrets":["google"]}`); again.Ask || strings.Join(again.Granted, ",") != "google" {
		t.Errorf("the session's grant: ask %v, granted %v", again.Ask, again.Granted)
	}
}
