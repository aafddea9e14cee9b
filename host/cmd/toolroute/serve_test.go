package main

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestUIHandler(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "index.html"), []byte("<!doctype html><title>ui</title>"), 0o644)
	os.WriteFile(filepath.Join(dir, "toolroute.wasm"), []byte("\x00asm\x01\x00\x00\x00"), 0o644)
	srv := httptest.NewServer(uiHandler(dir))
	defer srv.Close()
	resp, err := http.Get(srv.URL + "/")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.Request.URL.Path != "/ui/" || !strings.Contains(string(body), "<title>ui</title>") {
		t.Errorf("/ led to %s: %s", resp.Request.URL, body)
	}
	resp, err = http.Get(srv.URL + "/ui/toolroute.wasm")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "application/wasm" {
		t.Errorf("the module: HTTP %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	if resp, _ := http.Get(srv.URL + "/elsewhere"); resp.StatusCode != 404 {
		t.Errorf("/elsewhere: HTTP %d", resp.StatusCode)
	}
}
