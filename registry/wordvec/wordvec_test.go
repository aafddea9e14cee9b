package wordvec

import (
	"encoding/binary"
	"errors"
	"math"
	"strings"
	"testing"
)

// table builds a file of the given words, each vector all ones times its
// rank + 1.
func table(words ...string) []byte {
	b := []byte("wordvec1")
	b = binary.LittleEndian.AppendUint32(b, uint32(len(words)))
	b = binary.LittleEndian.AppendUint32(b, 2)
	for _, w := range words {
		b = append(b, w+"\n"...)
	}
	for i := range words {
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(float32(i+1)))
	}
	for range words {
		b = append(b, 9|9<<4)
	}
	return b
}

func TestParse(t *testing.T) {
	v, err := Parse(table("b", "a"))
	if err != nil {
		t.Fatal(err)
	}
	acc := make([]float64, 2)
	r, _ := v.Rank("a")
	v.AddTo(acc, r, 0.5)
	if r != 1 || acc[0] != 1 || acc[1] != 1 {
		t.Errorf("a: rank %d, vector %v; want 1, [1 1]", r, acc)
	}
	// A word given twice is no error: Rank finds one of them.
	if v, err := Parse(table("a", "a")); err != nil {
		t.Errorf("a word twice: %v", err)
	} else if r, ok := v.Rank("a"); !ok || v.Word(r) != "a" {
		t.Errorf("a word twice: Rank gives %d, %v", r, ok)
	}
	good := table("b", "a")
	tests := []struct {
		name, want string
		data       []byte
	}{
		{"empty", "header", nil},
		{"another format", "header", append([]byte("wordvec2"), good[8:]...)},
		{"odd dimensions", "even number", append(append([]byte{}, good[:12]...), append([]byte{3, 0, 0, 0}, good[16:]...)...)},
		{"cut short", "bytes after the words", good[:len(good)-1]},
		{"words missing", "missing", good[:18]},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse(tt.data)
			if !errors.Is(err, ErrData) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Parse: %v, want an ErrData saying %q", err, tt.want)
			}
		})
	}
}

func FuzzParse(f *testing.F) {
	f.Add(table("b", "a"))
	f.Add([]byte("wordvec1\xff\xff\xff\xff\x02\x00\x00\x00"))
	f.Fuzz(func(t *testing.T, b []byte) {
		v, err := Parse(b)
		if err != nil {
			return
		}
		acc := make([]float64, v.Dim())
		for r := range v.Len() {
			if got, ok := v.Rank(v.Word(r)); !ok || got != r {
				t.Fatalf("Rank(Word(%d)) = %d, %v", r, got, ok)
			}
			v.AddTo(acc, r, 1)
		}
	})
}
