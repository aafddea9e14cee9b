package registry

import "slices"

// What a tool does, as its manifest's requiredPermissions says
// (docs/reference/manifest.md):
// the user is asked before a tool that acts on the world runs.
const (
	// PermissionRead: it only reads (the user's data, files, the clock, a
	// page); it changes nothing. A tool that says read and none of write,
	// send, delete, share, run_code or secrets is known not to act:
	// toolroute mcp tells its clients so (readOnlyHint). A tool that says
	// nothing is not known either way.
	PermissionRead = "read"
	// PermissionWrite: it creates or changes something outside the sandbox
	// folder (a document, a setting, a tool, a variable).
	PermissionWrite = "write"
	// PermissionSend: it sends something to other people (a message, an
	// invitation).
	PermissionSend = "send"
	// PermissionDelete: it deletes something.
	PermissionDelete = "delete"
	// PermissionShare: it gives other people access to something.
	PermissionShare = "share"
	// PermissionRunCode: it runs code the model wrote.
	PermissionRunCode = "run_code"
	// PermissionNetwork: it reaches addresses the model chooses, on the
	// internet (http_request, webfetch, the browser, a sub-agent's model
	// calls). It does not make the tool ask; it tells the user and MCP
	// clients (openWorldHint) that the tool's world is open.
	PermissionNetwork = "network"
	// PermissionUnsandboxed: it runs outside any sandbox, as the user (the
	// Go program's exec): every run asks, whatever the user's rules and
	// earlier answers allow; a rule may only deny it (AsksEveryRun).
	PermissionUnsandboxed = "unsandboxed"
	// PermissionGoogle: it uses the user's Google account (the google
	// bridge).
	PermissionGoogle = "google"
	// PermissionSecrets: its calls may ask for secrets in a "secrets"
	// argument (an array of "google" and names of the user's variables);
	// such a call asks the user first, whatever the policy allows, and runs
	// with only the secrets the user grants (see ValidSecret).
	PermissionSecrets = "secrets"
)

// ValidSecret reports whether s names a secret a call may ask for: "google"
// (the Google account) or an environment variable's name, such as
// WEATHER_API_KEY (letters, digits and _, not starting with a digit).
func ValidSecret(s string) bool {
	if s == PermissionGoogle {
		return true
	}
	if s == "" || len(s) > 128 || (s[0] >= '0' && s[0] <= '9') {
		return false
	}
	for _, c := range s {
		if !(c == '_' || c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// Decision is a policy's answer for a tool: ask the user first, allow it,
// or deny it.
type Decision string

const (
	// DecisionAsk asks the user before the call runs.
	DecisionAsk Decision = "ask"
	// DecisionAllow runs the call without asking.
	DecisionAllow Decision = "allow"
	// DecisionDeny refuses the call without asking.
	DecisionDeny Decision = "deny"
)

// ValidDecision reports whether d is ask, allow or deny.
func ValidDecision(d Decision) bool {
	return d == DecisionAsk || d == DecisionAllow || d == DecisionDeny
}

// asking are the permissions whose tools ask by default.
var asking = []string{PermissionWrite, PermissionSend, PermissionDelete, PermissionShare, PermissionUnsandboxed}

// AsksEveryRun reports whether every call of t asks the user, whatever
// the rules and the session's answers allow: a tool that runs unsandboxed.
func AsksEveryRun(t Tool) bool {
	return slices.Contains(t.RequiredPermissions, PermissionUnsandboxed)
}

// DefaultDecision is a tool's policy when the user set none: ask for a tool
// that writes outside the sandbox, sends, deletes or shares; allow the
// others.
func DefaultDecision(t Tool) Decision {
	for _, p := range t.RequiredPermissions {
		if slices.Contains(asking, p) {
			return DecisionAsk
		}
	}
	return DecisionAllow
}
