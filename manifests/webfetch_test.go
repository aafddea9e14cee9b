package manifests_test

// webfetch, the built-in JS tool that reads a web page as markdown, as the
// program runs it: the host, the QuickJS runner with the fetch bridge and
// the libraries, webfetch.js. testdata/builtins/webfetch.txtar replays the
// same in the browser and the worker too.

import (
	"context"
	"encoding/json"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/toolroute/toolroute/host"
	"github.com/toolroute/toolroute/host/jsrun"
	"github.com/toolroute/toolroute/manifests"
	"github.com/toolroute/toolroute/registry"
)

// webfetchHost is a host whose JS tools' fetch may reach loopback or not.
func webfetchHost(t testing.TB, allowPrivate bool) *host.Host {
	t.Helper()
	return toolHost(t, jsrun.Options{
		SandboxRoot: t.TempDir(), Libraries: []fs.FS{manifests.Lib}, Warm: 1,
		Fetch: jsrun.FetchOptions{AllowPrivate: allowPrivate},
	})
}

func TestWebfetch(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/article":
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			w.Write([]byte(`<html><head><title>Bees</title><script>alert(1)</script></head><body>
				<nav><a href="/">Home</a></nav><article><h1>On bees</h1><p>Bees make <b>honey</b>.</p>
				<p><a href="/more">More</a></p></article></body></html>`))
		case "/moved":
			http.Redirect(w, r, "/article", http.StatusFound)
		case "/long":
			w.Header().Set("Content-Type", "text/plain")
			w.Write([]byte(strings.Repeat("b", 100)))
		case "/emoji":
			w.Header().Set("Content-Type", "text/plain; charset=utf-8")
			w.Write([]byte(strings.Repeat("🐝", 30)))
		case "/json":
			w.Header().Set("Content-Type", "application/problem+json")
			w.Write([]byte(`{"a": 1}`))
		case "/image":
			w.Header().Set("Content-Type", "image/png")
			w.Write([]byte{0x89, 'P', 'N', 'G'})
		case "/headers":
			w.Header().Set("Content-Type", "text/plain")
			w.Write([]byte(r.Header.Get("User-Agent") + "|" + r.Header.Get("Accept")))
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	h := webfetchHost(t, true)
	call := func(args string) registry.Result {
		t.Helper()
		res, err := h.CallTool(context.Background(), "webfetch", json.RawMessage(args))
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	ok := func(args string) string {
		t.Helper()
		res := call(args)
		if res.Status != registry.StatusSuccess {
			t.Fatalf("webfetch %s: %s %s", args, res.ErrorType, res.Message)
		}
		return res.Output
	}
	fails := func(args, errType, want string) {
		t.Helper()
		res := call(args)
		if res.Status != registry.StatusError || res.ErrorType != errType || !strings.Contains(res.Message, want) {
			t.Errorf("webfetch %s = %s %s %q, want a %s error containing %q", args, res.Status, res.ErrorType, res.Message, errType, want)
		}
	}

	want := "# Bees\nURL: " + srv.URL + "/article\n\n# On bees\n\nBees make **honey**.\n\n[More](" + srv.URL + "/more)"
	if out := ok(`{"url":"` + srv.URL + `/article"}`); out != want {
		t.Errorf("the article:\n%s\nwant:\n%s", out, want)
	}
	// The URL is the page's after redirects: links resolve against it.
	if out := ok(`{"url":"` + srv.URL + `/moved"}`); out != want {
		t.Errorf("the moved article:\n%s\nwant:\n%s", out, want)
	}
	if out := ok(`{"url":"` + srv.URL + `/long","max_chars":10}`); out != "URL: "+srv.URL+"/long\n\nbbbbbbbbbb\n\n[cut at 10 of 100 characters: ask for more with max_chars]" {
		t.Errorf("cut page = %q", out)
	}
	// Characters, not UTF-16 units or bytes.
	if out := ok(`{"url":"` + srv.URL + `/emoji","max_chars":3}`); !strings.HasSuffix(out, "\n\n🐝🐝🐝\n\n[cut at 3 of 30 characters: ask for more with max_chars]") {
		t.Errorf("cut emoji = %q", out)
	}
	if out := ok(`{"url":"` + srv.URL + `/json"}`); out != "URL: "+srv.URL+"/json\n\n{\"a\": 1}" {
		t.Errorf("JSON = %q", out)
	}
	if out := ok(`{"url":"` + srv.URL + `/headers"}`); !strings.HasSuffix(out, "\n\ntoolroute webfetch|text/html,application/xhtml+xml,text/plain;q=0.9,*/*;q=0.5") {
		t.Errorf("the request's headers = %q", out)
	}
	fails(`{"url":"`+srv.URL+`/image"}`, "unsupported", srv.URL+"/image is image/png, not a text page")
	fails(`{"url":"`+srv.URL+`/gone"}`, "http_error", srv.URL+"/gone answered 404 Not Found")
	fails(`{"url":"ftp://example.com/"}`, "invalid_arguments", "'ftp://example.com/' is not an http or https URL")
	fails(`{"url":"example.com"}`, "invalid_arguments", "give a full http:// or https:// URL")
	fails(`{"url":"https://me:secret@example.com/"}`, "invalid_arguments", "user name or password")
	fails(`{"url":"`+srv.URL+`/long","max_chars":1.5}`, "invalid_arguments", "max_chars must be a whole number")

	// Without AllowPrivate, loopback is refused.
	strict := webfetchHost(t, false)
	res, err := strict.CallTool(context.Background(), "webfetch", json.RawMessage(`{"url":"`+srv.URL+`/article"}`))
	if err != nil || res.ErrorType != "refused" || res.Message != srv.URL+"/article is refused: loopback, private and link-local addresses cannot be fetched" {
		t.Errorf("loopback = %+v, %v", res, err)
	}
}

// A 4 MB page of 1 MB of scripts and 3 MB of dense HTML: read within the
// call's time and memory, to webfetch's 1.5 MB of HTML or its 12 s, the
// rest said to be left out.
func TestWebfetchBigPage(t *testing.T) {
	if testing.Short() {
		t.Skip("a 4 MB page")
	}
	html, _ := bigPage(3 << 20)
	html = strings.Replace(html, "<body>", "<body><script>"+strings.Repeat("var x = '<p>not text</p>';\n", 1<<20/27)+"</script>", 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.Write([]byte(html))
	}))
	defer srv.Close()
	h := webfetchHost(t, true)
	start := time.Now()
	res, err := h.CallTool(context.Background(), "webfetch", json.RawMessage(`{"url":"`+srv.URL+`/","max_chars":1000}`))
	t.Logf("a %d-byte page in %v: %q", len(html), time.Since(start), res.Output[max(0, len(res.Output)-80):])
	if err != nil || res.Status != registry.StatusSuccess {
		t.Fatalf("webfetch = %+v, %v", res, err)
	}
	if !strings.HasPrefix(res.Output, "# Big\nURL: ") || strings.Contains(res.Output, "not text") {
		t.Errorf("the page begins %q", res.Output[:min(200, len(res.Output))])
	}
	end := regexp.MustCompile(`\n\n\[cut at 1000 of \d+ characters: ask for more with max_chars\]\n\n\[only the first \d+% of the page was read: it is too long to read whole here\]$`)
	if !end.MatchString(res.Output) {
		t.Errorf("the page ends %q", res.Output[max(0, len(res.Output)-200):])
	}
}

// BenchmarkWebfetchPage is webfetch on a 1 MB article from a local server,
// through the Go host's QuickJS: /steady after a first call (the libraries
// compiled and cached), /cold a new host's first call each time.
func BenchmarkWebfetchPage(b *testing.B) {
	html, _ := bigPage(1 << 20)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.Write([]byte(html))
	}))
	defer srv.Close()
	args := json.RawMessage(`{"url":"` + srv.URL + `/","max_chars":1000}`)
	call := func(h *host.Host) {
		res, err := h.CallTool(context.Background(), "webfetch", args)
		if err != nil || res.Status != registry.StatusSuccess {
			b.Fatalf("webfetch = %+v, %v", res, err)
		}
	}
	b.Run("steady", func(b *testing.B) {
		h := webfetchHost(b, true)
		call(h)
		b.ResetTimer()
		for b.Loop() {
			call(h)
		}
	})
	b.Run("cold", func(b *testing.B) {
		for range b.N {
			b.StopTimer()
			h := webfetchHost(b, true)
			b.StartTimer()
			call(h)
		}
	})
}
