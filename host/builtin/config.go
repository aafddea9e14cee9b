package builtin

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/toolroute/toolroute/host"
	"github.com/toolroute/toolroute/registry"
)

// Groups returns the host-native tool groups, in the order they are listed.
func Groups() []registry.Group {
	return []registry.Group{
		{Name: "config", DisplayName: "Configuration", Description: "Manage settings such as the model, the environment variables tools may read, and which tools are enabled"},
		{Name: "js_tool_management", DisplayName: "JS Tool Management", Description: "Create, list, update, and delete user JavaScript tools"},
	}
}

// Config returns the config group's tools.
func Config(d Deps) []host.NativeTool {
	group := func(t registry.Tool) registry.Tool { t.Group = "config"; t.TimeoutSeconds = 10; return t }
	var keys []string
	for _, s := range d.Settings {
		keys = append(keys, s.Key)
	}
	keyEnum, _ := json.Marshal(keys)
	spec := func(key string) (SettingSpec, bool) {
		for _, s := range d.Settings {
			if s.Key == key {
				return s, true
			}
		}
		return SettingSpec{}, false
	}
	return []host.NativeTool{
		{
			Tool: group(registry.Tool{Name: "list_settings", RequiredPermissions: []string{registry.PermissionRead}, Description: "List toolroute's settings (such as the model) with their values and what each does.",
				Parameters: schema(`{"type":"object","properties":{}}`)}),
			Run: func(ctx context.Context, _ json.RawMessage) (string, error) {
				var b strings.Builder
				for i, s := range d.Settings {
					v, ok, err := d.Store.Setting(ctx, s.Key)
					if err != nil {
						return "", err
					}
					if !ok {
						v = s.Default + " (default)"
					}
					if i > 0 {
						b.WriteByte('\n')
					}
					fmt.Fprintf(&b, "- %s = %s: %s", s.Key, v, s.Description)
				}
				return b.String(), nil
			},
		},
		{
			Tool: group(registry.Tool{Name: "set_setting", RequiredPermissions: []string{registry.PermissionWrite}, Description: "Change a setting, such as the model. The change applies from the next message.",
				Parameters: schema(`{"type":"object","properties":{"key":{"type":"string","enum":` + string(keyEnum) + `},"value":{"type":"string","description":"The new value; empty restores the default"}},"required":["key","value"]}`)}),
			Run: func(ctx context.Context, in json.RawMessage) (string, error) {
				a, err := args[struct{ Key, Value string }](in)
				if err != nil {
					return "", err
				}
				s, ok := spec(a.Key)
				if !ok {
					return "", &host.ToolError{Type: "not_found", Message: fmt.Sprintf("no setting %q: use one of %s", a.Key, strings.Join(keys, ", "))}
				}
				if a.Value == "" {
					return fmt.Sprintf("%s restored to its default, %s.", a.Key, s.Default), d.Store.DeleteSetting(ctx, a.Key)
				}
				if s.Check != nil {
					if err := s.Check(a.Value); err != nil {
						return "", &host.ToolError{Type: "invalid_arguments", Message: err.Error()}
					}
				}
				return fmt.Sprintf("%s is now %s.", a.Key, a.Value), d.Store.SetSetting(ctx, a.Key, a.Value)
			},
		},
		{
			Tool: group(registry.Tool{Name: "list_env_vars", RequiredPermissions: []string{registry.PermissionRead}, Description: "List the environment variables set for JS tools, by name (values are secret and not shown). A tool reads only the variables its manifest's env lists.",
				Parameters: schema(`{"type":"object","properties":{}}`)}),
			Run: func(ctx context.Context, _ json.RawMessage) (string, error) {
				vars, err := d.Store.Settings(ctx, EnvPrefix)
				if err != nil {
					return "", err
				}
				if len(vars) == 0 {
					return "No environment variables are set for tools.", nil
				}
				names := make([]string, len(vars))
				for i, v := range vars {
					names[i] = strings.TrimPrefix(v.Key, EnvPrefix)
				}
				return "Set: " + strings.Join(names, ", "), nil
			},
		},
		{
			Tool: group(registry.Tool{Name: "set_env_var", RequiredPermissions: []string{registry.PermissionWrite}, Description: "Set an environment variable JS tools may read (an API key, say); tools see it in params._env when their manifest lists it in env. An empty value removes it.",
				Parameters: schema(`{"type":"object","properties":{"name":{"type":"string","description":"Letters, digits and _, such as WEATHER_API_KEY"},"value":{"type":"string"}},"required":["name","value"]}`)}),
			Run: func(ctx context.Context, in json.RawMessage) (string, error) {
				a, err := args[struct{ Name, Value string }](in)
				if err != nil {
					return "", err
				}
				if !ValidEnvName(a.Name) {
					return "", &host.ToolError{Type: "invalid_arguments", Message: fmt.Sprintf("%q is not a variable name: use letters, digits and _, not starting with a digit", a.Name)}
				}
				if a.Value == "" {
					return a.Name + " removed.", d.Store.DeleteSetting(ctx, EnvPrefix+a.Name)
				}
				return a.Name + " set.", d.Store.SetSetting(ctx, EnvPrefix+a.Name, a.Value)
			},
		},
		{
			Tool: group(registry.Tool{Name: "list_tool_states", RequiredPermissions: []string{registry.PermissionRead}, Description: "List every tool with its group and whether it is enabled.",
				Parameters: schema(`{"type":"object","properties":{}}`)}),
			Run: func(ctx context.Context, _ json.RawMessage) (string, error) {
				states, err := d.Tools(ctx)
				if err != nil {
					return "", err
				}
				var b strings.Builder
				for i, s := range states {
					state := "enabled"
					if !s.Enabled {
						state = "disabled"
					}
					group := s.Group
					if group == "" {
						group = "core"
					}
					if i > 0 {
						b.WriteByte('\n')
					}
					fmt.Fprintf(&b, "- %s (%s): %s", s.Name, group, state)
				}
				return b.String(), nil
			},
		},
		{
			Tool: group(registry.Tool{Name: "set_tool_enabled", RequiredPermissions: []string{registry.PermissionWrite}, Description: "Enable or disable a tool. A disabled tool is not offered to the model and cannot be called; the change applies from the next model call.",
				Parameters: schema(`{"type":"object","properties":{"name":{"type":"string","description":"The tool's name"},"enabled":{"type":"boolean"}},"required":["name","enabled"]}`)}),
			Run: func(ctx context.Context, in json.RawMessage) (string, error) {
				a, err := args[struct {
					Name    string `json:"name"`
					Enabled bool   `json:"enabled"`
				}](in)
				if err != nil {
					return "", err
				}
				states, err := d.Tools(ctx)
				if err != nil {
					return "", err
				}
				i := slices.IndexFunc(states, func(s registry.ToolState) bool { return s.Name == a.Name })
				if i < 0 {
					return "", &host.ToolError{Type: "not_found", Message: fmt.Sprintf("no tool %q: list_tool_states lists them", a.Name)}
				}
				if states[i].Origin.Kind == registry.OriginMeta && !a.Enabled {
					return "", &host.ToolError{Type: "invalid_arguments", Message: a.Name + " cannot be disabled"}
				}
				if a.Enabled {
					err = d.Store.DeleteSetting(ctx, DisabledPrefix+a.Name)
				} else {
					err = d.Store.SetSetting(ctx, DisabledPrefix+a.Name, "true")
				}
				if err != nil {
					return "", err
				}
				if err := ApplyToolStates(ctx, d); err != nil {
					return "", err
				}
				if a.Enabled {
					return a.Name + " is enabled.", nil
				}
				return a.Name + " is disabled.", nil
			},
		},
	}
}

// DisabledTools reads the names of the disabled tools from the store.
func DisabledTools(ctx context.Context, d Deps) ([]string, error) {
	set, err := d.Store.Settings(ctx, DisabledPrefix)
	if err != nil {
		return nil, err
	}
	var names []string
	for _, s := range set {
		if s.Value == "true" {
			names = append(names, strings.TrimPrefix(s.Key, DisabledPrefix))
		}
	}
	return names, nil
}

// ApplyToolStates gives the host the stored tool states and reloads.
func ApplyToolStates(ctx context.Context, d Deps) error {
	names, err := DisabledTools(ctx, d)
	if err != nil {
		return err
	}
	d.SetDisabled(names)
	return d.Reload(ctx)
}

// ValidEnvName reports whether name is a variable name tools may be given:
// letters, digits and _, not starting with a digit.
func ValidEnvName(name string) bool {
	if name == "" || name[0] >= '0' && name[0] <= '9' {
		return false
	}
	for _, c := range name {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_') {
			return false
		}
	}
	return true
}
