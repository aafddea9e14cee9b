package registry

import (
	"bytes"
	"encoding/json"

	"github.com/toolroute/toolroute/registry/internal/jsondec"
)

// UnmarshalCatalogue reads a catalogue as json.Unmarshal would, by hand in
// the plain case (registry/internal/jsondec) and by encoding/json
// otherwise, so both accept the same inputs and refuse them with the same
// errors: a catalogue of 10,000 tools is megabytes of JSON that a host
// hands every new instance, and reflection costs about ten times as much
// in wasm. FuzzUnmarshalCatalogue compares the two.
func UnmarshalCatalogue(data []byte) (Catalogue, error) {
	r := jsondec.NewReader(data)
	var c Catalogue
	r.Object(catalogueKeys, func(key string) {
		switch key {
		case "groups":
			c.Groups = []Group{}
			if !r.Array(func() {
				var g Group
				readGroup(r, &g)
				c.Groups = append(c.Groups, g)
			}) {
				c.Groups = nil
			}
		case "tools":
			c.Tools = []Tool{}
			if !r.Array(func() {
				var t Tool
				readTool(r, &t)
				c.Tools = append(c.Tools, t)
			}) {
				c.Tools = nil
			}
		case "manifests":
			c.Manifests = []CatalogueManifest{}
			if !r.Array(func() {
				var m CatalogueManifest
				r.Object(manifestKeys, func(key string) {
					switch key {
					case "file":
						m.File = r.String()
					case "text":
						m.Text = r.String()
					case "source":
						m.Source = r.String()
					case "override":
						m.Override = r.Bool()
					}
				})
				c.Manifests = append(c.Manifests, m)
			}) {
				c.Manifests = nil
			}
		case "skills":
			c.Skills = []Skill{}
			if !r.Array(func() {
				var s Skill
				r.Object(skillKeys, func(key string) {
					switch key {
					case "name":
						s.Name = r.String()
					case "description":
						s.Description = r.String()
					case "content":
						s.Content = r.String()
					}
				})
				c.Skills = append(c.Skills, s)
			}) {
				c.Skills = nil
			}
		case "disabled":
			c.Disabled = r.Strings()
		}
	})
	if r.Done() {
		return c, nil
	}
	c = Catalogue{}
	err := json.Unmarshal(data, &c)
	return c, err
}

var (
	catalogueKeys = []string{"groups", "tools", "manifests", "skills", "disabled"}
	groupKeys     = []string{"name", "display_name", "description", "origin", "unavailable"}
	toolKeys      = []string{"name", "description", "parameters", "required_permissions", "timeout_seconds", "env", "group", "output_schema", "origin"}
	manifestKeys  = []string{"file", "text", "source", "override"}
	skillKeys     = []string{"name", "description", "content"}
	originKeys    = []string{"kind", "file", "source", "function"}
)

// readOrigin reads into o as encoding/json does: the fields given replace
// o's, the others stay.
func readOrigin(r *jsondec.Reader, o *Origin) {
	r.Object(originKeys, func(key string) {
		switch key {
		case "kind":
			o.Kind = OriginKind(r.String())
		case "file":
			o.File = r.String()
		case "source":
			o.Source = r.String()
		case "function":
			o.Function = r.String()
		}
	})
}

func readGroup(r *jsondec.Reader, g *Group) {
	r.Object(groupKeys, func(key string) {
		switch key {
		case "name":
			g.Name = r.String()
		case "display_name":
			g.DisplayName = r.String()
		case "description":
			g.Description = r.String()
		case "origin":
			readOrigin(r, &g.Origin)
		case "unavailable":
			g.Unavailable = r.String()
		}
	})
}

func readTool(r *jsondec.Reader, t *Tool) {
	r.Object(toolKeys, func(key string) {
		switch key {
		case "name":
			t.Name = r.String()
		case "description":
			t.Description = r.String()
		case "parameters":
			t.Parameters = bytes.Clone(r.Raw())
		case "required_permissions":
			t.RequiredPermissions = r.Strings()
		case "timeout_seconds":
			t.TimeoutSeconds = r.Int()
		case "env":
			t.Env = r.Strings()
		case "group":
			t.Group = r.String()
		case "output_schema":
			t.OutputSchema = bytes.Clone(r.Raw())
		case "origin":
			readOrigin(r, &t.Origin)
		}
	})
}
