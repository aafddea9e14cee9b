package termout

import (
	"io"
	"strconv"
	"strings"

	"github.com/mattn/go-runewidth"
	extast "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/text"
)

// holdTableRow keeps a table's row and shows it as it came, cut to one
// row, while the table fits the screen to be erased.
func (m *Markdown) holdTableRow(row string) {
	m.table = append(m.table, row)
	if m.height > 1 && len(m.table) > m.height-1 {
		return
	}
	m.tableShown = len(m.table)
	shown := Sanitize(row)
	if runewidth.StringWidth(shown) > m.width {
		shown = runewidth.Truncate(shown, m.width, "")
	}
	m.out(shown + "\n")
}

// endTable replaces the rows held with the table rendered: columns aligned
// as the delimiter row says, cells wrapped within their column when the
// table is wider than the terminal. Rows that make no table are written
// as lines of text.
func (m *Markdown) endTable() {
	if len(m.table) == 0 {
		return
	}
	rows := m.table
	m.table = nil
	if m.tableShown > 0 {
		io.WriteString(m.w, "\x1b["+strconv.Itoa(m.tableShown)+"A\r\x1b[J")
		m.tableShown = 0
	}
	src := []byte(strings.Join(rows, "\n"))
	doc := m.md.Parser().Parse(text.NewReader(src))
	var b strings.Builder
	for n := doc.FirstChild(); n != nil; n = n.NextSibling() {
		if t, ok := n.(*extast.Table); ok {
			m.renderTable(&b, t, src)
		} else {
			m.renderBlock(&b, n, src, "")
		}
	}
	m.out(b.String())
}

func (m *Markdown) renderTable(b *strings.Builder, t *extast.Table, src []byte) {
	var cells [][][]span
	for row := t.FirstChild(); row != nil; row = row.NextSibling() {
		var r [][]span
		st := style(0)
		if _, ok := row.(*extast.TableHeader); ok {
			st = bold
		}
		for c := row.FirstChild(); c != nil; c = c.NextSibling() {
			r = append(r, inlines(c, src, st))
		}
		cells = append(cells, r)
	}
	n := len(t.Alignments)
	if n == 0 {
		return
	}
	widths := make([]int, n)
	for _, r := range cells {
		for i := 0; i < n && i < len(r); i++ {
			widths[i] = max(widths[i], runewidth.StringWidth(plain(r[i])), 1)
		}
	}
	// Narrow the widest column until the table fits, down to a few
	// columns each; a table that cannot fit even so runs over.
	const sep = 3 // " │ "
	for {
		total := sep * (n - 1)
		widest := 0
		for i, w := range widths {
			total += w
			if w > widths[widest] {
				widest = i
			}
		}
		if total <= m.width || widths[widest] <= 4 {
			break
		}
		widths[widest]--
	}
	bar := m.styled(span{" │ ", dim})
	for ri, r := range cells {
		cols := make([][]string, n)
		colWidths := make([][]int, n)
		height := 1
		for i := 0; i < n; i++ {
			var spans []span
			if i < len(r) {
				spans = r[i]
			}
			cols[i], colWidths[i] = wrapLines(spans, widths[i])
			height = max(height, len(cols[i]))
		}
		for line := 0; line < height; line++ {
			var parts []string
			for i := 0; i < n; i++ {
				cell, w := "", 0
				if line < len(cols[i]) {
					cell, w = cols[i][line], colWidths[i][line]
				}
				pad := max(widths[i]-w, 0)
				switch t.Alignments[i] {
				case extast.AlignRight:
					cell = strings.Repeat(" ", pad) + cell
				case extast.AlignCenter:
					cell = strings.Repeat(" ", pad/2) + cell + strings.Repeat(" ", pad-pad/2)
				default:
					cell += strings.Repeat(" ", pad)
				}
				parts = append(parts, cell)
			}
			b.WriteString(strings.TrimRight(strings.Join(parts, bar), " ") + "\n")
		}
		if ri == 0 {
			var rule []string
			for _, w := range widths {
				rule = append(rule, strings.Repeat("─", w))
			}
			b.WriteString(m.styled(span{strings.Join(rule, "─┼─"), dim}) + "\n")
		}
	}
}

// wrapLines wraps spans to width: the styled lines, and each one's width.
func wrapLines(spans []span, width int) ([]string, []int) {
	var styled, bare strings.Builder
	writeWrapped(&styled, spans, "", "", width, true)
	writeWrapped(&bare, spans, "", "", width, false)
	lines := strings.Split(styled.String(), "\n")
	var widths []int
	for _, l := range strings.Split(bare.String(), "\n") {
		widths = append(widths, runewidth.StringWidth(l))
	}
	return lines, widths
}
