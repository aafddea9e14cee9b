package jsondec

import (
	"encoding/json"
	"errors"
	"runtime/debug"
	"strings"
	"testing"
)

func TestCheckDepth(t *testing.T) {
	open := func(n int) string { return strings.Repeat("[", n) }
	closed := func(n int) string { return open(n) + strings.Repeat("]", n) }
	tests := []struct {
		name  string
		input string
		want  int // the offset of the bracket past MaxDepth, or -1
	}{
		{name: "empty", input: "", want: -1},
		{name: "flat", input: `{"a":[1,2,{"b":null}],"c":"d"}`, want: -1},
		{name: "at the limit", input: closed(MaxDepth), want: -1},
		{name: "one past", input: closed(MaxDepth + 1), want: MaxDepth},
		{name: "objects", input: strings.Repeat(`{"a":`, MaxDepth+1) + "1" + strings.Repeat("}", MaxDepth+1), want: 5 * MaxDepth},
		{name: "siblings at the limit", input: "[" + closed(MaxDepth-1) + "," + closed(MaxDepth-1) + "]", want: -1},
		{name: "a million", input: closed(1_000_000), want: MaxDepth},
		{name: "unclosed", input: open(1_000_000), want: MaxDepth},
		{name: "brackets in a string", input: `["` + open(2*MaxDepth) + `"]`, want: -1},
		{name: "escaped quotes in a string", input: `["\"` + open(2*MaxDepth) + `\\"]`, want: -1},
		{name: "a quote after an escaped backslash ends the string", input: `["\\",` + closed(MaxDepth) + `]`, want: 6 + MaxDepth - 1},
		{name: "brackets after a string count", input: `"a"` + open(MaxDepth+1), want: 3 + MaxDepth},
		{name: "an unterminated string hides the rest", input: `["` + open(MaxDepth+1), want: -1},
		{name: "stray closers let no more through", input: strings.Repeat("]", 100) + open(MaxDepth+1), want: 100 + MaxDepth},
		{name: "non-ASCII in strings", input: `["é` + open(MaxDepth) + `ü",` + open(MaxDepth), want: len(`["é`) + MaxDepth + len(`ü",`) + MaxDepth - 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := CheckDepth([]byte(tt.input))
			var deep *DepthError
			switch {
			case tt.want < 0 && err != nil:
				t.Fatalf("refused: %v", err)
			case tt.want >= 0 && (!errors.As(err, &deep) || deep.Offset != tt.want || deep.Limit != MaxDepth):
				t.Fatalf("got %v, want a *DepthError at byte %d", err, tt.want)
			}
			if got := CheckDepthString(tt.input); (got == nil) != (err == nil) || got != nil && got.Error() != err.Error() {
				t.Errorf("CheckDepthString: %v, CheckDepth: %v", got, err)
			}
		})
	}
	want := "nests more than 512 levels of arrays and objects (at byte 512)"
	if err := CheckDepth([]byte(closed(MaxDepth + 1))); err == nil || err.Error() != want {
		t.Errorf("error %q, want %q", err, want)
	}
}

// TestSkipDeep: Skip and Raw read a million levels in a small stack, as
// they do not recurse (in wasm under V8 the recursive Skip trapped from
// 4,919 levels), and still check the JSON as encoding/json does.
func TestSkipDeep(t *testing.T) {
	// A recursive Skip needs hundreds of megabytes of stack for this; Go
	// ends the process past the limit set here.
	defer debug.SetMaxStack(debug.SetMaxStack(1 << 20))
	const n = 1_000_000
	deep := strings.Repeat(`{"a":[`, n) + "1" + strings.Repeat("]}", n)
	for _, tt := range []struct {
		name  string
		input string
		valid bool
	}{
		{name: "valid", input: deep, valid: true},
		{name: "unclosed", input: strings.Repeat("[", n), valid: false},
		{name: "a trailing comma deep down", input: strings.Repeat("[", n) + "1," + strings.Repeat("]", n), valid: false},
		{name: "a key without its value deep down", input: strings.Repeat(`{"a":`, n) + `{"b"}` + strings.Repeat("}", n), valid: false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := NewReader([]byte(tt.input))
			raw := r.Raw()
			if r.Done() != tt.valid {
				t.Fatalf("Done %v, want %v", r.Done(), tt.valid)
			}
			if tt.valid && len(raw) != len(tt.input) {
				t.Errorf("Raw gave %d bytes of %d", len(raw), len(tt.input))
			}
		})
	}
	// Shallow enough for encoding/json, Skip agrees with it.
	for _, s := range []string{`[[1,[2,{"a":[]}]],{"b":{}}]`, `[[1,]]`, `{"a":{"b":}}`, `[{"a":1,"a":2}]`, `{"a" 1}`, `[1 2]`, `[[]]]`, `{}}`, `[{]}`, `{"a":[}]}`} {
		r := NewReader([]byte(s))
		r.Skip()
		if r.Done() != json.Valid([]byte(s)) {
			t.Errorf("%s: Skip took it: %v, json.Valid: %v", s, r.Done(), json.Valid([]byte(s)))
		}
	}
}
