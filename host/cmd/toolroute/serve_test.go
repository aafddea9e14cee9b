package main

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolroute/toolroute/host/server"
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
