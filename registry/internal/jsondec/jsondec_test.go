package jsondec

import (
	"encoding/json"
	"testing"
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
