// Package webpage turns an HTML page into readable markdown for a model: the
// main content (the page's <main> or <article> when it has one), with
// headings, paragraphs, lists, links, code, quotes and tables, and without
// scripts, styles, navigation, forms or other page furniture.
package webpage

import (
	"bytes"
	"fmt"
	"net/url"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// Page is a page made readable.
type Page struct {
	Title    string
	Markdown string
}

// skipped are elements whose content a reader does not want.
var skipped = map[atom.Atom]bool{
	atom.Script: true, atom.Style: true, atom.Noscript: true, atom.Template: true, atom.Svg: true,
	atom.Iframe: true, atom.Nav: true, atom.Form: true, atom.Button: true, atom.Select: true,
	atom.Input: true, atom.Textarea: true, atom.Aside: true, atom.Head: true, atom.Canvas: true,
	atom.Object: true, atom.Embed: true, atom.Dialog: true,
}

// blocks start on a new paragraph.
var blocks = map[atom.Atom]bool{
	atom.P: true, atom.Div: true, atom.Section: true, atom.Article: true, atom.Main: true, atom.Header: true,
	atom.Footer: true, atom.Figure: true, atom.Figcaption: true, atom.Details: true, atom.Summary: true,
	atom.Dl: true, atom.Dt: true, atom.Dd: true, atom.Address: true, atom.Center: true,
}

// Markdown reads an HTML document; base resolves relative links (nil leaves
// them as they are).
func Markdown(doc []byte, base *url.URL) (Page, error) {
	root, err := html.Parse(bytes.NewReader(doc))
	if err != nil {
		return Page{}, fmt.Errorf("webpage: %w", err)
	}
	w := &writer{base: base}
	var page Page
	if t := find(root, atom.Title); t != nil {
		page.Title = collapse(text(t))
	}
	content := find(root, atom.Main)
	if content == nil {
		content = find(root, atom.Article)
	}
	if content == nil {
		content = find(root, atom.Body)
	}
	if content == nil {
		content = root
	}
	w.node(content)
	page.Markdown = w.result()
	return page, nil
}

// find returns the first element of type a, depth first.
func find(n *html.Node, a atom.Atom) *html.Node {
	if n.Type == html.ElementNode && n.DataAtom == a {
		return n
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if f := find(c, a); f != nil {
			return f
		}
	}
	return nil
}

func text(n *html.Node) string {
	if n.Type == html.TextNode {
		return n.Data
	}
	var b strings.Builder
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		b.WriteString(text(c))
	}
	return b.String()
}

func collapse(s string) string { return strings.Join(strings.Fields(s), " ") }

// writer builds the markdown: paragraphs separated by blank lines, inline
// text with whitespace collapsed.
type writer struct {
	base   *url.URL
	out    strings.Builder
	line   strings.Builder // the paragraph being built
	prefix string          // starts the paragraph: quote marks, list marker
	quote  string          // "> " per open blockquote
	lists  []listState
	pre    int
}

type listState struct {
	ordered bool
	n       int
}

// flush ends the paragraph being built.
func (w *writer) flush() {
	s := strings.TrimSpace(w.line.String())
	w.line.Reset()
	if s == "" {
		return
	}
	if w.out.Len() > 0 {
		w.out.WriteString("\n\n")
	}
	w.out.WriteString(w.prefix + s)
}

func (w *writer) raw(s string) {
	w.flush()
	if w.out.Len() > 0 {
		w.out.WriteString("\n\n")
	}
	w.out.WriteString(s)
}

func (w *writer) result() string {
	w.flush()
	return strings.TrimSpace(w.out.String())
}

// inline adds text to the paragraph, collapsing whitespace.
func (w *writer) inline(s string) {
	if w.pre > 0 {
		w.line.WriteString(s)
		return
	}
	if s == "" {
		return
	}
	lead := s[0] == ' ' || s[0] == '\n' || s[0] == '\t' || s[0] == '\r'
	trail := strings.ContainsAny(s[len(s)-1:], " \n\t\r")
	s = collapse(s)
	cur := w.line.String()
	if lead && cur != "" && !strings.HasSuffix(cur, " ") {
		w.line.WriteByte(' ')
	}
	w.line.WriteString(s)
	if trail && s != "" {
		w.line.WriteByte(' ')
	}
}

func (w *writer) children(n *html.Node) {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		w.node(c)
	}
}

func (w *writer) node(n *html.Node) {
	switch n.Type {
	case html.TextNode:
		w.inline(n.Data)
		return
	case html.DocumentNode:
		w.children(n)
		return
	case html.ElementNode:
	default:
		return
	}
	if skipped[n.DataAtom] || hidden(n) {
		return
	}
	switch a := n.DataAtom; {
	case a == atom.H1 || a == atom.H2 || a == atom.H3 || a == atom.H4 || a == atom.H5 || a == atom.H6:
		w.flush()
		level := map[atom.Atom]int{atom.H1: 1, atom.H2: 2, atom.H3: 3, atom.H4: 4, atom.H5: 5, atom.H6: 6}[a]
		if s := collapse(w.inlineText(n)); s != "" {
			w.raw(strings.Repeat("#", level) + " " + s)
		}
	case blocks[a]:
		w.flush()
		w.children(n)
		w.flush()
	case a == atom.Br:
		if w.pre > 0 {
			w.line.WriteByte('\n')
		} else {
			w.flush()
		}
	case a == atom.Hr:
		w.raw("---")
	case a == atom.Pre:
		w.flush()
		w.pre++
		w.children(n)
		w.pre--
		code := strings.Trim(w.line.String(), "\n")
		w.line.Reset()
		if code != "" {
			w.raw("```\n" + code + "\n```")
		}
	case a == atom.Code && w.pre == 0:
		if s := w.inlineText(n); strings.TrimSpace(s) != "" {
			w.inline("`" + strings.TrimSpace(s) + "`")
		}
	case a == atom.Strong || a == atom.B:
		w.wrap(n, "**")
	case a == atom.Em || a == atom.I:
		w.wrap(n, "*")
	case a == atom.A:
		label := collapse(w.inlineText(n))
		href := strings.TrimSpace(attr(n, "href"))
		switch {
		case label == "":
		case href == "" || strings.HasPrefix(href, "javascript:") || strings.HasPrefix(href, "#"):
			w.inline(label)
		default:
			w.inline("[" + label + "](" + w.resolve(href) + ")")
		}
	case a == atom.Img:
		if alt := collapse(attr(n, "alt")); alt != "" {
			w.inline("![" + alt + "](" + w.resolve(attr(n, "src")) + ")")
		}
	case a == atom.Ul || a == atom.Ol:
		w.flush()
		w.lists = append(w.lists, listState{ordered: a == atom.Ol})
		w.children(n)
		w.flush()
		w.lists = w.lists[:len(w.lists)-1]
	case a == atom.Li:
		w.flush()
		marker := "- "
		if n := len(w.lists); n > 0 {
			l := &w.lists[n-1]
			l.n++
			if l.ordered {
				marker = fmt.Sprintf("%d. ", l.n)
			}
		}
		indent := strings.Repeat("  ", max(0, len(w.lists)-1))
		saved := w.prefix
		w.prefix = w.quote + indent + marker
		w.children(n)
		w.flush()
		w.prefix = saved
	case a == atom.Blockquote:
		w.flush()
		savedPrefix, savedQuote := w.prefix, w.quote
		w.quote += "> "
		w.prefix = w.quote
		w.children(n)
		w.flush()
		w.prefix, w.quote = savedPrefix, savedQuote
	case a == atom.Table:
		w.table(n)
	default:
		w.children(n)
	}
}

// wrap writes an element's text between marks, such as ** for bold.
func (w *writer) wrap(n *html.Node, mark string) {
	if s := collapse(w.inlineText(n)); s != "" {
		w.inline(mark + s + mark)
	}
}

// inlineText renders an element's inline content on its own.
func (w *writer) inlineText(n *html.Node) string {
	sub := &writer{base: w.base, pre: w.pre}
	sub.children(n)
	return sub.line.String() + sub.out.String()
}

func (w *writer) table(n *html.Node) {
	var rows [][]string
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if c.Type != html.ElementNode || skipped[c.DataAtom] {
				continue
			}
			if c.DataAtom == atom.Tr {
				var cells []string
				for d := c.FirstChild; d != nil; d = d.NextSibling {
					if d.Type == html.ElementNode && (d.DataAtom == atom.Td || d.DataAtom == atom.Th) {
						cells = append(cells, strings.ReplaceAll(collapse(w.inlineText(d)), "|", "\\|"))
					}
				}
				if len(cells) > 0 {
					rows = append(rows, cells)
				}
				continue
			}
			walk(c)
		}
	}
	walk(n)
	if len(rows) == 0 {
		return
	}
	var b strings.Builder
	for i, r := range rows {
		b.WriteString("| " + strings.Join(r, " | ") + " |")
		if i == 0 {
			b.WriteString("\n|" + strings.Repeat(" --- |", len(r)))
		}
		if i < len(rows)-1 {
			b.WriteByte('\n')
		}
	}
	w.raw(b.String())
}

func (w *writer) resolve(ref string) string {
	ref = strings.TrimSpace(ref)
	if ref == "" || w.base == nil {
		return ref
	}
	u, err := url.Parse(ref)
	if err != nil {
		return ref
	}
	return w.base.ResolveReference(u).String()
}

func attr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}

// hidden reports elements marked hidden: the hidden attribute,
// aria-hidden="true", or an inline display:none.
func hidden(n *html.Node) bool {
	for _, a := range n.Attr {
		switch a.Key {
		case "hidden":
			return true
		case "aria-hidden":
			if a.Val == "true" {
				return true
			}
		case "style":
			if strings.Contains(strings.ReplaceAll(strings.ToLower(a.Val), " ", ""), "display:none") {
				return true
			}
		}
	}
	return false
}
