// Package vtscreen is a terminal's screen for tests: what a VT100-style
// terminal shows after a program's output, as lines of text. It knows the
// sequences toolroute chat and its line editor write (cursor up, down,
// forward and back, erase to the end of the line or the screen, styles,
// which it drops) and wraps rows at the width as a terminal does; the
// screen has no height, every row is kept.
package vtscreen

import (
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/mattn/go-runewidth"
)

var csi = regexp.MustCompile(`^\x1b\[([0-9;?]*)([A-Za-z~])`)

// Lines is the screen width columns wide after out, without trailing
// spaces or trailing empty rows. A newline starts the next row at its
// first column, as a terminal's output with ONLCR does.
func Lines(width int, out string) []string {
	lines, _ := run(width, out)
	return lines
}

// Overflowed is the rows on the screen after out that the terminal had
// to wrap, as a line did not fit the width: each such row as it shows.
func Overflowed(width int, out string) []string {
	lines, over := run(width, out)
	var rows []string
	for i, o := range over {
		if o && i < len(lines) {
			rows = append(rows, lines[i])
		}
	}
	return rows
}

func run(width int, out string) ([]string, []bool) {
	s := &screen{width: width, rows: [][]rune{nil}, over: []bool{false}}
	for len(out) > 0 {
		if m := csi.FindStringSubmatch(out); m != nil {
			out = out[len(m[0]):]
			s.control(m[1], m[2])
			continue
		}
		r, size := utf8.DecodeRuneInString(out)
		out = out[size:]
		switch r {
		case '\n':
			s.down(1)
			s.col = 0
		case '\r':
			s.col, s.pending = 0, false
		case '\x1b', '\a':
		default:
			s.put(r)
		}
	}
	var lines []string
	for _, r := range s.rows {
		lines = append(lines, strings.TrimRight(strings.ReplaceAll(string(r), "\x00", ""), " "))
	}
	for len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return lines, s.over
}

type screen struct {
	width    int
	rows     [][]rune
	row, col int
	// pending: the last column was written; the next character wraps.
	pending bool
	// over: the row went on in the next one.
	over []bool
}

func (s *screen) control(arg, op string) {
	n, err := strconv.Atoi(arg)
	if err != nil || n < 1 {
		n = 1
	}
	switch op {
	case "A":
		s.row = max(s.row-n, 0)
	case "B":
		s.down(n)
	case "C":
		s.col = min(s.col+n, s.width-1)
	case "D":
		s.col = max(s.col-n, 0)
	case "K":
		s.rows[s.row] = s.rows[s.row][:min(s.col, len(s.rows[s.row]))]
		s.over[s.row] = false
	case "J":
		s.rows[s.row] = s.rows[s.row][:min(s.col, len(s.rows[s.row]))]
		s.rows = s.rows[:s.row+1]
		s.over = s.over[:s.row+1]
		s.over[s.row] = false
	}
	s.pending = false
}

func (s *screen) down(n int) {
	s.row += n
	s.pending = false
	for len(s.rows) <= s.row {
		s.rows = append(s.rows, nil)
		s.over = append(s.over, false)
	}
}

func (s *screen) put(r rune) {
	w := runewidth.RuneWidth(r)
	if s.pending || s.col+w > s.width {
		s.over[s.row] = true
		s.down(1)
		s.col = 0
	}
	line := s.rows[s.row]
	for len(line) < s.col+w {
		line = append(line, ' ')
	}
	line[s.col] = r
	for i := 1; i < w; i++ {
		line[s.col+i] = 0
	}
	s.rows[s.row] = line
	s.col += w
	if s.col >= s.width {
		s.col, s.pending = s.width-1, true
	}
}
