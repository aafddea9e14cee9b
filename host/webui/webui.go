// Package webui is the browser chat UI built into the program, and how
// `toolroute serve` serves a built UI.
//
// Files is web/ui's build (`make ui` writes it into dist/), committed so
// that `go build` needs Go alone; `make check-ui` rebuilds it and fails if
// a byte differs. The build leaves toolroute.wasm and wordvec.bin out:
// Handler serves the module and the word vectors the program already
// embeds (wasm.Binary, english.Data), so the binary holds one copy of each.
//
// Nothing here builds JavaScript: that is web/build.mjs's job.
package webui

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"io"
	"io/fs"
	"net/http"
	"path"
	"strings"
	"sync"
	"time"

	"github.com/toolroute/toolroute/registry/wordvec/english"
)

// Module is the name the UI fetches the module by.
const Module = "toolroute.wasm"

// WordVectors is the name the UI fetches the word vectors by, which it
// hands the module for search_tools (wasm/ABI.md, toolroute_word_vectors).
const WordVectors = "wordvec.bin"

//go:embed dist
var dist embed.FS

// Files is the built UI: index.html, app.css, app.js, worker.js, their
// chunks and quickjs.wasm, in one folder.
var Files fs.FS

func init() {
	sub, err := fs.Sub(dist, "dist")
	if err != nil {
		panic(err)
	}
	Files = sub
}

// Handler serves a built UI at /: index.html at / (and /index.html), and
// each file at the top of files at /NAME. The module is served as
// toolroute.wasm when files holds none, and the program's word vectors
// (english.Data) as wordvec.bin. Nothing else is found: no folder,
// no listing, no name starting with a dot.
//
// # Notes
//
// Content types come from the file's extension, never from sniffing.
// Chunks (chunk-HASH.js, named for their content by the build) may be
// cached for a year; every other file is revalidated on each load
// (no-cache), by its ETag when files gives no modification time (an
// embedded build) and by Last-Modified otherwise (a folder).
func Handler(files fs.FS, module []byte) http.Handler {
	return &handler{files: files, module: module}
}

type handler struct {
	files  fs.FS
	module []byte
	etags  sync.Map // name -> ETag, for files with no modification time: those never change
}

func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "the UI's files are read with GET", http.StatusMethodNotAllowed)
		return
	}
	name := strings.TrimPrefix(r.URL.Path, "/")
	if name == "" {
		name = "index.html"
	}
	f, ok := h.open(name)
	if !ok {
		http.NotFound(w, r)
		return
	}
	defer f.close()
	hd := w.Header()
	hd.Set("Content-Type", ContentType(name))
	hd.Set("X-Content-Type-Options", "nosniff")
	if Hashed(name) {
		hd.Set("Cache-Control", "public, max-age=31536000, immutable")
	} else {
		hd.Set("Cache-Control", "no-cache")
	}
	if f.mod.IsZero() {
		tag, err := h.etag(name, f.content)
		if err != nil {
			http.Error(w, "reading "+name+": "+err.Error(), http.StatusInternalServerError)
			return
		}
		hd.Set("ETag", tag)
	}
	http.ServeContent(w, r, name, f.mod, f.content)
}

// file is an open file of the UI.
type file struct {
	content io.ReadSeeker
	mod     time.Time
	close   func() error
}

// open finds name at the top of h.files, or the module.
func (h *handler) open(name string) (file, bool) {
	if strings.Contains(name, "/") || strings.HasPrefix(name, ".") || !fs.ValidPath(name) {
		return file{}, false
	}
	f, err := h.files.Open(name)
	if err != nil {
		if name == Module && h.module != nil {
			return file{content: bytes.NewReader(h.module), close: func() error { return nil }}, true
		}
		if name == WordVectors {
			return file{content: bytes.NewReader(english.Data), close: func() error { return nil }}, true
		}
		return file{}, false
	}
	st, err := f.Stat()
	if err != nil || !st.Mode().IsRegular() {
		f.Close()
		return file{}, false
	}
	rs, ok := f.(io.ReadSeeker)
	if !ok { // an fs.FS whose files cannot seek: read it whole
		b, err := io.ReadAll(f)
		f.Close()
		if err != nil {
			return file{}, false
		}
		return file{content: bytes.NewReader(b), mod: st.ModTime(), close: func() error { return nil }}, true
	}
	return file{content: rs, mod: st.ModTime(), close: f.Close}, true
}

// etag is the ETag of name, whose content never changes, hashed once.
func (h *handler) etag(name string, content io.ReadSeeker) (string, error) {
	if tag, ok := h.etags.Load(name); ok {
		return tag.(string), nil
	}
	sum := sha256.New()
	if _, err := io.Copy(sum, content); err != nil {
		return "", err
	}
	if _, err := content.Seek(0, io.SeekStart); err != nil {
		return "", err
	}
	tag := `"` + hex.EncodeToString(sum.Sum(nil)[:12]) + `"`
	h.etags.Store(name, tag)
	return tag, nil
}

// ContentType is the type Handler serves a file of the UI with, by its
// extension; application/octet-stream for one the UI has no use for.
func ContentType(name string) string {
	switch path.Ext(name) {
	case ".html":
		return "text/html; charset=utf-8"
	case ".js", ".mjs":
		return "text/javascript; charset=utf-8"
	case ".css":
		return "text/css; charset=utf-8"
	case ".wasm":
		return "application/wasm"
	case ".json", ".map":
		return "application/json"
	case ".svg":
		return "image/svg+xml"
	case ".png":
		return "image/png"
	case ".woff2":
		return "font/woff2"
	case ".ttf":
		return "font/ttf"
	case ".pfb":
		return "application/x-font-type1"
	case ".txt":
		return "text/plain; charset=utf-8"
	}
	return "application/octet-stream"
}

// Hashed reports whether name is one the build makes from the file's
// content (web/build.mjs's chunkNames, chunk-HASH.js): a new content is a
// new name, so the file may be cached for good.
func Hashed(name string) bool {
	return strings.HasPrefix(name, "chunk-") && strings.HasSuffix(name, ".js")
}
