package server_test

import (
	"bytes"
	"encoding/json"
	"io"
	"io/fs"
	"net/http"
	"net/http/cookiejar"
	"os"
	"path/filepath"
	"testing"

	"github.com/andybalholm/brotli"

	"github.com/toolroute/toolroute/internal/fakemodel"
	"github.com/toolroute/toolroute/internal/server"
	"github.com/toolroute/toolroute/internal/webui"
	"github.com/toolroute/toolroute/wasm"
)

// With no Page, serve answers with the browser UI built into the program,
// Node or not: a browser opening the URL serve prints lands on its
// index.html, and every file the page reaches from there, down to the
// lazily imported chunks and both wasm modules, is served whole with its
// type. toolroute.wasm is the program's own module.
func TestBuiltInUI(t *testing.T) {
	model := fakemodel.New(fakemodel.OpenAI)
	defer model.Close()
	srv := start(t, model)
	jar, _ := cookiejar.New(nil)
	browser := &http.Client{Jar: jar}

	read := func(path string) (*http.Response, []byte) {
		t.Helper()
		resp, err := browser.Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		return resp, body
	}
	resp, page := read("/?token=" + token)
	index, err := fs.ReadFile(webui.Files, "index.html")
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != 200 || resp.Request.URL.String() != srv.URL+"/" || !bytes.Equal(page, index) {
		t.Fatalf("the browser ended at %s with HTTP %d and %.100q, want / and the UI's index.html", resp.Request.URL, resp.StatusCode, page)
	}
	if resp, _ := read("/api/health"); resp.StatusCode != 200 {
		t.Errorf("the page's API call: HTTP %d", resp.StatusCode)
	}

	files, err := webui.Walk(webui.Files, wasm.Binary)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 6 {
		t.Fatalf("the walk from index.html found only %v", files)
	}
	for _, f := range files {
		resp, body := read("/" + f.Name)
		want := wasm.Binary
		if f.Name != webui.Module {
			if want, err = fs.ReadFile(webui.Files, f.Name); err != nil {
				t.Fatal(err)
			}
		}
		if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != webui.ContentType(f.Name) || !bytes.Equal(body, want) {
			t.Errorf("%s (%v, from %s): HTTP %d %s, %d bytes; want 200 %s, %d bytes", f.Name, f.Load, f.From,
				resp.StatusCode, resp.Header.Get("Content-Type"), len(body), webui.ContentType(f.Name), len(want))
		}
	}
	if resp, body := read("/" + webui.Module); resp.Header.Get("Content-Type") != "application/wasm" || !bytes.Equal(body, wasm.Binary) {
		t.Errorf("the module: %s, %d bytes, want application/wasm and wasm.Binary's %d", resp.Header.Get("Content-Type"), len(body), len(wasm.Binary))
	}
	for _, path := range []string{"/dist/", "/dist/index.html", "/ui/", "/nothing.js"} {
		if resp, _ := read(path); resp.StatusCode != 404 {
			t.Errorf("%s: HTTP %d, want 404", path, resp.StatusCode)
		}
	}
}

// The page's catalogue, hundreds of KB of JSON, comes compressed as the
// page's files do: decoded, the same JSON; revalidated by its ETag; a new
// version (a library added) a new ETag.
func TestCatalogueCompressed(t *testing.T) {
	model := fakemodel.New(fakemodel.OpenAI)
	defer model.Close()
	dir := t.TempDir()
	srv := startIn(t, dir, model, server.Options{Token: token})
	raw := &http.Transport{DisableCompression: true}
	fetchFrom := func(route string, header ...string) (*http.Response, []byte) {
		t.Helper()
		req, _ := http.NewRequest("GET", srv.URL+route, nil)
		req.Header.Set("Authorization", "Bearer "+token)
		for i := 0; i+1 < len(header); i += 2 {
			req.Header.Set(header[i], header[i+1])
		}
		resp, err := raw.RoundTrip(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		return resp, body
	}
	fetch := func(header ...string) (*http.Response, []byte) {
		t.Helper()
		return fetchFrom("/api/ui/catalogue", header...)
	}
	// The catalogue a page whose chats serve keeps reads (GET
	// /api/catalogue, as large) comes compressed too.
	for _, route := range []string{"/api/catalogue", "/api/catalogue?tools_json=1"} {
		plain, want := fetchFrom(route)
		resp, body := fetchFrom(route, "Accept-Encoding", "gzip, br")
		got, err := io.ReadAll(brotli.NewReader(bytes.NewReader(body)))
		if plain.StatusCode != 200 || resp.Header.Get("Content-Encoding") != "br" || err != nil || !bytes.Equal(got, want) || len(body)*3 > len(want) {
			t.Errorf("%s: HTTP %d, Content-Encoding %q, %d bytes sent for %d of JSON (decoded: %v, the same: %v)",
				route, resp.StatusCode, resp.Header.Get("Content-Encoding"), len(body), len(want), err, bytes.Equal(got, want))
		}
	}
	plain, want := fetch()
	if plain.StatusCode != 200 || plain.Header.Get("Content-Encoding") != "" || !json.Valid(want) {
		t.Fatalf("with no Accept-Encoding: HTTP %d %q, %.100q", plain.StatusCode, plain.Header.Get("Content-Encoding"), want)
	}
	resp, body := fetch("Accept-Encoding", "gzip, deflate, br, zstd")
	if resp.Header.Get("Content-Encoding") != "br" || resp.Header.Get("Vary") != "Accept-Encoding" || resp.Header.Get("Content-Type") != "application/json" {
		t.Fatalf("Content-Encoding %q, Vary %q, Content-Type %q", resp.Header.Get("Content-Encoding"), resp.Header.Get("Vary"), resp.Header.Get("Content-Type"))
	}
	got, err := io.ReadAll(brotli.NewReader(bytes.NewReader(body)))
	if err != nil || !bytes.Equal(got, want) {
		t.Fatalf("decoded: %v, %d bytes, want the %d of the JSON", err, len(got), len(want))
	}
	if len(body)*3 > len(want) {
		t.Errorf("%d bytes sent for %d of JSON", len(body), len(want))
	}
	tag := resp.Header.Get("ETag")
	if again, _ := fetch("Accept-Encoding", "br", "If-None-Match", tag); again.StatusCode != http.StatusNotModified {
		t.Errorf("with its ETag: HTTP %d, want 304", again.StatusCode)
	}
	if err := os.WriteFile(filepath.Join(dir, "config", "lib", "extra.js"), []byte("module.exports = 1;\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	changed, body := fetch("Accept-Encoding", "br", "If-None-Match", tag)
	got, _ = io.ReadAll(brotli.NewReader(bytes.NewReader(body)))
	if changed.StatusCode != 200 || changed.Header.Get("ETag") == tag || !bytes.Contains(got, []byte(`"extra":"module.exports = 1;\n"`)) {
		t.Errorf("after a library was added: HTTP %d, ETag %q (was %q)", changed.StatusCode, changed.Header.Get("ETag"), tag)
	}
}
