package pdf

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"image/png"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/toolroute/toolroute/host"
	"github.com/toolroute/toolroute/internal/safehttp"
)

// tool is one of the group's tools made with o.
func tool(t *testing.T, o Options, name string) host.NativeTool {
	t.Helper()
	_, tools, _ := Tools(o)
	for _, nt := range tools {
		if nt.Tool.Name == name {
			return nt
		}
	}
	t.Fatalf("no tool %s", name)
	return host.NativeTool{}
}

func sandbox(t *testing.T) string {
	t.Helper()
	dir, err := filepath.Abs(fixtureDir)
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

func needPdftoppm(t *testing.T) {
	t.Helper()
	if _, why := findPdftoppm(""); why != "" {
		t.Skip(why + " (make test installs it)")
	}
}

func TestRenderPage(t *testing.T) {
	needPdftoppm(t)
	render := tool(t, Options{SandboxDir: sandbox(t)}, "pdf_render_page")
	tests := []struct {
		name          string
		input         string
		wantText      string
		wantW, wantH  int
		wantErrorType string
	}{
		{name: "letter page 2", input: `{"path":"two-pages.pdf","page":2}`, wantText: "Page 2 of 2 of two-pages.pdf, 1212 x 1568 px: [image image/png, ", wantW: 1212, wantH: 1568},
		{name: "first page by default", input: `{"path":"image.pdf"}`, wantText: "Page 1 of 2 of image.pdf, 1109 x 1568 px: [image image/png, ", wantW: 1109, wantH: 1568},
		{name: "out of range", input: `{"path":"two-pages.pdf","page":3}`, wantErrorType: "invalid_arguments"},
		{name: "not a whole number", input: `{"path":"two-pages.pdf","page":1.5}`, wantErrorType: "invalid_arguments"},
		{name: "encrypted", input: `{"path":"encrypted.pdf"}`, wantErrorType: "encrypted"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := render.RunOutput(context.Background(), json.RawMessage(tt.input))
			if tt.wantErrorType != "" {
				var te *host.ToolError
				if !errors.As(err, &te) || te.Type != tt.wantErrorType {
					t.Fatalf("error %v, want type %s", err, tt.wantErrorType)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !strings.HasPrefix(out.Text, tt.wantText) || len(out.Images) != 1 || out.Images[0].MIMEType != "image/png" {
				t.Fatalf("text %q, %d images", out.Text, len(out.Images))
			}
			data, err := base64.StdEncoding.DecodeString(out.Images[0].Data)
			if err != nil {
				t.Fatal(err)
			}
			img, err := png.Decode(bytes.NewReader(data))
			if err != nil {
				t.Fatal(err)
			}
			if b := img.Bounds(); b.Dx() != tt.wantW || b.Dy() != tt.wantH {
				t.Errorf("size %v, want %d x %d", b, tt.wantW, tt.wantH)
			}
		})
	}
}

// TestRenderedPixels checks that the page is really drawn: image.pdf's
// gradient is where the page puts it, not white.
func TestRenderedPixels(t *testing.T) {
	needPdftoppm(t)
	render := tool(t, Options{SandboxDir: sandbox(t)}, "pdf_render_page")
	out, err := render.RunOutput(context.Background(), json.RawMessage(`{"path":"image.pdf","page":2}`))
	if err != nil {
		t.Fatal(err)
	}
	data, _ := base64.StdEncoding.DecodeString(out.Images[0].Data)
	img, err := png.Decode(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	// The image covers x 105-489 and y 450-738 of 595 x 842 pt, from the
	// bottom; its middle is blue-ish and far from white.
	scale := float64(img.Bounds().Dy()) / 841.89
	r, g, b, _ := img.At(int(297*scale), int((841.89-594)*scale)).RGBA()
	if r>>8 > 200 && g>>8 > 200 && b>>8 > 200 {
		t.Errorf("the gradient's middle is white: %d %d %d", r>>8, g>>8, b>>8)
	}
	r, g, b, _ = img.At(5, 5).RGBA()
	if r>>8 < 250 || g>>8 < 250 || b>>8 < 250 {
		t.Errorf("the page's corner is not white: %d %d %d", r>>8, g>>8, b>>8)
	}
}

func TestRenderWithoutPdftoppm(t *testing.T) {
	_, tools, problems := Tools(Options{Pdftoppm: "/nonexistent/pdftoppm"})
	for _, nt := range tools {
		if nt.Tool.Name == "pdf_render_page" {
			t.Fatal("pdf_render_page is offered without pdftoppm")
		}
	}
	if len(tools) != 2 || len(problems) != 1 || !strings.Contains(problems[0], "poppler-utils") {
		t.Fatalf("tools %d, problems %q", len(tools), problems)
	}
}

// TestURL reads PDFs through the program's guarded client: a public one
// (the test server plays one through a rewrite rule), an HTTP error, and
// a private address refused.
func TestURL(t *testing.T) {
	pdf, err := os.ReadFile(filepath.Join(fixtureDir, "two-pages.pdf"))
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/q.pdf" {
			http.NotFound(w, r)
			return
		}
		w.Write(pdf)
	}))
	defer srv.Close()
	client := safehttp.New(safehttp.Options{Rewrites: []safehttp.Rewrite{{From: "https://docs.example", To: srv.URL}}})
	info := tool(t, Options{Fetch: client}, "pdf_info")
	out, err := info.Run(context.Background(), json.RawMessage(`{"url":"https://docs.example/q.pdf"}`))
	if err != nil || !strings.HasPrefix(out, "File: https://docs.example/q.pdf\nPages: 2\n") {
		t.Fatalf("%q, %v", out, err)
	}
	_, err = info.Run(context.Background(), json.RawMessage(`{"url":"https://docs.example/missing.pdf"}`))
	var te *host.ToolError
	if !errors.As(err, &te) || te.Message != "fetching https://docs.example/missing.pdf answered HTTP 404" {
		t.Fatalf("%v", err)
	}
	_, err = info.Run(context.Background(), json.RawMessage(`{"url":"`+srv.URL+`/q.pdf"}`))
	if !errors.As(err, &te) || te.Type != "fetch_error" || !strings.Contains(te.Message, "private") {
		t.Fatalf("%v", err)
	}
}

// TestLongTextStops checks that a long document's text stops before the
// cut and says which pages to ask for next.
func TestLongTextStops(t *testing.T) {
	w := newPDF()
	const pages = 40
	kids := ""
	for i := range pages {
		kids += " " + strconv.Itoa(3+2*i) + " 0 R"
	}
	w.obj("<< /Type /Catalog /Pages 2 0 R >>")
	w.obj("<< /Type /Pages /Kids [" + kids + " ] /Count " + strconv.Itoa(pages) + " /MediaBox [0 0 612 792] /Resources << /Font << /F1 << /Type /Font /Subtype /Type1 /BaseFont /Courier >> >> >> >>")
	line := strings.Repeat("lorem ipsum ", 8)
	for i := range pages {
		w.obj("<< /Type /Page /Parent 2 0 R /Contents " + strconv.Itoa(4+2*i) + " 0 R >>")
		lines := make([]string, 12)
		for k := range lines {
			lines[k] = line
		}
		w.stream("", []byte(textLines("F1", 10, 72, 720, lines...)), true)
	}
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "long.pdf"), w.bytes(0), 0o644)
	out, err := tool(t, Options{SandboxDir: dir}, "pdf_extract_text").Run(context.Background(), json.RawMessage(`{"path":"long.pdf","pages":"1-40"}`))
	if err != nil {
		t.Fatal(err)
	}
	if n := len([]rune(out)); n > host.MaxResultChars {
		t.Errorf("%d characters, over the cut", n)
	}
	if !strings.Contains(out, "[Page 25 of 40]") || !strings.HasSuffix(out, "ask for pages \"26-40\" next.]") {
		t.Errorf("ends %q", out[len(out)-200:])
	}
}

// A PDF in the sandbox folder with other names (a hard link to a file
// outside it) is not read: os.Root cannot tell where the file is.
func TestHardLinkRefused(t *testing.T) {
	dir := t.TempDir()
	outside := filepath.Join(t.TempDir(), "private.pdf")
	w := newPDF()
	w.obj("<< /Type /Catalog /Pages 2 0 R >>")
	w.obj("<< /Type /Pages /Kids [3 0 R] /Count 1 /MediaBox [0 0 612 792] >>")
	w.obj("<< /Type /Page /Parent 2 0 R >>")
	if err := os.WriteFile(outside, w.bytes(0), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(outside, filepath.Join(dir, "planted.pdf")); err != nil {
		t.Skipf("no hard links here: %v", err)
	}
	_, err := tool(t, Options{SandboxDir: dir}, "pdf_info").Run(context.Background(), json.RawMessage(`{"path":"planted.pdf"}`))
	var te *host.ToolError
	if !errors.As(err, &te) || te.Type != "access_denied" || !strings.Contains(te.Message, "has other names (hard links)") {
		t.Errorf("a hard-linked PDF: %v", err)
	}
}
