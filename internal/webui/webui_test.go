package webui_test

import (
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/toolroute/toolroute/assets"
	"github.com/toolroute/toolroute/internal/webui"
	"github.com/toolroute/toolroute/wasm"
)

var module = []byte("\x00asm\x01\x00\x00\x00")

// build is a small UI as web/apps/chat/build.mjs lays one out.
func build() fstest.MapFS {
	return fstest.MapFS{
		"index.html":       {Data: []byte(`<link rel="icon" href="data:,"><link rel="stylesheet" href="app.css"><script type="module" src="app.js"></script><a href="#log">skip</a>`)},
		"app.css":          {Data: []byte(`body{background:url("bg.svg")}`)},
		"bg.svg":           {Data: []byte(`<svg/>`)},
		"app.js":           {Data: []byte(`import{a}from"./chunk-AAAA.js";new Worker(new URL("worker.js",import.meta.url),{type:"module"});`)},
		"worker.js":        {Data: []byte(`import"./chunk-AAAA.js";import{b}from"./chunk-CCCC.js";let t=()=>import("./chunk-BBBB.js");fetch(new URL("toolroute.wasm",self.location.href));new URL("emscripten-module.wasm",import.meta.url);import("node:fs/promises");`)},
		"chunk-AAAA.js":    {Data: []byte(`export const a=1;`)},
		"chunk-BBBB.js":    {Data: []byte(`import"./chunk-AAAA.js";import"./chunk-DDDD.js";export const t=2;`)},
		"chunk-CCCC.js":    {Data: []byte(`export const b=3;`)},
		"chunk-DDDD.js":    {Data: []byte(`export const d=4;`)},
		"chunk-EEEE.js":    {Data: []byte(`export const e=5;`)},
		"sub/x.js":         {Data: []byte(`x`)},
		".hidden":          {Data: []byte(`secret`)},
		"notes.unexpected": {Data: []byte(`?`)},
	}
}

func TestHandler(t *testing.T) {
	srv := httptest.NewServer(webui.Handler(build(), module))
	defer srv.Close()
	for _, c := range []struct {
		name, method, path string
		header             map[string]string
		wantStatus         int
		wantType, wantBody string
		wantCache          string
	}{
		{name: "the page", path: "/", wantStatus: 200, wantType: "text/html; charset=utf-8", wantBody: "<link", wantCache: "no-cache"},
		{name: "the page by name", path: "/index.html", wantStatus: 200, wantType: "text/html; charset=utf-8", wantBody: "<link", wantCache: "no-cache"},
		{name: "a script", path: "/app.js", wantStatus: 200, wantType: "text/javascript; charset=utf-8", wantBody: "import{a}", wantCache: "no-cache"},
		{name: "a chunk, named for its content", path: "/chunk-AAAA.js", wantStatus: 200, wantType: "text/javascript; charset=utf-8", wantBody: "export const a", wantCache: "public, max-age=31536000, immutable"},
		{name: "the stylesheet", path: "/app.css", wantStatus: 200, wantType: "text/css; charset=utf-8", wantCache: "no-cache"},
		{name: "the module, from the program", path: "/toolroute.wasm", wantStatus: 200, wantType: "application/wasm", wantBody: string(module), wantCache: "no-cache"},
		{name: "the word vectors, from the program", path: "/wordvec.bin", wantStatus: 200, wantType: "application/octet-stream", wantBody: string(assets.WordVectors), wantCache: "no-cache"},
		{name: "HEAD", method: "HEAD", path: "/app.js", wantStatus: 200, wantType: "text/javascript; charset=utf-8"},
		{name: "an unknown type is not sniffed", path: "/notes.unexpected", wantStatus: 200, wantType: "application/octet-stream"},
		{name: "a folder is not listed", path: "/sub/", wantStatus: 404},
		{name: "a folder", path: "/sub", wantStatus: 404},
		{name: "a file in a folder", path: "/sub/x.js", wantStatus: 404},
		{name: "a dot file", path: "/.hidden", wantStatus: 404},
		{name: "nothing", path: "/nothing.js", wantStatus: 404},
		{name: "POST", method: "POST", path: "/", wantStatus: 405},
	} {
		t.Run(c.name, func(t *testing.T) {
			method := c.method
			if method == "" {
				method = "GET"
			}
			req, _ := http.NewRequest(method, srv.URL+c.path, nil)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != c.wantStatus {
				t.Fatalf("HTTP %d, want %d: %s", resp.StatusCode, c.wantStatus, body)
			}
			if c.wantStatus != 200 {
				return
			}
			if got := resp.Header.Get("Content-Type"); got != c.wantType {
				t.Errorf("Content-Type %q, want %q", got, c.wantType)
			}
			if got := resp.Header.Get("X-Content-Type-Options"); got != "nosniff" {
				t.Errorf("X-Content-Type-Options %q", got)
			}
			if c.wantCache != "" && resp.Header.Get("Cache-Control") != c.wantCache {
				t.Errorf("Cache-Control %q, want %q", resp.Header.Get("Cache-Control"), c.wantCache)
			}
			if !strings.HasPrefix(string(body), c.wantBody) {
				t.Errorf("body %q, want it to start with %q", body, c.wantBody)
			}
			if method == "HEAD" && len(body) != 0 {
				t.Errorf("HEAD answered a body: %q", body)
			}
		})
	}
}

// An embedded build has no modification times: its files are revalidated
// by ETag. A folder's have them: by Last-Modified.
func TestRevalidation(t *testing.T) {
	for _, name := range []string{"/app.js", "/toolroute.wasm"} {
		t.Run("ETag "+name, func(t *testing.T) {
			srv := httptest.NewServer(webui.Handler(build(), module))
			defer srv.Close()
			resp, err := http.Get(srv.URL + name)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			tag := resp.Header.Get("ETag")
			if !strings.HasPrefix(tag, `"`) || len(tag) < 10 {
				t.Fatalf("ETag %q", tag)
			}
			req, _ := http.NewRequest("GET", srv.URL+name, nil)
			req.Header.Set("If-None-Match", tag)
			resp, err = http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusNotModified {
				t.Errorf("with its ETag: HTTP %d, want 304", resp.StatusCode)
			}
		})
	}
	t.Run("Last-Modified", func(t *testing.T) {
		files := build()
		mod := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
		files["app.js"].ModTime = mod
		srv := httptest.NewServer(webui.Handler(files, module))
		defer srv.Close()
		req, _ := http.NewRequest("GET", srv.URL+"/app.js", nil)
		req.Header.Set("If-Modified-Since", mod.Format(http.TimeFormat))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusNotModified || resp.Header.Get("ETag") != "" {
			t.Errorf("HTTP %d, ETag %q; want 304 and none", resp.StatusCode, resp.Header.Get("ETag"))
		}
	})
}

func TestWalk(t *testing.T) {
	got, err := webui.Walk(build(), module)
	if err != nil {
		t.Fatal(err)
	}
	size := func(s string) int64 { return int64(len(s)) }
	b := build()
	f := func(name string, load webui.Load, from string) webui.File {
		n := int64(len(module))
		if name != webui.Module {
			n = size(string(b[name].Data))
		}
		return webui.File{Name: name, Size: n, Load: load, From: from}
	}
	want := []webui.File{
		f("index.html", webui.Initial, ""),
		f("app.css", webui.Initial, "index.html"),
		f("app.js", webui.Initial, "index.html"),
		f("chunk-AAAA.js", webui.Initial, "app.js"),
		f("worker.js", webui.Initial, "app.js"),
		f("chunk-CCCC.js", webui.Initial, "worker.js"),
		f("bg.svg", webui.Fetched, "app.css"),
		f("chunk-BBBB.js", webui.Imported, "worker.js"),
		f(webui.Module, webui.Fetched, "worker.js"),
		f("chunk-DDDD.js", webui.Imported, "chunk-BBBB.js"),
		f("chunk-EEEE.js", webui.Unused, ""),
		f("notes.unexpected", webui.Unused, ""),
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Walk (-want +got):\n%s", diff)
	}
}

func TestWalkErrors(t *testing.T) {
	for _, c := range []struct {
		name    string
		change  func(fstest.MapFS)
		module  []byte
		wantErr string
	}{
		{name: "no page", change: func(b fstest.MapFS) { delete(b, "index.html") }, module: module, wantErr: "webui: the build has no index.html: open index.html: file does not exist"},
		{name: "a missing chunk", change: func(b fstest.MapFS) { delete(b, "chunk-DDDD.js") }, module: module, wantErr: "webui: chunk-BBBB.js refers to chunk-DDDD.js, which the build has not"},
		{name: "a missing script", change: func(b fstest.MapFS) { delete(b, "app.js") }, module: module, wantErr: "webui: index.html refers to app.js, which the build has not"},
		{name: "into a folder", change: func(b fstest.MapFS) { b["chunk-CCCC.js"] = &fstest.MapFile{Data: []byte(`import"./sub/x.js"`)} }, module: module, wantErr: "webui: chunk-CCCC.js refers to sub/x.js, which the build has not"},
		// Without the module, new URL("toolroute.wasm") names nothing the
		// build has: it is not followed, as emscripten's own name is not.
		{name: "no module", change: func(fstest.MapFS) {}, wantErr: ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			b := build()
			c.change(b)
			_, err := webui.Walk(b, c.module)
			if got := fmt.Sprint(err); c.wantErr == "" && err != nil || c.wantErr != "" && got != c.wantErr {
				t.Errorf("error %v, want %q", err, c.wantErr)
			}
		})
	}
}

// The UI built into the program: every file is reached from index.html, is
// served with a type of its own, and the module is not a second copy.
func TestFiles(t *testing.T) {
	files, err := webui.Walk(webui.Files, wasm.Binary)
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]webui.File{}
	for _, f := range files {
		byName[f.Name] = f
		if f.Load == webui.Unused {
			t.Errorf("the build ships %s, which nothing refers to (or Walk cannot see how): drop it from the build, or teach walk.go the reference", f.Name)
		}
		if ct := webui.ContentType(f.Name); ct == "application/octet-stream" {
			t.Errorf("%s would be served as %s: give webui.ContentType its type", f.Name, ct)
		}
	}
	for _, c := range []struct {
		name string
		load webui.Load
	}{
		{"index.html", webui.Initial}, {"app.css", webui.Initial}, {"app.js", webui.Initial}, {"worker.js", webui.Initial},
		{webui.Module, webui.Fetched}, {"quickjs.wasm", webui.Fetched},
		// pdf.js's data, named by prefix in worker.js, fetched at a render.
		{"pdffont-FoxitSerif.pfb", webui.Fetched}, {"pdffont-LiberationSans-Regular.ttf", webui.Fetched}, {"pdfwasm-openjpeg.wasm", webui.Fetched},
	} {
		if f, ok := byName[c.name]; !ok || f.Load != c.load {
			t.Errorf("%s: %+v, want it %v", c.name, f, c.load)
		}
	}
	if _, err := fs.Stat(webui.Files, webui.Module); err == nil {
		t.Errorf("the built-in UI holds a copy of %s: the program serves wasm.Binary (build it with --no-module)", webui.Module)
	}
	if f := byName[webui.Module]; f.Size != int64(len(wasm.Binary)) {
		t.Errorf("%s is %d bytes, the module %d", webui.Module, f.Size, len(wasm.Binary))
	}
}
