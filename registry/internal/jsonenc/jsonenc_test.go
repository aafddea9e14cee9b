package jsonenc

import (
	"bytes"
	"encoding/json"
	"math"
	"testing"
)

// std is what encoding/json writes for v, with or without HTML escaping.
func std(t *testing.T, v any, html bool) ([]byte, error) {
	t.Helper()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(html)
	err := enc.Encode(v)
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), err
}

// escapes holds a string for every escape case encoding/json has.
var escapes = []string{
	"", "plain", `quote " and backslash \`, "\b\f\n\r\t", "\x00\x01\x1f\x7f",
	"<b>&amp;</b>", "line\u2028para\u2029", "bad \xff utf-8 \xc3", "\xe2\x80", "\xe2\x80\xa8\xe2\x80\xa9x",
	"é ü 日本 🙂", "\ufffd", "/slash/", "\xed\xa0\x80 surrogate",
}

func TestString(t *testing.T) {
	for _, s := range escapes {
		for _, html := range []bool{false, true} {
			want, _ := std(t, s, html)
			if got := String(nil, s, html); !bytes.Equal(got, want) {
				t.Errorf("String(%q, html %v) = %s, encoding/json %s", s, html, got, want)
			}
			if got := String(nil, []byte(s), html); !bytes.Equal(got, want) {
				t.Errorf("String([]byte %q, html %v) = %s, encoding/json %s", s, html, got, want)
			}
		}
	}
}

func FuzzString(f *testing.F) {
	for _, s := range escapes {
		f.Add(s, false)
		f.Add(s, true)
	}
	f.Fuzz(func(t *testing.T, s string, html bool) {
		want, _ := std(t, s, html)
		if got := String([]byte("x"), s, html); !bytes.Equal(got[1:], want) {
			t.Fatalf("String(%q, html %v) = %s, encoding/json %s", s, html, got[1:], want)
		}
	})
}

var raws = []string{
	`{}`, `[]`, ` { "a" : [ 1 , 2.5e-3 , -0 , true , false , null ] , "b" : { } } `,
	`"<script>&\u2028"`, "\"\xe2\x80\xa8 \xe2\x80\xa9 \xff\"", `{"a":"\u00e9\"\\\/\b\f\n\r\t"}`,
	`[[[[[]]]]]`, `0`, `-1.5E+10`, `1e5`, `"x"`,
	// Not JSON: refused with encoding/json's error.
	``, ` `, `{`, `[1,]`, `{"a"}`, `{"a":1,}`, `01`, `1.`, `.5`, `-`, `1e`, `tru`, `truex`, `nul`,
	`"a`, "\"\x01\"", `"\x"`, `"\u12g4"`, `{} {}`, `[1 2]`, `{"a" 1}`, `{1:2}`, `+1`, `NaN`, `'a'`,
}

func TestRaw(t *testing.T) {
	for _, r := range raws {
		for _, html := range []bool{false, true} {
			checkRaw(t, []byte(r), html)
		}
	}
	if got, _ := Raw(nil, nil, false); string(got) != "null" {
		t.Errorf("Raw(nil) = %s, want null", got)
	}
	deep := bytes.Repeat([]byte("["), maxDepth+1)
	checkRaw(t, append(deep, bytes.Repeat([]byte("]"), maxDepth+1)...), false)
	deep = bytes.Repeat([]byte("["), maxDepth)
	checkRaw(t, append(deep, bytes.Repeat([]byte("]"), maxDepth)...), false)
}

// checkRaw compares Raw with encoding/json's json.RawMessage, output and
// error, and checks Raw leaves dst as it was on an error.
func checkRaw(t *testing.T, raw []byte, html bool) {
	t.Helper()
	want, wantErr := std(t, json.RawMessage(raw), html)
	got, err := Raw([]byte("x"), raw, html)
	if (err != nil) != (wantErr != nil) || (err != nil && err.Error() != wantErr.Error()) {
		t.Fatalf("Raw(%q, html %v): error %v, encoding/json %v", raw, html, err, wantErr)
	}
	if err != nil {
		if string(got) != "x" {
			t.Fatalf("Raw(%q) changed dst on an error: %q", raw, got)
		}
		return
	}
	if !bytes.Equal(got[1:], want) {
		t.Fatalf("Raw(%q, html %v) = %s, encoding/json %s", raw, html, got[1:], want)
	}
	if _, ok := compact(nil, raw, html); ok != json.Valid(raw) {
		t.Fatalf("compact(%q) took it: %v, json.Valid: %v", raw, ok, !ok)
	}
}

func FuzzRaw(f *testing.F) {
	for _, r := range raws {
		f.Add([]byte(r), false)
		f.Add([]byte(r), true)
	}
	f.Fuzz(func(t *testing.T, raw []byte, html bool) {
		if raw == nil {
			raw = []byte{}
		}
		checkRaw(t, raw, html)
	})
}

var floats = []float64{0, math.Copysign(0, -1), 1, -1, 0.5, 1e-6, 9.99e-7, 1e-7, 1e20, 1e21, 123456789.125, math.MaxFloat64,
	math.SmallestNonzeroFloat64, 2.5e-9, -3e-10, 0.1, 1.0 / 3, math.NaN(), math.Inf(1), math.Inf(-1)}

func TestFloat(t *testing.T) {
	for _, x := range floats {
		checkFloat(t, x)
	}
}

func checkFloat(t *testing.T, x float64) {
	t.Helper()
	want, wantErr := std(t, x, false)
	got, err := Float(nil, x)
	if (err != nil) != (wantErr != nil) || (err != nil && err.Error() != wantErr.Error()) {
		t.Fatalf("Float(%v): error %v, encoding/json %v", x, err, wantErr)
	}
	if err == nil && !bytes.Equal(got, want) {
		t.Fatalf("Float(%v) = %s, encoding/json %s", x, got, want)
	}
}

func FuzzFloat(f *testing.F) {
	for _, x := range floats {
		f.Add(x)
	}
	f.Fuzz(checkFloat)
}

func TestIntBool(t *testing.T) {
	for _, n := range []int{0, 1, -1, math.MaxInt, math.MinInt} {
		want, _ := std(t, n, false)
		if got := Int(nil, n); !bytes.Equal(got, want) {
			t.Errorf("Int(%d) = %s, encoding/json %s", n, got, want)
		}
	}
	for _, b := range []bool{false, true} {
		want, _ := std(t, b, false)
		if got := Bool(nil, b); !bytes.Equal(got, want) {
			t.Errorf("Bool(%v) = %s, encoding/json %s", b, got, want)
		}
	}
}

// TestStringEveryByte puts every byte at every place of a string long
// enough for the eight-byte skip, next to plain text.
func TestStringEveryByte(t *testing.T) {
	for c := range 256 {
		for at := range 17 {
			s := []byte("abcdefghijklmnopq")
			s[at] = byte(c)
			for _, html := range []bool{false, true} {
				want, _ := std(t, string(s), html)
				if got := String(nil, string(s), html); !bytes.Equal(got, want) {
					t.Fatalf("String(%q, html %v) = %s, encoding/json %s", s, html, got, want)
				}
				checkRaw(t, []byte(`"`+string(s)+`"`), html)
			}
		}
	}
}
