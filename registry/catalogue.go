package registry

import "fmt"

// Catalogue is everything a host registers, as one value: the host-native
// groups and tools, the JS manifests with their source references, the
// skills, and the tools the user disabled. Build registers it in that order,
// so host groups are listed before JS groups.
type Catalogue struct {
	Groups    []Group             `json:"groups,omitempty"`
	Tools     []Tool              `json:"tools,omitempty"`
	Manifests []CatalogueManifest `json:"manifests,omitempty"`
	Skills    []Skill             `json:"skills,omitempty"`
	Disabled  []string            `json:"disabled,omitempty"`
}

// CatalogueManifest is one JS manifest of a Catalogue: NAME.json's text, its
// file name, the host's reference to NAME.js, and whether it may override.
type CatalogueManifest struct {
	File     string `json:"file"`
	Text     string `json:"text"`
	Source   string `json:"source"`
	Override bool   `json:"override,omitempty"`
}

// BuildReport is what Build did: a report per manifest, in order, and every
// host definition or tool state it refused.
type BuildReport struct {
	Manifests []Report `json:"manifests"`
	Errors    []string `json:"errors"`
}

// OK reports whether everything registered without a problem; warnings do not
// count.
func (b BuildReport) OK() bool {
	if len(b.Errors) > 0 {
		return false
	}
	for _, r := range b.Manifests {
		if !r.OK() {
			return false
		}
	}
	return true
}

// Build registers a catalogue in a new registry. Nothing in it stops the rest
// from loading: a bad definition is left out and reported.
func Build(c Catalogue) (*Registry, BuildReport) {
	r := newSized(len(c.Tools), len(c.Groups))
	rep := BuildReport{Manifests: []Report{}, Errors: []string{}}
	for _, g := range c.Groups {
		g.Origin = Origin{Kind: OriginHost}
		if err := r.AddGroup(g); err != nil {
			rep.Errors = append(rep.Errors, fmt.Sprintf("group %q: %v", g.Name, err))
		}
	}
	for _, t := range c.Tools {
		t.Origin = Origin{Kind: OriginHost}
		if err := r.AddTool(t); err != nil {
			rep.Errors = append(rep.Errors, fmt.Sprintf("tool %q: %v", t.Name, err))
		}
	}
	for _, m := range c.Manifests {
		rep.Manifests = append(rep.Manifests, r.LoadManifest(Manifest{File: m.File, Text: []byte(m.Text), Source: m.Source, Override: m.Override}))
	}
	for _, s := range c.Skills {
		if err := r.AddSkill(s); err != nil {
			rep.Errors = append(rep.Errors, fmt.Sprintf("skill %q: %v", s.Name, err))
		}
	}
	for _, name := range c.Disabled {
		if err := r.SetToolEnabled(name, false); err != nil {
			rep.Errors = append(rep.Errors, fmt.Sprintf("disabled tool %q: %v", name, err))
		}
	}
	return r, rep
}
