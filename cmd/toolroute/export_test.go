package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/toolroute/toolroute/internal/app"
)

// exported runs `toolroute export` with args and decodes what it printed.
func exported(t *testing.T, args ...string) app.BrowserCatalogue {
	t.Helper()
	var stdout, stderr bytes.Buffer
	if code := run(append([]string{"export"}, args...), nil, &stdout, &stderr); code != 0 {
		t.Fatalf("export %v: exit %d: %s", args, code, stderr.String())
	}
	var bc app.BrowserCatalogue
	if err := json.Unmarshal(stdout.Bytes(), &bc); err != nil {
		t.Fatalf("export printed no JSON: %v\n%s", err, stdout.String())
	}
	return bc
}

func files(bc app.BrowserCatalogue) []string {
	var out []string
	for _, m := range bc.Catalogue.Manifests {
		out = append(out, m.File)
	}
	return out
}

func TestExport(t *testing.T) {
	config := t.TempDir()
	tools := filepath.Join(config, "tools")
	if err := os.MkdirAll(tools, 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(tools, "shout.json"), []byte(`{"name": "shout", "description": "A text in capitals", "parameters": {"type": "object", "properties": {"text": {"type": "string"}}}}`), 0o644)
	os.WriteFile(filepath.Join(tools, "shout.js"), []byte(`function execute(p) { return p.text.toUpperCase() }`), 0o644)

	withUser := exported(t, "--config-dir", config)
	builtin := exported(t, "--config-dir", config, "--builtin")

	user := filepath.Join(tools, "shout.json")
	if !slices.Contains(files(withUser), user) {
		t.Errorf("the user's tool is not exported: %v", files(withUser))
	}
	if slices.Contains(files(builtin), user) {
		t.Errorf("--builtin exported the user's tool: %v", files(builtin))
	}
	if len(builtin.Catalogue.Manifests) < 10 || len(withUser.Catalogue.Manifests) != len(builtin.Catalogue.Manifests)+1 {
		t.Errorf("manifests: %d built-in, %d with the user's", len(builtin.Catalogue.Manifests), len(withUser.Catalogue.Manifests))
	}
	// Every manifest's source travels with it, and the built-in library.
	for _, m := range withUser.Catalogue.Manifests {
		if strings.TrimSpace(withUser.Sources[m.Source]) == "" {
			t.Errorf("%s: no source for %q", m.File, m.Source)
		}
	}
	if withUser.Libraries["google_api"] == "" {
		t.Errorf("the built-in library google_api is not exported: %v", withUser.Libraries)
	}
	// Host-native tools run in Go only: none is exported.
	if len(withUser.Catalogue.Tools) != 0 || len(withUser.Catalogue.Groups) != 0 {
		t.Errorf("host-native tools exported: %d tools, %d groups", len(withUser.Catalogue.Tools), len(withUser.Catalogue.Groups))
	}
}
