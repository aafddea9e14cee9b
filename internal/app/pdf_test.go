package app

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/toolroute/toolroute/registry"
)

// The program offers the pdf group over its sandbox folder, and leaves it
// out of what a browser or the worker gets: they run their own over their
// own files.
func TestPDFGroup(t *testing.T) {
	cfg := testConfig(t)
	a := open(t, cfg)
	pdf, err := os.ReadFile("../../testdata/pdf/two-pages.pdf")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(a.Config.SandboxDir, "docs"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(a.Config.SandboxDir, "docs", "q.pdf"), pdf, 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := a.Host.CallTool(context.Background(), "pdf_extract_text", json.RawMessage(`{"path":"docs/q.pdf","pages":"2"}`))
	if err != nil || res.Status != registry.StatusSuccess || res.Output != "[Page 2 of 2]\nPage two says goodbye.\nThe end." {
		t.Fatalf("%+v, %v", res, err)
	}
	cat := a.Host.Catalogue()
	if !slices.ContainsFunc(cat.Groups, func(g registry.Group) bool { return g.Name == "pdf" && g.DisplayName == "PDF Tools" }) {
		t.Fatalf("groups %+v", cat.Groups)
	}
	bc, err := a.ForBrowser()
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range bc.Catalogue.Groups {
		if g.Name == "pdf" {
			t.Error("the browser catalogue has the pdf group")
		}
	}
	for _, name := range bc.ServerTools {
		if strings.HasPrefix(name, "pdf_") {
			t.Errorf("the server runs %s for the page", name)
		}
	}
	if _, err := a.RunForBrowser(context.Background(), "pdf_info", json.RawMessage(`{"path":"docs/q.pdf"}`)); err == nil {
		t.Error("RunForBrowser ran pdf_info for the page")
	}
}
