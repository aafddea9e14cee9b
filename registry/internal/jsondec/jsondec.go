// Package jsondec reads JSON by hand for the values the turn engine decodes
// on every step and for the catalogue's manifests, giving what
// encoding/json's Unmarshal gives, without its reflection (which costs
// about ten times as much in wasm).
//
// A Reader takes only the plain case: valid JSON whose every value has the
// type its field wants, no key twice in an object, no key that matches a
// field only when case is ignored. On anything else it stops (Failed), and
// the caller decodes the input again with encoding/json, which then gives
// its own result or error: so the two accept exactly the same inputs and
// refuse them with the same errors, but for nesting: a Reader skips a
// value of any depth (without recursion), encoding/json refuses one past
// 10,000 levels. Strings are unquoted as encoding/json does (invalid UTF-8
// and lone surrogates become U+FFFD).
//
// The module's limit on nesting, MaxDepth, is checked (CheckDepth,
// depth.go) before JSON from outside is read recursively; what a Reader
// skips it reads without recursion, whatever its depth.
package jsondec

import (
	"bytes"
	"encoding/binary"
	"strconv"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"
)

// Reader reads one JSON value from its input, in pieces.
type Reader struct {
	data   []byte
	i      int
	bad    bool
	shared bool
}

// NewReader returns a Reader of data.
func NewReader(data []byte) *Reader { return &Reader{data: data} }

// NewSharedReader returns a Reader of data whose strings share data's
// memory when they need no unquoting, rather than copy it: for input
// kept, unchanged, as long as anything read from it (a module's log,
// read message by message, which would otherwise hold each text twice).
func NewSharedReader(data []byte) *Reader { return &Reader{data: data, shared: true} }

// Mark is a place in a Reader's input, before a value: where Since
// starts a value's text, and where Rewind goes back to.
type Mark struct{ i int }

// Mark is where the next value starts.
func (r *Reader) Mark() Mark {
	r.space()
	return Mark{r.i}
}

// Since is the input's text from m to where r is: after a value read in
// pieces, its text as Raw would have answered it.
func (r *Reader) Since(m Mark) []byte { return r.data[m.i:r.i] }

// Rewind goes back to m, taken before r stopped, and undoes the stop: a
// value one way of reading refused can be read another way.
func (r *Reader) Rewind(m Mark) { r.i, r.bad = m.i, false }

// Fail stops the Reader: the input is not the plain case.
func (r *Reader) Fail() { r.bad = true }

// Failed reports whether the Reader stopped.
func (r *Reader) Failed() bool { return r.bad }

// Done reports whether the whole input was read without a stop: nothing
// but spaces after the value.
func (r *Reader) Done() bool {
	r.space()
	return !r.bad && r.i == len(r.data)
}

func (r *Reader) space() {
	for r.i < len(r.data) {
		switch r.data[r.i] {
		case ' ', '\t', '\n', '\r':
			r.i++
		default:
			return
		}
	}
}

// peek is the first byte of the next value, 0 at the end or after a stop.
func (r *Reader) peek() byte {
	if r.bad {
		return 0
	}
	r.space()
	if r.i >= len(r.data) {
		return 0
	}
	return r.data[r.i]
}

// Null reads a null, if that is what comes next.
func (r *Reader) Null() bool {
	if r.peek() == 'n' && r.literal("null") {
		return true
	}
	return false
}

func (r *Reader) literal(word string) bool {
	if len(r.data)-r.i < len(word) || string(r.data[r.i:r.i+len(word)]) != word {
		r.bad = true
		return false
	}
	r.i += len(word)
	return true
}

// Object reads an object, calling member with each key; member must read
// the key's value. keys are the names of the object's fields: a key that
// is none of them but matches one when case is ignored, or a key given
// twice, stops the Reader. With no keys every member is skipped. A null
// reads as no object at all.
func (r *Reader) Object(keys []string, member func(key string)) {
	// Null's test written out: the call costs more than it in wasm.
	switch r.peek() {
	case '{':
	case 'n':
		r.literal("null") // no object; anything else but null stops r
		return
	default:
		r.bad = true
		return
	}
	r.i++
	var seenArr [8]string
	seen := seenArr[:0]
	if r.peek() == '}' {
		r.i++
		return
	}
	for !r.bad {
		if r.peek() != '"' {
			r.bad = true
			return
		}
		// The key as keys spells it: no string is made for it.
		raw, _ := r.string()
		if r.peek() != ':' {
			r.bad = true
			return
		}
		r.i++
		key, ok := known(keys, raw)
		if !ok {
			if keys != nil && foldsTo(keys, raw) {
				r.bad = true
				return
			}
			r.Skip()
		} else {
			for _, k := range seen {
				if k == key {
					r.bad = true
					return
				}
			}
			seen = append(seen, key)
			member(key)
		}
		switch r.peek() {
		case ',':
			r.i++
		case '}':
			r.i++
			return
		default:
			r.bad = true
			return
		}
	}
}

// known is the one of keys that key spells.
func known(keys []string, key []byte) (string, bool) {
	for _, k := range keys {
		// The first byte tested here: in wasm comparing the rest is a call.
		if len(k) == len(key) && (len(k) == 0 || k[0] == key[0]) && k == string(key) {
			return k, true
		}
	}
	return "", false
}

// foldsTo reports whether encoding/json could take key for one of keys,
// as it matches keys without regard to case (Unicode's folding included:
// any key with a non-ASCII byte counts).
func foldsTo(keys []string, key []byte) bool {
	for i := 0; i < len(key); i++ {
		if key[i] >= utf8.RuneSelf {
			return true
		}
	}
	for _, k := range keys {
		if len(k) == len(key) && bytes.EqualFold([]byte(k), key) {
			return true
		}
	}
	return false
}

// Array reads an array, calling elem for each element, which elem must
// read. A null reads as no array: Array reports whether there was one.
func (r *Reader) Array(elem func()) bool {
	switch r.peek() {
	case '[':
	case 'n':
		r.literal("null") // no array; anything else but null stops r
		return false
	default:
		r.bad = true
		return false
	}
	r.i++
	if r.peek() == ']' {
		r.i++
		return true
	}
	for !r.bad {
		elem()
		switch r.peek() {
		case ',':
			r.i++
		case ']':
			r.i++
			return true
		default:
			r.bad = true
			return false
		}
	}
	return false
}

// Strings reads an array of strings; null reads as nil.
func (r *Reader) Strings() []string {
	list := []string{}
	if !r.Array(func() { list = append(list, r.String()) }) {
		return nil
	}
	return list
}

// String reads a string, unquoted as encoding/json does; null reads as "".
func (r *Reader) String() string {
	b, copied := r.string()
	if (copied || r.shared) && len(b) > 0 {
		// Unquoted, b is new memory nothing else holds.
		return unsafe.String(unsafe.SliceData(b), len(b))
	}
	return string(b)
}

// StringIn reads a string as String does, answering the one of common it
// equals rather than a new string: for values that are most often one of
// a few words (a type, a status).
func (r *Reader) StringIn(common []string) string {
	b, copied := r.string()
	if !copied {
		for _, s := range common {
			if s == string(b) {
				return s
			}
		}
	}
	return string(b)
}

// IsString reports whether a string comes next.
func (r *Reader) IsString() bool { return r.peek() == '"' }

// string reads a string's bytes: a slice of the input when it needs no
// unquoting (copied is false then), else new bytes.
func (r *Reader) string() (b []byte, copied bool) {
	switch r.peek() {
	case '"':
	case 'n':
		r.literal("null") // ""; anything else but null stops r
		return nil, false
	default:
		r.bad = true
		return nil, false
	}
	start := r.i + 1
	i := start
	for i < len(r.data) {
		for i+8 <= len(r.data) && plain8(binary.LittleEndian.Uint64(r.data[i:])) {
			i += 8
		}
		if i >= len(r.data) {
			break
		}
		c := r.data[i]
		if c == '"' {
			r.i = i + 1
			return r.data[start:i], false
		}
		if c == '\\' || c < 0x20 {
			break
		}
		if c < utf8.RuneSelf {
			i++
			continue
		}
		rr, size := utf8.DecodeRune(r.data[i:])
		if rr == utf8.RuneError && size == 1 {
			break
		}
		i += size
	}
	// The slow way: escapes, invalid UTF-8.
	out := make([]byte, i-start, i-start+16)
	copy(out, r.data[start:i])
	for i < len(r.data) {
		c := r.data[i]
		switch {
		case c == '"':
			r.i = i + 1
			return out, true
		case c < 0x20:
			r.bad = true
			return nil, false
		case c == '\\':
			if i+1 >= len(r.data) {
				r.bad = true
				return nil, false
			}
			switch e := r.data[i+1]; e {
			case '"', '\\', '/':
				out = append(out, e)
				i += 2
			case 'b':
				out = append(out, '\b')
				i += 2
			case 'f':
				out = append(out, '\f')
				i += 2
			case 'n':
				out = append(out, '\n')
				i += 2
			case 'r':
				out = append(out, '\r')
				i += 2
			case 't':
				out = append(out, '\t')
				i += 2
			case 'u':
				rr := u4(r.data[i:])
				if rr < 0 {
					r.bad = true
					return nil, false
				}
				i += 6
				if utf16.IsSurrogate(rr) {
					if dec := utf16.DecodeRune(rr, u4(r.data[i:])); dec != unicode.ReplacementChar {
						rr = dec
						i += 6
					} else {
						rr = unicode.ReplacementChar
					}
				}
				out = utf8.AppendRune(out, rr)
			default:
				r.bad = true
				return nil, false
			}
		case c < utf8.RuneSelf:
			out = append(out, c)
			i++
		default:
			rr, size := utf8.DecodeRune(r.data[i:])
			out = utf8.AppendRune(out, rr)
			i += size
		}
	}
	r.bad = true
	return nil, false
}

// u4 reads the \uXXXX at the start of s, or answers -1.
func u4(s []byte) rune {
	if len(s) < 6 || s[0] != '\\' || s[1] != 'u' {
		return -1
	}
	var r rune
	for _, c := range s[2:6] {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c = c - 'a' + 10
		case 'A' <= c && c <= 'F':
			c = c - 'A' + 10
		default:
			return -1
		}
		r = r*16 + rune(c)
	}
	return r
}

// number reads a number's text.
func (r *Reader) number() []byte {
	start := r.i
	d := r.data
	i := r.i
	if i < len(d) && d[i] == '-' {
		i++
	}
	switch {
	case i < len(d) && d[i] == '0':
		i++
	case i < len(d) && d[i] >= '1' && d[i] <= '9':
		for i < len(d) && d[i] >= '0' && d[i] <= '9' {
			i++
		}
	default:
		r.bad = true
		return nil
	}
	if i < len(d) && d[i] == '.' {
		j := i + 1
		for j < len(d) && d[j] >= '0' && d[j] <= '9' {
			j++
		}
		if j == i+1 {
			r.bad = true
			return nil
		}
		i = j
	}
	if i < len(d) && (d[i] == 'e' || d[i] == 'E') {
		i++
		if i < len(d) && (d[i] == '+' || d[i] == '-') {
			i++
		}
		j := i
		for j < len(d) && d[j] >= '0' && d[j] <= '9' {
			j++
		}
		if j == i {
			r.bad = true
			return nil
		}
		i = j
	}
	r.i = i
	return d[start:i]
}

// Int reads an integer; null reads as 0. A number that is not one (1.5,
// 1e3) or does not fit stops the Reader, as encoding/json refuses it.
func (r *Reader) Int() int {
	if r.Null() {
		return 0
	}
	if c := r.peek(); c != '-' && (c < '0' || c > '9') {
		r.bad = true
		return 0
	}
	n, err := strconv.ParseInt(string(r.number()), 10, strconv.IntSize)
	if err != nil {
		r.bad = true
		return 0
	}
	return int(n)
}

// Float reads a number as a float64. A number out of range stops the
// Reader.
func (r *Reader) Float() float64 {
	if c := r.peek(); c != '-' && (c < '0' || c > '9') {
		r.bad = true
		return 0
	}
	f, err := strconv.ParseFloat(string(r.number()), 64)
	if err != nil {
		r.bad = true
		return 0
	}
	return f
}

// Bool reads true or false; null reads as false.
func (r *Reader) Bool() bool {
	switch r.peek() {
	case 't':
		return r.literal("true")
	case 'f':
		r.literal("false")
		return false
	case 'n':
		r.literal("null")
		return false
	}
	r.bad = true
	return false
}

// Raw reads any value and answers its text as it stands in the input.
func (r *Reader) Raw() []byte {
	r.space()
	start := r.i
	r.Skip()
	if r.bad {
		return nil
	}
	return r.data[start:r.i]
}

// Skip reads any value, checking it is valid JSON. It does not recurse,
// so no nesting, however deep, overflows a stack: in wasm under V8 the
// recursive version it replaced trapped from 4,919 levels (in a Chromium
// worker; 8,684 in Node). How deep
// the JSON from outside may nest is checked before it is read
// (CheckDepth); what a Reader only skips or keeps raw, such as a
// catalogue tool's parameters, which the registry refuses on its own, may
// nest deeper.
func (r *Reader) Skip() {
	// open holds, for each array or object the value has open, whether it
	// is an object; the first 64 levels cost no allocation.
	var openArr [64]bool
	open := openArr[:0]
	for !r.bad {
		// A value starts here.
		switch c := r.peek(); {
		case c == '{' || c == '[':
			r.i++
			closer := byte(']')
			if c == '{' {
				closer = '}'
			}
			if r.peek() == closer {
				r.i++
				break
			}
			open = append(open, c == '{')
			if c == '{' {
				r.key()
			}
			continue
		case c == '"':
			r.skipString()
		case c == 't':
			r.literal("true")
		case c == 'f':
			r.literal("false")
		case c == 'n':
			r.literal("null")
		case c == '-' || (c >= '0' && c <= '9'):
			r.number()
		default:
			r.bad = true
		}
		// A value ended: close what it ends, or go on to the next member.
		for !r.bad && len(open) > 0 {
			object := open[len(open)-1]
			c := r.peek()
			if c == ',' {
				r.i++
				if object {
					r.key()
				}
				break
			}
			if object && c == '}' || !object && c == ']' {
				r.i++
				open = open[:len(open)-1]
				continue
			}
			r.bad = true
		}
		if len(open) == 0 {
			return
		}
	}
}

// key reads an object member's key and its colon, for Skip.
func (r *Reader) key() {
	if r.peek() != '"' {
		r.bad = true
		return
	}
	r.skipString()
	if r.peek() != ':' {
		r.bad = true
		return
	}
	r.i++
}

// skipString reads a string, checking its escapes, without unquoting it.
func (r *Reader) skipString() {
	i := r.i + 1
	for i < len(r.data) {
		for i+8 <= len(r.data) && plain8(binary.LittleEndian.Uint64(r.data[i:])) {
			i += 8
		}
		if i >= len(r.data) {
			break
		}
		c := r.data[i]
		switch {
		case c == '"':
			r.i = i + 1
			return
		case c < 0x20:
			r.bad = true
			return
		case c == '\\':
			if i+1 >= len(r.data) {
				r.bad = true
				return
			}
			switch r.data[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if u4(r.data[i:]) < 0 {
					r.bad = true
					return
				}
				i += 6
			default:
				r.bad = true
				return
			}
		default:
			i++
		}
	}
	r.bad = true
}

// Members reads an object as a map does: every member, in order, each
// key as it is (a key given twice comes twice); member must read the
// value. A null reads as no object.
func (r *Reader) Members(member func(key string)) {
	if r.Null() {
		return
	}
	if r.peek() != '{' {
		r.bad = true
		return
	}
	r.i++
	if r.peek() == '}' {
		r.i++
		return
	}
	for !r.bad {
		if r.peek() != '"' {
			r.bad = true
			return
		}
		key := r.String()
		if r.peek() != ':' {
			r.bad = true
			return
		}
		r.i++
		member(key)
		switch r.peek() {
		case ',':
			r.i++
		case '}':
			r.i++
			return
		default:
			r.bad = true
			return
		}
	}
}

// StringMember reads the string value of key in a JSON object as
// json.Unmarshal into a map[string]json.RawMessage and then into a string
// does: the last member with that key counts; a null value reads as "".
// ok is false when data is not the plain case (not one valid object, or
// the value is no string or null): decode it with encoding/json then.
func StringMember(data []byte, key string) (s string, found, ok bool) {
	r := NewReader(data)
	if r.peek() != '{' {
		return "", false, false
	}
	var raw []byte
	r.Members(func(k string) {
		if k == key {
			raw = r.Raw()
			found = true
		} else {
			r.Skip()
		}
	})
	if !r.Done() {
		return "", false, false
	}
	if !found {
		return "", false, true
	}
	v := NewReader(raw)
	if v.Null() {
		return "", true, true
	}
	if !v.IsString() {
		return "", true, false
	}
	return v.String(), true, true
}

const (
	ones  = 0x0101010101010101
	highs = 0x8080808080808080
)

// plain8 reports whether none of the eight bytes of w needs a look in a
// string: each is ASCII, not a control character, '"' or '\\'. Reading
// eight at a time is many times faster in wasm than one by one. (A byte is
// zero in v exactly when (v-ones) &^ v & highs has its high bit; below
// 0x20 likewise with 0x20 for ones.)
func plain8(w uint64) bool {
	q, b := w^('"'*ones), w^('\\'*ones)
	return w&highs|(w-0x20*ones)&^w&highs|(q-ones)&^q&highs|(b-ones)&^b&highs == 0
}

// IsObject reports whether an object comes next.
func (r *Reader) IsObject() bool { return r.peek() == '{' }

// IsArray reports whether an array comes next.
func (r *Reader) IsArray() bool { return r.peek() == '[' }
