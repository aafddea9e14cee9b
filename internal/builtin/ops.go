package builtin

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/toolroute/toolroute/host"
	"github.com/toolroute/toolroute/registry"
)

// MaxMemoryChars bounds one memory: it goes into every system prompt.
const MaxMemoryChars = 2000

// MaxSearchHits bounds what one history.search answers.
const MaxSearchHits = 50

// Memory is a saved memory as the toolroute bridge answers it, in every
// host.
type Memory struct {
	ID   int64  `json:"id"`
	Text string `json:"text"`
	Time string `json:"time,omitempty"`
}

// SearchHit is one message history.search found, in every host.
type SearchHit struct {
	Session string `json:"session"`
	Seq     int    `json:"seq"`
	Type    string `json:"type"`
	Time    string `json:"time,omitempty"`
	Snippet string `json:"snippet"`
}

// Ops are the toolroute bridge's operations over the Go program's store
// (see docs/design/builtin-tools.md): the built-in JS tools' memories and
// history, the config group's settings, variables and tool states, and the
// user's tool files (toolfiles.go).
func Ops(d Deps) host.HostOps {
	ops := configOps(d)
	maps.Copy(ops, toolFileOps(d))
	maps.Copy(ops, providerOps(d))
	maps.Copy(ops, taskOps(d))
	maps.Copy(ops, agentOps(d, ops["agents.update"]))
	maps.Copy(ops, host.HostOps{
		"memories.save": func(ctx context.Context, in json.RawMessage) (any, error) {
			a, err := args[struct {
				Text string `json:"text"`
			}](in)
			if err != nil {
				return nil, err
			}
			text, err := memoryText(a.Text)
			if err != nil {
				return nil, err
			}
			m, err := d.Store.SaveMemory(ctx, text)
			if err != nil {
				return nil, err
			}
			return Memory{ID: m.ID, Text: m.Text, Time: stamp(m.Created)}, nil
		},
		"memories.list": func(ctx context.Context, _ json.RawMessage) (any, error) {
			mems, err := d.Store.Memories(ctx)
			if err != nil {
				return nil, err
			}
			out := make([]Memory, len(mems))
			for i, m := range mems {
				out[i] = Memory{ID: m.ID, Text: m.Text, Time: stamp(m.Created)}
			}
			return out, nil
		},
		"history.search": func(ctx context.Context, in json.RawMessage) (any, error) {
			a, err := args[struct {
				Query string `json:"query"`
				Limit int    `json:"limit"`
			}](in)
			if err != nil {
				return nil, err
			}
			hits, err := d.Store.Search(ctx, a.Query, searchLimit(a.Limit))
			if err != nil {
				return nil, err
			}
			out := make([]SearchHit, len(hits))
			for i, h := range hits {
				out[i] = SearchHit{Session: h.SessionID, Seq: h.Seq, Type: string(h.Type), Time: stamp(h.Time), Snippet: h.Snippet}
			}
			return out, nil
		},
	})
	return ops
}

// memoryText checks a memory's text: the same rule in every host.
func memoryText(s string) (string, error) {
	s = strings.TrimSpace(s)
	switch {
	case s == "":
		return "", &host.ToolError{Type: "invalid_arguments", Message: "memories.save: the text is empty: give what to remember"}
	case len([]rune(s)) > MaxMemoryChars:
		return "", &host.ToolError{Type: "invalid_arguments", Message: "memories.save: the text is over 2000 characters: save one or two sentences"}
	}
	return s, nil
}

func searchLimit(n int) int {
	switch {
	case n <= 0:
		return 10
	case n > MaxSearchHits:
		return MaxSearchHits
	}
	return n
}

// stamp is a time as the bridge answers it, UTC to the second; "" for none.
func stamp(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339)
}

// Setting is a setting as settings.list and settings.set answer it, in
// every host: its value is "" when none is set.
type Setting struct {
	Key         string `json:"key"`
	Value       string `json:"value"`
	Default     string `json:"default"`
	Description string `json:"description"`
}

// ToolState is a tool as tools.list and tools.setEnabled answer it, in
// every host: its group ("" for a core tool), its origin's kind (meta, host
// or js) and whether it is enabled.
type ToolState struct {
	Name    string `json:"name"`
	Group   string `json:"group"`
	Origin  string `json:"origin"`
	Enabled bool   `json:"enabled"`
}

// configOps are the config group's operations: the settings of d.Settings,
// the variables tools may read and the tool states, over the store.
func configOps(d Deps) host.HostOps {
	var keys []string
	for _, s := range d.Settings {
		keys = append(keys, s.Key)
	}
	setting := func(ctx context.Context, s SettingSpec) (Setting, error) {
		v, ok, err := d.Store.Setting(ctx, s.Key)
		if err != nil {
			return Setting{}, err
		}
		if !ok {
			v = ""
		}
		return Setting{Key: s.Key, Value: v, Default: s.Default, Description: s.Description}, nil
	}
	return host.HostOps{
		"settings.list": func(ctx context.Context, _ json.RawMessage) (any, error) {
			out := make([]Setting, 0, len(d.Settings))
			for _, s := range d.Settings {
				v, err := setting(ctx, s)
				if err != nil {
					return nil, err
				}
				out = append(out, v)
			}
			return out, nil
		},
		"settings.set": func(ctx context.Context, in json.RawMessage) (any, error) {
			a, err := args[struct{ Key, Value string }](in)
			if err != nil {
				return nil, err
			}
			i := slices.IndexFunc(d.Settings, func(s SettingSpec) bool { return s.Key == a.Key })
			if i < 0 {
				return nil, &host.ToolError{Type: "not_found", Message: fmt.Sprintf("no setting %q: use one of %s", a.Key, strings.Join(keys, ", "))}
			}
			s := d.Settings[i]
			if a.Value != "" && s.Check != nil {
				if err := s.Check(a.Value); err != nil {
					return nil, &host.ToolError{Type: "invalid_arguments", Message: err.Error()}
				}
			}
			if a.Value == "" {
				err = d.Store.DeleteSetting(ctx, a.Key)
			} else {
				err = d.Store.SetSetting(ctx, a.Key, a.Value)
			}
			if err != nil {
				return nil, err
			}
			return setting(ctx, s)
		},
		"env.list": func(ctx context.Context, _ json.RawMessage) (any, error) {
			vars, err := d.Store.Settings(ctx, EnvPrefix)
			if err != nil {
				return nil, err
			}
			names := make([]string, len(vars))
			for i, v := range vars {
				names[i] = strings.TrimPrefix(v.Key, EnvPrefix)
			}
			return names, nil
		},
		"env.set": func(ctx context.Context, in json.RawMessage) (any, error) {
			a, err := args[struct{ Name, Value string }](in)
			if err != nil {
				return nil, err
			}
			if err := checkName(ctx, "variable_name", a.Name); err != nil {
				return nil, err
			}
			if a.Value == "" {
				err = d.Store.DeleteSetting(ctx, EnvPrefix+a.Name)
			} else {
				err = d.Store.SetSetting(ctx, EnvPrefix+a.Name, a.Value)
			}
			if err != nil {
				return nil, err
			}
			return EnvVar{Name: a.Name, Set: a.Value != ""}, nil
		},
		"tools.list": func(ctx context.Context, _ json.RawMessage) (any, error) {
			states, err := d.Tools(ctx)
			if err != nil {
				return nil, err
			}
			out := make([]ToolState, len(states))
			for i, s := range states {
				out[i] = toolState(s)
			}
			return out, nil
		},
		"tools.setEnabled": func(ctx context.Context, in json.RawMessage) (any, error) {
			a, err := args[struct {
				Name    string `json:"name"`
				Enabled *bool  `json:"enabled"`
			}](in)
			if err != nil {
				return nil, err
			}
			if a.Enabled == nil {
				return nil, &host.ToolError{Type: "invalid_arguments", Message: "enabled is missing: give true or false"}
			}
			states, err := d.Tools(ctx)
			if err != nil {
				return nil, err
			}
			i := slices.IndexFunc(states, func(s registry.ToolState) bool { return s.Name == a.Name })
			if i < 0 {
				return nil, &host.ToolError{Type: "not_found", Message: fmt.Sprintf("no tool %q: list_tool_states lists them", a.Name)}
			}
			if states[i].Origin.Kind == registry.OriginMeta && !*a.Enabled {
				return nil, &host.ToolError{Type: "invalid_arguments", Message: a.Name + " cannot be disabled"}
			}
			if *a.Enabled {
				err = d.Store.DeleteSetting(ctx, DisabledPrefix+a.Name)
			} else {
				err = d.Store.SetSetting(ctx, DisabledPrefix+a.Name, "true")
			}
			if err != nil {
				return nil, err
			}
			if err := ApplyToolStates(ctx, d); err != nil {
				return nil, err
			}
			s := toolState(states[i])
			s.Enabled = *a.Enabled
			return s, nil
		},
	}
}

// EnvVar is what env.set answers: the variable's name and whether it is
// set now (false once removed).
type EnvVar struct {
	Name string `json:"name"`
	Set  bool   `json:"set"`
}

func toolState(s registry.ToolState) ToolState {
	return ToolState{Name: s.Name, Group: s.Group, Origin: string(s.Origin.Kind), Enabled: s.Enabled}
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
