package session

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/toolroute/toolroute/registry"
)

// Decide is what a turn decides before it runs a call, and what a host
// that runs a model's calls one by one (toolroute mcp) decides with it.
func TestDecide(t *testing.T) {
	send := registry.Tool{Name: "gmail_send", Group: "google_gmail", RequiredPermissions: []string{registry.PermissionSend}}
	search := registry.Tool{Name: "gmail_search", Group: "google_gmail", RequiredPermissions: []string{registry.PermissionRead}}
	eval := registry.Tool{Name: "js_eval", RequiredPermissions: []string{registry.PermissionRunCode, registry.PermissionSecrets}}
	always := func(tool string, grant ...string) Message {
		return Message{Type: ApprovalAnswer, ToolName: tool, Content: string(AnswerSession), Grant: grant}
	}
	once := Message{Type: ApprovalAnswer, ToolName: "gmail_send", Content: string(AnswerOnce)}
	exec := registry.Tool{Name: "exec", RequiredPermissions: []string{registry.PermissionWrite, registry.PermissionRunCode, registry.PermissionUnsandboxed}}
	tests := []struct {
		name        string
		tool        registry.Tool
		policies    []Policy
		log         []Message
		secrets     []string
		want        registry.Decision
		wantGranted []string
	}{
		{name: "a tool that sends asks by default", tool: send, want: registry.DecisionAsk},
		{name: "a tool that reads runs by default", tool: search, want: registry.DecisionAllow},
		{name: "the group's rule", tool: search, policies: []Policy{{Group: "google_gmail", Decision: registry.DecisionAsk}}, want: registry.DecisionAsk},
		{name: "the tool's rule wins over its group's, in any order", tool: send,
			policies: []Policy{{Tool: "gmail_send", Decision: registry.DecisionAllow}, {Group: "google_gmail", Decision: registry.DecisionDeny}},
			want:     registry.DecisionAllow},
		{name: "another tool's rule is not this one's", tool: send, policies: []Policy{{Tool: "gmail_search", Decision: registry.DecisionAllow}}, want: registry.DecisionAsk},
		{name: "approved for the session", tool: send, log: []Message{always("gmail_send")}, want: registry.DecisionAllow},
		{name: "approved once only", tool: send, log: []Message{once}, want: registry.DecisionAsk},
		{name: "a session approval does not lift a deny", tool: send, log: []Message{always("gmail_send")},
			policies: []Policy{{Tool: "gmail_send", Decision: registry.DecisionDeny}}, want: registry.DecisionDeny},
		{name: "secrets ask whatever the rules allow", tool: eval, secrets: []string{"google"},
			policies: []Policy{{Tool: "js_eval", Decision: registry.DecisionAllow}}, want: registry.DecisionAsk},
		{name: "secrets the session granted run with them", tool: eval, secrets: []string{"WEATHER_KEY"},
			log: []Message{always("js_eval", "google", "WEATHER_KEY")}, want: registry.DecisionAllow, wantGranted: []string{"WEATHER_KEY"}},
		{name: "a secret the session did not grant asks", tool: eval, secrets: []string{"google", "OTHER"},
			log: []Message{always("js_eval", "google")}, want: registry.DecisionAsk},
		{name: "an unsandboxed tool asks whatever the rules allow", tool: exec,
			policies: []Policy{{Tool: "exec", Decision: registry.DecisionAllow}}, want: registry.DecisionAsk},
		{name: "an unsandboxed tool asks though approved for the session", tool: exec, log: []Message{always("exec")}, want: registry.DecisionAsk},
		{name: "a rule may deny an unsandboxed tool", tool: exec, policies: []Policy{{Tool: "exec", Decision: registry.DecisionDeny}}, want: registry.DecisionDeny},
		{name: "denied calls are granted nothing", tool: eval, secrets: []string{"google"},
			log: []Message{always("js_eval", "google")}, policies: []Policy{{Tool: "js_eval", Decision: registry.DecisionDeny}}, want: registry.DecisionDeny},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, granted := Decide(tt.tool, tt.policies, tt.log, tt.secrets)
			if got != tt.want {
				t.Errorf("decision %q, want %q", got, tt.want)
			}
			if diff := cmp.Diff(tt.wantGranted, granted); diff != "" {
				t.Errorf("granted (-want +got):\n%s", diff)
			}
		})
	}
}
