package session

import (
	"bytes"
	"encoding/json"
	"time"

	"github.com/toolroute/toolroute/registry"
	"github.com/toolroute/toolroute/registry/internal/jsondec"
	"github.com/toolroute/toolroute/registry/wire"
)

// DefaultMaxModelCalls is the limit of model calls in one turn.
const DefaultMaxModelCalls = 25

// Settings are the agent's settings for one turn.
type Settings struct {
	// SystemPrompt is the base system prompt; the skills and the tool group
	// listing are added to it.
	SystemPrompt string      `json:"system_prompt,omitempty"`
	Format       wire.Format `json:"format"`
	Model        string      `json:"model"`
	// MaxModelCalls ends the turn after this many model calls; 0 means
	// DefaultMaxModelCalls.
	MaxModelCalls int `json:"max_model_calls,omitempty"`
	// MaxTokens caps each reply; 0 leaves it to the provider (Anthropic gets
	// wire.DefaultMaxTokens).
	MaxTokens   int      `json:"max_tokens,omitempty"`
	Temperature *float64 `json:"temperature,omitempty"`
	// Stream asks the provider to stream its responses.
	Stream bool `json:"stream,omitempty"`
	// Policies are the user's rules for asking before tools run, by tool or
	// by group; a tool with none follows registry.DefaultDecision.
	Policies []Policy `json:"policies,omitempty"`
	// Memories are what the user asked to remember (save_memory): the
	// system prompt lists them after the base prompt (see WithMemories).
	Memories []string `json:"memories,omitempty"`
	// Approvals says the host can put ask_approval questions to a user.
	// Without it (a piped chat, a scheduled run, a host that predates
	// approvals) a call that would ask is refused, with a message saying
	// how to allow it.
	Approvals bool `json:"approvals,omitempty"`
	// Unattended says no one watches the turn (a scheduled task's run):
	// a call that would ask is refused saying so, rather than saying the
	// chat is not interactive, even when Approvals says the host could
	// ask.
	Unattended bool `json:"unattended,omitempty"`
	// AllowHint is the sentence that ends an approval_needed refusal:
	// how the user allows a tool that asks, in this host (a command, a
	// setting), "{tool}" standing for the tool's name. Empty gives a
	// sentence that names no host's way.
	AllowHint string `json:"allow_hint,omitempty"`
	// Routing is "classic" (the default) or "native": groups sent deferred
	// and loaded where the load stands, for the formats that can
	// (RoutingFor); the others use classic.
	Routing Routing `json:"routing,omitempty"`
	// SearchTools offers the search_tools meta-tool beside load_tool_group:
	// the model finds tools by what they do and loads just those. Not in
	// a Responses request routed natively, whose tool_search is the load.
	SearchTools bool `json:"search_tools,omitempty"`
	// HostSearch makes the host rank search_tools' tools: a search whose
	// arguments are right is a call for the host to run (Call.Search),
	// answered with the tools it found, best first (Result.Tools); the turn
	// then loads them as it loads its own ranking's. For a host with a
	// better ranking than the module's (the Go host's sentence encoder).
	HostSearch bool `json:"host_search,omitempty"`
	// ToolBudget is the most tokens the tools of one model call may take,
	// estimated from their JSON's bytes (EstimateTokens); 0 is no budget. A load
	// that passes it unloads the least recently used groups, and the model
	// is told which; unload_tool_group is offered. Classic routing only:
	// a native load stays in the conversation it was made in.
	ToolBudget int `json:"tool_budget,omitempty"`
	// ContextLimit is the model's context window in tokens; 0 means the
	// window KnownContextLimit gives for the model, if any. A model call
	// whose request would take more than 80 % of it first compacts the
	// log: a model call summarises the older messages (Summary).
	ContextLimit int `json:"context_limit,omitempty"`
	// AllowedGroups is an agent's allowlist: the turn sees only these tool
	// groups (registry.Restrict), in no listing, load or search the others.
	// None is every group.
	AllowedGroups []string `json:"allowed_groups,omitempty"`
	// MaxTurnTokens ends the turn with token_limit before a model call once
	// the turn's calls used this many tokens (input and output, as the
	// provider reported them); 0 is no limit. A sub-agent's turn has one.
	MaxTurnTokens int `json:"max_turn_tokens,omitempty"`
	// ShowConsole adds a JS tool's console output (Result.Console) to
	// what the model reads of a success too; a failure always has it
	// (WithConsole).
	ShowConsole bool `json:"show_console,omitempty"`
	// SchemaText adds to each call_model request's Schema the text of each
	// part it measures, so that a host counts them in its own tokenizer's
	// tokens (the Go host's o200k_base) without a registry of its own.
	SchemaText bool `json:"schema_text,omitempty"`
	// NoBody says the host makes no model call itself: an app's own
	// loop (the AI SDK adapter's) calls its model and feeds the module
	// its replies. The module then builds no request body (call_model
	// has none, toolroute_turn_body answers nothing) and keeps no
	// conversation encoded for one, so that a call costs the messages
	// added since the last, whatever the log's length; it never
	// compacts the log.
	NoBody bool `json:"no_body,omitempty"`
}

// Policy is the user's rule for a tool, or for every tool of a group: ask
// before it runs, allow it, or deny it. A tool's rule wins over its group's.
type Policy struct {
	Tool     string            `json:"tool,omitempty"`
	Group    string            `json:"group,omitempty"`
	Decision registry.Decision `json:"decision"`
}

// Answer is the user's answer to an approval: run this call once, run this
// tool for the rest of the session without asking, or do not run it.
type Answer string

const (
	// AnswerOnce runs this call.
	AnswerOnce Answer = "once"
	// AnswerSession runs this call and the tool's later calls in the
	// session without asking.
	AnswerSession Answer = "session"
	// AnswerDeny refuses this call.
	AnswerDeny Answer = "deny"
)

// Approval answers one call an ask_approval action asked about. Grant is
// the secrets the user lets the call read, of those it asked for (its
// Secrets); any other name is ignored.
type Approval struct {
	ID     string   `json:"id"`
	Answer Answer   `json:"answer"`
	Grant  []string `json:"grant,omitempty"`
}

// EventType says what an event is.
type EventType string

const (
	// EventStart starts the turn: History, User, Attachments, Settings, Now.
	EventStart EventType = "start"
	// EventResponse is the model's whole response body: Body.
	EventResponse EventType = "response"
	// EventChunk is the next bytes of a streamed response body, cut anywhere:
	// Data.
	EventChunk EventType = "chunk"
	// EventStreamEnd is the end of a streamed response body.
	EventStreamEnd EventType = "stream_end"
	// EventModelError is a model call that failed: Status, Body and
	// RetryAfter for an HTTP error, Error for a call that got no response
	// at all. With Retries the turn may answer ActionRetry.
	EventModelError EventType = "model_error"
	// EventToolResults are the results of some or all of the calls a run_tools
	// action asked for: Results.
	EventToolResults EventType = "tool_results"
	// EventReload makes the turn use the catalogue loaded last from its next
	// model call: see Turn.Reload.
	EventReload EventType = "reload"
	// EventApproval answers every call of an ask_approval action: Approvals.
	EventApproval EventType = "approval"
	// EventStop ends the turn now, because the user stopped it: the turn
	// logs the text streamed of the model's response so far, as its
	// assistant message, and a TurnEnd, and fails with code "stopped".
	EventStop EventType = "stop"
)

// Event is something that happened, fed to Turn.Handle.
type Event struct {
	Type EventType `json:"type"`
	// Now is the current time; messages are stamped with the latest given.
	Now time.Time `json:"now,omitzero"`

	History []Message `json:"history,omitempty"`
	User    string    `json:"user,omitempty"`
	// Attachments are the files attached to the user message, each its
	// name and bytes (Attachment): the turn checks them (AttachFiles) and
	// refuses the start over any it cannot send.
	Attachments []Attachment `json:"attachments,omitempty"`
	Settings    Settings     `json:"settings,omitzero"`
	// Compact, on a start with no user message, compacts the history now
	// (a chat's /compact): the turn summarises it and ends.
	Compact bool `json:"compact,omitempty"`
	// Session names the session, and Fingerprint the state of its log a
	// turn of it left (Cache): given both, a module instance that holds
	// that state (Turn.Resume) takes History as the messages added to the
	// log since, and asks for the whole log when it does not. The turn
	// itself ignores them.
	Session     string `json:"session,omitempty"`
	Fingerprint string `json:"fingerprint,omitempty"`
	// history is History left as the JSON text it came in (ReadEvent),
	// or nil: History is then nil too, and the turn decodes the messages
	// one at a time as it adds them to its Log.
	history *rawHistory

	Body Bytes `json:"body,omitempty"`
	Data Bytes `json:"data,omitempty"`
	// response is Body decoded as a response as the event was read
	// (UnmarshalEventIn), or nil.
	response *readResponse

	Status int    `json:"status,omitempty"`
	Error  string `json:"error,omitempty"`
	// RetryAfter is an HTTP error's Retry-After header, as it came.
	RetryAfter string `json:"retry_after,omitempty"`
	// Retries is how the host may try the failed call again: the turn
	// then decides whether it does (ActionRetry). Nil ends the turn, as
	// for a host that retried on its own.
	Retries *Retries `json:"retries,omitempty"`

	Results []Result `json:"results,omitempty"`

	Approvals []Approval `json:"approvals,omitempty"`
}

// readResponse is a response body decoded in format.
type readResponse struct {
	format wire.Format
	resp   wire.Response
	err    error
}

// decode is the event's body decoded as a response in format f: as it
// was read, or now.
func (e *Event) decode(f wire.Format) (wire.Response, error) {
	if d := e.response; d != nil && d.format == f {
		return d.resp, d.err
	}
	return wire.Decode(f, e.Body)
}

// Result is the outcome of one tool call the host ran.
type Result struct {
	ID string `json:"id"`
	registry.Result
	// Tools answers a search call (Call.Search) that succeeded: the
	// tools found, best first; none (absent or empty) is not_found.
	Tools []string `json:"tools,omitempty"`
	// Console is the console output of a JS call, a line "level: text"
	// each: the turn adds it to what the model reads (WithConsole).
	Console []string `json:"console,omitempty"`
}

// Bytes is a body or chunk of bytes. In JSON it is a string holding the
// bytes, or, for a body that is itself JSON, that JSON value as it stands.
type Bytes []byte

// UnmarshalJSON reads a string as its bytes and any other value as its JSON.
func (b *Bytes) UnmarshalJSON(data []byte) error {
	if len(data) > 0 && data[0] == '"' {
		var s string
		if err := json.Unmarshal(data, &s); err != nil {
			return err
		}
		*b = Bytes(s)
		return nil
	}
	*b = append((*b)[:0], data...)
	return nil
}

// MarshalJSON writes a JSON object or array as it stands and anything else as
// a string; so too one that would make the event holding it nest past
// registry.MaxDepth, which would refuse the event (UnmarshalEventIn),
// whereas given as a string it is refused by the turn as the bad response
// it is.
func (b Bytes) MarshalJSON() ([]byte, error) {
	t := bytes.TrimSpace(b)
	// In an event the value is one level deeper than on its own.
	if len(t) > 0 && (t[0] == '{' || t[0] == '[') && jsondec.TooDeep(t, registry.MaxDepth-1) < 0 && json.Valid(t) {
		var buf bytes.Buffer
		if err := json.Compact(&buf, t); err != nil {
			return nil, err
		}
		return buf.Bytes(), nil
	}
	return json.Marshal(string(b))
}

// ActionType says what an action asks of the host.
type ActionType string

const (
	// ActionCallModel: make the model call in Request, then feed its response
	// (EventResponse, or EventChunk and EventStreamEnd) or its failure
	// (EventModelError).
	ActionCallModel ActionType = "call_model"
	// ActionRunTools: run every call in Calls, in parallel if you like, and
	// feed their results (EventToolResults), all at once or as they finish.
	ActionRunTools ActionType = "run_tools"
	// ActionAskApproval: ask the user whether each call in Calls may run,
	// then feed the answers (EventApproval), all at once.
	ActionAskApproval ActionType = "ask_approval"
	// ActionAppend: append Messages to the session's log, in order, before
	// performing any later action.
	ActionAppend ActionType = "append"
	// ActionTextDelta: the model streamed Text.
	ActionTextDelta ActionType = "text_delta"
	// ActionGroupLoaded: a tool group was loaded; Group says which tools it
	// added and which are now active.
	ActionGroupLoaded ActionType = "group_loaded"
	// ActionDone: the turn is over; Text is the model's final answer.
	ActionDone ActionType = "done"
	// ActionFailed: the turn is over without an answer; Error says why. Every
	// message appended so far stays in the log.
	ActionFailed ActionType = "failed"
	// ActionCache: the turn, kept (Turn.Keep), is ending, and Cache names
	// the state of the session's log it leaves, for the next turn's start
	// event. It comes just before done or failed.
	ActionCache ActionType = "cache"
	// ActionRetry: the model call failed with a status worth trying again
	// (Event.Retries): wait Retry.WaitMS, send the same request again,
	// and feed its outcome as the call's.
	ActionRetry ActionType = "retry"
	// ActionNeedHistory: the start event named a session and a fingerprint
	// of a state of its log that this instance does not hold (Logs.Start).
	// The turn is unchanged: send the start event again with the whole
	// history and no fingerprint.
	ActionNeedHistory ActionType = "need_history"
)

// Action is something the host must do.
type Action struct {
	Type     ActionType    `json:"type"`
	Request  *ModelRequest `json:"request,omitempty"`
	Calls    []Call        `json:"calls,omitempty"`
	Messages []Message     `json:"messages,omitempty"`
	Text     string        `json:"text,omitempty"`
	Group    *GroupLoad    `json:"group,omitempty"`
	Error    *Failure      `json:"error,omitempty"`
	// Usage is the tokens the turn's model calls used, on done and failed.
	Usage *wire.Usage `json:"usage,omitempty"`
	// Cache is the state of the session's log a kept turn leaves
	// (ActionCache).
	Cache *Cache `json:"cache,omitempty"`
	// Retry is the model call to try again (ActionRetry).
	Retry *Retry `json:"retry,omitempty"`
}

// Cache names the state of a session's log a turn left, which a module
// instance may keep: the fingerprint to give in the next turn's start
// event, and how many messages of the log it covers (the history to give
// with it is the log's messages after those).
type Cache struct {
	Fingerprint string `json:"fingerprint"`
	Messages    int    `json:"messages"`
}

// ModelRequest is one model call: POST Path, relative to the provider's base
// URL, with Headers and Body; the host adds authentication.
type ModelRequest struct {
	Format  wire.Format       `json:"format"`
	Path    string            `json:"path"`
	Headers map[string]string `json:"headers"`
	// Body is the request body. The module hands it out through its own
	// export, toolroute_turn_body, and leaves it out of the action.
	Body   json.RawMessage `json:"body,omitempty"`
	Stream bool            `json:"stream,omitempty"`
	// Tools names the tools the model can call with this request, in
	// order: the core tools and the loaded groups' (in classic routing,
	// the tools the request sends).
	Tools []string `json:"tools"`
	// Routing is "native" when the request sends groups deferred; absent
	// for classic.
	Routing Routing `json:"routing,omitempty"`
	// Deferred names the tools a native request sends deferred, which the
	// model cannot call until a load brings their group in.
	Deferred []string `json:"deferred,omitempty"`
	// Call is the call's number in the turn, from 1.
	Call int `json:"call"`
	// Schema is what the call spends on tool schemas.
	Schema *Schema `json:"schema,omitempty"`
	// Compaction marks the call that summarises the log: never streamed,
	// its reply is the summary, not the assistant's.
	Compaction bool `json:"compaction,omitempty"`
}

// Call is one tool call for the host to run.
type Call struct {
	ID   string `json:"id"`
	Tool string `json:"tool"`
	// Input is the arguments, a JSON object checked against the tool's
	// required parameters.
	Input json.RawMessage `json:"input"`
	// Origin says how to run the tool: a JS tool's source reference and
	// function, or a host-native tool.
	Origin              registry.Origin `json:"origin"`
	TimeoutSeconds      int             `json:"timeout_seconds"`
	Env                 []string        `json:"env,omitempty"`
	RequiredPermissions []string        `json:"required_permissions,omitempty"`
	// Secrets are the secrets the call asks for in its "secrets" argument
	// (a tool with the "secrets" permission): shown to the user, who
	// grants some, all or none.
	Secrets []string `json:"secrets,omitempty"`
	// Granted are the secrets the user granted the call, in run_tools: the
	// host gives it these and no others beyond its manifest's.
	Granted []string `json:"granted,omitempty"`
	// Search is, for a search_tools call the host ranks
	// (Settings.HostSearch; its Origin's kind is registry.OriginSearch),
	// what to rank.
	Search *SearchCall `json:"search,omitempty"`
}

// SearchCall is a search_tools call for the host to rank: its query
// (trimmed), how many tools it wants at most, and the tools it may find,
// in registration order: the enabled tools of the groups the turn sees
// (registry.SearchCandidates). The host answers with the best of
// Candidates, best first, in Result.Tools; the turn drops any other name.
type SearchCall struct {
	Query      string   `json:"query"`
	Limit      int      `json:"limit"`
	Candidates []string `json:"candidates"`
}

// GroupLoad reports a tool group loaded during the turn.
type GroupLoad struct {
	Name        string `json:"name"`
	DisplayName string `json:"display_name"`
	// Added are the group's tools, appended to the active list.
	Added []string `json:"added"`
	// Query is, for a search_tools load, what was searched; Name and
	// DisplayName are then empty and Added are the tools found that were
	// not loaded yet.
	Query string `json:"query,omitempty"`
	// Unloaded are the tools the load unloaded to stay within the tool
	// budget (Settings.ToolBudget).
	Unloaded []string `json:"unloaded,omitempty"`
	found    []string // a search's tools, logged on its call
	// Active is the whole active list the next model call sends.
	Active []string `json:"active"`
}

// Failure says why a turn ended without an answer.
type Failure struct {
	// Code is "model_error" (the provider refused or could not be reached),
	// "bad_response" (its response could not be read) or "iteration_limit".
	Code    string `json:"code"`
	Message string `json:"message"`
}

// MarshalActions encodes actions as a JSON array without HTML escaping, so
// request bodies and texts keep "<", ">" and "&" as the model wrote them.
// Every host that moves actions as JSON uses it, so all give the same bytes.
func MarshalActions(actions []Action) ([]byte, error) {
	return AppendActions(nil, actions)
}

// AppendActions appends actions to dst as MarshalActions encodes them: a
// host writes them into the memory of its answer, with no copy.
func AppendActions(dst []byte, actions []Action) ([]byte, error) {
	if b, err := appendActions(dst, actions); err == nil {
		return b, nil
	}
	b, err := marshalActionsReflect(actions) // encoding/json's error
	if err != nil {
		return nil, err
	}
	return append(dst, b...), nil
}

// marshalActionsReflect is MarshalActions by encoding/json alone.
func marshalActionsReflect(actions []Action) ([]byte, error) {
	if actions == nil {
		actions = []Action{}
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(actions); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}
