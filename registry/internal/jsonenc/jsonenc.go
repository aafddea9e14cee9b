// Package jsonenc writes JSON by hand, byte for byte as encoding/json
// writes it, for the values the turn engine encodes on every step: strings,
// integers, floats and raw JSON. encoding/json finds its way through a value
// by reflection, which costs 9 to 13 times as much compiled to wasm as
// natively; these functions append to a byte slice and reflect on nothing.
//
// Every function takes html: true escapes "<", ">" and "&" as
// encoding/json's Marshal does, false leaves them as an Encoder with
// SetEscapeHTML(false) does. The tests compare each function with
// encoding/json on random values (FuzzString, FuzzCompact, FuzzFloat).
//
// Nothing here decides what a type's JSON is: the packages that own the
// types write their fields in their struct order with these functions.
package jsonenc

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"math"
	"strconv"
	"unicode/utf8"
)

const hex = "0123456789abcdef"

// safe says of each ASCII byte whether a JSON string holds it as it is.
var safe = func() (t [utf8.RuneSelf]uint8) {
	for b := 0x20; b < utf8.RuneSelf; b++ {
		t[b] = safeAlways
	}
	t['"'], t['\\'] = safeNever, safeNever
	t['<'], t['>'], t['&'] = safeUnlessHTML, safeUnlessHTML, safeUnlessHTML
	return t
}()

const (
	safeNever = iota
	safeAlways
	safeUnlessHTML
)

// String appends s as a JSON string, as encoding/json writes a string:
// control characters, '"' and '\\' escaped, invalid UTF-8 as \ufffd,
// U+2028 and U+2029 escaped, and with html "<", ">" and "&" escaped.
func String[S ~string | ~[]byte](dst []byte, s S, html bool) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		// Eight bytes at a time while none needs a look.
		for i+8 <= len(s) {
			w := uint64(s[i]) | uint64(s[i+1])<<8 | uint64(s[i+2])<<16 | uint64(s[i+3])<<24 |
				uint64(s[i+4])<<32 | uint64(s[i+5])<<40 | uint64(s[i+6])<<48 | uint64(s[i+7])<<56
			if html && !plain8(w, true) || !html && !plainText8(w) {
				break
			}
			i += 8
		}
		if i >= len(s) {
			break
		}
		b := s[i]
		if b < utf8.RuneSelf {
			if safe[b] == safeAlways || (safe[b] == safeUnlessHTML && !html) {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch b {
			case '\\', '"':
				dst = append(dst, '\\', b)
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hex[b>>4], hex[b&0xF])
			}
			i++
			start = i
			continue
		}
		n := min(len(s)-i, utf8.UTFMax)
		c, size := utf8.DecodeRuneInString(string(s[i : i+n]))
		if c == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
			i++
			start = i
			continue
		}
		if c == '\u2028' || c == '\u2029' {
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hex[c&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

const (
	ones  = 0x0101010101010101
	highs = 0x8080808080808080
)

// plain8 reports whether none of the eight bytes of w needs a look: each
// is ASCII, not a control character, '"' or '\\', nor with html '<', '>'
// or '&'. (A byte is zero in v exactly when (v-ones) &^ v & highs has its
// high bit; below 0x20 likewise with 0x20 for ones.)
func plain8(w uint64, html bool) bool {
	if !html {
		return plainText8(w)
	}
	zero := func(v uint64) uint64 { return (v - ones) &^ v & highs }
	return plainText8(w) && zero(w^('<'*ones))|zero(w^('>'*ones))|zero(w^('&'*ones)) == 0
}

// plainText8 is plain8 without html, small enough to be inlined: a call
// for every eight bytes costs more than the test in wasm.
func plainText8(w uint64) bool {
	q, b := w^('"'*ones), w^('\\'*ones)
	return w&highs|(w-0x20*ones)&^w&highs|(q-ones)&^q&highs|(b-ones)&^b&highs == 0
}

// Strings appends list as encoding/json writes a []string: null when it is
// nil.
func Strings(dst []byte, list []string, html bool) []byte {
	if list == nil {
		return append(dst, "null"...)
	}
	dst = append(dst, '[')
	for i, s := range list {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = String(dst, s, html)
	}
	return append(dst, ']')
}

// Int appends n as encoding/json writes an integer.
func Int(dst []byte, n int) []byte { return strconv.AppendInt(dst, int64(n), 10) }

// Bool appends b as true or false.
func Bool(dst []byte, b bool) []byte {
	if b {
		return append(dst, "true"...)
	}
	return append(dst, "false"...)
}

// Float appends f as encoding/json writes a float64: like ES6's number to
// string conversion. NaN and the infinities have no JSON: Float refuses
// them with encoding/json's error.
func Float(dst []byte, f float64) ([]byte, error) {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		_, err := json.Marshal(f) // encoding/json's own words for it
		return dst, err
	}
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	dst = strconv.AppendFloat(dst, f, format, -1, 64)
	if format == 'e' {
		// e-09 is written e-9.
		n := len(dst)
		if n >= 4 && dst[n-4] == 'e' && dst[n-3] == '-' && dst[n-2] == '0' {
			dst[n-2] = dst[n-1]
			dst = dst[:n-1]
		}
	}
	return dst, nil
}

// Raw appends raw JSON as encoding/json writes a json.RawMessage: null
// when it is empty, otherwise compacted, with html its "<", ">", "&",
// U+2028 and U+2029 escaped. JSON that is not valid is refused with the
// error encoding/json gives for it.
func Raw(dst, raw []byte, html bool) ([]byte, error) {
	if raw == nil {
		return append(dst, "null"...), nil
	}
	if out, ok := compact(dst, raw, html); ok {
		return out, nil
	}
	// Not JSON, or JSON this compactor does not take: encoding/json
	// decides, with its own error.
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(html)
	if err := enc.Encode(json.RawMessage(raw)); err != nil {
		return dst, err
	}
	return append(dst, bytes.TrimSuffix(buf.Bytes(), []byte("\n"))...), nil
}

// maxDepth is encoding/json's limit on nesting.
const maxDepth = 10000

// compact appends src without its insignificant spaces, when it is one
// valid JSON value, and reports whether it is.
func compact(dst, src []byte, html bool) ([]byte, bool) {
	orig := len(dst)
	var stackArr [32]byte
	stack := stackArr[:0] // '{' or '[' for each open container
	i := skipSpace(src, 0)
	for {
		// A value starts at i.
		if i >= len(src) {
			return dst[:orig], false
		}
		var ok bool
		switch c := src[i]; {
		case c == '{' || c == '[':
			if len(stack) >= maxDepth {
				return dst[:orig], false
			}
			dst = append(dst, c)
			i = skipSpace(src, i+1)
			closer := byte('}')
			if c == '[' {
				closer = ']'
			}
			if i < len(src) && src[i] == closer {
				dst = append(dst, closer)
				i++
				break
			}
			stack = append(stack, c)
			if c == '{' {
				if dst, i, ok = member(dst, src, i, html); !ok {
					return dst[:orig], false
				}
			}
			continue
		case c == '"':
			if dst, i, ok = str(dst, src, i, html); !ok {
				return dst[:orig], false
			}
		case c == 't':
			if i, ok = literal(src, i, "true"); !ok {
				return dst[:orig], false
			}
			dst = append(dst, "true"...)
		case c == 'f':
			if i, ok = literal(src, i, "false"); !ok {
				return dst[:orig], false
			}
			dst = append(dst, "false"...)
		case c == 'n':
			if i, ok = literal(src, i, "null"); !ok {
				return dst[:orig], false
			}
			dst = append(dst, "null"...)
		case c == '-' || (c >= '0' && c <= '9'):
			end, ok := number(src, i)
			if !ok {
				return dst[:orig], false
			}
			dst = append(dst, src[i:end]...)
			i = end
		default:
			return dst[:orig], false
		}
		// A value ended before i: close containers, or go to the next value.
		for {
			i = skipSpace(src, i)
			if len(stack) == 0 {
				if i != len(src) {
					return dst[:orig], false
				}
				return dst, true
			}
			if i >= len(src) {
				return dst[:orig], false
			}
			top := stack[len(stack)-1]
			c := src[i]
			if c == ',' {
				dst = append(dst, ',')
				i = skipSpace(src, i+1)
				if top == '{' {
					if dst, i, ok = member(dst, src, i, html); !ok {
						return dst[:orig], false
					}
				}
				break
			}
			if (top == '{' && c == '}') || (top == '[' && c == ']') {
				dst = append(dst, c)
				stack = stack[:len(stack)-1]
				i++
				continue
			}
			return dst[:orig], false
		}
	}
}

// member appends an object member's key and colon, from i, and answers
// where its value starts.
func member(dst, src []byte, i int, html bool) ([]byte, int, bool) {
	if i >= len(src) || src[i] != '"' {
		return dst, i, false
	}
	dst, i, ok := str(dst, src, i, html)
	if !ok {
		return dst, i, false
	}
	i = skipSpace(src, i)
	if i >= len(src) || src[i] != ':' {
		return dst, i, false
	}
	return append(dst, ':'), skipSpace(src, i+1), true
}

func skipSpace(src []byte, i int) int {
	for i < len(src) {
		switch src[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}

func literal(src []byte, i int, word string) (int, bool) {
	if len(src)-i < len(word) || string(src[i:i+len(word)]) != word {
		return i, false
	}
	return i + len(word), true
}

// number answers where the number starting at i ends.
func number(src []byte, i int) (int, bool) {
	if src[i] == '-' {
		i++
	}
	switch {
	case i < len(src) && src[i] == '0':
		i++
	case i < len(src) && src[i] >= '1' && src[i] <= '9':
		i = digits(src, i)
	default:
		return i, false
	}
	if i < len(src) && src[i] == '.' {
		j := digits(src, i+1)
		if j == i+1 {
			return i, false
		}
		i = j
	}
	if i < len(src) && (src[i] == 'e' || src[i] == 'E') {
		i++
		if i < len(src) && (src[i] == '+' || src[i] == '-') {
			i++
		}
		j := digits(src, i)
		if j == i {
			return i, false
		}
		i = j
	}
	return i, true
}

func digits(src []byte, i int) int {
	for i < len(src) && src[i] >= '0' && src[i] <= '9' {
		i++
	}
	return i
}

// str appends the string token at i as it stands (but for html's escapes)
// and answers where it ends. Like encoding/json's scanner it checks the
// escapes and refuses control characters, and leaves the UTF-8 as it is.
func str(dst, src []byte, i int, html bool) ([]byte, int, bool) {
	start := i
	i++
	for i < len(src) {
		for i+8 <= len(src) && (html && plain8(binary.LittleEndian.Uint64(src[i:]), true) || !html && plainText8(binary.LittleEndian.Uint64(src[i:]))) {
			i += 8
		}
		if i >= len(src) {
			break
		}
		c := src[i]
		switch {
		case c == '"':
			return append(dst, src[start:i+1]...), i + 1, true
		case c < 0x20:
			return dst, i, false
		case c == '\\':
			if i+1 >= len(src) {
				return dst, i, false
			}
			switch src[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if len(src)-i < 6 || !isHex(src[i+2]) || !isHex(src[i+3]) || !isHex(src[i+4]) || !isHex(src[i+5]) {
					return dst, i, false
				}
				i += 6
			default:
				return dst, i, false
			}
		case html && (c == '<' || c == '>' || c == '&'):
			dst = append(dst, src[start:i]...)
			dst = append(dst, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xF])
			i++
			start = i
		case html && c == 0xE2 && i+2 < len(src) && src[i+1] == 0x80 && src[i+2]&^1 == 0xA8:
			dst = append(dst, src[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hex[src[i+2]&0xF])
			i += 3
			start = i
		default:
			i++
		}
	}
	return dst, i, false
}

func isHex(c byte) bool {
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}
