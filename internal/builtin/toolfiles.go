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
	"strings"

	"github.com/toolroute/toolroute/host"
	"github.com/toolroute/toolroute/internal/catalog"
	"github.com/toolroute/toolroute/registry"
	"github.com/toolroute/toolroute/registry/check"
)

// The toolfiles operations keep the user's JS tools in the tools folder for
// the js_tool_management group (manifests/js_tool_management.*), answering
// as the JS hosts' (web/packages/toolroute/host/ops.js) do:
//
//	toolfiles.list {}                        -> {place, files: [{file, tools: [{name, description}], problems: [reason]}]}
//	toolfiles.read {name}                    -> {name, manifest, code}
//	toolfiles.write {manifest, code, replace} -> {name, manifest (as saved), place, handEdit}
//	toolfiles.remove {name}                  -> {name}
//
// The host checks what the tool's code cannot be trusted to: a name free
// (or, to replace, a single-tool file of that name), a manifest that loads,
// code that compiles, and secrets: a new tool holds exactly those the user
// granted the call at approval, a changed one no new ones, and a tool that
// holds secrets keeps its code.

// folderPlace is where the Go program keeps the user's tools, as the
// tools' answers say it.
const folderPlace = "in the tools folder"

// manifest is a single-tool manifest as written to the tools folder.
type manifest struct {
	Name           string          `json:"name"`
	Description    string          `json:"description"`
	Parameters     json.RawMessage `json:"parameters,omitempty"`
	Env            []string        `json:"env,omitempty"`
	TimeoutSeconds int             `json:"timeoutSeconds,omitempty"`
	// RequiredPermissions is kept as the user wrote it: a tool's code only
	// ever keeps or drops what is there, or adds "google" when the user
	// granted it.
	RequiredPermissions []string `json:"requiredPermissions,omitempty"`
}

// secrets are the secrets a manifest lets its code read: its variables
// and, with the "google" permission, "google".
func (m manifest) secrets() []string {
	s := slices.Clone(m.Env)
	if slices.Contains(m.RequiredPermissions, registry.PermissionGoogle) {
		s = append(s, registry.PermissionGoogle)
	}
	return s
}

// savedFile is what toolfiles.write answers.
type savedFile struct {
	Name     string   `json:"name"`
	Manifest manifest `json:"manifest"`
	Place    string   `json:"place"`
	// HandEdit is the file the user edits to grant a variable by hand.
	HandEdit string `json:"handEdit"`
}

// listedFile is one file toolfiles.list answers.
type listedFile struct {
	File     string       `json:"file"`
	Tools    []listedTool `json:"tools"`
	Problems []string     `json:"problems"`
}

type listedTool struct {
	Name        string `json:"name"`
	Description string `json:"description"`
}

func toolFileOps(d Deps) host.HostOps {
	return host.HostOps{
		"toolfiles.list": func(ctx context.Context, _ json.RawMessage) (any, error) {
			files, err := d.listUserTools(ctx)
			if err != nil {
				return nil, err
			}
			return struct {
				Place string       `json:"place"`
				Files []listedFile `json:"files"`
			}{folderPlace, files}, nil
		},
		"toolfiles.read": func(ctx context.Context, in json.RawMessage) (any, error) {
			a, err := args[struct {
				Name string `json:"name"`
			}](in)
			if err != nil {
				return nil, err
			}
			m, code, err := d.readUserTool(ctx, a.Name)
			if err != nil {
				return nil, err
			}
			return struct {
				Name     string   `json:"name"`
				Manifest manifest `json:"manifest"`
				Code     string   `json:"code"`
			}{a.Name, m, code}, nil
		},
		"toolfiles.write": func(ctx context.Context, in json.RawMessage) (any, error) {
			a, err := args[struct {
				Manifest manifest `json:"manifest"`
				Code     *string  `json:"code"`
				Replace  bool     `json:"replace"`
			}](in)
			if err != nil {
				return nil, err
			}
			if a.Code == nil {
				return nil, &host.ToolError{Type: "invalid_arguments", Message: "toolfiles.write: the code is missing"}
			}
			m, err := d.checkSecrets(ctx, a.Manifest, *a.Code, a.Replace)
			if err != nil {
				return nil, err
			}
			if err := d.save(ctx, m, *a.Code, a.Replace); err != nil {
				return nil, err
			}
			return savedFile{Name: m.Name, Manifest: m, Place: folderPlace, HandEdit: m.Name + ".json " + folderPlace}, nil
		},
		"toolfiles.remove": func(ctx context.Context, in json.RawMessage) (any, error) {
			a, err := args[struct {
				Name string `json:"name"`
			}](in)
			if err != nil {
				return nil, err
			}
			if err := checkName(ctx, "tool_name", a.Name); err != nil {
				return nil, err
			}
			jsonPath := filepath.Join(d.ToolsDir, a.Name+".json")
			if _, err := os.Stat(jsonPath); errors.Is(err, fs.ErrNotExist) {
				return nil, checkFile(ctx, a.Name, false, false, true)
			}
			if err := os.Remove(jsonPath); err != nil {
				return nil, err
			}
			os.Remove(filepath.Join(d.ToolsDir, a.Name+".js"))
			if err := d.Reload(ctx); err != nil {
				return nil, err
			}
			return struct {
				Name string `json:"name"`
			}{a.Name}, nil
		},
	}
}

// checkSecrets gives the manifest to write with the secrets it may hold: a
// new tool exactly those the user granted this call; a changed one no
// secret it did not hold or was not granted, and its old code if it holds
// any.
func (d Deps) checkSecrets(ctx context.Context, m manifest, code string, replacing bool) (manifest, error) {
	if err := checkName(ctx, "tool_name", m.Name); err != nil { // before any look at the disk
		return m, err
	}
	type secrets struct {
		Name                string   `json:"name"`
		Env                 []string `json:"env"`
		RequiredPermissions []string `json:"required_permissions"`
		Replace             bool     `json:"replace"`
		Exists              bool     `json:"exists"`
		Granted             []string `json:"granted"`
		HeldEnv             []string `json:"held_env"`
		HeldPermissions     []string `json:"held_permissions"`
		CodeChanged         bool     `json:"code_changed"`
		HandEdit            bool     `json:"hand_edit"`
	}
	a := secrets{Name: m.Name, Env: m.Env, RequiredPermissions: m.RequiredPermissions, Replace: replacing, Granted: host.GrantFrom(ctx).Names, HandEdit: true}
	if !replacing {
		_, err := os.Stat(filepath.Join(d.ToolsDir, m.Name+".json"))
		a.Exists = err == nil
		var out struct {
			Env                 []string `json:"env"`
			RequiredPermissions []string `json:"required_permissions"`
		}
		if err := checked(ctx, "tool_secrets", a, &out); err != nil {
			return m, err
		}
		m.Env, m.RequiredPermissions = nil, nil
		if len(out.Env) > 0 {
			m.Env = out.Env
		}
		if len(out.RequiredPermissions) > 0 {
			m.RequiredPermissions = out.RequiredPermissions
		}
		return m, nil
	}
	old, oldCode, err := d.readUserTool(ctx, m.Name)
	if err != nil {
		return m, err
	}
	a.HeldEnv, a.HeldPermissions, a.CodeChanged = old.Env, old.RequiredPermissions, code != oldCode
	return m, checked(ctx, "tool_secrets", a, nil)
}

// checkFile has the module word what the host found of a tool's file
// (wasm/ABI.md, toolroute_check's tool_file): not there, or a group
// manifest, which the tools may not change.
func checkFile(ctx context.Context, name string, found, group, remove bool) error {
	return checked(ctx, "tool_file", struct {
		Name   string `json:"name"`
		Place  string `json:"place"`
		Found  bool   `json:"found"`
		Group  bool   `json:"group"`
		Remove bool   `json:"remove"`
	}{name, folderPlace, found, group, remove}, nil)
}

// save checks a tool and writes its files, then reloads the catalogue.
func (d Deps) save(ctx context.Context, m manifest, code string, replacing bool) error {
	text, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	text = append(text, '\n')
	var reps check.ManifestReports
	if err := checked(ctx, "manifests", check.Manifests{Files: []check.ManifestFile{{File: m.Name + ".json", Text: string(text), Source: m.Name + ".js"}}}, &reps); err != nil {
		return err
	}
	if len(reps.Files) != 1 {
		return fmt.Errorf("builtin: the module reported %d files for one manifest", len(reps.Files))
	}
	if e := reps.Files[0].Error; e != "" {
		return &host.ToolError{Type: "invalid_manifest", Message: "the tool was not saved: " + e}
	}
	if states, err := d.Tools(ctx); err == nil && !replacing {
		for _, s := range states {
			if s.Name == m.Name {
				return &host.ToolError{Type: "exists", Message: fmt.Sprintf("a tool named %s exists already (%s): choose another name", m.Name, origin(s.Origin))}
			}
		}
	}
	if err := checked(ctx, "tool_code", struct {
		Code string `json:"code"`
	}{code}, nil); err != nil {
		return err
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
func (d Deps) readUserTool(ctx context.Context, name string) (manifest, string, error) {
	var m manifest
	if err := checkName(ctx, "tool_name", name); err != nil {
		return m, "", err
	}
	text, err := os.ReadFile(filepath.Join(d.ToolsDir, name+".json"))
	if errors.Is(err, fs.ErrNotExist) {
		return m, "", checkFile(ctx, name, false, false, false)
	}
	if err != nil {
		return m, "", err
	}
	if t := bytes.TrimSpace(text); len(t) > 0 && t[0] == '[' {
		return m, "", checkFile(ctx, name, true, true, false)
	}
	if err := json.Unmarshal(text, &m); err != nil {
		return m, "", &host.ToolError{Type: "invalid_manifest", Message: fmt.Sprintf("%s.json is not valid: %v", name, err)}
	}
	code, _ := os.ReadFile(filepath.Join(d.ToolsDir, name+".js"))
	return m, string(code), nil
}

// listUserTools reads the tools folder: each file with the tools it defines
// and the problems that keep others from loading, as the module reads them.
func (d Deps) listUserTools(ctx context.Context) ([]listedFile, error) {
	files := []listedFile{}
	if _, err := os.Stat(d.ToolsDir); errors.Is(err, fs.ErrNotExist) {
		return files, nil
	}
	f, err := catalog.ReadFolder(os.DirFS(d.ToolsDir), ".", false)
	if err != nil {
		return nil, err
	}
	var ask check.Manifests
	for _, file := range f.Files {
		if file.Refused == "" {
			ask.Files = append(ask.Files, check.ManifestFile{File: file.Manifest.File, Text: string(file.Manifest.Text), Source: file.Manifest.Source})
		}
	}
	var reps check.ManifestReports
	if len(ask.Files) > 0 {
		if err := checked(ctx, "manifests", ask, &reps); err != nil {
			return nil, err
		}
		if len(reps.Files) != len(ask.Files) {
			return nil, fmt.Errorf("builtin: the module reported %d files for %d manifests", len(reps.Files), len(ask.Files))
		}
	}
	next := 0
	for _, file := range f.Files {
		lf := listedFile{File: strings.TrimPrefix(file.Manifest.File, "./"), Tools: []listedTool{}, Problems: []string{}}
		if file.Refused != "" {
			lf.Problems = append(lf.Problems, file.Refused)
		} else {
			rep := reps.Files[next]
			next++
			for _, t := range rep.Tools {
				lf.Tools = append(lf.Tools, listedTool{Name: t.Name, Description: t.Description})
			}
			lf.Problems = append(lf.Problems, rep.Problems...)
		}
		files = append(files, lf)
	}
	return files, nil
}
