package builtin

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/toolroute/toolroute/host"
	"github.com/toolroute/toolroute/host/catalog"
	"github.com/toolroute/toolroute/registry"
)

// jsToolArgs are create_js_tool's and update_js_tool's arguments.
type jsToolArgs struct {
	Name           string          `json:"name"`
	Description    *string         `json:"description"`
	Parameters     json.RawMessage `json:"parameters"`
	Code           *string         `json:"code"`
	Env            []string        `json:"env"`
	TimeoutSeconds int             `json:"timeout_seconds"`
}

// manifest is a single-tool manifest as written to the tools folder.
type manifest struct {
	Name           string          `json:"name"`
	Description    string          `json:"description"`
	Parameters     json.RawMessage `json:"parameters,omitempty"`
	Env            []string        `json:"env,omitempty"`
	TimeoutSeconds int             `json:"timeoutSeconds,omitempty"`
	// RequiredPermissions is kept as the user wrote it: the model never
	// sets it.
	RequiredPermissions []string `json:"requiredPermissions,omitempty"`
}

// grants says which secrets a tool's manifest lets its code read: the
// variables of env and, with the "google" permission, the Google account;
// "" when none.
func (m manifest) grants() string {
	var g []string
	if len(m.Env) > 0 {
		g = append(g, "the variables "+strings.Join(m.Env, ", "))
	}
	if slices.Contains(m.RequiredPermissions, registry.PermissionGoogle) {
		g = append(g, "the Google account")
	}
	return strings.Join(g, " and ")
}

// ungranted is the note create_js_tool adds when the model asked for
// variables in env: code the model writes reads none the user has not
// granted.
func ungranted(name string, env []string) string {
	quoted := make([]string, len(env))
	for i, e := range env {
		quoted[i] = strconv.Quote(e)
	}
	return fmt.Sprintf(" It does not read %s: code written here gets only the secrets the user grants, when asked about the \"secrets\" argument, "+
		"or by adding \"env\": [%s] to %s.json in the tools folder by hand.",
		strings.Join(env, ", "), strings.Join(quoted, ", "), name)
}

const jsToolParams = `{"type":"object","properties":{` +
	`"name":{"type":"string","description":"snake_case, such as weather_lookup; the files are NAME.json and NAME.js"},` +
	`"description":{"type":"string","description":"What the tool does and when to use it, for the model"},` +
	`"parameters":{"type":"object","description":"JSON Schema of the arguments, such as {\"type\":\"object\",\"properties\":{\"city\":{\"type\":\"string\"}},\"required\":[\"city\"]}"},` +
	`"code":{"type":"string","description":"JavaScript defining function execute(params) or async function execute(params); it may use fetch, fs, console, _time, lib, and params._env. Return a string or a JSON-able value."},` +
	`"env":{"type":"array","items":{"type":"string"},"description":"Environment variables the tool needs; only the user can grant them, by editing the manifest"},` +
	`"timeout_seconds":{"type":"integer","description":"Default 30"}}`

// Groups returns the host-native tool groups, in the order they are listed.
// The config group is a JS manifest (manifests/config.json) now.
func Groups() []registry.Group {
	return []registry.Group{
		{Name: "js_tool_management", DisplayName: "JS Tool Management", Description: "Create, list, update, and delete user JavaScript tools"},
	}
}

// JSTools returns the js_tool_management group's tools.
func JSTools(d Deps) []host.NativeTool {
	group := func(t registry.Tool) registry.Tool {
		t.Group = "js_tool_management"
		t.TimeoutSeconds = 30
		return t
	}
	return []host.NativeTool{
		{
			Tool: group(registry.Tool{Name: "create_js_tool", RequiredPermissions: []string{registry.PermissionWrite, registry.PermissionSecrets},
				Description: "Create a JavaScript tool in the user's tools folder. It is checked (manifest and syntax) before it is saved, and can be called from the next step. " +
					"The code defines execute(params). Example code: async function execute(params) { const r = await fetch('https://api.example.com/x?q=' + encodeURIComponent(params.q)); return await r.json(); }",
				Parameters: schema(strings.TrimSuffix(jsToolParams, "}") + `,"secrets":{"type":"array","items":{"type":"string"},"description":"Only if the tool needs them: \"google\" for the google bridge, or names of the user's variables, read as params._env.NAME. The user is asked and may refuse; granted ones are written into its manifest"}},"required":["name","description","code"]}`)}),
			Run: func(ctx context.Context, in json.RawMessage) (string, error) {
				a, err := args[jsToolArgs](in)
				if err != nil {
					return "", err
				}
				if a.Description == nil || a.Code == nil {
					return "", &host.ToolError{Type: "invalid_arguments", Message: "give the tool's description and code"}
				}
				if !registry.ValidToolName(a.Name) { // before any look at the disk
					return "", &host.ToolError{Type: "invalid_arguments", Message: fmt.Sprintf("%q is not a tool name: use snake_case, such as weather_lookup", a.Name)}
				}
				if _, err := os.Stat(filepath.Join(d.ToolsDir, a.Name+".json")); err == nil {
					return "", &host.ToolError{Type: "exists", Message: fmt.Sprintf("a tool file %s.json exists: use update_js_tool to change it", a.Name)}
				}
				// The model may ask for secrets but never grants them: only
				// those the user granted at approval go in the manifest.
				m := manifest{Name: a.Name, Description: *a.Description, Parameters: a.Parameters, TimeoutSeconds: a.TimeoutSeconds}
				grant := host.GrantFrom(ctx)
				for _, n := range grant.Names {
					if n == registry.PermissionGoogle {
						m.RequiredPermissions = append(m.RequiredPermissions, registry.PermissionGoogle)
					} else {
						m.Env = append(m.Env, n)
					}
				}
				if err := d.save(ctx, m, *a.Code, false); err != nil {
					return "", err
				}
				note := ""
				if g := m.grants(); g != "" {
					note = " The user granted it " + g + "."
				}
				var asked []string
				for _, e := range a.Env {
					if !slices.Contains(m.Env, e) {
						asked = append(asked, e)
					}
				}
				if len(asked) > 0 {
					note += ungranted(a.Name, asked)
				}
				return fmt.Sprintf("Created %s (%s.json, %s.js in the tools folder). It can be called now.%s", a.Name, a.Name, a.Name, note), nil
			},
		},
		{
			Tool: group(registry.Tool{Name: "list_user_tools", RequiredPermissions: []string{registry.PermissionRead},
				Description: "List the JavaScript tools in the user's tools folder, with their descriptions and any problem that keeps one from loading.",
				Parameters:  schema(`{"type":"object","properties":{}}`)}),
			Run: func(ctx context.Context, _ json.RawMessage) (string, error) {
				return d.listUserTools()
			},
		},
		{
			Tool: group(registry.Tool{Name: "update_js_tool", RequiredPermissions: []string{registry.PermissionWrite},
				Description: "Change a JavaScript tool in the user's tools folder: give its name and the fields to change (description, parameters, code, env, timeout_seconds). It is checked before it is saved.",
				Parameters:  schema(jsToolParams + `,"required":["name"]}`)}),
			Run: func(ctx context.Context, in json.RawMessage) (string, error) {
				a, err := args[jsToolArgs](in)
				if err != nil {
					return "", err
				}
				m, code, err := d.readUserTool(a.Name)
				if err != nil {
					return "", err
				}
				if a.Description != nil {
					m.Description = *a.Description
				}
				if a.Parameters != nil {
					m.Parameters = a.Parameters
				}
				if granted := m.grants(); granted != "" && a.Code != nil {
					return "", &host.ToolError{Type: "refused", Message: fmt.Sprintf(
						"%s reads secrets the user granted it (%s), so its code cannot be changed here: ask the user to edit %s.js by hand, or create a tool under another name", a.Name, granted, a.Name)}
				}
				if a.Env != nil {
					var added []string
					for _, e := range a.Env {
						if !slices.Contains(m.Env, e) {
							added = append(added, e)
						}
					}
					if len(added) > 0 {
						return "", &host.ToolError{Type: "refused", Message: fmt.Sprintf(
							"env cannot grant %s here: variables are secrets the user grants by editing %s.json by hand. Call update_js_tool again without them.", strings.Join(added, ", "), a.Name)}
					}
					m.Env = a.Env // fewer variables: giving up a grant needs no one's consent
				}
				if a.TimeoutSeconds != 0 {
					m.TimeoutSeconds = a.TimeoutSeconds
				}
				if a.Code != nil {
					code = *a.Code
				}
				if err := d.save(ctx, m, code, true); err != nil {
					return "", err
				}
				return fmt.Sprintf("Updated %s. The new version is used from now on.", a.Name), nil
			},
		},
		{
			Tool: group(registry.Tool{Name: "delete_js_tool", RequiredPermissions: []string{registry.PermissionWrite},
				Description: "Delete a JavaScript tool from the user's tools folder (its NAME.json and NAME.js).",
				Parameters:  schema(`{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}`)}),
			Run: func(ctx context.Context, in json.RawMessage) (string, error) {
				a, err := args[struct {
					Name string `json:"name"`
				}](in)
				if err != nil {
					return "", err
				}
				if !registry.ValidToolName(a.Name) {
					return "", &host.ToolError{Type: "invalid_arguments", Message: fmt.Sprintf("%q is not a tool name", a.Name)}
				}
				jsonPath := filepath.Join(d.ToolsDir, a.Name+".json")
				if _, err := os.Stat(jsonPath); errors.Is(err, fs.ErrNotExist) {
					return "", &host.ToolError{Type: "not_found", Message: fmt.Sprintf("no tool %s in the tools folder: list_user_tools lists them", a.Name)}
				}
				if err := os.Remove(jsonPath); err != nil {
					return "", err
				}
				os.Remove(filepath.Join(d.ToolsDir, a.Name+".js"))
				if err := d.Reload(ctx); err != nil {
					return "", err
				}
				return "Deleted " + a.Name + ".", nil
			},
		},
	}
}

// save checks a tool and writes its files, then reloads the catalogue.
func (d Deps) save(ctx context.Context, m manifest, code string, replacing bool) error {
	if !registry.ValidToolName(m.Name) {
		return &host.ToolError{Type: "invalid_arguments", Message: fmt.Sprintf("%q is not a tool name: use snake_case, such as weather_lookup", m.Name)}
	}
	text, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	text = append(text, '\n')
	rep := registry.New().LoadManifest(registry.Manifest{File: m.Name + ".json", Text: text, Source: m.Name + ".js"})
	if !rep.OK() {
		return &host.ToolError{Type: "invalid_manifest", Message: "the tool was not saved: " + rep.Err().Error()}
	}
	if states, err := d.Tools(ctx); err == nil && !replacing {
		for _, s := range states {
			if s.Name == m.Name {
				return &host.ToolError{Type: "exists", Message: fmt.Sprintf("a tool named %s exists already (%s): choose another name", m.Name, origin(s.Origin))}
			}
		}
	}
	if !strings.Contains(code, "execute") {
		return &host.ToolError{Type: "invalid_code", Message: "the code must define function execute(params)"}
	}
	if d.JS != nil {
		if err := d.JS.Check(m.Name+".js", []byte(code)); err != nil {
			return &host.ToolError{Type: "invalid_code", Message: "the tool was not saved: " + err.Error()}
		}
	}
	if err := os.MkdirAll(d.ToolsDir, 0o755); err != nil {
		return err
	}
	if err := writeFile(filepath.Join(d.ToolsDir, m.Name+".js"), []byte(code)); err != nil {
		return err
	}
	if err := writeFile(filepath.Join(d.ToolsDir, m.Name+".json"), text); err != nil {
		return err
	}
	return d.Reload(ctx)
}

func origin(o registry.Origin) string {
	switch o.Kind {
	case registry.OriginJS:
		return "from " + o.File
	case registry.OriginMeta:
		return "a meta-tool"
	}
	return "a built-in tool"
}

// writeFile writes through a temporary file, so a crash never leaves half a
// file.
func writeFile(path string, data []byte) error {
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// readUserTool reads a single-tool manifest and its code from the tools
// folder.
func (d Deps) readUserTool(name string) (manifest, string, error) {
	var m manifest
	if !registry.ValidToolName(name) {
		return m, "", &host.ToolError{Type: "invalid_arguments", Message: fmt.Sprintf("%q is not a tool name", name)}
	}
	text, err := os.ReadFile(filepath.Join(d.ToolsDir, name+".json"))
	if errors.Is(err, fs.ErrNotExist) {
		return m, "", &host.ToolError{Type: "not_found", Message: fmt.Sprintf("no tool %s in the tools folder: create it with create_js_tool", name)}
	}
	if err != nil {
		return m, "", err
	}
	if t := bytes.TrimSpace(text); len(t) > 0 && t[0] == '[' {
		return m, "", &host.ToolError{Type: "unsupported", Message: name + ".json is a group manifest: edit the file itself"}
	}
	if err := json.Unmarshal(text, &m); err != nil {
		return m, "", &host.ToolError{Type: "invalid_manifest", Message: fmt.Sprintf("%s.json is not valid: %v", name, err)}
	}
	code, _ := os.ReadFile(filepath.Join(d.ToolsDir, name+".js"))
	return m, string(code), nil
}

func (d Deps) listUserTools() (string, error) {
	if _, err := os.Stat(d.ToolsDir); errors.Is(err, fs.ErrNotExist) {
		return "The tools folder is empty: create a tool with create_js_tool.", nil
	}
	f, err := catalog.ReadFolder(os.DirFS(d.ToolsDir), ".", false)
	if err != nil {
		return "", err
	}
	if len(f.Files) == 0 {
		return "The tools folder is empty: create a tool with create_js_tool.", nil
	}
	reg := registry.New()
	var b strings.Builder
	for i, rep := range f.Load(reg) {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(strings.TrimPrefix(rep.File, "./"))
		for _, l := range rep.Loaded {
			t, _ := reg.Definition(l.Tool)
			fmt.Fprintf(&b, "\n  - %s: %s", t.Name, t.Description)
		}
		for _, p := range rep.Skipped {
			fmt.Fprintf(&b, "\n  ! %s", p.Reason)
		}
	}
	return b.String(), nil
}
