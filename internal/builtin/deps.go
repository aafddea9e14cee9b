// Package builtin holds toolroute's host-native tools, the
// js_tool_management group (create, list, update and delete user JS
// tools), and the toolroute bridge's operations over the store (ops.go)
// that the built-in JS tools of manifests/ reach: memories, history,
// settings, variables for tools, tool states, stored providers, their
// models and agents. The other built-in tools,
// webfetch among them, are JS (manifests/), the same in every host.
package builtin

import (
	"context"
	"encoding/json"
	"net/http"

	"github.com/toolroute/toolroute/host"
	"github.com/toolroute/toolroute/host/jsrun"
	"github.com/toolroute/toolroute/host/store"
	"github.com/toolroute/toolroute/internal/schedule"
	"github.com/toolroute/toolroute/registry"
)

// Deps are what the tools work with.
type Deps struct {
	Store *store.DB
	JS    *jsrun.Runner
	// ToolsDir is the user tools folder js_tool_management writes.
	ToolsDir string
	// Reload applies a change to the catalogue: new tools, tool states.
	Reload func(ctx context.Context) error
	// SetDisabled gives the host the disabled tools' names.
	SetDisabled func(names []string)
	// Tools lists the catalogue's tools, disabled ones included, with their
	// state; list_tool_states shows it.
	Tools func(ctx context.Context) ([]registry.ToolState, error)
	// Settings names the settings set_config may change.
	Settings []SettingSpec
	// ModelLists reads providers' model lists (fetch_models); nil means a
	// client with a 30-second timeout.
	ModelLists *http.Client
	// Schedule keeps and runs the scheduled tasks; nil leaves the
	// scheduled_tasks group's operations out.
	Schedule *schedule.Service
	// RunAgent runs an agent's turn on a task as a sub-agent of the turn
	// ctx's tool call belongs to (create_agent); nil leaves agents.run out.
	RunAgent func(ctx context.Context, ag AgentRecord, task string) (AgentRun, error)
}

// SettingSpec is one setting the config group manages.
type SettingSpec struct {
	Key         string
	Description string
	// Default is the value when none is set.
	Default string
	// Check refuses a bad value with an error saying what is expected.
	Check func(string) error
}

// Setting keys in the store.
const (
	EnvPrefix      = "env."           // env.NAME: a variable tools may read
	DisabledPrefix = "tool.disabled." // tool.disabled.NAME: "true"
)

func schema(s string) json.RawMessage { return json.RawMessage(s) }

func args[T any](in json.RawMessage) (T, error) {
	var v T
	if err := json.Unmarshal(in, &v); err != nil {
		return v, &host.ToolError{Type: "invalid_arguments", Message: "the arguments do not match the parameters: " + err.Error()}
	}
	return v, nil
}
