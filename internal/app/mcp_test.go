package app

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/toolroute/toolroute/internal/mcptest"
	"github.com/toolroute/toolroute/internal/testwait"
	"github.com/toolroute/toolroute/registry"
)

// toolNames are the tools of the host's catalogue now.
func toolNames(a *App) []string {
	var names []string
	for _, t := range a.Host.Catalogue().Tools {
		names = append(names, t.Name)
	}
	return names
}

// An MCP server's tools are named clear of the user's tools as the
// catalogue stands at each reload: an MCP echo is lab_echo while the user
// has a JS tool echo, and echo once that tool is gone. A server's change
// (list_changed) reloads the catalogue and counts as a change for serve's
// page.
func TestMCPServers(t *testing.T) {
	cfg := testConfig(t)
	cfg.Watch = 20 * time.Millisecond
	tools := filepath.Join(cfg.ConfigDir, "tools")
	os.MkdirAll(tools, 0o755)
	os.WriteFile(filepath.Join(tools, "echo.json"), []byte(`{"name":"echo","description":"The user's echo","parameters":{"properties":{"text":{"type":"string"}}}}`), 0o644)
	os.WriteFile(filepath.Join(tools, "echo.js"), []byte(`function execute(p) { return "js: " + p.text }`), 0o644)
	cfg.MCPConfig = filepath.Join(cfg.ConfigDir, "servers.json")
	entry, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{"lab": map[string]any{"command": mcptest.TestServer(t, cacheDir)}}})
	os.WriteFile(cfg.MCPConfig, entry, 0o644)
	a := open(t, cfg)
	ctx := context.Background()

	call := func(tool, args string) string {
		t.Helper()
		res, err := a.Host.CallTool(ctx, tool, json.RawMessage(args))
		if err != nil {
			t.Fatalf("%s: %v", tool, err)
		}
		return res.Output + res.Message
	}
	if got := call("echo", `{"text":"hi"}`); got != "js: hi" {
		t.Errorf("the user's echo: %q", got)
	}
	if got := call("lab_echo", `{"text":"hi"}`); got != "hi" {
		t.Errorf("the server's echo: %q", got)
	}
	if st := a.MCPStatus(); len(st) != 1 || st[0].Group != "lab" || !st[0].OK() {
		t.Errorf("status %+v", st)
	}

	gen, _ := a.Changes()
	if got := call("add_tool", `{"name":"fresh"}`); got != "added fresh" {
		t.Fatalf("add_tool: %q", got)
	}
	if now, _ := a.Changes(); now == gen || !slices.Contains(toolNames(a), "fresh") {
		t.Errorf("after add_tool: generation %d → %d, tools %v", gen, now, toolNames(a))
	}

	os.Remove(filepath.Join(tools, "echo.json"))
	os.Remove(filepath.Join(tools, "echo.js"))
	for deadline := time.Now().Add(testwait.Failsafe); slices.Contains(toolNames(a), "lab_echo"); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the server's echo kept its prefix: %v", toolNames(a))
		}
	}
	if got := call("echo", `{"text":"hi"}`); got != "hi" {
		t.Errorf("echo is the server's now: %q", got)
	}
	if strings.Contains(strings.Join(a.Problems(), "\n"), "lab") {
		t.Errorf("problems: %v", a.Problems())
	}
}

// A page served by serve gets the Go program's MCP tools in its catalogue
// as server tools, and the server runs them when the page asks; the JS
// tools, which the page runs itself, are refused there.
func TestMCPServerToolsForBrowser(t *testing.T) {
	cfg := testConfig(t)
	os.MkdirAll(cfg.ConfigDir, 0o755)
	cfg.MCPConfig = filepath.Join(cfg.ConfigDir, "servers.json")
	entry, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{"lab": map[string]any{"command": mcptest.TestServer(t, cacheDir)}}})
	os.WriteFile(cfg.MCPConfig, entry, 0o644)
	a := open(t, cfg)
	bc, err := a.ForBrowser()
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(bc.ServerTools, "echo") || len(bc.Catalogue.Groups) != 1 || bc.Catalogue.Groups[0].Name != "lab" {
		t.Fatalf("server tools %v, groups %+v", bc.ServerTools, bc.Catalogue.Groups)
	}
	for _, name := range bc.ServerTools {
		if !slices.ContainsFunc(bc.Catalogue.Tools, func(tool registry.Tool) bool { return tool.Name == name && tool.Group == "lab" }) {
			t.Errorf("server tool %s is not the lab group's in the catalogue", name)
		}
	}
	res, err := a.RunForBrowser(context.Background(), "echo", json.RawMessage(`{"text":"from the page"}`))
	if err != nil || res.Output != "from the page" {
		t.Errorf("echo for the page: %+v, %v", res, err)
	}
	if _, err := a.RunForBrowser(context.Background(), "read_file", json.RawMessage(`{"path":"x"}`)); err == nil || !strings.Contains(err.Error(), "the page runs its JS tools itself") {
		t.Errorf("a JS tool run for the page: %v", err)
	}
}
