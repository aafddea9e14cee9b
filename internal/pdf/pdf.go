// Package pdf is the pdf tool group of the Go program: pdf_info,
// pdf_extract_text and pdf_render_page as host-native tools over the PDFs
// of the sandbox folder and of the web.
//
// The group's names, schemas and texts are assets/pdf_tools.json, which
// the JS hosts (web/packages/toolroute/host/pdf.js, on Mozilla's pdf.js) read too, and whose
// outputs the shared cases of testdata/pdf/cases.json hold every host to.
// Here, github.com/pdfcpu/pdfcpu reads the file (cross references, object
// streams, filters, encryption), the text is this package's own content
// stream interpreter (text.go), and pages are rendered by poppler-utils'
// pdftoppm, a program the tool is left out without.
package pdf

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/model"

	"github.com/toolroute/toolroute/assets"
	"github.com/toolroute/toolroute/host"
	"github.com/toolroute/toolroute/internal/hardlink"
	"github.com/toolroute/toolroute/internal/safehttp"
	"github.com/toolroute/toolroute/registry"
)

// definitionJSON is the group's definition, which the JS hosts read too:
// one file, assets/pdf_tools.json.
var definitionJSON = assets.PDFTools

// Definition is pdf_tools.json: the group, its tools and their texts.
type Definition struct {
	Group          registry.Group    `json:"group"`
	MaxBytes       int64             `json:"max_bytes"`
	RenderLongSide int               `json:"render_long_side"`
	InfoMaxPages   int               `json:"info_max_pages"`
	Tools          []registry.Tool   `json:"tools"`
	Errors         map[string]string `json:"errors"`
}

// Def is the group's definition.
var Def = func() Definition {
	var d Definition
	if err := json.Unmarshal(definitionJSON, &d); err != nil {
		panic("pdf: pdf_tools.json: " + err.Error())
	}
	return d
}()

// GroupName is the group's name. The JS hosts run their own pdf tools
// over their own files, so the catalogue a browser or the worker gets from
// this program leaves the group out.
const GroupName = "pdf"

func init() {
	// pdfcpu would otherwise write a configuration folder in the user's
	// config folder at its first use.
	model.ConfigPath = "disable"
}

// Options configure the tools.
type Options struct {
	// SandboxDir is the folder paths are read from: JS tools' sandbox.
	SandboxDir string
	// Fetch reads URLs, with the program's rules (no private addresses);
	// nil leaves URLs refused.
	Fetch *safehttp.Client
	// Pdftoppm is the pdftoppm program: a path, or "" to look for it on
	// PATH. Without it pdf_render_page is left out.
	Pdftoppm string
}

// Tools gives the group, its tools, and why any is left out.
func Tools(o Options) (registry.Group, []host.NativeTool, []string) {
	t := &tools{o: o}
	var out []host.NativeTool
	var problems []string
	for _, def := range Def.Tools {
		nt := host.NativeTool{Tool: def}
		nt.Tool.Group = GroupName
		switch def.Name {
		case "pdf_info":
			nt.Run = t.info
		case "pdf_extract_text":
			nt.Run = t.text
		case "pdf_render_page":
			bin, why := findPdftoppm(o.Pdftoppm)
			if why != "" {
				problems = append(problems, "pdf_render_page is left out: "+why)
				continue
			}
			t.pdftoppm = bin
			nt.RunOutput = t.render
		default:
			continue
		}
		out = append(out, nt)
	}
	return Def.Group, out, problems
}

type tools struct {
	o        Options
	pdftoppm string
}

// text fills in one of pdf_tools.json's texts: {key} becomes args[key].
func text(key string, args ...string) string {
	s := Def.Errors[key]
	for i := 0; i+1 < len(args); i += 2 {
		s = strings.ReplaceAll(s, "{"+args[i]+"}", args[i+1])
	}
	return s
}

func fail(typ, key string, args ...string) error {
	return &host.ToolError{Type: typ, Message: text(key, args...)}
}

// source is where a call's PDF is: its path or URL.
type source struct {
	Path string `json:"path"`
	URL  string `json:"url"`
}

// doc is an opened PDF: its name for messages, its bytes and pdfcpu's
// reading of them.
type doc struct {
	name string
	data []byte
	ctx  *model.Context
}

// open reads the PDF of a call's arguments and parses it.
func (t *tools) open(ctx context.Context, src source) (*doc, error) {
	src.Path, src.URL = strings.TrimSpace(src.Path), strings.TrimSpace(src.URL)
	var d doc
	var err error
	switch {
	case src.Path == "" && src.URL == "":
		return nil, fail("invalid_arguments", "no_source")
	case src.Path != "" && src.URL != "":
		return nil, fail("invalid_arguments", "two_sources")
	case src.Path != "":
		d.name = src.Path
		d.data, err = t.readFile(src.Path)
	default:
		d.name = src.URL
		d.data, err = t.fetch(ctx, src.URL)
	}
	if err != nil {
		return nil, err
	}
	if !isPDF(d.data) {
		return nil, fail("not_pdf", "not_pdf", "name", d.name)
	}
	d.ctx, err = parse(ctx, d.data)
	if errors.Is(err, pdfcpu.ErrWrongPassword) {
		return nil, fail("encrypted", "encrypted", "name", d.name)
	}
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, fail("damaged_pdf", "damaged", "name", d.name)
	}
	return &d, nil
}

// parse reads a PDF with pdfcpu, whose panics on a hostile file are a
// damaged file here.
func parse(ctx context.Context, data []byte) (c *model.Context, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("pdfcpu: %s", host.PanicText(r))
		}
	}()
	conf := model.NewDefaultConfiguration()
	conf.ValidationMode = model.ValidationRelaxed
	c, err = pdfcpu.ReadWithContext(ctx, bytes.NewReader(data), conf)
	if err != nil {
		return nil, err
	}
	if err := c.EnsurePageCount(); err != nil {
		return nil, err
	}
	if c.PageCount < 1 {
		return nil, errors.New("pdf: no pages")
	}
	return c, nil
}

// isPDF reports whether data starts with the PDF header, allowing the
// junk before it that readers (pdf.js among them) skip: up to 1 KB.
func isPDF(data []byte) bool {
	head := data[:min(len(data), 1024)]
	return bytes.Contains(head, []byte("%PDF-"))
}

// readFile reads a file of the sandbox folder, by the fs bridge's rules:
// a path relative to it, or absolute inside it, through an os.Root so
// that no link leads out.
func (t *tools) readFile(p string) ([]byte, error) {
	if t.o.SandboxDir == "" {
		return nil, fail("not_found", "not_found", "path", p)
	}
	rel, ok := relPath(t.o.SandboxDir, p)
	if !ok {
		return nil, fail("access_denied", "outside", "path", p)
	}
	root, err := os.OpenRoot(t.o.SandboxDir)
	if err != nil {
		return nil, fail("not_found", "not_found", "path", p)
	}
	defer root.Close()
	info, err := root.Stat(rel)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, fail("not_found", "not_found", "path", p)
	case err != nil && strings.Contains(err.Error(), "escapes"):
		return nil, fail("access_denied", "outside", "path", p)
	case err != nil:
		return nil, &host.ToolError{Type: "execution_error", Message: fmt.Sprintf("'%s' cannot be read: %v", p, unwrapPath(err))}
	case info.IsDir():
		return nil, fail("invalid_arguments", "folder", "path", p)
	case !info.Mode().IsRegular():
		return nil, &host.ToolError{Type: "invalid_arguments", Message: fmt.Sprintf("'%s' is not a regular file", p)}
	case hardlink.Extra(info):
		return nil, fail("access_denied", "linked", "path", p)
	case info.Size() > Def.MaxBytes:
		return nil, tooLarge(p, info.Size())
	}
	f, err := root.Open(rel)
	if err != nil {
		return nil, &host.ToolError{Type: "execution_error", Message: fmt.Sprintf("'%s' cannot be read: %v", p, unwrapPath(err))}
	}
	defer f.Close()
	if info, err := f.Stat(); err == nil && hardlink.Extra(info) { // linked since the Stat
		return nil, fail("access_denied", "linked", "path", p)
	}
	data, err := io.ReadAll(io.LimitReader(f, Def.MaxBytes+1))
	if err != nil {
		return nil, &host.ToolError{Type: "execution_error", Message: fmt.Sprintf("'%s' cannot be read: %v", p, unwrapPath(err))}
	}
	if int64(len(data)) > Def.MaxBytes {
		return nil, tooLarge(p, int64(len(data)))
	}
	return data, nil
}

func tooLarge(name string, size int64) error {
	return fail("too_large", "too_large", "name", name, "size", strconv.FormatInt(size, 10), "max", strconv.FormatInt(Def.MaxBytes, 10))
}

// relPath is p relative to dir, or false when it leads outside.
func relPath(dir, p string) (string, bool) {
	p = filepath.ToSlash(p)
	if path.IsAbs(p) || filepath.IsAbs(p) {
		inside, ok := strings.CutPrefix(path.Clean(p), filepath.ToSlash(filepath.Clean(dir)))
		if !ok || (inside != "" && !strings.HasPrefix(inside, "/")) {
			return "", false
		}
		p = strings.TrimPrefix(inside, "/")
	}
	clean := path.Clean(p)
	if clean == ".." || strings.HasPrefix(clean, "../") {
		return "", false
	}
	return clean, true
}

// unwrapPath keeps the sandbox's own location out of messages.
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// fetch reads a PDF from the web with the program's guarded client.
func (t *tools) fetch(ctx context.Context, raw string) ([]byte, error) {
	if t.o.Fetch == nil {
		return nil, fail("fetch_error", "no_urls", "url", raw)
	}
	u, rewritten, err := t.o.Fetch.Target(raw)
	if err != nil {
		return nil, &host.ToolError{Type: "invalid_arguments", Message: fmt.Sprintf("url: %v", err)}
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, &host.ToolError{Type: "invalid_arguments", Message: fmt.Sprintf("url: %v", err)}
	}
	req.Header.Set("User-Agent", "toolroute")
	req.Header.Set("Accept", "application/pdf,*/*")
	resp, err := t.o.Fetch.Do(req, rewritten)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, &host.ToolError{Type: "fetch_error", Message: fmt.Sprintf("fetching %s failed: %v", raw, err)}
	}
	defer resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return nil, fail("fetch_error", "fetch_status", "url", raw, "status", strconv.Itoa(resp.StatusCode))
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, Def.MaxBytes+1))
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, &host.ToolError{Type: "fetch_error", Message: fmt.Sprintf("reading %s failed: %v", raw, err)}
	}
	if int64(len(data)) > Def.MaxBytes {
		return nil, tooLarge(raw, int64(len(data)))
	}
	return data, nil
}

// args decodes a call's arguments.
func args[T any](in json.RawMessage) (T, error) {
	var v T
	if err := json.Unmarshal(in, &v); err != nil {
		return v, &host.ToolError{Type: "invalid_arguments", Message: "the arguments do not match the parameters: " + err.Error()}
	}
	return v, nil
}
