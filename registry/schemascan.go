package registry

import (
	"encoding/json"
	"errors"
	"slices"
	"unicode/utf8"

	"github.com/toolroute/toolroute/registry/internal/jsondec"
)

// The schema scanner: NormalizeSchema reads a tool's parameters in one
// pass, checking the JSON as encoding/json would, writing it compacted as
// json.Compact would and noting where the keywords it checks are, rather
// than decoding it into maps of raw values three levels deep (a catalogue
// of 10,000 tools spent three quarters of its registration there).
// schema_test.go's FuzzNormalizeSchema holds it to the decoding it
// replaced, output and errors.

// maxSchemaDepth bounds the scan, which recurses: NormalizeSchema refuses
// a schema nesting deeper before it scans (jsondec.CheckDepth).
const maxSchemaDepth = jsondec.MaxDepth

var errSchemaSyntax = errors.New("not JSON")

// schemaScan is one scan of a schema: the input, the compacted output and
// what the top level holds.
type schemaScan struct {
	in  []byte
	pos int
	out []byte
	// typ, props and req are the last "type", "properties" and "required"
	// of the top-level object, as compacted values (nil: absent); the last,
	// as decoding into a map keeps the last of a repeated key.
	typ, props, req []byte
	// propNames are the names of properties, each with whether its last
	// value is an object; nil when properties is not an object.
	propNames []propValue
}

type propValue struct {
	name   string
	object bool
}

// scanSchema compacts a JSON object and notes its keywords; any input
// encoding/json would not decode into a map is errSchemaSyntax.
func scanSchema(in []byte) (*schemaScan, error) {
	s := &schemaScan{in: in, out: make([]byte, 0, len(in))}
	s.space()
	if s.pos >= len(in) || in[s.pos] != '{' {
		return nil, errSchemaSyntax
	}
	if _, err := s.object(1, schemaObject); err != nil {
		return nil, err
	}
	s.space()
	if s.pos != len(in) {
		return nil, errSchemaSyntax
	}
	return s, nil
}

func (s *schemaScan) space() {
	for s.pos < len(s.in) {
		switch s.in[s.pos] {
		case ' ', '\t', '\n', '\r':
			s.pos++
		default:
			return
		}
	}
}

// value copies one JSON value at s.pos to s.out.
func (s *schemaScan) value(depth int) error {
	if s.pos >= len(s.in) {
		return errSchemaSyntax
	}
	switch c := s.in[s.pos]; {
	case c == '{':
		_, err := s.object(depth+1, plainObject)
		return err
	case c == '[':
		return s.array(depth + 1)
	case c == '"':
		_, err := s.str()
		return err
	case c == '-' || c >= '0' && c <= '9':
		return s.number()
	case c == 't':
		return s.literal("true")
	case c == 'f':
		return s.literal("false")
	case c == 'n':
		return s.literal("null")
	}
	return errSchemaSyntax
}

func (s *schemaScan) literal(word string) error {
	if len(s.in)-s.pos < len(word) || string(s.in[s.pos:s.pos+len(word)]) != word {
		return errSchemaSyntax
	}
	s.out = append(s.out, word...)
	s.pos += len(word)
	return nil
}

// number copies a number of JSON's grammar.
func (s *schemaScan) number() error {
	start := s.pos
	in := s.in
	if in[s.pos] == '-' {
		s.pos++
	}
	digits := func() int {
		n := 0
		for s.pos < len(in) && in[s.pos] >= '0' && in[s.pos] <= '9' {
			s.pos++
			n++
		}
		return n
	}
	if s.pos < len(in) && in[s.pos] == '0' {
		s.pos++
	} else if digits() == 0 {
		return errSchemaSyntax
	}
	if s.pos < len(in) && in[s.pos] == '.' {
		s.pos++
		if digits() == 0 {
			return errSchemaSyntax
		}
	}
	if s.pos < len(in) && (in[s.pos] == 'e' || in[s.pos] == 'E') {
		s.pos++
		if s.pos < len(in) && (in[s.pos] == '+' || in[s.pos] == '-') {
			s.pos++
		}
		if digits() == 0 {
			return errSchemaSyntax
		}
	}
	s.out = append(s.out, in[start:s.pos]...)
	return nil
}

// str copies a string and gives its raw bytes, quotes included, and
// whether it held an escape.
func (s *schemaScan) str() (raw []byte, err error) {
	start := s.pos
	in := s.in
	s.pos++
	for s.pos < len(in) {
		c := in[s.pos]
		switch {
		case c == '"':
			s.pos++
			raw = in[start:s.pos]
			s.out = append(s.out, raw...)
			return raw, nil
		case c < 0x20:
			return nil, errSchemaSyntax
		case c == '\\':
			if s.pos+1 >= len(in) {
				return nil, errSchemaSyntax
			}
			switch in[s.pos+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				s.pos += 2
			case 'u':
				if s.pos+6 > len(in) {
					return nil, errSchemaSyntax
				}
				for _, h := range in[s.pos+2 : s.pos+6] {
					if !(h >= '0' && h <= '9' || h >= 'a' && h <= 'f' || h >= 'A' && h <= 'F') {
						return nil, errSchemaSyntax
					}
				}
				s.pos += 6
			default:
				return nil, errSchemaSyntax
			}
		default:
			s.pos++
		}
	}
	return nil, errSchemaSyntax
}

// key is a string's text: its raw bytes unquoted when it has no escape,
// else decoded as encoding/json decodes it.
func key(raw []byte) string {
	inner := raw[1 : len(raw)-1]
	if !slices.Contains(inner, '\\') && utf8.Valid(inner) {
		return string(inner)
	}
	var k string
	_ = json.Unmarshal(raw, &k) // valid: str checked it
	return k
}

func (s *schemaScan) array(depth int) error {
	if depth > maxSchemaDepth {
		return errSchemaSyntax
	}
	s.out = append(s.out, '[')
	s.pos++
	s.space()
	if s.pos < len(s.in) && s.in[s.pos] == ']' {
		s.pos++
		s.out = append(s.out, ']')
		return nil
	}
	for {
		s.space()
		if err := s.value(depth); err != nil {
			return err
		}
		s.space()
		if s.pos >= len(s.in) {
			return errSchemaSyntax
		}
		switch s.in[s.pos] {
		case ',':
			s.pos++
			s.out = append(s.out, ',')
		case ']':
			s.pos++
			s.out = append(s.out, ']')
			return nil
		default:
			return errSchemaSyntax
		}
	}
}

// objectKind is what an object is to the scan: the schema itself (its
// keywords are noted), its properties (their names and kinds are noted),
// or any other.
type objectKind int

const (
	plainObject objectKind = iota
	schemaObject
	propertiesObject
)

// object copies an object; for a properties object it gives each name
// with whether its last value is an object.
func (s *schemaScan) object(depth int, kind objectKind) ([]propValue, error) {
	if depth > maxSchemaDepth {
		return nil, errSchemaSyntax
	}
	var (
		names []propValue
		index map[string]int
	)
	if kind == propertiesObject {
		names, index = []propValue{}, map[string]int{}
	}
	s.out = append(s.out, '{')
	s.pos++
	s.space()
	if s.pos < len(s.in) && s.in[s.pos] == '}' {
		s.pos++
		s.out = append(s.out, '}')
		return names, nil
	}
	for {
		s.space()
		if s.pos >= len(s.in) || s.in[s.pos] != '"' {
			return nil, errSchemaSyntax
		}
		raw, err := s.str()
		if err != nil {
			return nil, err
		}
		s.space()
		if s.pos >= len(s.in) || s.in[s.pos] != ':' {
			return nil, errSchemaSyntax
		}
		s.pos++
		s.out = append(s.out, ':')
		s.space()
		at := len(s.out)
		isObject := s.pos < len(s.in) && s.in[s.pos] == '{'
		var name string
		if kind != plainObject {
			name = key(raw)
		}
		if kind == schemaObject && name == "properties" && isObject {
			props, err := s.object(depth+1, propertiesObject)
			if err != nil {
				return nil, err
			}
			s.propNames = props
		} else {
			if err := s.value(depth); err != nil {
				return nil, err
			}
			if kind == schemaObject && name == "properties" {
				s.propNames = nil
			}
		}
		switch kind {
		case schemaObject:
			switch name {
			case "type":
				s.typ = s.out[at:len(s.out):len(s.out)]
			case "properties":
				s.props = s.out[at:len(s.out):len(s.out)]
			case "required":
				s.req = s.out[at:len(s.out):len(s.out)]
			}
		case propertiesObject:
			if i, ok := index[name]; ok {
				names[i].object = isObject // a repeated name: the last value counts
			} else {
				index[name] = len(names)
				names = append(names, propValue{name, isObject})
			}
		}
		s.space()
		if s.pos >= len(s.in) {
			return nil, errSchemaSyntax
		}
		switch s.in[s.pos] {
		case ',':
			s.pos++
			s.out = append(s.out, ',')
		case '}':
			s.pos++
			s.out = append(s.out, '}')
			return names, nil
		default:
			return nil, errSchemaSyntax
		}
	}
}
