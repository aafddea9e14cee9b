package check

import (
	"fmt"
	"slices"
	"strings"

	"github.com/toolroute/toolroute/registry"
)

// ToolFile is what a host found of a user's tool file (op tool_file):
// the tool's Name, where the host keeps the files as its answers say it
// (Place, "in the tools folder"), whether the file is there (Found) and
// whether it is a group manifest (Group), and whether the operation
// removes it (Remove) rather than reads or changes it.
type ToolFile struct {
	Name   string `json:"name"`
	Place  string `json:"place"`
	Found  bool   `json:"found"`
	Group  bool   `json:"group"`
	Remove bool   `json:"remove"`
}

func (t ToolFile) check() Answer {
	switch {
	case !t.Found && t.Remove:
		return refuseAs("not_found", fmt.Sprintf("no tool %s %s: list_user_tools lists them", t.Name, t.Place))
	case !t.Found:
		return refuseAs("not_found", fmt.Sprintf("no tool %s %s: create it with create_js_tool", t.Name, t.Place))
	case t.Group && !t.Remove:
		return refuseAs("unsupported", t.Name+".json is a group manifest: edit the file itself")
	}
	return Answer{}
}

// ToolSecrets is a user tool's creation or change as far as its secrets
// go (op tool_secrets): the manifest's Name, Env and RequiredPermissions
// as the model gives them, whether it replaces a tool (Replace), whether a
// file of that name exists (Exists), the secrets the user granted this
// call (Granted: variable names, or google), and for a change the secrets
// the tool holds (HeldEnv, HeldPermissions) and whether the code changes
// (CodeChanged). HandEdit says the user can edit the tool's files by hand
// on this host.
type ToolSecrets struct {
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

// check refuses secrets a model may not give a tool, or answers the
// secrets a new tool's manifest holds: exactly those the user granted.
func (t ToolSecrets) check() Answer {
	if !t.Replace {
		if t.Exists {
			return refuseAs("exists", fmt.Sprintf("a tool file %s.json exists: use update_js_tool to change it", t.Name))
		}
		if len(t.Env) > 0 || len(t.RequiredPermissions) > 0 {
			return refuseAs("refused", "a new tool's secrets are those the user grants when asked at approval: leave env and requiredPermissions out of its manifest")
		}
		out := struct {
			Env                 []string `json:"env"`
			RequiredPermissions []string `json:"required_permissions"`
		}{[]string{}, []string{}}
		for _, g := range t.Granted {
			if g == registry.PermissionGoogle {
				out.RequiredPermissions = append(out.RequiredPermissions, g)
			} else {
				out.Env = append(out.Env, g)
			}
		}
		return Answer{Args: out}
	}
	var held []string
	if len(t.HeldEnv) > 0 {
		held = append(held, "the variables "+strings.Join(t.HeldEnv, ", "))
	}
	if slices.Contains(t.HeldPermissions, registry.PermissionGoogle) {
		held = append(held, "the Google account")
	}
	if len(held) > 0 && t.CodeChanged {
		how := "only the user can change it; create a tool under another name"
		if t.HandEdit {
			how = fmt.Sprintf("ask the user to edit %s.js by hand, or create a tool under another name", t.Name)
		}
		return refuseAs("refused", fmt.Sprintf("%s reads secrets the user granted it (%s), so its code cannot be changed here: %s", t.Name, strings.Join(held, " and "), how))
	}
	var added []string
	for _, e := range t.Env {
		if !slices.Contains(t.HeldEnv, e) && !slices.Contains(t.Granted, e) {
			added = append(added, e)
		}
	}
	if len(added) > 0 {
		how := "when asked at approval"
		if t.HandEdit {
			how = fmt.Sprintf("by editing %s.json by hand", t.Name)
		}
		return refuseAs("refused", fmt.Sprintf("env cannot grant %s here: variables are secrets the user grants %s. Call update_js_tool again without them.", strings.Join(added, ", "), how))
	}
	for _, p := range t.RequiredPermissions {
		if !slices.Contains(t.HeldPermissions, p) && !(p == registry.PermissionGoogle && slices.Contains(t.Granted, p)) {
			how := ""
			if t.HandEdit {
				how = fmt.Sprintf(", by editing %s.json by hand", t.Name)
			}
			return refuseAs("refused", fmt.Sprintf("requiredPermissions cannot add %q here: only the user grants permissions%s", p, how))
		}
	}
	return Answer{}
}

// toolCode refuses a tool's code that cannot define execute, before the
// host compiles it.
func toolCode(code string) Answer {
	if !strings.Contains(code, "execute") {
		return refuseAs("invalid_code", "the code must define function execute(params)")
	}
	return Answer{}
}

func refuseAs(typ, msg string) Answer {
	return Answer{Error: &Refusal{Type: typ, Message: msg}}
}
