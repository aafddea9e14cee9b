package webui_test

import (
	"bytes"
	"compress/gzip"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/andybalholm/brotli"

	"github.com/toolroute/toolroute/assets"
	"github.com/toolroute/toolroute/internal/webui"
	"github.com/toolroute/toolroute/wasm"
)

// raw asks for no coding of its own and decodes none.
var raw = &http.Transport{DisableCompression: true}

// fetch sends a request with the headers given, and no others.
func fetch(t *testing.T, method, url string, header ...string) (*http.Response, []byte) {
	t.Helper()
	req, _ := http.NewRequest(method, url, nil)
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := raw.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, body
}

// decode undoes a response's content coding.
func decode(t *testing.T, coding string, body []byte) []byte {
	t.Helper()
	var r io.Reader
	switch coding {
	case "":
		return body
	case "br":
		r = brotli.NewReader(bytes.NewReader(body))
	case "gzip":
		zr, err := gzip.NewReader(bytes.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		r = zr
	default:
		t.Fatalf("unknown coding %q", coding)
	}
	out, err := io.ReadAll(r)
	if err != nil {
		t.Fatalf("decoding %s: %v", coding, err)
	}
	return out
}

// The UI built into the program, compressed: each file of a first visit
// and the word vectors come in the coding asked for, smaller, and decode
// byte for byte to the file; each coding is a representation with an ETag
// of its own, revalidated by it (304 per coding), and HEAD and a range
// give the compressed form's length and bytes.
func TestCompressed(t *testing.T) {
	srv := httptest.NewServer(webui.Handler(webui.Files, wasm.Binary))
	defer srv.Close()
	want := func(name string) []byte {
		switch name {
		case webui.Module:
			return wasm.Binary
		case webui.WordVectors:
			return assets.WordVectors
		}
		b, err := fs.ReadFile(webui.Files, name)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	for _, name := range []string{"index.html", "app.css", "app.js", "worker.js", webui.Module, "quickjs.wasm", webui.WordVectors} {
		t.Run(name, func(t *testing.T) {
			url := srv.URL + "/" + name
			plain, body := fetch(t, "GET", url)
			if plain.Header.Get("Content-Encoding") != "" || !bytes.Equal(body, want(name)) || plain.Header.Get("Vary") != "Accept-Encoding" {
				t.Fatalf("with no Accept-Encoding: %q, %d bytes, Vary %q; want the file as it is, %d bytes, and Vary",
					plain.Header.Get("Content-Encoding"), len(body), plain.Header.Get("Vary"), len(want(name)))
			}
			tags := map[string]string{"": plain.Header.Get("ETag")}
			for _, coding := range []string{"br", "gzip"} {
				resp, body := fetch(t, "GET", url, "Accept-Encoding", coding)
				if got := resp.Header.Get("Content-Encoding"); got != coding {
					t.Fatalf("%s: Content-Encoding %q", coding, got)
				}
				if got := decode(t, coding, body); !bytes.Equal(got, want(name)) {
					t.Fatalf("%s: decodes to %d bytes that are not the file's %d", coding, len(got), len(want(name)))
				}
				if len(body) >= len(want(name)) || resp.Header.Get("Content-Length") != itoa(len(body)) {
					t.Errorf("%s: %d bytes sent (Content-Length %q) for a file of %d", coding, len(body), resp.Header.Get("Content-Length"), len(want(name)))
				}
				if resp.Header.Get("Vary") != "Accept-Encoding" || resp.Header.Get("Content-Type") != webui.ContentType(name) {
					t.Errorf("%s: Vary %q, Content-Type %q", coding, resp.Header.Get("Vary"), resp.Header.Get("Content-Type"))
				}
				tag := resp.Header.Get("ETag")
				for other, otherTag := range tags {
					if tag == "" || tag == otherTag {
						t.Errorf("%s: ETag %q, the same as %q's", coding, tag, other)
					}
				}
				tags[coding] = tag

				again, rest := fetch(t, "GET", url, "Accept-Encoding", coding, "If-None-Match", tag)
				if again.StatusCode != http.StatusNotModified || len(rest) != 0 || again.Header.Get("ETag") != tag || again.Header.Get("Vary") != "Accept-Encoding" {
					t.Errorf("%s with its ETag: HTTP %d, ETag %q, Vary %q, %d bytes; want 304", coding, again.StatusCode, again.Header.Get("ETag"), again.Header.Get("Vary"), len(rest))
				}
				if other, _ := fetch(t, "GET", url, "Accept-Encoding", coding, "If-None-Match", tags[""]); other.StatusCode != http.StatusOK {
					t.Errorf("%s with the plain file's ETag: HTTP %d, want 200", coding, other.StatusCode)
				}
				head, none := fetch(t, "HEAD", url, "Accept-Encoding", coding)
				if head.StatusCode != 200 || len(none) != 0 || head.Header.Get("Content-Encoding") != coding || head.Header.Get("Content-Length") != itoa(len(body)) {
					t.Errorf("%s HEAD: HTTP %d, %q, Content-Length %q, %d bytes; want %d", coding, head.StatusCode, head.Header.Get("Content-Encoding"), head.Header.Get("Content-Length"), len(none), len(body))
				}
				part, got := fetch(t, "GET", url, "Accept-Encoding", coding, "Range", "bytes=0-9")
				if part.StatusCode != http.StatusPartialContent || part.Header.Get("Content-Encoding") != coding || !bytes.Equal(got, body[:10]) {
					t.Errorf("%s range: HTTP %d, %q, %q; want 206 and the compressed form's first bytes", coding, part.StatusCode, part.Header.Get("Content-Encoding"), got)
				}
			}
		})
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

// A client's Accept-Encoding decides, weights and all; one that takes no
// coding gets the file as it is.
func TestAcceptEncoding(t *testing.T) {
	srv := httptest.NewServer(webui.Handler(webui.Files, wasm.Binary))
	defer srv.Close()
	for _, c := range []struct{ accept, want string }{
		{"", ""},
		{"identity", ""},
		{"gzip, deflate, br, zstd", "br"}, // Chromium's
		{"gzip", "gzip"},
		{"x-gzip", "gzip"},
		{"GZIP;Q=0.5", "gzip"},
		{"br", "br"},
		{"*", "br"},
		{"gzip;q=1, br;q=0.5", "gzip"},
		{"br;q=0.5, gzip;q=0.5", "br"},
		{"br;q=0, gzip", "gzip"},
		{"br;q=0, gzip;q=0", ""},
		{"*;q=0", ""},
		{"*;q=0.5, br;q=0", "gzip"},
		{"br;q=0.3, identity;q=0.5", ""},
		{"br;q=0.5, identity;q=0.5", "br"},
		{"gzip;q=nonsense, br;q=2", ""},
		{"deflate, zstd", ""},
		{" , ;q=1, br", "br"},
	} {
		t.Run(c.accept, func(t *testing.T) {
			resp, body := fetch(t, "GET", srv.URL+"/app.js", "Accept-Encoding", c.accept)
			want, _ := fs.ReadFile(webui.Files, "app.js")
			if got := resp.Header.Get("Content-Encoding"); got != c.want {
				t.Errorf("Content-Encoding %q, want %q", got, c.want)
			}
			if !bytes.Equal(decode(t, resp.Header.Get("Content-Encoding"), body), want) {
				t.Error("the body does not decode to app.js")
			}
		})
	}
}

// countingFS counts the bytes read from its files.
type countingFS struct {
	fstest.MapFS
	read *int
}

func (c countingFS) Open(name string) (fs.File, error) {
	f, err := c.MapFS.Open(name)
	if err != nil {
		return nil, err
	}
	return &countingFile{f.(readSeekFile), c.read}, nil
}

type readSeekFile interface {
	fs.File
	io.Seeker
}

type countingFile struct {
	readSeekFile
	read *int
}

func (f *countingFile) Read(p []byte) (int, error) {
	n, err := f.readSeekFile.Read(p)
	*f.read += n
	return n, err
}

// A file is compressed once in each coding, not per request; a folder's
// file that changes is compressed again, and gets a new ETag. Images
// stored compressed are sent as they are.
func TestCompressedOnce(t *testing.T) {
	text := []byte(strings.Repeat("function f() { return 'the same line again'; }\n", 2000))
	mod := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	files := fstest.MapFS{"app.js": {Data: text, ModTime: mod}, "icon.png": {Data: text}}
	read := 0
	srv := httptest.NewServer(webui.Handler(countingFS{files, &read}, nil))
	defer srv.Close()

	var tag string
	for i := range 5 {
		resp, body := fetch(t, "GET", srv.URL+"/app.js", "Accept-Encoding", "br")
		if resp.Header.Get("Content-Encoding") != "br" || !bytes.Equal(decode(t, "br", body), text) {
			t.Fatalf("request %d: %q", i+1, resp.Header.Get("Content-Encoding"))
		}
		tag = resp.Header.Get("ETag")
	}
	if read != len(text) {
		t.Errorf("five requests read %d bytes of a %d-byte file: it was compressed more than once", read, len(text))
	}

	changed := []byte(strings.Replace(string(text), "same", "new", 1))
	files["app.js"] = &fstest.MapFile{Data: changed, ModTime: mod.Add(time.Second)}
	resp, body := fetch(t, "GET", srv.URL+"/app.js", "Accept-Encoding", "br", "If-None-Match", tag)
	if resp.StatusCode != 200 || !bytes.Equal(decode(t, "br", body), changed) || resp.Header.Get("ETag") == tag {
		t.Errorf("after a change: HTTP %d, ETag %q (was %q)", resp.StatusCode, resp.Header.Get("ETag"), tag)
	}

	resp, body = fetch(t, "GET", srv.URL+"/icon.png", "Accept-Encoding", "br, gzip")
	if resp.Header.Get("Content-Encoding") != "" || resp.Header.Get("Vary") != "" || !bytes.Equal(body, text) {
		t.Errorf("an image: Content-Encoding %q, Vary %q", resp.Header.Get("Content-Encoding"), resp.Header.Get("Vary"))
	}
}
