package pdf

import (
	"strconv"
	"strings"
	"unicode/utf16"

	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/types"
)

// font turns a font's codes into text: by its ToUnicode CMap when it has
// one, else by its encoding (simple fonts), with each glyph's width.
type font struct {
	// composite fonts (Type0) take codes of codeLen bytes; simple fonts one.
	composite bool
	codeLen   int
	toUnicode map[uint32]string
	encoding  *[256]string // simple fonts without ToUnicode
	widths    map[uint32]float64
	defWidth  float64
}

// glyph is one code's text and width (in thousandths of an em).
type glyph struct {
	text  string
	width float64
	space bool // the single-byte code 32, which word spacing widens
}

func loadFont(x *extractor, d types.Dict) *font {
	f := &font{codeLen: 1, defWidth: 500, widths: map[uint32]float64{}}
	subtype := ""
	if s := d.NameEntry("Subtype"); s != nil {
		subtype = *s
	}
	if cmap := x.stream(d, "ToUnicode"); cmap != nil {
		f.toUnicode, f.codeLen = parseCMap(cmap)
	}
	if subtype == "Type0" {
		f.composite = true
		f.codeLen = 2
		if f.toUnicode != nil {
			if _, n := parseCMap(x.stream(d, "ToUnicode")); n > 0 {
				f.codeLen = n
			}
		}
		if desc := x.array(d, "DescendantFonts"); len(desc) > 0 {
			if dd, ok := desc[0].(types.Dict); ok {
				if dw, ok := dd.Find("DW"); ok {
					o, _ := x.c.Dereference(dw)
					f.defWidth = number(o)
				} else {
					f.defWidth = 1000
				}
				f.cidWidths(x.array(dd, "W"))
			}
		}
		return f
	}
	f.codeLen = 1
	if first := d.IntEntry("FirstChar"); first != nil {
		for i, w := range x.array(d, "Widths") {
			f.widths[uint32(*first+i)] = number(w)
		}
	}
	if f.toUnicode == nil {
		f.encoding = simpleEncoding(x, d, subtype)
	}
	return f
}

// cidWidths reads a CIDFont's W array: c [w1 w2 ...] or c1 c2 w.
func (f *font) cidWidths(w types.Array) {
	for i := 0; i < len(w) && len(f.widths) < 1<<16; {
		start := uint32(number(w[i]))
		if i+1 < len(w) {
			if arr, ok := w[i+1].(types.Array); ok {
				for k, v := range arr {
					f.widths[start+uint32(k)] = number(v)
				}
				i += 2
				continue
			}
		}
		if i+2 < len(w) {
			end := uint32(number(w[i+1]))
			for c := start; c <= end && c-start < 1<<16; c++ {
				f.widths[c] = number(w[i+2])
			}
		}
		i += 3
	}
}

func (f *font) decode(s []byte) []glyph {
	var out []glyph
	n := f.codeLen
	if n < 1 || n > 4 {
		n = 1
	}
	for i := 0; i < len(s); i += n {
		var code uint32
		end := min(i+n, len(s))
		for _, b := range s[i:end] {
			code = code<<8 | uint32(b)
		}
		g := glyph{width: f.defWidth, space: n == 1 && code == 32}
		if w, ok := f.widths[code]; ok {
			g.width = w
		}
		switch {
		case f.toUnicode != nil:
			if t, ok := f.toUnicode[code]; ok {
				g.text = t
			} else if !f.composite && f.encoding != nil {
				g.text = f.encoding[code&0xFF]
			}
		case f.encoding != nil:
			g.text = f.encoding[code&0xFF]
		case !f.composite:
			g.text = string(rune(code))
		}
		out = append(out, g)
	}
	return out
}

// parseCMap reads a ToUnicode CMap's bfchar and bfrange mappings, and the
// code length its codespace ranges give (0 when none).
func parseCMap(data []byte) (map[uint32]string, int) {
	m := map[uint32]string{}
	codeLen := 0
	l := lexer{data: data}
	var ops []any
	mode := ""
	for len(m) < 1<<17 {
		t, ok := l.next()
		if !ok {
			break
		}
		op, isOp := t.(operator)
		if !isOp {
			ops = append(ops, t)
			if mode == "" {
				ops = ops[max(0, len(ops)-8):]
			}
			continue
		}
		switch op {
		case "begincodespacerange", "beginbfchar", "beginbfrange":
			mode = string(op)
		case "endcodespacerange":
			for _, o := range ops {
				if s, ok := o.(pdfStr); ok && len(s) > 0 && codeLen == 0 {
					codeLen = len(s)
				}
			}
			mode = ""
		case "endbfchar":
			for i := 0; i+1 < len(ops); i += 2 {
				src, ok1 := ops[i].(pdfStr)
				dst, ok2 := ops[i+1].(pdfStr)
				if ok1 && ok2 {
					m[codeOf(src)] = utf16be([]byte(dst))
				}
			}
			mode = ""
		case "endbfrange":
			for i := 0; i+2 < len(ops); i += 3 {
				lo, ok1 := ops[i].(pdfStr)
				hi, ok2 := ops[i+1].(pdfStr)
				if !ok1 || !ok2 {
					continue
				}
				a, b := codeOf(lo), codeOf(hi)
				if b < a || b-a > 1<<16 {
					continue
				}
				switch dst := ops[i+2].(type) {
				case pdfStr:
					base := []byte(dst)
					for c := a; c <= b; c++ {
						m[c] = utf16be(addLast(base, c-a))
					}
				case []any:
					for k, e := range dst {
						if s, ok := e.(pdfStr); ok && a+uint32(k) <= b {
							m[a+uint32(k)] = utf16be([]byte(s))
						}
					}
				}
			}
			mode = ""
		}
		if mode == "" {
			ops = ops[:0]
		}
	}
	return m, codeLen
}

func codeOf(s pdfStr) uint32 {
	var c uint32
	for _, b := range []byte(s) {
		c = c<<8 | uint32(b)
	}
	return c
}

// addLast adds n to a big-endian byte string's last byte (a bfrange's
// destination counts up there).
func addLast(b []byte, n uint32) []byte {
	out := append([]byte(nil), b...)
	if len(out) == 0 {
		return out
	}
	v := uint32(out[len(out)-1]) + n
	out[len(out)-1] = byte(v)
	if len(out) >= 2 {
		out[len(out)-2] += byte(v >> 8)
	}
	return out
}

func utf16be(b []byte) string {
	u := make([]uint16, 0, len(b)/2)
	for i := 0; i+1 < len(b); i += 2 {
		u = append(u, uint16(b[i])<<8|uint16(b[i+1]))
	}
	if len(b)%2 == 1 {
		u = append(u, uint16(b[len(b)-1]))
	}
	return string(utf16.Decode(u))
}

// simpleEncoding is a simple font's code-to-text table: its base encoding
// (WinAnsi, MacRoman or Standard; Standard when it names none, as Type 1
// fonts' built-in encoding mostly is) with its Differences.
func simpleEncoding(x *extractor, d types.Dict, subtype string) *[256]string {
	var enc [256]string
	base := standardEncoding
	if subtype == "TrueType" {
		base = winAnsiEncoding
	}
	o, ok := d.Find("Encoding")
	if ok {
		o, _ = x.c.Dereference(o)
	}
	baseName := ""
	var diffs types.Array
	switch v := o.(type) {
	case types.Name:
		baseName = string(v)
	case types.Dict:
		if n := v.NameEntry("BaseEncoding"); n != nil {
			baseName = *n
		}
		diffs = x.array(v, "Differences")
	}
	switch baseName {
	case "WinAnsiEncoding":
		base = winAnsiEncoding
	case "MacRomanEncoding":
		base = macRomanEncoding
	case "StandardEncoding":
		base = standardEncoding
	}
	for c := range 256 {
		enc[c] = base(byte(c))
	}
	code := 0
	for _, e := range diffs {
		switch v := e.(type) {
		case types.Integer:
			code = int(v)
		case types.Name:
			if code >= 0 && code < 256 {
				enc[code] = glyphText(string(v))
			}
			code++
		}
	}
	return &enc
}

// winAnsiEncoding is Windows-1252.
func winAnsiEncoding(c byte) string {
	if c >= 0x80 && c <= 0x9F {
		r := []rune("€\uFFFD‚ƒ„…†‡ˆ‰Š‹Œ\uFFFDŽ\uFFFD\uFFFD‘’“”•–—˜™š›œ\uFFFDžŸ")[c-0x80]
		if r == '\uFFFD' {
			return ""
		}
		return string(r)
	}
	return latin(c)
}

func latin(c byte) string {
	switch {
	case c < 0x20 || c == 0x7F:
		return ""
	case c == 0xA0:
		return " "
	case c == 0xAD:
		return "-"
	}
	return string(rune(c))
}

const macRomanHigh = "ÄÅÇÉÑÖÜáàâäãåçéèêëíìîïñóòôöõúùûü†°¢£§•¶ß®©™´¨≠ÆØ∞±≤≥¥µ∂∑∏π∫ªºΩæø¿¡¬√ƒ≈∆«»… ÀÃÕŒœ–—“”‘’÷◊ÿŸ⁄¤‹›ﬁﬂ‡·‚„‰ÂÊÁËÈÍÎÏÌÓÔÒÚÛÙıˆ˜¯˘˙˚¸˝˛ˇ"

func macRomanEncoding(c byte) string {
	if c >= 0x80 {
		return string([]rune(macRomanHigh)[c-0x80])
	}
	return latin(c)
}

// standardHigh is StandardEncoding from 0xA1; "" where it has no glyph.
var standardHigh = map[byte]string{
	0xA1: "¡", 0xA2: "¢", 0xA3: "£", 0xA4: "⁄", 0xA5: "¥", 0xA6: "ƒ", 0xA7: "§", 0xA8: "¤", 0xA9: "'",
	0xAA: "“", 0xAB: "«", 0xAC: "‹", 0xAD: "›", 0xAE: "ﬁ", 0xAF: "ﬂ", 0xB1: "–", 0xB2: "†", 0xB3: "‡",
	0xB4: "·", 0xB6: "¶", 0xB7: "•", 0xB8: "‚", 0xB9: "„", 0xBA: "”", 0xBB: "»", 0xBC: "…", 0xBD: "‰",
	0xBF: "¿", 0xC1: "`", 0xC2: "´", 0xC3: "ˆ", 0xC4: "˜", 0xC5: "¯", 0xC6: "˘", 0xC7: "˙", 0xC8: "¨",
	0xCA: "˚", 0xCB: "¸", 0xCD: "˝", 0xCE: "˛", 0xCF: "ˇ", 0xD0: "—", 0xE1: "Æ", 0xE3: "ª", 0xE8: "Ł",
	0xE9: "Ø", 0xEA: "Œ", 0xEB: "º", 0xF1: "æ", 0xF5: "ı", 0xF8: "ł", 0xF9: "ø", 0xFA: "œ", 0xFB: "ß",
}

func standardEncoding(c byte) string {
	switch {
	case c == 0x27:
		return "’"
	case c == 0x60:
		return "‘"
	case c >= 0x80:
		return standardHigh[c]
	}
	return latin(c)
}

// latinNames are the glyph names of U+00A0 to U+00FF.
var latinNames = strings.Fields("nbspace exclamdown cent sterling currency yen brokenbar section dieresis copyright " +
	"ordfeminine guillemotleft logicalnot hyphen registered macron degree plusminus twosuperior threesuperior " +
	"acute mu paragraph periodcentered cedilla onesuperior ordmasculine guillemotright onequarter onehalf " +
	"threequarters questiondown Agrave Aacute Acircumflex Atilde Adieresis Aring AE Ccedilla Egrave Eacute " +
	"Ecircumflex Edieresis Igrave Iacute Icircumflex Idieresis Eth Ntilde Ograve Oacute Ocircumflex Otilde " +
	"Odieresis multiply Oslash Ugrave Uacute Ucircumflex Udieresis Yacute Thorn germandbls agrave aacute " +
	"acircumflex atilde adieresis aring ae ccedilla egrave eacute ecircumflex edieresis igrave iacute " +
	"icircumflex idieresis eth ntilde ograve oacute ocircumflex otilde odieresis divide oslash ugrave uacute " +
	"ucircumflex udieresis yacute thorn ydieresis")

// asciiNames are the glyph names of U+0020 to U+007E that are not the
// character itself.
var asciiNames = strings.Fields("space exclam quotedbl numbersign dollar percent ampersand quotesingle " +
	"parenleft parenright asterisk plus comma hyphen period slash zero one two three four five six seven " +
	"eight nine colon semicolon less equal greater question at")

var otherNames = map[string]string{
	"bracketleft": "[", "backslash": "\\", "bracketright": "]", "asciicircum": "^", "underscore": "_",
	"grave": "`", "braceleft": "{", "bar": "|", "braceright": "}", "asciitilde": "~", "quoteright": "’",
	"quoteleft": "‘", "quotedblleft": "“", "quotedblright": "”", "quotesinglbase": "‚", "quotedblbase": "„",
	"bullet": "•", "endash": "–", "emdash": "—", "ellipsis": "…", "dagger": "†", "daggerdbl": "‡",
	"perthousand": "‰", "trademark": "™", "fi": "ﬁ", "fl": "ﬂ", "ff": "ff", "ffi": "ffi", "ffl": "ffl",
	"Euro": "€", "OE": "Œ", "oe": "œ", "Scaron": "Š", "scaron": "š", "Zcaron": "Ž", "zcaron": "ž",
	"Ydieresis": "Ÿ", "florin": "ƒ", "circumflex": "ˆ", "tilde": "˜", "guilsinglleft": "‹",
	"guilsinglright": "›", "minus": "−", "fraction": "⁄", "dotlessi": "ı", "Lslash": "Ł", "lslash": "ł",
	"softhyphen": "-", "nonbreakingspace": " ", "sfthyphen": "-",
}

var glyphNames = func() map[string]string {
	m := map[string]string{}
	for i, n := range asciiNames {
		m[n] = string(rune(0x20 + i))
	}
	for i, n := range latinNames {
		m[n] = string(rune(0xA0 + i))
	}
	m["nbspace"] = " "
	m["hyphen"] = "-"
	for k, v := range otherNames {
		m[k] = v
	}
	return m
}()

// glyphText is a glyph name's text: a known name, a letter, uniXXXX or
// uXXXX[XX]; "" for a name it does not know.
func glyphText(n string) string {
	if base, _, ok := strings.Cut(n, "."); ok && base != "" {
		n = base // a variant: a.sc, one.oldstyle
	}
	if t, ok := glyphNames[n]; ok {
		return t
	}
	if len(n) == 1 && (n[0] >= 'a' && n[0] <= 'z' || n[0] >= 'A' && n[0] <= 'Z') {
		return n
	}
	if h, ok := strings.CutPrefix(n, "uni"); ok && len(h) >= 4 && len(h)%4 == 0 {
		var u []uint16
		for i := 0; i < len(h); i += 4 {
			v, err := strconv.ParseUint(h[i:i+4], 16, 16)
			if err != nil {
				return ""
			}
			u = append(u, uint16(v))
		}
		return string(utf16.Decode(u))
	}
	if h, ok := strings.CutPrefix(n, "u"); ok && len(h) >= 4 && len(h) <= 6 {
		if v, err := strconv.ParseUint(h, 16, 32); err == nil && v <= 0x10FFFF {
			return string(rune(v))
		}
	}
	return ""
}
