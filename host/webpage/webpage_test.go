package webpage

import (
	"net/url"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestMarkdown(t *testing.T) {
	base, _ := url.Parse("https://example.com/docs/page.html")
	tests := []struct {
		name string
		html string
		want Page
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
			want: Page{Title: "Release notes", Markdown: "# Version 2\n\n" +
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
			want: Page{Markdown: "## Hello\n\nplain text\n\nnext line"},
		},
		{
			name: "not really HTML",
			html: `just words, < and > too`,
			want: Page{Markdown: "just words, < and > too"},
		},
		{name: "empty", html: ``, want: Page{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Markdown([]byte(tt.html), base)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func FuzzMarkdown(f *testing.F) {
	f.Add(`<main><ul><li><a href="x">y</a></li></ul><table><tr><td>1</td></tr></table></main>`)
	f.Add(`<pre><code>a</code></pre><blockquote><ol><li>x`)
	f.Fuzz(func(t *testing.T, doc string) {
		if _, err := Markdown([]byte(doc), nil); err != nil {
			t.Fatal(err)
		}
	})
}
