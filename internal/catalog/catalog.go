// Package catalog reads folders of JS tool manifests (NAME.json with NAME.js
// beside it) for the registry: the built-in manifests embedded in the binary
// and the user's tool folders. It does the file I/O the registry leaves to
// hosts and keeps each source's text under the reference the registry copies
// into its tools.
package catalog

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"strings"

	"github.com/toolroute/toolroute/registry"
)

// Folder is one folder's manifests, in file-name order, and the sources they
// refer to.
type Folder struct {
	Files []File
	// Sources maps each manifest's Source reference to the JS text.
	Sources map[string][]byte
}

// File is one NAME.json of a folder.
type File struct {
	Manifest registry.Manifest
	// Refused, when not empty, says why the manifest is not handed to the
	// registry, such as a NAME.json with no NAME.js beside it.
	Refused string
}

// ReadFolder reads every NAME.json at the root of fsys, with NAME.js beside
// it. label names the folder in file names and source references: a manifest
// is reported as label/NAME.json and its source is label/NAME.js. override is
// copied into each manifest.
func ReadFolder(fsys fs.FS, label string, override bool) (Folder, error) {
	f := Folder{Sources: map[string][]byte{}}
	entries, err := fs.ReadDir(fsys, ".")
	if err != nil {
		return f, fmt.Errorf("catalog: read %s: %w", label, err)
	}
	for _, e := range entries {
		base, ok := strings.CutSuffix(e.Name(), ".json")
		if !ok || e.IsDir() {
			continue
		}
		file := path.Join(label, e.Name())
		text, err := fs.ReadFile(fsys, e.Name())
		if err != nil {
			f.Files = append(f.Files, File{Manifest: registry.Manifest{File: file}, Refused: fmt.Sprintf("cannot read the manifest: %v", err)})
			continue
		}
		jsName := base + ".js"
		src, err := fs.ReadFile(fsys, jsName)
		if errors.Is(err, fs.ErrNotExist) {
			f.Files = append(f.Files, File{Manifest: registry.Manifest{File: file}, Refused: "Missing corresponding .js file: " + jsName})
			continue
		}
		if err != nil {
			f.Files = append(f.Files, File{Manifest: registry.Manifest{File: file}, Refused: fmt.Sprintf("cannot read %s: %v", jsName, err)})
			continue
		}
		ref := path.Join(label, jsName)
		f.Sources[ref] = src
		f.Files = append(f.Files, File{Manifest: registry.Manifest{File: file, Text: text, Source: ref, Override: override}})
	}
	return f, nil
}

// CatalogueManifest is the file as a catalogue carries it to the module.
func (f File) CatalogueManifest() registry.CatalogueManifest {
	m := f.Manifest
	return registry.CatalogueManifest{File: m.File, Text: string(m.Text), Source: m.Source, Override: m.Override}
}

// Catalogue is the folder's manifests as a catalogue carries them, the
// refused files left out.
func (f Folder) Catalogue() registry.Catalogue {
	var c registry.Catalogue
	for _, file := range f.Files {
		if file.Refused == "" {
			c.Manifests = append(c.Manifests, file.CatalogueManifest())
		}
	}
	return c
}

// Load registers the folder's manifests and returns one report per file in
// file-name order; a refused file's report holds its reason.
func (f Folder) Load(r *registry.Registry) []registry.Report {
	reports := make([]registry.Report, 0, len(f.Files))
	for _, file := range f.Files {
		if file.Refused == "" {
			reports = append(reports, r.LoadManifest(file.Manifest))
			continue
		}
		name := file.Manifest.File
		reports = append(reports, registry.Report{
			File:     name,
			Loaded:   []registry.Loaded{},
			Skipped:  []registry.Problem{{File: name, Entry: -1, Reason: file.Refused}},
			Warnings: []registry.Problem{},
		})
	}
	return reports
}
