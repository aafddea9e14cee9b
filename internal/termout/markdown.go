package termout

import (
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/mattn/go-runewidth"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	extast "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/text"
)

// Markdown renders a streamed reply for a terminal, a line at a time: the
// line being streamed shows as it comes, as the model wrote it, and once
// its newline arrives it is erased and written again rendered (headings,
// emphasis, code, links, list bullets and numbers, quotes, rules), wrapped
// to the width. Whole lines are the unit because nearly all of markdown is
// decided within a line, and a line is short enough to erase reliably; the
// two exceptions are held: a fenced code block is known from its opening
// line on, and a table is written as its rows come and rendered again,
// aligned, once its last row has come.
//
// The caller writes nothing else to the terminal between Write and Flush.
type Markdown struct {
	w      io.Writer
	width  int
	height int
	md     goldmark.Markdown

	// partial is the line being streamed; shown, the part of it on screen
	// as it came, and rows, the rows that part takes.
	partial []byte
	shown   int
	col     int
	rows    int
	// hidden: the line grew past what the screen can show and erase; the
	// rest of it shows rendered.
	hidden bool
	// fence is the open code block's fence ("```", "~~~~"), "" outside one.
	fence string
	// table holds a table's rows as they came, each shown on one row.
	table []string
	// tableShown is how many of them are on screen.
	tableShown int
	// blank: the last line written was empty, so another is not.
	blank bool
}

// NewMarkdown renders to w, a terminal width columns wide and height rows
// high (0 when unknown).
func NewMarkdown(w io.Writer, width, height int) *Markdown {
	if width <= 0 {
		width = DefaultWidth
	}
	return &Markdown{w: w, width: width, height: height, blank: true,
		md: goldmark.New(goldmark.WithExtensions(extension.Table, extension.Strikethrough, extension.TaskList, extension.Linkify))}
}

// Write adds streamed text.
func (m *Markdown) Write(s string) {
	for {
		i := strings.IndexByte(s, '\n')
		if i < 0 {
			m.partial = append(m.partial, s...)
			break
		}
		// The line's newline came: the raw text shown goes, the line comes
		// back rendered.
		m.partial = append(m.partial, s[:i]...)
		line := string(m.partial)
		m.partial = m.partial[:0]
		m.erase()
		m.line(line)
		s = s[i+1:]
	}
	m.show()
}

// Flush ends the reply: the unfinished line and a held table are written
// rendered. The cursor is then at the start of a line.
func (m *Markdown) Flush() {
	if len(m.partial) > 0 {
		line := string(m.partial)
		m.partial = m.partial[:0]
		m.erase()
		m.line(line)
	}
	m.endTable()
	m.fence = ""
}

// show writes the part of the unfinished line not yet on screen, as it
// came, as long as the whole of it stays on screen to be erased; the rest
// waits for the line's end.
func (m *Markdown) show() {
	if m.hidden || m.shown == len(m.partial) {
		return
	}
	maxRows := m.height - 1
	if maxRows < 1 {
		maxRows = 1 << 30
	}
	var b strings.Builder
	text := string(m.partial[m.shown:])
	done := len(text)
	for i, r := range text {
		if r == utf8.RuneError && !utf8.FullRuneInString(text[i:]) {
			// A character cut between two deltas: its end comes next.
			done = i
			break
		}
		s := Sanitize(string(r))
		w := runewidth.StringWidth(s)
		if m.rows == 0 {
			m.rows = 1
		}
		if m.col+w > m.width {
			if m.rows+1 > maxRows {
				m.hidden = true
				break
			}
			m.rows++
			m.col = 0
		}
		m.col += w
		b.WriteString(s)
	}
	m.shown += done
	io.WriteString(m.w, b.String())
}

// erase removes the rows of the unfinished line from the screen.
func (m *Markdown) erase() {
	m.shown, m.hidden = 0, false
	if m.rows == 0 {
		return
	}
	seq := "\r"
	if m.rows > 1 {
		seq += "\x1b[" + strconv.Itoa(m.rows-1) + "A"
	}
	io.WriteString(m.w, seq+"\x1b[J")
	m.rows, m.col = 0, 0
}

// line writes one whole line rendered.
func (m *Markdown) line(line string) {
	trimmed := strings.TrimSpace(line)
	if m.fence != "" {
		if strings.HasPrefix(trimmed, m.fence) && strings.Trim(trimmed, m.fence[:1]) == "" {
			m.fence = ""
			return
		}
		m.out(m.codeLine(line))
		return
	}
	if strings.HasPrefix(trimmed, "|") {
		m.holdTableRow(trimmed)
		return
	}
	m.endTable()
	if f := fenceOf(trimmed); f != "" {
		m.fence = f
		if lang := strings.TrimSpace(trimmed[len(f):]); lang != "" {
			m.out(m.styled(span{"  " + Sanitize(lang), dim}) + "\n")
		}
		return
	}
	if trimmed == "" {
		if !m.blank {
			m.out("\n")
		}
		m.blank = true
		return
	}
	m.out(m.block(line))
}

func (m *Markdown) out(s string) {
	io.WriteString(m.w, s)
	m.blank = false
}

func (m *Markdown) styled(s span) string {
	var b strings.Builder
	writeSpan(&b, s.text, s.st, true)
	return b.String()
}

// fenceOf is the fence a line opens a code block with, "" for none.
func fenceOf(trimmed string) string {
	for _, c := range []string{"`", "~"} {
		n := len(trimmed) - len(strings.TrimLeft(trimmed, c))
		if n >= 3 && !(c == "`" && strings.Contains(trimmed[n:], "`")) {
			return strings.Repeat(c, n)
		}
	}
	return ""
}

// codeLine is a line of a code block: indented, in the code colour, and
// broken at the width wherever it falls, as code has no words to wrap at.
func (m *Markdown) codeLine(line string) string {
	line = Sanitize(line)
	room := max(m.width-2, 1)
	var b strings.Builder
	for {
		part := line
		if runewidth.StringWidth(part) > room {
			part = runewidth.Truncate(part, room, "")
			if part == "" {
				_, n := firstRune(line)
				part = line[:n]
			}
		}
		b.WriteString("  " + m.styled(span{part, code}) + "\n")
		line = line[len(part):]
		if line == "" {
			return b.String()
		}
	}
}

// block renders a line outside code and tables.
func (m *Markdown) block(line string) string {
	lead := 0
	for _, r := range line {
		switch r {
		case ' ':
			lead++
			continue
		case '\t':
			lead += 4
			continue
		}
		break
	}
	if lead > m.width/2 {
		lead = m.width / 2
	}
	src := []byte(strings.TrimLeft(line, " \t"))
	doc := m.md.Parser().Parse(text.NewReader(src))
	indent := strings.Repeat(" ", lead)
	var b strings.Builder
	for n := doc.FirstChild(); n != nil; n = n.NextSibling() {
		m.renderBlock(&b, n, src, indent)
	}
	if b.Len() == 0 {
		return Sanitize(line) + "\n"
	}
	return b.String()
}

func (m *Markdown) renderBlock(b *strings.Builder, n ast.Node, src []byte, indent string) {
	switch n := n.(type) {
	case *ast.Heading:
		st := bold | heading
		if n.Level == 1 {
			st |= underline
		}
		m.wrap(b, inlines(n, src, st), indent, indent)
	case *ast.List:
		num := n.Start
		for item := n.FirstChild(); item != nil; item = item.NextSibling() {
			marker := "• "
			if indent != "" {
				marker = "◦ "
			}
			if n.IsOrdered() {
				marker = strconv.Itoa(num) + ". "
				num++
			}
			var spans []span
			for c := item.FirstChild(); c != nil; c = c.NextSibling() {
				spans = append(spans, inlines(c, src, 0)...)
			}
			m.wrap(b, spans, indent+marker, indent+strings.Repeat(" ", runewidth.StringWidth(marker)))
		}
	case *ast.Blockquote:
		var spans []span
		for c := n.FirstChild(); c != nil; c = c.NextSibling() {
			spans = append(spans, inlines(c, src, italic)...)
		}
		// The bar is styled, so the text wraps to what is left beside it.
		var inner strings.Builder
		writeWrapped(&inner, spans, "", "", max(m.width-runewidth.StringWidth(indent)-2, 1), true)
		for _, l := range strings.Split(inner.String(), "\n") {
			b.WriteString(indent + m.styled(span{"│", dim}) + " " + l + "\n")
		}
	case *ast.ThematicBreak:
		w := m.width - runewidth.StringWidth(indent)
		if w > 40 {
			w = 40
		}
		b.WriteString(indent + m.styled(span{strings.Repeat("─", max(w, 1)), dim}) + "\n")
	case *ast.HTMLBlock:
		var raw strings.Builder
		for i := 0; i < n.Lines().Len(); i++ {
			seg := n.Lines().At(i)
			raw.Write(seg.Value(src))
		}
		m.wrap(b, []span{{strings.TrimSpace(Sanitize(raw.String())), 0}}, indent, indent)
	default:
		m.wrap(b, inlines(n, src, 0), indent, indent)
	}
}

// wrap writes spans wrapped to the width after the prefixes.
func (m *Markdown) wrap(b *strings.Builder, spans []span, first, rest string) {
	writeWrapped(b, spans, first, rest, m.width, true)
	b.WriteByte('\n')
}

// inlines flattens n's inline content into styled spans.
func inlines(n ast.Node, src []byte, st style) []span {
	var out []span
	var walk func(n ast.Node, st style)
	walk = func(n ast.Node, st style) {
		switch n := n.(type) {
		case *ast.Text:
			out = append(out, span{Sanitize(string(n.Value(src))), st})
			if n.SoftLineBreak() || n.HardLineBreak() {
				out = append(out, span{" ", st})
			}
			return
		case *ast.String:
			out = append(out, span{Sanitize(string(n.Value)), st})
			return
		case *ast.CodeSpan:
			var b strings.Builder
			for c := n.FirstChild(); c != nil; c = c.NextSibling() {
				if t, ok := c.(*ast.Text); ok {
					b.Write(t.Value(src))
				}
			}
			out = append(out, span{Sanitize(b.String()), st | code})
			return
		case *ast.Emphasis:
			if n.Level >= 2 {
				st |= bold
			} else {
				st |= italic
			}
		case *extast.Strikethrough:
			st |= strike
		case *ast.Link:
			before := len(out)
			for c := n.FirstChild(); c != nil; c = c.NextSibling() {
				walk(c, st|underline)
			}
			dest := string(n.Destination)
			if dest != "" && dest != plain(out[before:]) {
				out = append(out, span{" (" + Sanitize(dest) + ")", st | dim})
			}
			return
		case *ast.AutoLink:
			out = append(out, span{Sanitize(string(n.URL(src))), st | underline})
			return
		case *ast.Image:
			alt := ""
			for c := n.FirstChild(); c != nil; c = c.NextSibling() {
				if t, ok := c.(*ast.Text); ok {
					alt += string(t.Value(src))
				}
			}
			out = append(out, span{"[image: " + Sanitize(alt) + "] ", st | dim}, span{Sanitize(string(n.Destination)), st | underline})
			return
		case *ast.RawHTML:
			for i := 0; i < n.Segments.Len(); i++ {
				seg := n.Segments.At(i)
				out = append(out, span{Sanitize(string(seg.Value(src))), st})
			}
			return
		case *extast.TaskCheckBox:
			box := "[ ] "
			if n.IsChecked {
				box = "[x] "
			}
			out = append(out, span{box, st})
			return
		}
		for c := n.FirstChild(); c != nil; c = c.NextSibling() {
			walk(c, st)
		}
	}
	walk(n, st)
	return out
}

func plain(spans []span) string {
	var b strings.Builder
	for _, s := range spans {
		b.WriteString(s.text)
	}
	return b.String()
}
