package manifests_test

// The html_markdown library (lib/html_markdown.js over lib/htmlparser2.js),
// which webfetch reads pages with, in the Go host's QuickJS. The browser and
// the worker run the same files; testdata/builtins/webfetch.txtar runs the
// tool in all three.

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/toolroute/toolroute/host"
	"github.com/toolroute/toolroute/host/jsrun"
	"github.com/toolroute/toolroute/internal/testcache"
	"github.com/toolroute/toolroute/manifests"
	"github.com/toolroute/toolroute/registry"
)

// page is what markdown gives.
type page struct {
	Title    string  `json:"title"`
	Markdown string  `json:"markdown"`
	Read     float64 `json:"read"`
}

// htmlMarkdown runs markdown(html, base, options) in a fresh QuickJS
// runtime.
func htmlMarkdown(t testing.TB, runner *jsrun.Runner, html, base string, options map[string]any) (page, time.Duration) {
	t.Helper()
	params, _ := json.Marshal(map[string]any{"html": html, "base": base, "options": options})
	start := time.Now()
	// These tests check the markdown, not the speed (make bench measures a
	// 1 MB page): the limit is generous, so a machine loaded by other
	// work does not fail them.
	res := runner.Run(checked(t), host.JSCall{
		Tool: "html_markdown", SourceRef: "test.js", Function: "execute", Params: params, Timeout: 5 * time.Minute,
		Source: []byte(`function execute(p) { return lib("html_markdown").markdown(p.html, p.base, p.options); }`),
	})
	took := time.Since(start)
	if res.Status != registry.StatusSuccess {
		t.Fatalf("markdown failed: %s: %s", res.ErrorType, res.Message)
	}
	var p page
	if err := json.Unmarshal([]byte(res.Output), &p); err != nil {
		t.Fatalf("markdown gave %q: %v", res.Output, err)
	}
	return p, took
}

func newLibRunner(t testing.TB) *jsrun.Runner {
	t.Helper()
	runner, err := jsrun.New(jsrun.Options{SandboxRoot: t.TempDir(), Libraries: []fs.FS{manifests.Lib}, Warm: 1, CacheDir: testcache.QuickJS(cacheDir)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(runner.Close)
	return runner
}

func TestHTMLMarkdown(t *testing.T) {
	runner := newLibRunner(t)
	const base = "https://example.com/docs/page.html"
	tests := []struct {
		name    string
		html    string
		base    string
		options map[string]any
		want    page
	}{
		{
			name: "article with furniture around it",
			html: `<!doctype html><html><head><title> Release  notes </title><style>p{}</style><script>var x = 1;</script></head>
<body><nav><a href="/">Home</a></nav><header>Site</header>
<main><h1>Version 2</h1><p>It is <b>faster</b> and <em>safer</em>.
  See <a href="changes.html">the changes</a> or <a href="#top">top</a>.</p>
<ul><li>One</li><li>Two<ul><li>Nested</li></ul></li></ul>
<ol><li>First</li><li>Second</li></ol>
<pre><code>go get example.com/x
go test ./...</code></pre>
<p>Run <code>make</code> &amp; wait.</p>
<blockquote><p>Quoted words</p></blockquote>
<table><tr><th>Name</th><th>Size</th></tr><tr><td>a|b</td><td>1</td></tr></table>
<form><input value="x"><button>Go</button></form>
<div hidden>secret</div><p style="display: none">also hidden</p>
<img src="/logo.png" alt="Logo"><img src="/spacer.gif">
</main><footer>Copyright</footer></body></html>`,
			base: base,
			want: page{Read: 1, Title: "Release notes", Markdown: "# Version 2\n\n" +
				"It is **faster** and *safer*. See [the changes](https://example.com/docs/changes.html) or top.\n\n" +
				"- One\n\n- Two\n\n  - Nested\n\n1. First\n\n2. Second\n\n" +
				"```\ngo get example.com/x\ngo test ./...\n```\n\n" +
				"Run `make` & wait.\n\n" +
				"> Quoted words\n\n" +
				"| Name | Size |\n| --- | --- |\n| a\\|b | 1 |\n\n" +
				"![Logo](https://example.com/logo.png)"},
		},
		{
			name: "no main: the body",
			html: `<html><body><h2>Hello</h2>plain text<br>next line</body></html>`,
			want: page{Read: 1, Markdown: "## Hello\n\nplain text\n\nnext line"},
		},
		{
			name: "an article when there is no main",
			html: `<body><div>menu</div><article><h3>Story</h3><p>Once</p></article><div>ads</div></body>`,
			want: page{Read: 1, Markdown: "### Story\n\nOnce"},
		},
		{
			name: "not really HTML",
			html: `just words, < and > too`,
			want: page{Read: 1, Markdown: "just words, < and > too"},
		},
		{name: "empty", html: ``, want: page{Read: 1}},
		{
			name: "paragraphs and items left open, as pages do",
			html: `<title>t &amp; u</title><p>one<p>two<ul><li>a<li>b</ul><dl><dt>term<dd>meaning</dl>`,
			want: page{Read: 1, Title: "t & u", Markdown: "one\n\ntwo\n\n- a\n\n- b\n\nterm\n\nmeaning"},
		},
		{
			name: "character references",
			html: `<p>caf&eacute; &lt;tag&gt; &#x2603; &#9731; &nbsp;x&copy</p>`,
			want: page{Read: 1, Markdown: "café <tag> ☃ ☃ x©"},
		},
		{
			name: "pre keeps its lines and spaces; br inside it is a line",
			html: "<pre>\n  indented\n\tTabbed<br>after &lt;br&gt;\n</pre>",
			want: page{Read: 1, Markdown: "```\n  indented\n\tTabbed\nafter <br>\n```"},
		},
		{
			name: "quotes nest and hold lists",
			html: `<blockquote>outer<blockquote>inner</blockquote><ul><li>item</li></ul></blockquote>`,
			want: page{Read: 1, Markdown: "> outer\n\n> > inner\n\n> - item"},
		},
		{
			name: "a table's sections and a hidden row's cells; nothing for a table without rows",
			html: `<table><thead><tr><th>A</th><th>B</th></tr></thead><tbody><tr><td>1</td><td><a href="/x">link</a></td></tr></tbody><tfoot><tr><td>f</td></tr></tfoot></table><table></table>`,
			base: base,
			want: page{Read: 1, Markdown: "| A | B |\n| --- | --- |\n| 1 | [link](https://example.com/x) |\n| f |"},
		},
		{
			name: "links resolved against the base, as RFC 3986 says",
			html: `<p><a href="../up/x?q=1#f">up</a> <a href="//cdn.example.org/a b">cdn</a> <a href="?page=2">query</a> ` +
				`<a href="/./a/../b/./c">dots</a> <a href="mailto:me@example.com">mail</a> <a href="javascript:void(0)">js</a> ` +
				`<a href="café">accent</a> <a href="">none</a> <a href="x">  </a></p>`,
			base: base,
			want: page{Read: 1, Markdown: "[up](https://example.com/up/x?q=1#f) [cdn](https://cdn.example.org/a%20b) " +
				"[query](https://example.com/docs/page.html?page=2) [dots](https://example.com/b/c) " +
				"[mail](mailto:me@example.com) js [accent](https://example.com/docs/caf%C3%A9) none"},
		},
		{
			name: "without a base, links stay as written",
			html: `<a href="../x">x</a>`,
			want: page{Read: 1, Markdown: "[x](../x)"},
		},
		{
			name: "aria-hidden, a skipped svg, a figure's caption",
			html: `<span aria-hidden="true">icon</span><svg><title>drawing</title><text>t</text></svg><figure><img src="a.png" alt="A chart"><figcaption>Sales</figcaption></figure>`,
			base: "https://example.com/",
			want: page{Read: 1, Markdown: "![A chart](https://example.com/a.png)\n\nSales"},
		},
		{
			name:    "maxChars: the start of the page, less its scripts, and the share read",
			html:    `<p>one</p><script>` + strings.Repeat("x", 100) + `</script><p>two</p>`,
			options: map[string]any{"maxChars": 10},
			want:    page{Read: 0.5, Markdown: "one"},
		},
		{
			name:    "a deadline passed: nothing read",
			html:    `<p>one</p>`,
			options: map[string]any{"deadline": 1},
			want:    page{Read: 0},
		},
		{
			name: "endless open tags are read, not overflowing the stack",
			html: strings.Repeat("<div><span>", 5000) + "deep" + strings.Repeat("</span></div>", 10),
			want: page{Read: 1, Markdown: "deep"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, _ := htmlMarkdown(t, runner, tt.html, tt.base, tt.options)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// A big page is read whole and right. How long it takes is logged, not
// checked: about 7 s on a quiet machine, three times that beside the other
// packages' tests on two cores. webfetch bounds its reading by time as well
// as size (TestWebfetchBigPage).
func TestHTMLMarkdownBigPage(t *testing.T) {
	if testing.Short() {
		t.Skip("a 1 MB page")
	}
	runner := newLibRunner(t)
	html, paragraphs := bigPage(1 << 20)
	got, took := htmlMarkdown(t, runner, html, "https://example.com/", nil)
	t.Logf("a %d-byte page in %v", len(html), took)
	if n := strings.Count(got.Markdown, "Paragraph "); n != paragraphs || got.Read != 1 {
		t.Errorf("%d paragraphs in the markdown, want %d; read %v", n, paragraphs, got.Read)
	}
	if !strings.Contains(got.Markdown, "\n\n## Section 7\n\nParagraph 7: some **bold** text, a [link & more](https://example.com/page/7?x=1), and `code()` in") {
		t.Errorf("section 7 is not as written: %q", got.Markdown[:min(2000, len(got.Markdown))])
	}
}

// bigPage is an article of about size bytes, as pages are: navigation,
// scripts, headings, paragraphs with links and emphasis, lists and tables.
func bigPage(size int) (string, int) {
	var b strings.Builder
	b.WriteString(`<!doctype html><html><head><title>Big</title><script>` + strings.Repeat("var a = 1; ", 2000) + `</script></head><body>`)
	b.WriteString(`<nav><ul>` + strings.Repeat(`<li><a href="/section">Section</a></li>`, 200) + `</ul></nav><main>`)
	n := 0
	for b.Len() < size {
		n++
		fmt.Fprintf(&b, `<h2 id="s%d">Section %d</h2><div class="para"><p>Paragraph %d: some <b>bold</b> text, a <a href="/page/%d?x=1">link &amp; more</a>, `+
			`and <code>code()</code> in a sentence long enough to look like prose, as pages have.</p>`+
			`<ul><li>item one</li><li>item <em>two</em></li></ul>`+
			`<table><tr><th>k</th><th>v</th></tr><tr><td>a</td><td>%d</td></tr></table></div>`, n, n, n, n, n)
	}
	b.WriteString(`</main></body></html>`)
	return b.String(), n
}
