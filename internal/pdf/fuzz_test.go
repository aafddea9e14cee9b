package pdf

import (
	"testing"
	"unicode/utf8"
)

// FuzzContent runs the text extractor over any content stream: it never
// panics, never loops without end, and gives valid UTF-8.
func FuzzContent(f *testing.F) {
	f.Add([]byte("BT /F1 12 Tf 72 700 Td (Hello) Tj 0 -14 Td [(a) -300 (b)] TJ ET"))
	f.Add([]byte("q 1 0 0 1 0 0 cm BI /W 1 /H 1 ID \x00\xff EI Q (x) ' 1 2 (y) \""))
	f.Add([]byte("<48656c6c6f> Tj [<00> 5 (\\101\\) (nested (parens))] TJ /Name#20x Do << /a 1 >> %comment\n"))
	f.Fuzz(func(t *testing.T, content []byte) {
		x := &extractor{fonts: map[string]*font{}}
		x.run(content, nil, identity, 0)
		if out := tidy(x.out.String()); !utf8.ValidString(out) {
			t.Fatal("invalid UTF-8")
		}
	})
}

// FuzzCMap reads any ToUnicode CMap without panicking.
func FuzzCMap(f *testing.F) {
	f.Add([]byte("1 begincodespacerange <0000> <FFFF> endcodespacerange 2 beginbfchar <0003> <0020> <0011> <D83DDE00> endbfchar 1 beginbfrange <0020> <0030> <0041> <0031> <0032> [<0061> <0062>] endbfrange"))
	f.Fuzz(func(t *testing.T, data []byte) {
		m, _ := parseCMap(data)
		f := &font{codeLen: 2, composite: true, toUnicode: m, widths: map[uint32]float64{}}
		f.decode(data)
	})
}
