package abi

import (
	"strconv"

	"github.com/toolroute/toolroute/registry"
)

// appendDescription appends d as marshal (encoding/json, HTML escaping off)
// writes it, by hand: describe lists every tool of the catalogue with its
// schema, and reflection made it most of describe's time.
func appendDescription(dst []byte, d Description) ([]byte, error) {
	dst = registry.AppendJSONString(append(dst, `{"system_prompt":`...), d.SystemPrompt)
	dst, _ = appendList(append(dst, `,"groups":`...), d.Groups, func(b []byte, g GroupInfo) ([]byte, error) {
		b = registry.AppendGroupMembers(append(b, '{'), g.Group)
		b = registry.AppendJSONStrings(append(b, `,"tools":`...), g.Tools)
		return append(strconv.AppendBool(append(b, `,"available":`...), g.Available), '}'), nil
	})
	dst, err := appendList(append(dst, `,"tools":`...), d.Tools, func(b []byte, t ToolInfo) ([]byte, error) {
		b, err := registry.AppendToolMembers(append(b, '{'), t.Tool)
		return append(strconv.AppendBool(append(b, `,"enabled":`...), t.Enabled), '}'), err
	})
	if err != nil {
		return dst, err
	}
	dst, _ = appendList(append(dst, `,"files":`...), d.Files, func(b []byte, f FileInfo) ([]byte, error) {
		b = registry.AppendJSONString(append(b, `{"file":`...), f.File)
		b = registry.AppendJSONString(append(b, `,"source":`...), f.Source)
		if f.Group != "" {
			b = registry.AppendJSONString(append(b, `,"group":`...), f.Group)
		}
		return append(registry.AppendJSONStrings(append(b, `,"tools":`...), f.Tools), '}'), nil
	})
	dst, _ = appendList(append(dst, `,"skills":`...), d.Skills, func(b []byte, s SkillInfo) ([]byte, error) {
		b = registry.AppendJSONString(append(b, `{"name":`...), s.Name)
		return append(registry.AppendJSONString(append(b, `,"description":`...), s.Description), '}'), nil
	})
	dst = registry.AppendJSONStrings(append(dst, `,"active":`...), d.Active)
	dst = registry.AppendJSONStrings(append(dst, `,"loaded_groups":`...), d.LoadedGroups)
	if tj := d.ToolsJSON; tj != nil {
		dst = registry.AppendJSONString(append(dst, `,"tools_json":{"active":`...), tj.Active)
		dst = append(registry.AppendJSONString(append(dst, `,"all":`...), tj.All), '}')
	}
	if r := d.Routing; r != nil {
		dst = registry.AppendJSONString(append(dst, `,"routing":{"asked":`...), r.Asked)
		dst = registry.AppendJSONString(append(dst, `,"used":`...), r.Used)
		if r.Note != "" {
			dst = registry.AppendJSONString(append(dst, `,"note":`...), r.Note)
		}
		dst = append(dst, '}')
	}
	return append(dst, '}'), nil
}

// appendList appends list as a JSON array, each element written by each
// (null when it is nil), stopping at each's first error.
func appendList[T any](dst []byte, list []T, each func([]byte, T) ([]byte, error)) ([]byte, error) {
	if list == nil {
		return append(dst, "null"...), nil
	}
	dst = append(dst, '[')
	for i, v := range list {
		if i > 0 {
			dst = append(dst, ',')
		}
		var err error
		if dst, err = each(dst, v); err != nil {
			return dst, err
		}
	}
	return append(dst, ']'), nil
}
