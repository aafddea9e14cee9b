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
	dst = append(dst, `,"groups":`...)
	if d.Groups == nil {
		dst = append(dst, "null"...)
	} else {
		dst = append(dst, '[')
		for i, g := range d.Groups {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = registry.AppendGroupMembers(append(dst, '{'), g.Group)
			dst = registry.AppendJSONStrings(append(dst, `,"tools":`...), g.Tools)
			dst = append(strconv.AppendBool(append(dst, `,"available":`...), g.Available), '}')
		}
		dst = append(dst, ']')
	}
	dst = append(dst, `,"tools":`...)
	if d.Tools == nil {
		dst = append(dst, "null"...)
	} else {
		dst = append(dst, '[')
		for i, t := range d.Tools {
			if i > 0 {
				dst = append(dst, ',')
			}
			var err error
			if dst, err = registry.AppendToolMembers(append(dst, '{'), t.Tool); err != nil {
				return dst, err
			}
			dst = append(strconv.AppendBool(append(dst, `,"enabled":`...), t.Enabled), '}')
		}
		dst = append(dst, ']')
	}
	dst = append(dst, `,"files":`...)
	if d.Files == nil {
		dst = append(dst, "null"...)
	} else {
		dst = append(dst, '[')
		for i, f := range d.Files {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = registry.AppendJSONString(append(dst, `{"file":`...), f.File)
			dst = registry.AppendJSONString(append(dst, `,"source":`...), f.Source)
			if f.Group != "" {
				dst = registry.AppendJSONString(append(dst, `,"group":`...), f.Group)
			}
			dst = append(registry.AppendJSONStrings(append(dst, `,"tools":`...), f.Tools), '}')
		}
		dst = append(dst, ']')
	}
	dst = append(dst, `,"skills":`...)
	if d.Skills == nil {
		dst = append(dst, "null"...)
	} else {
		dst = append(dst, '[')
		for i, s := range d.Skills {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = registry.AppendJSONString(append(dst, `{"name":`...), s.Name)
			dst = append(registry.AppendJSONString(append(dst, `,"description":`...), s.Description), '}')
		}
		dst = append(dst, ']')
	}
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
