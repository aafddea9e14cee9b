package main

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolroute/toolroute/internal/server"
	"github.com/toolroute/toolroute/wasm"
)

// What serve answers at /: the UI built in (server's default), a built
// folder's, or the minimal page.
func TestServePage(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "index.html"), []byte("<!doctype html><title>ui</title>"), 0o644)
	get := func(h http.Handler, path string) (*http.Response, string) {
		t.Helper()
		srv := httptest.NewServer(h)
		defer srv.Close()
		resp, err := http.Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return resp, string(body)
	}

	if page, err := servePage("", false); page != nil || err != nil {
		t.Errorf("no flag: %v, %v; want nil, the built-in UI", page, err)
	}
	if _, err := servePage(dir, true); err == nil || !strings.Contains(err.Error(), "choose one") {
		t.Errorf("both flags: %v", err)
	}
	if _, err := servePage(t.TempDir(), false); err == nil || !strings.Contains(err.Error(), "run make ui, or leave out --ui") {
		t.Errorf("a folder with no build: %v", err)
	}

	page, err := servePage(dir, false)
	if err != nil {
		t.Fatal(err)
	}
	if resp, body := get(page, "/"); resp.StatusCode != 200 || body != "<!doctype html><title>ui</title>" {
		t.Errorf("/: HTTP %d %q", resp.StatusCode, body)
	}
	// A folder without the module gets the program's; with one, its own.
	if resp, body := get(page, "/toolroute.wasm"); resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "application/wasm" || body != string(wasm.Binary) {
		t.Errorf("the program's module: HTTP %d %s, %d bytes", resp.StatusCode, resp.Header.Get("Content-Type"), len(body))
	}
	os.WriteFile(filepath.Join(dir, "toolroute.wasm"), []byte("\x00asm\x01\x00\x00\x00"), 0o644)
	if resp, body := get(page, "/toolroute.wasm"); resp.StatusCode != 200 || body != "\x00asm\x01\x00\x00\x00" {
		t.Errorf("the folder's module: HTTP %d, %d bytes", resp.StatusCode, len(body))
	}
	if resp, _ := get(page, "/elsewhere"); resp.StatusCode != 404 {
		t.Errorf("/elsewhere: HTTP %d", resp.StatusCode)
	}

	page, err = servePage("", true)
	if err != nil {
		t.Fatal(err)
	}
	if resp, body := get(page, "/"); resp.StatusCode != 200 || !strings.Contains(body, "<title>toolroute</title>") {
		t.Errorf("the minimal page: HTTP %d %.200s", resp.StatusCode, body)
	}
}

// The token: --token, then TOOLROUTE_TOKEN, then the data folder's file,
// made once and kept.
func TestServeToken(t *testing.T) {
	dir := t.TempDir()
	kept, err := server.LoadToken(dir)
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, server.TokenFile)
	for _, c := range []struct {
		name, flag, env string
		want, wantFrom  string
		wantErr         string
	}{
		{name: "the flag", flag: "flag-token-0123456789", env: "env-token-0123456789", want: "flag-token-0123456789", wantFrom: "serve's --token flag"},
		{name: "the environment", env: "env-token-0123456789", want: "env-token-0123456789", wantFrom: "TOOLROUTE_TOKEN"},
		{name: "the file", want: kept, wantFrom: file},
		{name: "a short flag", flag: "short", wantErr: "--token: server: a token is 16 or more"},
		{name: "a bad variable", env: "has space 0123456789", wantErr: "TOOLROUTE_TOKEN: server: a token is"},
	} {
		t.Run(c.name, func(t *testing.T) {
			getenv := func(k string) string { return map[string]string{"TOOLROUTE_TOKEN": c.env}[k] }
			tok, from, err := serveToken(c.flag, getenv, dir)
			if c.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), c.wantErr) {
					t.Errorf("got %q, %v; want an error with %q", tok, err, c.wantErr)
				}
				return
			}
			if err != nil || tok != c.want || from != c.wantFrom {
				t.Errorf("got %q from %q, %v; want %q from %q", tok, from, err, c.want, c.wantFrom)
			}
		})
	}
}
