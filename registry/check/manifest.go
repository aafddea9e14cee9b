package check

import (
	"github.com/toolroute/toolroute/registry"
)

// Manifests is the manifests op's request: the JS manifest files of a
// user's tools folder, in order, their text as the host read it or is about
// to write it. The module loads them as toolroute_load would load them
// alone (registry.LoadManifest, one after the other, on an empty
// catalogue: a later file's tool named as an earlier one's is skipped), so
// a host lists the files' tools and problems, and refuses a save, in the
// module's words.
type Manifests struct {
	Files []ManifestFile `json:"files"`
}

// ManifestFile is one file of Manifests.
type ManifestFile struct {
	File   string `json:"file"`
	Text   string `json:"text"`
	Source string `json:"source"`
}

// ManifestTool is one tool a manifest file defines.
type ManifestTool struct {
	Name        string `json:"name"`
	Description string `json:"description"`
}

// ManifestReports is the manifests op's answer, given as the answer's
// args: a report per file, in order.
type ManifestReports struct {
	Files []ManifestReport `json:"files"`
}

// ManifestReport is one file's report: the tools it defines, the reasons of the entries it skipped, and,
// when it skipped any, Error, all of them in one text (a save is refused
// with "the tool was not saved: " and it).
type ManifestReport struct {
	Tools    []ManifestTool `json:"tools"`
	Problems []string       `json:"problems"`
	Error    string         `json:"error,omitempty"`
}

func (m Manifests) check() Answer {
	reg := registry.New()
	out := ManifestReports{Files: []ManifestReport{}}
	for _, f := range m.Files {
		rep := reg.LoadManifest(registry.Manifest{File: f.File, Text: []byte(f.Text), Source: f.Source})
		r := ManifestReport{Tools: []ManifestTool{}, Problems: []string{}}
		for _, l := range rep.Loaded {
			t, _ := reg.Definition(l.Tool)
			r.Tools = append(r.Tools, ManifestTool{Name: t.Name, Description: t.Description})
		}
		for _, p := range rep.Skipped {
			r.Problems = append(r.Problems, p.Reason)
		}
		if err := rep.Err(); err != nil {
			r.Error = err.Error()
		}
		out.Files = append(out.Files, r)
	}
	return Answer{Args: out}
}
