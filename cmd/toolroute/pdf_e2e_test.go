package main

import (
	"bytes"
	"encoding/base64"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/toolroute/toolroute/internal/fakemodel"
)

// Routing scenario 5 in the program: "Load the PDF tools" loads the pdf
// group, and a page of a PDF in the sandbox folder, rendered, reaches an
// Anthropic model as a PNG in the tool_result, beside the text's
// placeholder.
func TestPDFPageInChat(t *testing.T) {
	if _, err := exec.LookPath("pdftoppm"); err != nil {
		t.Skip("pdftoppm (poppler-utils) is not installed: make test installs it")
	}
	model := fakemodel.New(fakemodel.Anthropic,
		fakemodel.ToolCall("load_tool_group", `{"group_name":"pdf"}`),
		fakemodel.ToolCall("pdf_render_page", `{"path":"reports/q.pdf","page":2}`),
		fakemodel.Text("Page two says goodbye."),
	)
	defer model.Close()
	u := newUser(t, model, fakemodel.Anthropic)
	pdf, err := os.ReadFile("../../testdata/pdf/two-pages.pdf")
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(u.home, ".local", "share", "toolroute", "files", "reports")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "q.pdf"), pdf, 0o644); err != nil {
		t.Fatal(err)
	}
	res := u.run("Load the PDF tools and show me page 2 of reports/q.pdf\n", "chat", "--session", "pdf")
	if res.code != 0 {
		t.Fatalf("exit %d\n%s\n%s", res.code, res.stdout, res.stderr)
	}
	mustContain(t, "the output", res.stdout,
		"Loaded 3 tools from group 'PDF Tools':", "- pdf_info: ", "- pdf_extract_text: ", "- pdf_render_page: ",
		"[loaded group pdf: pdf_info, pdf_extract_text, pdf_render_page]",
		"Page 2 of 2 of reports/q.pdf, 1212 x 1568 px: [image image/png, ")
	reqs := model.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests", len(reqs))
	}
	mustContain(t, "the first request", string(reqs[0].Body), `- pdf: Extract text, get info, and render pages from PDF files`)
	img := toolResultImage(t, reqs[2])
	data, err := base64.StdEncoding.DecodeString(img.Data)
	if err != nil || img.MediaType != "image/png" {
		t.Fatalf("the image: %s, %v", img.MediaType, err)
	}
	page, err := png.Decode(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	if b := page.Bounds(); b.Dx() != 1212 || b.Dy() != 1568 {
		t.Errorf("the page is %v", b)
	}
}
