package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"

	"github.com/toolroute/toolroute/assets"
	"github.com/toolroute/toolroute/internal/app"
	"github.com/toolroute/toolroute/internal/server"
	"github.com/toolroute/toolroute/internal/webui"
)

// initialJSTarget is the budget for the UI's initial JavaScript,
// gzipped: 500 KB.
const initialJSTarget = 500_000

const uiSection = "6. The browser UI"

// uiRows measures the browser UI built into the program as a page loads
// it (webui.Walk): the JavaScript it runs before the first interaction,
// what it imports later, the wasm files, and what the program embeds.
func uiRows(files fs.FS, module []byte) ([]row, error) {
	walked, err := webui.Walk(files, module)
	if err != nil {
		return nil, err
	}
	type sized struct {
		webui.File
		data []byte
		gz   int
	}
	var all []sized
	for _, f := range walked {
		data := module
		if f.Name != webui.Module {
			if data, err = fs.ReadFile(files, f.Name); err != nil {
				return nil, err
			}
		}
		all = append(all, sized{f, data, gzipSize(data)})
	}
	isJS := func(s sized) bool { return strings.HasSuffix(s.Name, ".js") }
	// sum gives the files' names and their sizes, raw and gzipped each on
	// its own, as a browser fetches them.
	sum := func(keep func(sized) bool) (names []string, raw, gz int) {
		for _, s := range all {
			if keep(s) {
				names = append(names, s.Name)
				raw += len(s.data)
				gz += s.gz
			}
		}
		return names, raw, gz
	}
	tokenizer := func(s sized) bool {
		return s.Load == webui.Imported && isJS(s) && bytes.Contains(s.data, []byte("o200k_base"))
	}
	pdfData := func(s sized) bool {
		return strings.HasPrefix(s.Name, "pdffont-") || strings.HasPrefix(s.Name, "pdfwasm-")
	}
	how := "internal/webui.Walk from index.html over the UI built into the program (internal/webui/dist, `make ui`); each file gzipped on its own, compress/gzip level 9"
	var rows []row

	names, raw, gz := sum(func(s sized) bool { return s.Load == webui.Initial && isJS(s) })
	verdict := "under"
	if gz >= initialJSTarget {
		verdict = "over"
	}
	largest := sized{}
	for _, s := range all {
		if s.Load == webui.Initial && isJS(s) && len(s.data) > len(largest.data) {
			largest = s
		}
	}
	rows = append(rows, row{uiSection, "initial JavaScript: what the page runs before the first interaction (index.html's script, the worker it starts, their static imports)",
		fmt.Sprintf("%d files (%s): %d bytes raw, %d gzipped, %s the 500 KB target; the largest, %s, %d raw, %d gzipped",
			len(names), strings.Join(names, ", "), raw, gz, verdict, largest.Name, len(largest.data), largest.gz), how})

	if names, raw, gz := sum(tokenizer); len(names) > 0 {
		rows = append(rows, row{uiSection, "the o200k_base tokenizer, import()ed when the token meter first counts",
			fmt.Sprintf("%s: %d bytes raw, %d gzipped", strings.Join(names, ", "), raw, gz), how})
	}
	if names, raw, gz := sum(func(s sized) bool { return s.Load == webui.Imported && isJS(s) && !tokenizer(s) }); len(names) > 0 {
		rows = append(rows, row{uiSection, "other JavaScript import()ed when first needed",
			fmt.Sprintf("%d files (%s): %d bytes raw, %d gzipped", len(names), strings.Join(names, ", "), raw, gz), how})
	}
	for _, s := range all {
		if strings.HasSuffix(s.Name, ".wasm") && !pdfData(s) {
			what := s.Name + ", fetched by the worker"
			if s.Name == webui.Module {
				what += " (the program serves its own module)"
			}
			rows = append(rows, row{uiSection, what, fmt.Sprintf("%d bytes raw, %d gzipped", len(s.data), s.gz), how})
		}
	}
	rows = append(rows, row{uiSection, webui.WordVectors + ", fetched by the worker for search_tools (the program serves its own)",
		fmt.Sprintf("%d bytes raw, %d gzipped", len(assets.WordVectors), gzipSize(assets.WordVectors)), "assets.WordVectors, compress/gzip level 9"})
	if names, raw, gz := sum(pdfData); len(names) > 0 {
		rows = append(rows, row{uiSection, "pdf.js's standard fonts and JPEG 2000 and JBIG2 decoders, fetched as a pdf_render_page needs them",
			fmt.Sprintf("%d files: %d bytes raw, %d gzipped", len(names), raw, gz), how})
	}
	if names, raw, gz := sum(func(s sized) bool {
		return !isJS(s) && !strings.HasSuffix(s.Name, ".wasm") && !pdfData(s) && s.Load != webui.Unused
	}); len(names) > 0 {
		rows = append(rows, row{uiSection, "the page's other files",
			fmt.Sprintf("%s: %d bytes raw, %d gzipped", strings.Join(names, ", "), raw, gz), how})
	}
	if names, raw, _ := sum(func(s sized) bool { return s.Load == webui.Unused }); len(names) > 0 {
		rows = append(rows, row{uiSection, "files of the build nothing refers to",
			fmt.Sprintf("%d files (%s): %d bytes", len(names), strings.Join(names, ", "), raw), how})
	}
	entries, err := fs.ReadDir(files, ".")
	if err != nil {
		return nil, err
	}
	embedded := int64(0)
	for _, e := range entries {
		if info, err := e.Info(); err == nil && info.Mode().IsRegular() {
			embedded += info.Size()
		}
	}
	rows = append(rows, row{uiSection, "what the UI adds to the program",
		fmt.Sprintf("%d bytes embedded, toolroute.wasm not among them: the program serves the module it holds already", embedded),
		"the files of internal/webui/dist"})
	return rows, nil
}

// chromiumAccept is the Accept-Encoding Chromium sends, to loopback too.
const chromiumAccept = "gzip, deflate, br, zstd"

// visitToken is the token of the server firstVisitRows asks.
const visitToken = "benchreport-first-visit-token"

// firstVisitRows measures what serve sends a browser's first visit: the
// files the page fetches as it opens (Walk's initial ones), those its
// worker fetches at start (the module, the word vectors) and the page's
// catalogue of a fresh install (the built-in tools), each asked of
// server.Handler over HTTP as Chromium asks, against the same with no
// Accept-Encoding, which gets them as they are, as serve sent them before
// it compressed them.
func firstVisitRows(files fs.FS, module []byte) ([]row, error) {
	walked, err := webui.Walk(files, module)
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "benchreport-visit-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	a, err := app.Open(context.Background(), app.Config{DataDir: filepath.Join(dir, "data"), ConfigDir: filepath.Join(dir, "config"),
		CacheDir: "-", NoModel: true, Watch: -1, Getenv: func(string) string { return "" }})
	if err != nil {
		return nil, err
	}
	defer a.Close()
	srv := httptest.NewServer(server.Handler(a, server.Options{Token: visitToken, Page: webui.Handler(files, module)}))
	defer srv.Close()
	client := &http.Client{Transport: &http.Transport{DisableCompression: true}}
	// sent is the body of path's answer, in bytes, to accept.
	sent := func(path, accept string) (int, error) {
		req, _ := http.NewRequest("GET", srv.URL+"/"+path, nil)
		req.Header.Set("Authorization", "Bearer "+visitToken)
		if accept != "" {
			req.Header.Set("Accept-Encoding", accept)
		}
		resp, err := client.Do(req)
		if err != nil {
			return 0, err
		}
		defer resp.Body.Close()
		n, err := io.Copy(io.Discard, resp.Body)
		if err == nil && resp.StatusCode != http.StatusOK {
			err = fmt.Errorf("GET /%s: HTTP %d", path, resp.StatusCode)
		}
		return int(n), err
	}
	type sizes struct{ br, gz, raw int }
	measure := func(paths ...string) (sizes, error) {
		var s sizes
		for _, p := range paths {
			for _, m := range []struct {
				accept string
				sum    *int
			}{{chromiumAccept, &s.br}, {"gzip", &s.gz}, {"", &s.raw}} {
				n, err := sent(p, m.accept)
				if err != nil {
					return s, err
				}
				*m.sum += n
			}
		}
		return s, nil
	}
	var names []string
	for _, f := range walked {
		if f.Load == webui.Initial {
			names = append(names, f.Name)
		}
	}
	names = append(names, webui.Module, webui.WordVectors)
	all, err := measure(names...)
	if err != nil {
		return nil, err
	}
	mod, err := measure(webui.Module)
	if err != nil {
		return nil, err
	}
	cat, err := measure("api/ui/catalogue")
	if err != nil {
		return nil, err
	}
	how := "server.Handler (serve's) on loopback over a fresh install, Go's HTTP client counting the bodies it receives, asking as Chromium does (Accept-Encoding: " + chromiumAccept +
		"), with gzip alone, and with none (as serve sent everything before); the requests web/apps/chat/e2e's Chromium first visit makes, response headers and the few small API answers left out; the tokenizer, imported once the meter first counts, comes after (its row above)"
	of := func(s sizes) string {
		return fmt.Sprintf("%d bytes to Chromium (brotli), %d to a client taking gzip alone, %d before (%.0f %% of it)", s.br, s.gz, s.raw, 100*float64(s.br)/float64(s.raw))
	}
	total := sizes{all.br + cat.br, all.gz + cat.gz, all.raw + cat.raw}
	return []row{
		{uiSection, "a first visit as serve sends it: the page's initial files, the module and the word vectors",
			fmt.Sprintf("%d files: %s; the module %d of %d", len(names), of(all), mod.br, mod.raw), how},
		{uiSection, "a first visit as serve sends it: the page's catalogue (GET /api/ui/catalogue, the built-in tools)", of(cat), how},
		{uiSection, "a first visit as serve sends it: in all", of(total), how},
	}, nil
}
func gzipSize(data []byte) int {
	var gz bytes.Buffer
	w, _ := gzip.NewWriterLevel(&gz, gzip.BestCompression)
	w.Write(data)
	w.Close()
	return gz.Len()
}
