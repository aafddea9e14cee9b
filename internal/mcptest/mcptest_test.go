package mcptest

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestNodeVersionsAgree holds the Node.js version the tests ask for
// (MinNodeMajor) to the one the Makefile installs when the machine's is
// older and to the engines of every package.json of the repository's own.
func TestNodeVersionsAgree(t *testing.T) {
	root := Root(t)
	makefile, err := os.ReadFile(filepath.Join(root, "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^NODE_MAJOR\s*=\s*(\d+)$`).FindSubmatch(makefile)
	if m == nil || string(m[1]) != fmt.Sprint(MinNodeMajor) {
		t.Errorf("the Makefile's NODE_MAJOR is %q; MinNodeMajor is %d", m, MinNodeMajor)
	}
	if v := regexp.MustCompile(`(?m)^NODE_VERSION\s*=\s*(\d+)\.`).FindSubmatch(makefile); v == nil || string(v[1]) != fmt.Sprint(MinNodeMajor) {
		t.Errorf("the Makefile's NODE_VERSION is not a Node %d", MinNodeMajor)
	}
	want := fmt.Sprintf(">=%d", MinNodeMajor)
	for _, file := range []string{
		"web/package.json", "web/packages/toolroute/package.json", "web/apps/chat/package.json", "web/apps/worker/package.json",
		"testdata/mcp/package.json", "testdata/conformance/package.json",
	} {
		b, err := os.ReadFile(filepath.Join(root, file))
		if err != nil {
			t.Fatal(err)
		}
		var pkg struct {
			Engines struct {
				Node string `json:"node"`
			} `json:"engines"`
		}
		if err := json.Unmarshal(b, &pkg); err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		if pkg.Engines.Node != want {
			t.Errorf("%s: engines.node is %q, want %q", file, pkg.Engines.Node, want)
		}
	}
}

// TestFindNode: a node on PATH older than MinNodeMajor is passed over for
// the one make installed in .tools/node, and without that the error says
// what was found and how to get a newer one.
func TestFindNode(t *testing.T) {
	fake := func(dir, version string) string {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, "node")
		if err := os.WriteFile(p, []byte("#!/bin/sh\necho "+version+"\n"), 0o755); err != nil {
			t.Fatal(err)
		}
		return p
	}
	root := t.TempDir()
	old := fake(filepath.Join(root, "path"), "20.20.2")
	t.Setenv("PATH", filepath.Dir(old))
	_, err := findNode(root)
	if err == nil || !strings.Contains(err.Error(), "need Node.js 22 or newer, and "+old+" is Node 20.20.2: run them with make test, or run make node") {
		t.Errorf("with Node 20 alone: %v", err)
	}
	installed := fake(filepath.Join(root, ".tools", "node", "bin"), "22.23.5")
	if got, err := findNode(root); err != nil || got != installed {
		t.Errorf("with .tools/node: %q, %v; want %q", got, err, installed)
	}
	newer := fake(filepath.Join(root, "newer"), "24.1.0")
	t.Setenv("PATH", filepath.Dir(newer))
	if got, err := findNode(root); err != nil || got != newer {
		t.Errorf("with Node 24 on PATH: %q, %v; want it", got, err)
	}
}
