// Package webui is the browser chat UI built into the program, and how
// `toolroute serve` serves a built UI.
//
// Files is web/apps/chat's build (`make ui` writes it into dist/), committed so
// that `go build` needs Go alone; `make check-ui` rebuilds it and fails if
// a byte differs. The build leaves toolroute.wasm and wordvec.bin out:
// Handler serves the module and the word vectors the program already
// embeds (wasm.Binary, assets.WordVectors), so the binary holds one copy
// of each.
//
// Nothing here builds JavaScript: that is web/apps/chat/build.mjs's job.
package webui

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"io"
	"io/fs"
	"net/http"
	"path"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/andybalholm/brotli"

	"github.com/toolroute/toolroute/assets"
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
// (assets.WordVectors) as wordvec.bin. Nothing else is found: no folder,
// no listing, no name starting with a dot.
//
// # Notes
//
// Content types come from the file's extension, never from sniffing.
// Chunks (chunk-HASH.js, named for their content by the build) may be
// cached for a year; every other file is revalidated on each load
// (no-cache), by its ETag when files gives no modification time (an
// embedded build) and by Last-Modified otherwise (a folder).
//
// A file is sent compressed, in brotli or gzip, to a client whose
// Accept-Encoding takes it (its weights followed; brotli first at equal
// weight), unless it is an image or font compressed already or the coding
// would not make it smaller. Each file is compressed once in each coding,
// at the first request that takes that coding (a folder's file again once
// it changes), never per request. A compressed form has an ETag of its own,
// as a representation of its own (RFC 9110, 8.8.3), which If-None-Match
// and If-Range compare; every response of a file that may be compressed
// says Vary: Accept-Encoding. A client that sends no Accept-Encoding, or
// takes none of the two, gets the file as it is.
func Handler(files fs.FS, module []byte) http.Handler {
	return &handler{files: files, module: module, packs: map[string]*packed{}}
}

type handler struct {
	files  fs.FS
	module []byte
	etags  sync.Map // name -> ETag, for files with no modification time: those never change

	mu    sync.Mutex
	packs map[string]*packed // name -> the compressed forms of the file's version now
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
	if Compressible(name) {
		fm, coding, err := choose(w, r, h.pack(name, f), f.content)
		if err != nil {
			http.Error(w, "reading "+name+": "+err.Error(), http.StatusInternalServerError)
			return
		}
		if fm != nil {
			hd.Set("ETag", fm.etag)
			http.ServeContent(codingWriter{w, coding}, r, name, f.mod, bytes.NewReader(fm.data))
			return
		}
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
	size    int64
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
			return file{content: bytes.NewReader(h.module), size: int64(len(h.module)), close: func() error { return nil }}, true
		}
		if name == WordVectors {
			return file{content: bytes.NewReader(assets.WordVectors), size: int64(len(assets.WordVectors)), close: func() error { return nil }}, true
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
		return file{content: bytes.NewReader(b), mod: st.ModTime(), size: int64(len(b)), close: func() error { return nil }}, true
	}
	return file{content: rs, mod: st.ModTime(), size: st.Size(), close: f.Close}, true
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

// codings are the content codings Handler compresses files in, in the
// order it prefers them at equal weight: brotli's are the smaller (the
// module: 5.5 MB, 1.27 MB in brotli, 1.51 MB in gzip). Both at their
// default levels, which take about 0.4 s for the module here; brotli's
// best takes 16 s for 14 % less.
var codings = [...]struct {
	name  string
	write func(io.Writer) io.WriteCloser
}{
	{"br", func(w io.Writer) io.WriteCloser { return brotli.NewWriterLevel(w, brotli.DefaultCompression) }},
	{"gzip", func(w io.Writer) io.WriteCloser { return gzip.NewWriter(w) }},
}

// packed is one version of a file, by its modification time and size (an
// embedded file has one), with its compressed forms.
type packed struct {
	mod   time.Time
	size  int64
	forms [len(codings)]form
}

// form is a file compressed in one coding, made once.
type form struct {
	once sync.Once
	data []byte // nil when the coding does not make the file smaller
	etag string
	err  error
}

// pack gives the compressed forms of file f, served as name, made or to
// be made for this version of it.
func (h *handler) pack(name string, f file) *packed {
	h.mu.Lock()
	defer h.mu.Unlock()
	p := h.packs[name]
	if p == nil || !p.mod.Equal(f.mod) || p.size != f.size {
		p = &packed{mod: f.mod, size: f.size}
		h.packs[name] = p
	}
	return p
}

// form gives p's form in coding c, compressing content the first time,
// and leaves content at its start.
func (p *packed) form(c int, content io.ReadSeeker) (*form, error) {
	fm := &p.forms[c]
	fm.once.Do(func() {
		var raw []byte
		if raw, fm.err = io.ReadAll(content); fm.err != nil {
			return
		}
		if _, fm.err = content.Seek(0, io.SeekStart); fm.err != nil {
			return
		}
		var out bytes.Buffer
		w := codings[c].write(&out)
		w.Write(raw) // a bytes.Buffer takes it all
		if fm.err = w.Close(); fm.err != nil || out.Len() >= len(raw) {
			return
		}
		fm.data = out.Bytes()
		fm.etag = etagOf(fm.data)
	})
	return fm, fm.err
}

// choose gives the form of p, made from content, that r's Accept-Encoding
// takes best, and its coding's name; nil for content as it is. It says
// Vary: Accept-Encoding, as every answer of such a content must.
func choose(w http.ResponseWriter, r *http.Request, p *packed, content io.ReadSeeker) (*form, string, error) {
	w.Header().Add("Vary", "Accept-Encoding")
	for _, c := range accepted(r.Header.Values("Accept-Encoding")) {
		fm, err := p.form(c, content)
		if err != nil {
			return nil, "", err
		}
		if fm.data != nil { // else the coding does not make it smaller
			return fm, codings[c].name, nil
		}
	}
	return nil, "", nil
}

// etagOf is a strong ETag of data.
func etagOf(data []byte) string {
	sum := sha256.Sum256(data)
	return `"` + hex.EncodeToString(sum[:12]) + `"`
}

// A Versioned serves a content that changes now and then, such as an
// API's JSON, compressed as Handler serves the UI's files: each version
// once in each coding a request takes, a version being the content's
// hash. It keeps the forms of the last version served. Its zero value is
// ready to use.
type Versioned struct {
	mu   sync.Mutex
	tag  string
	pack *packed
}

// Serve answers r with content, of type ctype: in the coding r's
// Accept-Encoding takes, its ETag the version's (each coding's its own),
// revalidated on each use (no-cache).
func (v *Versioned) Serve(w http.ResponseWriter, r *http.Request, ctype string, content []byte) {
	tag := etagOf(content)
	v.mu.Lock()
	if v.pack == nil || v.tag != tag {
		v.tag, v.pack = tag, &packed{size: int64(len(content))}
	}
	p := v.pack
	v.mu.Unlock()
	hd := w.Header()
	hd.Set("Content-Type", ctype)
	hd.Set("Cache-Control", "no-cache")
	fm, coding, err := choose(w, r, p, bytes.NewReader(content))
	if err != nil { // a bytes.Reader does not fail
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	if fm != nil {
		hd.Set("ETag", fm.etag)
		http.ServeContent(codingWriter{w, coding}, r, "", time.Time{}, bytes.NewReader(fm.data))
		return
	}
	hd.Set("ETag", tag)
	http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(content))
}

// codingWriter names the coding of the response ServeContent makes of a
// compressed form, once it has chosen its status: a Content-Encoding set
// before would keep ServeContent from sending the length, and its 304s
// and errors carry no body to name.
type codingWriter struct {
	http.ResponseWriter
	coding string
}

func (c codingWriter) WriteHeader(code int) {
	if code == http.StatusOK || code == http.StatusPartialContent {
		c.Header().Set("Content-Encoding", c.coding)
	}
	c.ResponseWriter.WriteHeader(code)
}

// Unwrap lets http.ResponseController reach the response beneath.
func (c codingWriter) Unwrap() http.ResponseWriter { return c.ResponseWriter }

// accepted lists the codings (indexes of codings) a request's
// Accept-Encoding values take, best first: by weight, brotli before gzip
// at equal weight; none weighted 0, nor one weighted below identity when
// the request weights identity. x-gzip is gzip (RFC 9110, 8.4.1.3). No
// Accept-Encoding takes none: RFC 9110 would let the server choose, but
// such a client may not decode what it did not ask for.
func accepted(values []string) []int {
	type weighted struct {
		coding int
		q      float64
	}
	var listed []string
	var qs []float64
	weight := func(name string) (float64, bool) {
		if i := slices.Index(listed, name); i >= 0 {
			return qs[i], true
		}
		return 0, false
	}
	for _, v := range values {
		for _, e := range strings.Split(v, ",") {
			name, params, _ := strings.Cut(e, ";")
			name = strings.ToLower(strings.TrimSpace(name))
			if name == "" {
				continue
			}
			if name == "x-gzip" {
				name = "gzip"
			}
			q := 1.0
			for _, p := range strings.Split(params, ";") {
				k, v, _ := strings.Cut(p, "=")
				if strings.EqualFold(strings.TrimSpace(k), "q") {
					f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
					if err != nil || f < 0 || f > 1 {
						f = 0 // a weight that cannot be read takes nothing
					}
					q = f
				}
			}
			if _, seen := weight(name); !seen {
				listed, qs = append(listed, name), append(qs, q)
			}
		}
	}
	identity, weighsIdentity := weight("identity")
	var out []weighted
	for c := range codings {
		q, ok := weight(codings[c].name)
		if !ok {
			q, _ = weight("*")
		}
		if q > 0 && (!weighsIdentity || q >= identity) {
			out = append(out, weighted{c, q})
		}
	}
	slices.SortStableFunc(out, func(a, b weighted) int {
		switch {
		case a.q > b.q:
			return -1
		case a.q < b.q:
			return 1
		}
		return 0
	})
	order := make([]int, len(out))
	for i, w := range out {
		order[i] = w.coding
	}
	return order
}

// Compressible reports whether Handler may send name compressed: every
// file but the images and fonts stored compressed already.
func Compressible(name string) bool {
	switch path.Ext(name) {
	case ".png", ".jpg", ".jpeg", ".gif", ".webp", ".avif", ".woff", ".woff2", ".gz", ".br", ".zst", ".zip":
		return false
	}
	return true
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
// content (web/apps/chat/build.mjs's chunkNames, chunk-HASH.js): a new content is a
// new name, so the file may be cached for good.
func Hashed(name string) bool {
	return strings.HasPrefix(name, "chunk-") && strings.HasSuffix(name, ".js")
}
