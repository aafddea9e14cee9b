// Package termout is what toolroute chat writes to a terminal: a reply's
// markdown rendered with ANSI styles as it streams (Markdown), and lines
// wrapped to the terminal's width (Wrap, Width). Nothing here decides
// whether the output is a terminal: the caller does, and writes plain text
// to anything else.
//
// Text from the model is sanitised on the way: control characters other
// than newline and tab are dropped, so a reply cannot move the cursor,
// retitle the window or change the terminal's state.
package termout

import (
	"os"
	"strings"

	"github.com/mattn/go-runewidth"
	"golang.org/x/term"
)

// DefaultWidth is the width used when a terminal does not say its own.
const DefaultWidth = 80

// Size is the terminal's size in columns and rows: f's, or DefaultWidth
// and 0 rows when f does not say.
func Size(f *os.File) (width, height int) {
	if w, h, err := term.GetSize(int(f.Fd())); err == nil && w > 0 {
		return w, h
	}
	return DefaultWidth, 0
}

// Wrap fits each line of s into width columns, breaking at spaces, and a
// word longer than a line anywhere. A line's continuation rows are indented
// two columns more than the line itself, so a wrapped card still reads as
// one. width <= 0 leaves s as it is.
func Wrap(s string, width int) string {
	if width <= 0 {
		return s
	}
	var b strings.Builder
	for i, line := range strings.Split(s, "\n") {
		if i > 0 {
			b.WriteByte('\n')
		}
		lead := len(line) - len(strings.TrimLeft(line, " "))
		indent := lead + 2
		if indent > width/2 {
			indent = width / 2
		}
		spans := []span{{text: line[lead:]}}
		writeWrapped(&b, spans, strings.Repeat(" ", lead), strings.Repeat(" ", indent), width, false)
	}
	return b.String()
}

// style is a set of text attributes.
type style uint8

const (
	bold style = 1 << iota
	italic
	underline
	strike
	dim
	code
	heading
)

// sgr is the escape sequence that turns on st's attributes, "" for none.
func (st style) sgr() string {
	if st == 0 {
		return ""
	}
	var codes []string
	add := func(s style, c string) {
		if st&s != 0 {
			codes = append(codes, c)
		}
	}
	add(bold, "1")
	add(dim, "2")
	add(italic, "3")
	add(underline, "4")
	add(strike, "9")
	add(code, "36")
	add(heading, "35")
	return "\x1b[" + strings.Join(codes, ";") + "m"
}

const reset = "\x1b[0m"

// span is a run of text in one style.
type span struct {
	text string
	st   style
}

// word is what wrapping moves as one: the spans of a run of text with no
// space in it.
type word []span

func (w word) width() int {
	n := 0
	for _, s := range w {
		n += runewidth.StringWidth(s.text)
	}
	return n
}

// words splits spans at spaces.
func words(spans []span) []word {
	var out []word
	var cur word
	for _, s := range spans {
		text := s.text
		for text != "" {
			i := strings.IndexByte(text, ' ')
			if i < 0 {
				cur = append(cur, span{text, s.st})
				break
			}
			if i > 0 {
				cur = append(cur, span{text[:i], s.st})
			}
			if len(cur) > 0 {
				out = append(out, cur)
				cur = nil
			}
			text = text[i+1:]
		}
	}
	if len(cur) > 0 {
		out = append(out, cur)
	}
	return out
}

// writeWrapped writes spans as lines of at most width columns: the first
// after first, the others after rest. Styled output turns each run's
// style on and off around it, so a line never leaves a style on.
func writeWrapped(b *strings.Builder, spans []span, first, rest string, width int, styled bool) {
	b.WriteString(first)
	col := runewidth.StringWidth(first)
	restWidth := runewidth.StringWidth(rest)
	// line is the current line's text, written when it ends so that runs
	// of one style, the spaces between them included, get one sequence.
	var line []span
	add := func(text string, st style) {
		if n := len(line); n > 0 && line[n-1].st == st {
			line[n-1].text += text
			return
		}
		line = append(line, span{text, st})
	}
	flush := func() {
		for _, s := range line {
			writeSpan(b, s.text, s.st, styled)
		}
		line = line[:0]
	}
	newLine := func() {
		flush()
		b.WriteByte('\n')
		b.WriteString(rest)
		col = restWidth
	}
	for _, w := range words(spans) {
		ww := w.width()
		if len(line) > 0 && col+1+ww > width {
			newLine()
		}
		if len(line) > 0 {
			// The space takes the style of the words on both sides.
			st := style(0)
			if line[len(line)-1].st == w[0].st {
				st = w[0].st
			}
			add(" ", st)
			col++
		}
		for _, s := range w {
			text := s.text
			for text != "" {
				// Cut what does not fit; a word wider than a whole line
				// breaks wherever the line ends.
				fit := text
				if runewidth.StringWidth(text) > width-col {
					fit = runewidth.Truncate(text, width-col, "")
					if fit == "" && len(line) == 0 {
						// A character wider than the line: it goes alone.
						_, n := firstRune(text)
						fit = text[:n]
					}
				}
				if fit != "" {
					add(fit, s.st)
					col += runewidth.StringWidth(fit)
				}
				text = text[len(fit):]
				if text != "" {
					newLine()
				}
			}
		}
	}
	flush()
}

func firstRune(s string) (rune, int) {
	for i, r := range s {
		if i > 0 {
			return r, i
		}
	}
	return 0, len(s)
}

func writeSpan(b *strings.Builder, text string, st style, styled bool) {
	if !styled || st == 0 {
		b.WriteString(text)
		return
	}
	b.WriteString(st.sgr())
	b.WriteString(text)
	b.WriteString(reset)
}

// Sanitize drops the control characters of s but newline, and turns tabs
// into four spaces: what is left moves the cursor only forward.
func Sanitize(s string) string {
	clean := true
	for _, r := range s {
		if isControl(r) || r == '\t' {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '\t':
			b.WriteString("    ")
		case isControl(r):
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// isControl: C0 and C1 controls and DEL, which a terminal acts on, but
// newline, which it only moves down with.
func isControl(r rune) bool {
	return r != '\n' && (r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0))
}
