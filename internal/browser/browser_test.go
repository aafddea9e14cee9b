package browser_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"image/png"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/toolroute/toolroute/host"
	"github.com/toolroute/toolroute/internal/browser"
	"github.com/toolroute/toolroute/internal/gzipbomb"
)

const pageOne = `<!doctype html><html><head><title>Page One</title></head><body>
<h1>Hello from page one</h1>
<input id="name"><button id="go" onclick="document.getElementById('out').textContent = 'Hi ' + document.getElementById('name').value">Greet</button>
<p id="out"></p>
<a id="next" href="/two">next</a>
<img src="BLOCKED/pixel.png">
</body></html>`

// A Chromium of the machine's, on pages of a loopback server the test lets
// it reach, and a second one it may not (as a private address would be):
// the model's five actions, as a user's model would use them.
func TestBrowser(t *testing.T) {
	var blockedHits atomic.Int32
	forbidden := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		blockedHits.Add(1)
		w.Write([]byte("<title>secret</title>intranet"))
	}))
	defer forbidden.Close()
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		switch r.URL.Path {
		case "/":
			w.Write([]byte(strings.Replace(pageOne, "BLOCKED", forbidden.URL, 1)))
		case "/two":
			w.Write([]byte(`<!doctype html><title>Page Two</title><body><p>The second page.</p></body>`))
		default:
			http.NotFound(w, r)
		}
	}))
	defer site.Close()
	allowed := netip.MustParseAddrPort(strings.TrimPrefix(site.URL, "http://"))
	b, tool, problem := browser.New(browser.Options{Blocked: func(ap netip.AddrPort) bool { return ap != allowed }})
	if problem != "" {
		t.Skip(problem)
	}
	defer b.Close()
	ctx := context.Background()
	call := func(args string) (host.Output, error) {
		t.Helper()
		return tool.RunOutput(ctx, json.RawMessage(args))
	}
	ok := func(args string, wants ...string) host.Output {
		t.Helper()
		out, err := call(args)
		if err != nil {
			t.Fatalf("%s: %v", args, err)
		}
		for _, w := range wants {
			if !strings.Contains(out.Text, w) {
				t.Errorf("%s: %q does not say %q", args, out.Text, w)
			}
		}
		return out
	}
	failed := func(args, typ, want string) {
		t.Helper()
		_, err := call(args)
		var te *host.ToolError
		if !errors.As(err, &te) || te.Type != typ || !strings.Contains(te.Message, want) {
			t.Errorf("%s: %v, want a %s error saying %q", args, err, typ, want)
		}
	}

	ok(`{"action":"navigate","url":"`+site.URL+`/"}`, "Opened "+site.URL+"/ (HTTP 200): “Page One”.")
	ok(`{"action":"text"}`, "“Page One” ("+site.URL+"/):\n\nHello from page one")
	ok(`{"action":"type","selector":"#name","text":"Ada"}`, "Typed 3 characters into #name")
	ok(`{"action":"click","selector":"#go"}`, "Clicked #go; the page is now “Page One”")
	if out := ok(`{"action":"text","selector":"#out"}`); !strings.HasSuffix(out.Text, "\n\nHi Ada") {
		t.Errorf("the greeting: %q", out.Text)
	}
	shot := ok(`{"action":"screenshot"}`, "Screenshot of “Page One”", "1280x800: [image image/png, ")
	if len(shot.Images) != 1 || shot.Images[0].MIMEType != "image/png" {
		t.Fatalf("images: %d", len(shot.Images))
	}
	raw, _ := base64.StdEncoding.DecodeString(shot.Images[0].Data)
	if img, err := png.Decode(bytes.NewReader(raw)); err != nil || img.Bounds().Dx() != browser.Width {
		t.Errorf("the screenshot: %v, %v", err, img)
	}
	ok(`{"action":"click","selector":"#next"}`, "the page is now “Page Two” ("+site.URL+"/two)")
	ok(`{"action":"text"}`, "The second page.")

	failed(`{"action":"navigate","url":"`+forbidden.URL+`/"}`, "forbidden", "loopback, private or link-local address")
	if n := blockedHits.Load(); n != 0 {
		t.Errorf("the forbidden server got %d requests (the image of page one, or the navigation)", n)
	}
	failed(`{"action":"click","selector":"#nothing"}`, "not_found", `no element matches "#nothing"`)
	failed(`{"action":"click"}`, "invalid_arguments", "click needs a selector")
	failed(`{"action":"navigate","url":"file:///etc/passwd"}`, "invalid_arguments", "is not an http or https address")
	failed(`{"action":"fly"}`, "invalid_arguments", "use navigate, text, click, type or screenshot")
}

// A page of 8 MB of text under a 2 MB title, sent gzipped in a few
// kilobytes: the program reads no more than the tool answers of it (the
// page's text and title are cut in the page), not the megabytes Chromium
// inflated.
func TestBrowserReadsCapped(t *testing.T) {
	page := gzipbomb.Single("<!doctype html><html><head><title>"+strings.Repeat("T", 2<<20)+"</title></head><body><p>", "a", "</p></body></html>", 10<<20)
	site := httptest.NewServer(gzipbomb.Handler("text/html; charset=utf-8", page))
	defer site.Close()
	allowed := netip.MustParseAddrPort(strings.TrimPrefix(site.URL, "http://"))
	b, tool, problem := browser.New(browser.Options{Blocked: func(ap netip.AddrPort) bool { return ap != allowed }})
	if problem != "" {
		t.Skip(problem)
	}
	defer b.Close()
	for _, c := range []struct{ args, want string }{
		{`{"action":"navigate","url":"` + site.URL + `/"}`, "Opened " + site.URL + "/ (HTTP 200): “TTTT"},
		{`{"action":"text"}`, "\n[text cut at 20000 characters of "},
	} {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		out, err := tool.RunOutput(context.Background(), json.RawMessage(c.args))
		runtime.ReadMemStats(&after)
		if err != nil || !strings.Contains(out.Text, c.want) || len(out.Text) > 32<<10 {
			t.Errorf("%s: %.200q… (%d bytes), %v; want %q in at most 32 KB", c.args, out.Text, len(out.Text), err, c.want)
		}
		if n := after.TotalAlloc - before.TotalAlloc; n > 8<<20 {
			t.Errorf("%s allocated %d MB, want well under the page's", c.args, n>>20)
		}
	}
}
