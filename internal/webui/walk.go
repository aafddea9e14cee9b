package webui

import (
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"slices"
	"strings"
)

// Load says how a page of the UI comes to fetch a file.
type Load int

const (
	// Initial is index.html, what it links (its script, its stylesheet),
	// the scripts those start as workers (new URL("x.js", ...): app.js
	// starts its worker as it loads) and what all these import
	// statically: what the browser fetches as the page opens.
	Initial Load = iota + 1
	// Imported is JavaScript loaded with import(), when the code first
	// needs it, and what it imports statically that nothing initial does.
	Imported
	// Fetched is another file the code names, with new URL(NAME, base)
	// or a stylesheet's url(): the wasm modules, when the worker first
	// needs them.
	Fetched
	// Unused is a file nothing refers to.
	Unused
)

// String is when the file loads, in words.
func (l Load) String() string {
	switch l {
	case Initial:
		return "initial"
	case Imported:
		return "imported"
	case Fetched:
		return "fetched"
	case Unused:
		return "unused"
	}
	return fmt.Sprintf("Load(%d)", int(l))
}

// A File is one file a built UI serves, and how a page reaches it.
type File struct {
	Name string
	Size int64
	Load Load
	// From is the file whose reference reached it first; "" for
	// index.html and unused files.
	From string
}

// Walk lists the files Handler(files, module) serves, following the
// references from index.html as a browser would: index.html, the initial
// files in the order they are reached, the imported and fetched ones, then
// the unused ones by name. It reads the references of the build's own
// output (esbuild's minified ESM, one index.html, plain CSS), not of any
// JavaScript: imports and links must resolve; a name given to new URL
// counts when the build has that file.
//
// # Errors
//
// A reference to a file Handler would not find, naming both files.
func Walk(files fs.FS, module []byte) ([]File, error) {
	var out []File
	seen := map[string]bool{}
	add := func(name string, load Load, from string) error {
		if seen[name] {
			return nil
		}
		size, err := sizeOf(files, module, name)
		if err != nil {
			if from == "" {
				return fmt.Errorf("webui: the build has no %s: %w", name, err)
			}
			return fmt.Errorf("webui: %s refers to %s, which the build has not", from, name)
		}
		seen[name] = true
		out = append(out, File{Name: name, Size: size, Load: load, From: from})
		return nil
	}
	if err := add("index.html", Initial, ""); err != nil {
		return nil, err
	}
	// First what the page loads as it opens, then everything else, so
	// that a file is initial whenever any path to it is.
	for _, initialOnly := range []bool{true, false} {
		for i := 0; i < len(out); i++ {
			f := out[i]
			rs, err := refsOf(files, f.Name)
			if err != nil {
				return nil, err
			}
			for _, r := range rs {
				load := r.load
				if load == Initial {
					load = f.Load // a static import loads with its importer
				}
				if initialOnly && load != Initial {
					continue
				}
				if _, err := sizeOf(files, module, r.name); err != nil && r.named {
					continue
				}
				if err := add(r.name, load, f.Name); err != nil {
					return nil, err
				}
			}
		}
	}
	entries, err := fs.ReadDir(files, ".")
	if err != nil {
		return nil, err
	}
	for _, e := range entries { // sorted by name
		if e.Type().IsRegular() && !seen[e.Name()] && !strings.HasPrefix(e.Name(), ".") {
			info, err := e.Info()
			if err != nil {
				return nil, err
			}
			out = append(out, File{Name: e.Name(), Size: info.Size(), Load: Unused})
		}
	}
	return out, nil
}

// sizeOf is the size of the file Handler serves as name.
func sizeOf(files fs.FS, module []byte, name string) (int64, error) {
	if strings.Contains(name, "/") || strings.HasPrefix(name, ".") || !fs.ValidPath(name) {
		return 0, fs.ErrNotExist
	}
	st, err := fs.Stat(files, name)
	if err == nil && !st.Mode().IsRegular() {
		err = fs.ErrNotExist
	}
	if err != nil {
		if name == Module && module != nil {
			return int64(len(module)), nil
		}
		return 0, err
	}
	return st.Size(), nil
}

// ref is a reference from one file of the UI to another.
type ref struct {
	name string
	load Load
	// named is a name a script builds a URL of: it counts only when the
	// build has the file. Bundled libraries name files the UI replaces
	// (emscripten's own wasm, which the worker passes QuickJS itself).
	named bool
}

var (
	htmlRef    = regexp.MustCompile(`\s(?:src|href)\s*=\s*["']([^"']*)["']`)
	cssRef     = regexp.MustCompile(`url\(\s*["']?([^"')\s]+)["']?\s*\)`)
	jsImport   = regexp.MustCompile(`\b(?:import|from)\s*["'](\.\.?/[^"']+)["']`)
	jsDynamic  = regexp.MustCompile(`\bimport\(\s*["'](\.\.?/[^"']+)["']\s*\)`)
	jsURL      = regexp.MustCompile(`\bnew URL\(\s*["']([^"':/]+)["']`)
	jsFileName = regexp.MustCompile(`\.m?js$`)
	// jsFamily is a prefix a script names files by, adding the rest when
	// it asks for one: pdf.js's fonts and decoders (web/apps/chat/worker.js's
	// PDF_DATA), each fetched at the first render that needs it.
	jsFamily = regexp.MustCompile(`["'](pdf(?:font|wasm)-)["']`)
)

// refsOf reads the references of a file of the UI, in the order they
// appear: local ones only (no data:, no other site, no fragment).
func refsOf(files fs.FS, name string) ([]ref, error) {
	var rs []ref
	found := func(target string, load Load, named bool) {
		if target == "" || strings.HasPrefix(target, "#") || strings.HasPrefix(target, "//") || strings.Contains(target, ":") {
			return
		}
		target, _, _ = strings.Cut(target, "#")
		target, _, _ = strings.Cut(target, "?")
		target = strings.TrimPrefix(target, "/") // the UI is served at /
		target = path.Clean(target)
		rs = append(rs, ref{target, load, named})
	}
	var text []byte
	switch path.Ext(name) {
	case ".html", ".css", ".js", ".mjs":
		b, err := fs.ReadFile(files, name)
		if err != nil {
			return nil, err
		}
		text = b
	default:
		return nil, nil
	}
	switch path.Ext(name) {
	case ".html":
		for _, m := range htmlRef.FindAllSubmatch(text, -1) {
			found(string(m[1]), Initial, false)
		}
	case ".css":
		for _, m := range cssRef.FindAllSubmatch(text, -1) {
			found(string(m[1]), Fetched, false)
		}
	default:
		// The three kinds in source order, so that From names the first.
		type hit struct {
			at int
			ref
		}
		var hits []hit
		for _, m := range jsImport.FindAllSubmatchIndex(text, -1) {
			hits = append(hits, hit{m[0], ref{string(text[m[2]:m[3]]), Initial, false}})
		}
		for _, m := range jsDynamic.FindAllSubmatchIndex(text, -1) {
			hits = append(hits, hit{m[0], ref{string(text[m[2]:m[3]]), Imported, false}})
		}
		for _, m := range jsURL.FindAllSubmatchIndex(text, -1) {
			target, load := string(text[m[2]:m[3]]), Fetched
			if jsFileName.MatchString(target) {
				load = Initial // a worker's script, started as the page loads
			}
			hits = append(hits, hit{m[0], ref{target, load, true}})
		}
		if fam := jsFamily.FindAllSubmatchIndex(text, -1); len(fam) > 0 {
			entries, err := fs.ReadDir(files, ".")
			if err != nil {
				return nil, err
			}
			for _, m := range fam {
				prefix := string(text[m[2]:m[3]])
				for _, e := range entries { // sorted by name
					if strings.HasPrefix(e.Name(), prefix) {
						hits = append(hits, hit{m[0], ref{e.Name(), Fetched, true}})
					}
				}
			}
		}
		slices.SortStableFunc(hits, func(a, b hit) int { return a.at - b.at })
		for _, h := range hits {
			found(h.name, h.load, h.named)
		}
	}
	return rs, nil
}
