package jsrun

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/toolroute/toolroute/host"
	"github.com/toolroute/toolroute/internal/checktest"
)

// testPNG is a 4x4 RGBA PNG: its signature and chunks hold NUL bytes and
// bytes above 0x7f, which a text path would change.
var testPNG = func() []byte {
	b, err := os.ReadFile("../../testdata/js/download_to_file.txtar")
	if err != nil {
		panic(err)
	}
	var c struct {
		ExpectFilesBase64 map[string]string `json:"expect_files_base64"`
	}
	text := string(b)
	start := strings.Index(text, "-- case.json --\n") + len("-- case.json --\n")
	end := strings.Index(text, "-- tool.js --")
	if err := json.Unmarshal([]byte(text[start:end]), &c); err != nil {
		panic(err)
	}
	png, err := base64.StdEncoding.DecodeString(c.ExpectFilesBase64["downloads/pic.png"])
	if err != nil {
		panic(err)
	}
	return png
}()

func callParams(r *Runner, source string, params any, timeout time.Duration) Result {
	p, _ := json.Marshal(params)
	return r.Call(checktest.Background(), host.JSCall{Tool: "t", SourceRef: "t.js", Source: []byte(source), Function: "execute", Params: p, Timeout: timeout})
}

// The upload's body is one a standard multipart reader takes, and a PNG
// downloaded and uploaded arrives byte for byte, with Drive's metadata part
// before it.
func TestDownloadUploadPNGRoundTrip(t *testing.T) {
	type part struct {
		header http.Header
		body   []byte
	}
	var got []part
	var gotType string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/download/pic.png":
			w.Header().Set("Content-Type", "image/png")
			w.Write(testPNG)
		case "/upload":
			gotType = r.Header.Get("Content-Type")
			_, params, err := mime.ParseMediaType(gotType)
			if err != nil {
				http.Error(w, err.Error(), 400)
				return
			}
			mr := multipart.NewReader(r.Body, params["boundary"])
			for {
				p, err := mr.NextRawPart()
				if err == io.EOF {
					break
				}
				if err != nil {
					http.Error(w, err.Error(), 400)
					return
				}
				b, _ := io.ReadAll(p)
				got = append(got, part{http.Header(p.Header), b})
			}
			io.WriteString(w, `{"id":"f1"}`)
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	dir := t.TempDir()
	r := newRunner(t, Options{SandboxRoot: dir, Fetch: FetchOptions{AllowPrivate: true}})
	res := callParams(r, `async function execute(p) {
		const d = await downloadToFile(p.base + "/download/pic.png", "in/pic.png");
		if (!d.success) return d;
		return uploadMultipart(p.base + "/upload", [
			{name: "metadata", contentType: "application/json; charset=UTF-8", content: JSON.stringify({name: "pic.png", mimeType: "image/png"})},
			{name: "file", contentType: "image/png", filePath: "in/pic.png"},
		]);
	}`, map[string]string{"base": srv.URL}, failsafe)
	if res.Output != `{"status":200,"body":"{\"id\":\"f1\"}","ok":true,"error":null}` {
		t.Fatalf("result %+v", res)
	}
	saved, err := os.ReadFile(filepath.Join(dir, "in", "pic.png"))
	if err != nil || !bytes.Equal(saved, testPNG) {
		t.Errorf("saved file = %x, %v; want the PNG", saved, err)
	}
	if !strings.HasPrefix(gotType, "multipart/related; boundary=") {
		t.Errorf("Content-Type %q", gotType)
	}
	if len(got) != 2 {
		t.Fatalf("%d parts", len(got))
	}
	if ct, body := got[0].header.Get("Content-Type"), string(got[0].body); ct != "application/json; charset=UTF-8" || body != `{"name":"pic.png","mimeType":"image/png"}` {
		t.Errorf("metadata part %q: %q", ct, body)
	}
	if ct := got[1].header.Get("Content-Type"); ct != "image/png" || !bytes.Equal(got[1].body, testPNG) {
		t.Errorf("media part %q: %x, want the PNG", ct, got[1].body)
	}
	for i, p := range got {
		if len(p.header) != 1 {
			t.Errorf("part %d has the headers %q, want Content-Type alone", i+1, p.header)
		}
	}
}

// multipart/form-data as Go's own form parser reads it: names, file names,
// a file's bytes.
func TestUploadFormDataParses(t *testing.T) {
	type field struct{ name, filename, value string }
	var fields []field
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := r.ParseMultipartForm(1 << 20); err != nil {
			http.Error(w, err.Error(), 400)
			return
		}
		for _, p := range []string{"title", "photo"} {
			if v := r.MultipartForm.Value[p]; len(v) > 0 {
				fields = append(fields, field{p, "", v[0]})
			}
			for _, fh := range r.MultipartForm.File[p] {
				f, _ := fh.Open()
				b, _ := io.ReadAll(f)
				fields = append(fields, field{p, fh.Filename, string(b)})
			}
		}
		w.WriteHeader(http.StatusCreated)
	}))
	defer srv.Close()
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "pic.png"), testPNG, 0o644)
	r := newRunner(t, Options{SandboxRoot: dir, Fetch: FetchOptions{AllowPrivate: true}})
	res := callParams(r, `async function execute(p) {
		const r = await uploadMultipart(p.base + "/form", [
			{name: "title", content: "Ünïcode \"quoted\""},
			{name: "photo", contentType: "image/png", filePath: "pic.png"},
		], {"Content-Type": "multipart/form-data"});
		return r.status + " " + r.ok;
	}`, map[string]string{"base": srv.URL}, failsafe)
	if res.Output != "201 true" {
		t.Fatalf("result %+v", res)
	}
	want := []field{{"title", "", `Ünïcode "quoted"`}, {"photo", "pic.png", string(testPNG)}}
	if len(fields) != len(want) {
		t.Fatalf("fields %q", fields)
	}
	for i := range want {
		if fields[i] != want[i] {
			t.Errorf("field %d = %q, want %q", i, fields[i], want[i])
		}
	}
}

// What fails writes nothing: the sandbox's quota, a body over 5 MB sent
// without a length, a server too slow for the fetch timeout.
func TestDownloadFailuresWriteNothing(t *testing.T) {
	big := bytes.Repeat([]byte{0xff, 0, 'x'}, MaxTransferBytes/3+1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/2k":
			w.Write(bytes.Repeat([]byte{0}, 2048))
		case "/chunked":
			w.Header().Set("Content-Type", "application/octet-stream")
			for i := 0; i < len(big); i += 1 << 16 {
				w.Write(big[i:min(i+1<<16, len(big))])
				w.(http.Flusher).Flush()
			}
		case "/slow":
			w.Write([]byte("start"))
			w.(http.Flusher).Flush()
			select {
			case <-time.After(failsafe):
			case <-r.Context().Done():
			}
		}
	}))
	defer srv.Close()
	tests := []struct {
		name, path, wantErr string
		opts                Options
	}{
		{"quota", "/2k", "the sandbox folder would hold 2048 bytes; it is limited to 0 MB", Options{SandboxQuota: 1024}},
		{"over 5 MB without a length", "/chunked", "is over 5242880 bytes (5 MB), the most a download saves: nothing was written", Options{}},
		{"timeout", "/slow", "timed out: nothing was written", Options{Fetch: FetchOptions{Timeout: 300 * time.Millisecond}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			tt.opts.SandboxRoot = dir
			tt.opts.Fetch.AllowPrivate = true
			r := newRunner(t, tt.opts)
			res := callParams(r, `async function execute(p) { return downloadToFile(p.url, "f.bin"); }`,
				map[string]string{"url": srv.URL + tt.path}, failsafe)
			var d downloadResult
			if err := json.Unmarshal([]byte(res.Output), &d); err != nil {
				t.Fatalf("result %+v", res)
			}
			if d.Success || d.Error == nil || !strings.Contains(*d.Error, tt.wantErr) {
				t.Errorf("result %s, want an error with %q", res.Output, tt.wantErr)
			}
			if _, err := os.Stat(filepath.Join(dir, "f.bin")); !os.IsNotExist(err) {
				t.Errorf("f.bin was written (%v)", err)
			}
		})
	}
}

// Transfers take fetch's rewrite rules, as the Google tools' tests need:
// with private addresses refused, a rewritten URL reaches its target, and
// a redirect out of the target is refused.
func TestTransfersRewritten(t *testing.T) {
	var elsewhere *httptest.Server
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/drive/v3/files/f1":
			w.Write(testPNG)
		case "/drive/v3/files/away":
			http.Redirect(w, r, elsewhere.URL+"/x", http.StatusFound)
		case "/upload/drive/v3/files":
			io.WriteString(w, `{"id":"f2"}`)
		}
	}))
	defer srv.Close()
	elsewhere = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write(testPNG) }))
	defer elsewhere.Close()
	dir := t.TempDir()
	r := newRunner(t, Options{SandboxRoot: dir, Fetch: FetchOptions{Rewrites: []Rewrite{{From: "https://www.googleapis.com", To: srv.URL}}}})
	res := callParams(r, `async function execute() {
		const a = await downloadToFile("https://www.googleapis.com/drive/v3/files/f1?alt=media", "f1.png");
		const b = await downloadToFile("https://www.googleapis.com/drive/v3/files/away", "away.png");
		const c = await uploadMultipart("https://www.googleapis.com/upload/drive/v3/files?uploadType=multipart",
			[{contentType: "application/json", content: "{}"}, {contentType: "image/png", filePath: "f1.png"}]);
		return [a.success, a.size, b.success, /leaves the rewrite target|redirect/.test(b.error), c.ok, c.body].join(" ");
	}`, map[string]string{}, failsafe)
	if res.Output != `true 108 false true true {"id":"f2"}` {
		t.Fatalf("result %+v", res)
	}
	if _, err := os.Stat(filepath.Join(dir, "away.png")); !os.IsNotExist(err) {
		t.Errorf("away.png was written (%v)", err)
	}
}
