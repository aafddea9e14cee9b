// Package abi is the boundary between toolroute's wasm module and its hosts:
// the ABI version, the export names, the JSON envelope every export answers
// with, the payloads, and Guest, the module's side of each export, which the
// module wraps in //go:wasmexport functions and tests run natively.
//
// wasm/ABI.md is the normative specification; this package and that document
// change together. Only the standard library and registry/ are imported here,
// so the module stays small.
package abi

import (
	"encoding/json"

	"github.com/toolroute/toolroute/registry"
)

// Version is the ABI version the module speaks, answered by
// toolroute_abi_version. A host refuses a module whose version it does not
// speak. It changes when an export is removed or changes meaning; adding an
// export or an optional JSON field does not change it.
const Version = 2

// The module's exports.
const (
	ExportVersion   = "toolroute_abi_version"
	ExportAlloc     = "toolroute_alloc"
	ExportFree      = "toolroute_free"
	ExportLoad      = "toolroute_load"
	ExportDescribe  = "toolroute_describe"
	ExportTurnNew   = "toolroute_turn_new"
	ExportTurnEvent = "toolroute_turn_event"
	ExportTurnChunk = "toolroute_turn_chunk"
	ExportTurnFree  = "toolroute_turn_free"
	ExportTurnBody  = "toolroute_turn_body"
	ExportDemo      = "toolroute_demo"
	// ExportRetry decides a retry outside a turn (a model proxy's).
	ExportRetry = "toolroute_retry"
	// ExportCheck checks a host operation's arguments before its I/O.
	ExportCheck = "toolroute_check"
	// ExportWordVectors is optional for a host: without it, tool search
	// ranks by shared words alone.
	ExportWordVectors = "toolroute_word_vectors"
)

// MaxTurns is how many turns may be open at once in one instance.
const MaxTurns = 256

// MaxAlloc is the largest buffer toolroute_alloc gives, 256 MiB: the
// largest input any export takes. A larger request answers 0 rather than
// asking the Go runtime for memory it cannot get (it aborts when memory
// cannot grow, and the instance is dead): 0xffffffff bytes do not fit in a
// 32-bit memory at all.
const MaxAlloc = 256 << 20

// Envelope is the JSON every export that returns a result answers with:
// exactly one of OK and Error is present.
type Envelope struct {
	OK    json.RawMessage `json:"ok,omitempty"`
	Error *Error          `json:"error,omitempty"`
}

// Error is a refusal: the request was bad, or the module could not serve it.
// The instance stays usable.
type Error struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

// Error is the code and the message.
func (e *Error) Error() string { return "toolroute module: " + e.Code + ": " + e.Message }

// Error codes.
const (
	// CodeBadJSON: the request is not the JSON the export takes.
	CodeBadJSON = "bad_json"
	// CodeNoCatalogue: toolroute_load has not been called yet.
	CodeNoCatalogue = "no_catalogue"
	// CodeUnknownTurn: no open turn has that handle.
	CodeUnknownTurn = "unknown_turn"
	// CodeTooManyTurns: MaxTurns turns are open; free finished ones.
	CodeTooManyTurns = "too_many_turns"
	// CodeBadEvent: the turn refused the event (session.ErrEvent); the turn
	// is unchanged.
	CodeBadEvent = "bad_event"
	// CodeBadVectors: the word vector table does not read (wordvec.Parse's
	// message says why); the module keeps the table it had.
	CodeBadVectors = "bad_vectors"
	// CodeInternal: the module failed (a recovered panic); the message says
	// where. The instance may be kept, but a host may prefer to replace it.
	CodeInternal = "internal"
)

// WordVectorsInfo is toolroute_word_vectors's answer: the table's size, 0
// and 0 when the table was taken away.
type WordVectorsInfo struct {
	Words      int `json:"words"`
	Dimensions int `json:"dimensions"`
}

// TurnHandle is toolroute_turn_new's answer.
type TurnHandle struct {
	Turn uint32 `json:"turn"`
}

// DescribeRequest asks toolroute_describe about the catalogue, and about one
// session when History is given.
type DescribeRequest struct {
	// SystemPrompt is the base prompt to assemble the full one from.
	SystemPrompt string `json:"system_prompt,omitempty"`
	// ToolsJSON asks for the tools' schemas as a model call sends them
	// (Description.ToolsJSON), for a token meter.
	ToolsJSON bool `json:"tools_json,omitempty"`
	// Memories are listed after it, as a turn's settings.memories are.
	Memories []string `json:"memories,omitempty"`
	// History is a session's log, to say which groups it has loaded.
	History json.RawMessage `json:"history,omitempty"`
	// Format and Routing, when given, ask which routing a turn with
	// those settings uses (Description.Routing).
	Format  string `json:"format,omitempty"`
	Routing string `json:"routing,omitempty"`
	// SearchTools, as a turn's settings.search_tools, puts search_tools in
	// Active and ToolsJSON where a turn in Format and Routing offers it.
	SearchTools bool `json:"search_tools,omitempty"`
	// ToolBudget, as a turn's settings.tool_budget, puts unload_tool_group
	// in Active and ToolsJSON where a turn offers it.
	ToolBudget int `json:"tool_budget,omitempty"`
	// AllowedGroups, as a turn's settings.allowed_groups, describes the
	// catalogue an agent with that allowlist sees.
	AllowedGroups []string `json:"allowed_groups,omitempty"`
}

// RoutingInfo says which routing a turn uses: what was asked, what is
// used, and why they differ (native asked of a format without native
// deferral).
type RoutingInfo struct {
	Asked string `json:"asked"`
	Used  string `json:"used"`
	Note  string `json:"note,omitempty"`
}

// Description is the catalogue for display: what a chat UI, `toolroute
// tokens` or a catalogue endpoint shows.
type Description struct {
	// SystemPrompt is the assembled prompt, as the next model call sends it.
	SystemPrompt string      `json:"system_prompt"`
	Groups       []GroupInfo `json:"groups"`
	// Tools lists every registered tool, disabled ones included, in
	// registration order.
	Tools []ToolInfo `json:"tools"`
	// Files groups the JS tools by the manifest that defined them, in the
	// order the files were loaded (as toolroute check shows them).
	Files  []FileInfo  `json:"files"`
	Skills []SkillInfo `json:"skills"`
	// Active is the tools the session's next model call sends, in order.
	Active []string `json:"active"`
	// LoadedGroups is the groups the session's history loaded, that exist.
	LoadedGroups []string `json:"loaded_groups"`
	// ToolsJSON, when asked for, is the "tools" value of the OpenAI request
	// that sends the active tools, and the one that sends every enabled
	// tool but the meta-tools (all tools without routing): what `toolroute
	// tokens` counts.
	ToolsJSON *ToolsJSON `json:"tools_json,omitempty"`
	// Routing, when the request gave a format, is the routing a turn in
	// it uses.
	Routing *RoutingInfo `json:"routing,omitempty"`
}

// ActiveTools are the definitions of the tools the session's next model
// call sends (Active), in order, as Tools gives them.
func (d Description) ActiveTools() []registry.Tool {
	tools := make([]registry.Tool, 0, len(d.Active))
	for _, name := range d.Active {
		for _, t := range d.Tools {
			if t.Name == name {
				tools = append(tools, t.Tool)
				break
			}
		}
	}
	return tools
}

// ToolsJSON is tool schemas as a model call sends them.
type ToolsJSON struct {
	Active string `json:"active"`
	All    string `json:"all"`
}

// GroupInfo is one group for display.
type GroupInfo struct {
	registry.Group
	// Tools are its enabled tools, in order.
	Tools []string `json:"tools"`
	// Available is false for a group with no enabled tool, which the model is
	// not offered.
	Available bool `json:"available"`
}

// ToolInfo is one tool for display.
type ToolInfo struct {
	registry.Tool
	Enabled bool `json:"enabled"`
}

// SkillInfo is one skill for display, without its content.
type SkillInfo struct {
	Name        string `json:"name"`
	Description string `json:"description"`
}

// FileInfo is one manifest file and the tools it defines.
type FileInfo struct {
	File   string   `json:"file"`
	Source string   `json:"source"`
	Group  string   `json:"group,omitempty"`
	Tools  []string `json:"tools"`
}
