package jsondec

import (
	"encoding/json"
	"fmt"
	"testing"
	"unsafe"
)

// TestStringEveryByte puts every byte at every place of a JSON string long
// enough for the eight-byte skip: String reads what json.Unmarshal reads,
// and stops where it refuses the string. The package's callers compare
// whole values with encoding/json by fuzzing (session, wire, registry).
func TestStringEveryByte(t *testing.T) {
	for c := range 256 {
		for at := range 17 {
			s := []byte(`"abcdefghijklmnopq"`)
			s[1+at] = byte(c)
			var want string
			wantErr := json.Unmarshal(s, &want)
			r := NewReader(s)
			got := r.String()
			done := r.Done()
			if (wantErr == nil) != done || (done && got != want) {
				t.Fatalf("%q: String %q (done %v), encoding/json %q, %v", s, got, done, want, wantErr)
			}
			// Skipped, it is as valid.
			r = NewReader(s)
			r.Skip()
			if r.Done() != json.Valid(s) {
				t.Fatalf("%q: Skip took it: %v, json.Valid: %v", s, r.Done(), json.Valid(s))
			}
		}
	}
}

// TestSharedStrings: a shared Reader's strings read as a Reader's do, and
// those that need no unquoting are the input's own bytes.
func TestSharedStrings(t *testing.T) {
	tests := []struct {
		input  string
		want   string
		shared bool
	}{
		{input: `"plain text, long enough to skip by eight"`, want: "plain text, long enough to skip by eight", shared: true},
		{input: `"caf\u00e9 \"quoted\""`, want: `café "quoted"`},
		{input: "\"\xff invalid\"", want: "\ufffd invalid"},
		{input: `""`, want: ""},
		{input: `null`, want: ""},
	}
	for _, tt := range tests {
		data := []byte(tt.input)
		got := NewSharedReader(data).String()
		if want := NewReader(data).String(); got != tt.want || want != tt.want {
			t.Errorf("%s: shared %q, not shared %q, want %q", tt.input, got, want, tt.want)
		}
		p := uintptr(unsafe.Pointer(unsafe.StringData(got)))
		in := len(got) > 0 && p >= uintptr(unsafe.Pointer(&data[0])) && p < uintptr(unsafe.Pointer(&data[0]))+uintptr(len(data))
		if in != tt.shared {
			t.Errorf("%s: the string shares the input: %v, want %v", tt.input, in, tt.shared)
		}
	}
}

// TestObjectKeys: a key is matched however it is escaped, a key that
// only folds to a field stops the Reader as encoding/json would take it,
// and unknown keys are skipped.
func TestObjectKeys(t *testing.T) {
	tests := []struct {
		name   string
		input  string
		want   []string
		wantOK bool
	}{
		{name: "plain", input: `{"type":"a","body":"b"}`, want: []string{"type=a", "body=b"}, wantOK: true},
		{name: "escaped key", input: `{"\u0074ype":"a"}`, want: []string{"type=a"}, wantOK: true},
		{name: "unknown skipped", input: `{"other":{"x":[1,2]},"type":"a"}`, want: []string{"type=a"}, wantOK: true},
		{name: "folded key", input: `{"Type":"a"}`, wantOK: false},
		{name: "non-ASCII key", input: `{"typé":"a"}`, wantOK: false},
		{name: "twice", input: `{"type":"a","type":"b"}`, want: []string{"type=a"}, wantOK: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := NewReader([]byte(tt.input))
			var got []string
			r.Object([]string{"type", "body"}, func(key string) { got = append(got, key+"="+r.String()) })
			if r.Done() != tt.wantOK {
				t.Fatalf("Done %v, want %v", r.Done(), tt.wantOK)
			}
			if fmt.Sprint(got) != fmt.Sprint(tt.want) {
				t.Errorf("members %v, want %v", got, tt.want)
			}
		})
	}
}

// TestStringIn: StringIn reads what String reads, one of the common words
// or not, escaped or not.
func TestStringIn(t *testing.T) {
	common := []string{"stop", "tool_calls"}
	for _, input := range []string{`"stop"`, `"st\u006fp"`, `"other"`, `"tool_calls"`, `null`, `"é\n"`} {
		want := NewReader([]byte(input)).String()
		r := NewReader([]byte(input))
		if got := r.StringIn(common); got != want || !r.Done() {
			t.Errorf("%s: StringIn %q (done %v), String %q", input, got, r.Done(), want)
		}
	}
}
