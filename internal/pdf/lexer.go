package pdf

import "strconv"

// The tokens of a content stream or a CMap: numbers are float64, and
// these types the rest.
type (
	name     string
	pdfStr   string // a string's bytes, literal or hex
	operator string
	dictMark struct{} // << and >>, whose contents are read as operands
)

// lexer reads content stream tokens. It never fails: what it cannot read
// it skips, so a damaged stream gives the text it can.
type lexer struct {
	data []byte
	pos  int
}

func isSpace(c byte) bool {
	return c == ' ' || c == '\n' || c == '\r' || c == '\t' || c == '\f' || c == 0
}

func isDelim(c byte) bool {
	switch c {
	case '(', ')', '<', '>', '[', ']', '{', '}', '/', '%':
		return true
	}
	return false
}

// next gives the next token; arrays come whole as []any.
func (l *lexer) next() (any, bool) {
	return l.token(0)
}

func (l *lexer) token(depth int) (any, bool) {
	for {
		for l.pos < len(l.data) && isSpace(l.data[l.pos]) {
			l.pos++
		}
		if l.pos >= len(l.data) {
			return nil, false
		}
		c := l.data[l.pos]
		switch {
		case c == '%':
			for l.pos < len(l.data) && l.data[l.pos] != '\n' && l.data[l.pos] != '\r' {
				l.pos++
			}
			continue
		case c == '/':
			l.pos++
			start := l.pos
			for l.pos < len(l.data) && !isSpace(l.data[l.pos]) && !isDelim(l.data[l.pos]) {
				l.pos++
			}
			return name(decodeName(l.data[start:l.pos])), true
		case c == '(':
			return l.literal(), true
		case c == '<':
			if l.pos+1 < len(l.data) && l.data[l.pos+1] == '<' {
				l.pos += 2
				return dictMark{}, true
			}
			return l.hex(), true
		case c == '>':
			l.pos++
			if l.pos < len(l.data) && l.data[l.pos] == '>' {
				l.pos++
			}
			return dictMark{}, true
		case c == '[':
			l.pos++
			var arr []any
			for {
				for l.pos < len(l.data) && isSpace(l.data[l.pos]) {
					l.pos++
				}
				if l.pos >= len(l.data) {
					return arr, true
				}
				if l.data[l.pos] == ']' {
					l.pos++
					return arr, true
				}
				if depth > 32 {
					l.pos++
					continue
				}
				t, ok := l.token(depth + 1)
				if !ok {
					return arr, true
				}
				if len(arr) < 1<<16 {
					arr = append(arr, t)
				}
			}
		case c == ']' || c == ')' || c == '{' || c == '}':
			l.pos++
			continue
		}
		start := l.pos
		for l.pos < len(l.data) && !isSpace(l.data[l.pos]) && !isDelim(l.data[l.pos]) {
			l.pos++
		}
		word := string(l.data[start:l.pos])
		if c == '+' || c == '-' || c == '.' || (c >= '0' && c <= '9') {
			if f, err := strconv.ParseFloat(word, 64); err == nil {
				return f, true
			}
			if f, ok := looseNumber(word); ok {
				return f, true
			}
		}
		return operator(word), true
	}
}

// looseNumber reads what writers put for numbers that ParseFloat refuses,
// such as "--5" or "1.2.3": the longest number at its start.
func looseNumber(w string) (float64, bool) {
	for len(w) > 1 && (w[0] == '-' || w[0] == '+') && (w[1] == '-' || w[1] == '+') {
		w = w[1:]
	}
	for n := len(w); n > 0; n-- {
		if f, err := strconv.ParseFloat(w[:n], 64); err == nil {
			return f, true
		}
	}
	return 0, false
}

func decodeName(b []byte) string {
	out := make([]byte, 0, len(b))
	for i := 0; i < len(b); i++ {
		if b[i] == '#' && i+2 < len(b) {
			if v, err := strconv.ParseUint(string(b[i+1:i+3]), 16, 8); err == nil {
				out = append(out, byte(v))
				i += 2
				continue
			}
		}
		out = append(out, b[i])
	}
	return string(out)
}

// literal reads a (string) with its escapes and balanced parentheses.
func (l *lexer) literal() pdfStr {
	l.pos++ // (
	var out []byte
	level := 1
	for l.pos < len(l.data) {
		c := l.data[l.pos]
		l.pos++
		switch c {
		case '(':
			level++
		case ')':
			level--
			if level == 0 {
				return pdfStr(out)
			}
		case '\\':
			if l.pos >= len(l.data) {
				return pdfStr(out)
			}
			e := l.data[l.pos]
			l.pos++
			switch e {
			case 'n':
				c = '\n'
			case 'r':
				c = '\r'
			case 't':
				c = '\t'
			case 'b':
				c = '\b'
			case 'f':
				c = '\f'
			case '\r':
				if l.pos < len(l.data) && l.data[l.pos] == '\n' {
					l.pos++
				}
				continue
			case '\n':
				continue
			default:
				if e >= '0' && e <= '7' {
					v := int(e - '0')
					for k := 0; k < 2 && l.pos < len(l.data) && l.data[l.pos] >= '0' && l.data[l.pos] <= '7'; k++ {
						v = v*8 + int(l.data[l.pos]-'0')
						l.pos++
					}
					c = byte(v)
				} else {
					c = e
				}
			}
		}
		out = append(out, c)
	}
	return pdfStr(out)
}

// hex reads a <hex string>; an odd last digit counts as followed by 0.
func (l *lexer) hex() pdfStr {
	l.pos++ // <
	var out []byte
	var hi byte
	half := false
	for l.pos < len(l.data) {
		c := l.data[l.pos]
		l.pos++
		if c == '>' {
			break
		}
		var v byte
		switch {
		case c >= '0' && c <= '9':
			v = c - '0'
		case c >= 'a' && c <= 'f':
			v = c - 'a' + 10
		case c >= 'A' && c <= 'F':
			v = c - 'A' + 10
		default:
			continue
		}
		if half {
			out = append(out, hi<<4|v)
		} else {
			hi = v
		}
		half = !half
	}
	if half {
		out = append(out, hi<<4)
	}
	return pdfStr(out)
}

// skipInlineImage skips an inline image's data after its ID operator: up
// to EI between white space.
func (l *lexer) skipInlineImage() {
	if l.pos < len(l.data) && isSpace(l.data[l.pos]) {
		l.pos++
	}
	for i := l.pos; i+1 < len(l.data); i++ {
		if l.data[i] == 'E' && l.data[i+1] == 'I' && (i == 0 || isSpace(l.data[i-1])) && (i+2 == len(l.data) || isSpace(l.data[i+2])) {
			l.pos = i + 2
			return
		}
	}
	l.pos = len(l.data)
}
