package server_test

import (
	"bytes"
	"io"
	"io/fs"
	"net/http"
	"net/http/cookiejar"
	"testing"

	"github.com/toolroute/toolroute/host/internal/fakemodel"
	"github.com/toolroute/toolroute/host/webui"
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
