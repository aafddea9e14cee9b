package pdf

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/model"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/types"

	"github.com/toolroute/toolroute/host"
)

// text answers pdf_extract_text: the pages asked for, each under a
// "[Page N of M]" line, until the next would take the result past what
// the model reads (host.MaxResultChars); then a note says what to ask for
// next.
func (t *tools) text(ctx context.Context, in json.RawMessage) (string, error) {
	a, err := args[struct {
		source
		Pages string `json:"pages"`
	}](in)
	if err != nil {
		return "", err
	}
	d, err := t.open(ctx, a.source)
	if err != nil {
		return "", err
	}
	pages, err := parsePages(a.Pages, d.ctx.PageCount, d.name)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	chars := 0
	for i, p := range pages {
		if err := ctx.Err(); err != nil {
			return "", err
		}
		body, err := pageText(d.ctx, p)
		if err != nil {
			return "", fail("damaged_pdf", "damaged", "name", d.name)
		}
		if body == "" {
			body = text("no_text")
		}
		part := fmt.Sprintf("[Page %d of %d]\n%s", p, d.ctx.PageCount, body)
		if i > 0 {
			part = "\n\n" + part
		}
		n := utf8.RuneCountInString(part)
		if i > 0 && chars+n > host.MaxResultChars-200 {
			b.WriteString("\n\n" + text("cut", "next", strconv.Itoa(p), "max", strconv.Itoa(host.MaxResultChars), "rest", rangesText(pages[i:])))
			break
		}
		b.WriteString(part)
		chars += n
	}
	return b.String(), nil
}

// parsePages reads a list of pages ("2", "1-3", "1,4-6"; "" for all) as
// page numbers in the order given, each once.
func parsePages(spec string, count int, name string) ([]int, error) {
	spec = strings.TrimSpace(spec)
	if spec == "" || strings.EqualFold(spec, "all") {
		out := make([]int, count)
		for i := range out {
			out[i] = i + 1
		}
		return out, nil
	}
	bad := fail("invalid_arguments", "bad_pages", "pages", spec)
	seen := map[int]bool{}
	var out []int
	for _, part := range strings.Split(spec, ",") {
		part = strings.TrimSpace(part)
		lo, hi, isRange := strings.Cut(part, "-")
		first, err := strconv.Atoi(strings.TrimSpace(lo))
		if err != nil || first < 1 {
			return nil, bad
		}
		last := first
		if isRange {
			if last, err = strconv.Atoi(strings.TrimSpace(hi)); err != nil || last < first {
				return nil, bad
			}
		}
		if last > count {
			return nil, fail("invalid_arguments", "out_of_range", "page", strconv.Itoa(max(first, count+1)), "name", name, "count", strconv.Itoa(count))
		}
		for p := first; p <= last; p++ {
			if !seen[p] {
				seen[p] = true
				out = append(out, p)
			}
		}
	}
	return out, nil
}

// rangesText writes pages back as a list of ranges: 3-5,8.
func rangesText(pages []int) string {
	var parts []string
	for i := 0; i < len(pages); {
		j := i
		for j+1 < len(pages) && pages[j+1] == pages[j]+1 {
			j++
		}
		if j == i {
			parts = append(parts, strconv.Itoa(pages[i]))
		} else {
			parts = append(parts, fmt.Sprintf("%d-%d", pages[i], pages[j]))
		}
		i = j + 1
	}
	return strings.Join(parts, ",")
}

// pageText is a page's text: its lines in content order, each trimmed at
// its end, blank lines at most one in a row (tidy, as the JS hosts do
// with pdf.js's items).
func pageText(c *model.Context, p int) (s string, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("pdf: page %d: %s", p, host.PanicText(r))
		}
	}()
	d, _, inh, err := c.PageDict(p, false)
	if err != nil || d == nil {
		return "", fmt.Errorf("pdf: page %d: %v", p, err)
	}
	content, err := c.PageContent(d, p)
	if err != nil && len(content) == 0 {
		// A page without content has no text; one whose content cannot
		// be read is damaged.
		if _, ok := d.Find("Contents"); ok {
			return "", err
		}
	}
	var res types.Dict
	if inh != nil {
		res = inh.Resources
	}
	x := &extractor{c: c, fonts: map[string]*font{}}
	x.run(content, res, identity, 0)
	return tidy(x.out.String()), nil
}

// tidy trims each line's end and the text's ends, and keeps at most one
// blank line in a row.
func tidy(s string) string {
	lines := strings.Split(s, "\n")
	out := lines[:0]
	blank := false
	for _, l := range lines {
		l = strings.TrimRight(l, " \t\r\u00a0")
		if l == "" {
			if !blank && len(out) > 0 {
				out = append(out, "")
			}
			blank = true
			continue
		}
		blank = false
		out = append(out, l)
	}
	return strings.TrimSpace(strings.Join(out, "\n"))
}

// matrix is a PDF transformation [a b c d e f].
type matrix [6]float64

var identity = matrix{1, 0, 0, 1, 0, 0}

// mul is m then n: m × n.
func (m matrix) mul(n matrix) matrix {
	return matrix{
		m[0]*n[0] + m[1]*n[2], m[0]*n[1] + m[1]*n[3],
		m[2]*n[0] + m[3]*n[2], m[2]*n[1] + m[3]*n[3],
		m[4]*n[0] + m[5]*n[2] + n[4], m[4]*n[1] + m[5]*n[3] + n[5],
	}
}

// maxFormDepth bounds form XObjects inside form XObjects.
const maxFormDepth = 8

// extractor runs content streams for their text. Lines break where the
// baseline moves by more than half the font's height; a space goes where
// a glyph starts well after the previous one ended (widths from the
// font's /Widths or /W, half an em when it has none).
type extractor struct {
	c     *model.Context
	fonts map[string]*font // by the font dictionary's object, or name
	out   strings.Builder

	// The end of the last text shown, in device space, and its size.
	lastX, lastY, lastSize float64
	shown                  bool
	ops                    int
}

// maxOps bounds the operators run for one page.
const maxOps = 2_000_000

type textState struct {
	font                 *font
	size, charSp, wordSp float64
	scale, leading, rise float64
	tm, tlm              matrix
}

func (x *extractor) run(content []byte, res types.Dict, ctm matrix, depth int) {
	ts := textState{scale: 1}
	stack := []matrix{}
	lx := lexer{data: content}
	var operands []any
	for {
		tok, ok := lx.next()
		if !ok {
			return
		}
		op, isOp := tok.(operator)
		if !isOp {
			if len(operands) < 64 {
				operands = append(operands, tok)
			}
			continue
		}
		x.ops++
		if x.ops > maxOps {
			return
		}
		nums := func(n int) []float64 {
			if len(operands) < n {
				return nil
			}
			out := make([]float64, n)
			for i, o := range operands[len(operands)-n:] {
				f, ok := o.(float64)
				if !ok {
					return nil
				}
				out[i] = f
			}
			return out
		}
		switch op {
		case "q":
			if len(stack) < 256 {
				stack = append(stack, ctm)
			}
		case "Q":
			if n := len(stack); n > 0 {
				ctm, stack = stack[n-1], stack[:n-1]
			}
		case "cm":
			if v := nums(6); v != nil {
				ctm = matrix(v).mul(ctm)
			}
		case "BT":
			ts.tm, ts.tlm = identity, identity
		case "Tf":
			if len(operands) >= 2 {
				if name, ok := operands[len(operands)-2].(name); ok {
					ts.font = x.font(res, string(name))
				}
				if f, ok := operands[len(operands)-1].(float64); ok {
					ts.size = f
				}
			}
		case "Tc":
			if v := nums(1); v != nil {
				ts.charSp = v[0]
			}
		case "Tw":
			if v := nums(1); v != nil {
				ts.wordSp = v[0]
			}
		case "Tz":
			if v := nums(1); v != nil {
				ts.scale = v[0] / 100
			}
		case "TL":
			if v := nums(1); v != nil {
				ts.leading = v[0]
			}
		case "Ts":
			if v := nums(1); v != nil {
				ts.rise = v[0]
			}
		case "Td", "TD":
			if v := nums(2); v != nil {
				if op == "TD" {
					ts.leading = -v[1]
				}
				ts.tlm = matrix{1, 0, 0, 1, v[0], v[1]}.mul(ts.tlm)
				ts.tm = ts.tlm
			}
		case "Tm":
			if v := nums(6); v != nil {
				ts.tlm = matrix(v)
				ts.tm = ts.tlm
			}
		case "T*":
			ts.tlm = matrix{1, 0, 0, 1, 0, -ts.leading}.mul(ts.tlm)
			ts.tm = ts.tlm
		case "Tj", "'", "\"":
			if op == "\"" {
				if v := nums(3); v != nil {
					ts.wordSp, ts.charSp = v[0], v[1]
				}
			}
			if op != "Tj" {
				ts.tlm = matrix{1, 0, 0, 1, 0, -ts.leading}.mul(ts.tlm)
				ts.tm = ts.tlm
			}
			if len(operands) > 0 {
				if s, ok := operands[len(operands)-1].(pdfStr); ok {
					x.show(&ts, ctm, []byte(s))
				}
			}
		case "TJ":
			if len(operands) > 0 {
				if arr, ok := operands[len(operands)-1].([]any); ok {
					for _, e := range arr {
						switch v := e.(type) {
						case pdfStr:
							x.show(&ts, ctm, []byte(v))
						case float64:
							tx := -v / 1000 * ts.size * ts.scale
							ts.tm = matrix{1, 0, 0, 1, tx, 0}.mul(ts.tm)
						}
					}
				}
			}
		case "Do":
			if depth < maxFormDepth && len(operands) > 0 {
				if n, ok := operands[len(operands)-1].(name); ok {
					x.form(res, string(n), ctm, depth)
				}
			}
		case "ID":
			lx.skipInlineImage()
		}
		operands = operands[:0]
	}
}

// form runs a form XObject's content with its own resources.
func (x *extractor) form(res types.Dict, n string, ctm matrix, depth int) {
	xobjs := x.dict(res, "XObject")
	o, ok := xobjs.Find(n)
	if !ok {
		return
	}
	sd, _, err := x.c.DereferenceStreamDict(o)
	if err != nil || sd == nil {
		return
	}
	if st := sd.Dict.NameEntry("Subtype"); st == nil || *st != "Form" {
		return
	}
	if err := sd.Decode(); err != nil {
		return
	}
	m := identity
	if arr := x.array(sd.Dict, "Matrix"); len(arr) == 6 {
		for i, e := range arr {
			m[i] = number(e)
		}
	}
	formRes := x.dict(sd.Dict, "Resources")
	if formRes == nil {
		formRes = res
	}
	x.run(sd.Content, formRes, m.mul(ctm), depth+1)
}

// show adds a string's text, with a line break or a space before it when
// its position says so, and moves the text matrix past it.
func (x *extractor) show(ts *textState, ctm matrix, s []byte) {
	f := ts.font
	if f == nil {
		f = &font{}
	}
	trm := matrix{ts.size * ts.scale, 0, 0, ts.size, 0, ts.rise}.mul(ts.tm).mul(ctm)
	size := math.Hypot(trm[2], trm[3])
	if size == 0 {
		size = 1
	}
	px, py := trm[4], trm[5]
	var text strings.Builder
	for _, g := range f.decode(s) {
		text.WriteString(g.text)
		w := g.width/1000*ts.size + ts.charSp
		if g.space {
			w += ts.wordSp
		}
		ts.tm = matrix{1, 0, 0, 1, w * ts.scale, 0}.mul(ts.tm)
	}
	str := text.String()
	if str == "" {
		return
	}
	if x.shown {
		dy := py - x.lastY
		dx := px - x.lastX
		switch {
		case math.Abs(dy) > 0.5*math.Max(size, x.lastSize):
			x.out.WriteString("\n")
		case dx > 0.15*size && !strings.HasSuffix(x.out.String(), " ") && !strings.HasPrefix(str, " "):
			x.out.WriteString(" ")
		}
	}
	x.out.WriteString(str)
	end := matrix{ts.size * ts.scale, 0, 0, ts.size, 0, ts.rise}.mul(ts.tm).mul(ctm)
	x.lastX, x.lastY, x.lastSize, x.shown = end[4], end[5], size, true
}

// font gives the decoder of a font resource, made once per page.
func (x *extractor) font(res types.Dict, n string) *font {
	fonts := x.dict(res, "Font")
	o, ok := fonts.Find(n)
	if !ok {
		return nil
	}
	key := n
	if ref, ok := o.(types.IndirectRef); ok {
		key = ref.String()
	}
	if f, ok := x.fonts[key]; ok {
		return f
	}
	d, err := x.c.DereferenceDict(o)
	var f *font
	if err == nil && d != nil {
		f = loadFont(x, d)
	}
	x.fonts[key] = f
	return f
}

// dict is d's entry key as a dictionary, nil when it is not one.
func (x *extractor) dict(d types.Dict, key string) types.Dict {
	if d == nil {
		return nil
	}
	o, ok := d.Find(key)
	if !ok {
		return nil
	}
	v, err := x.c.DereferenceDict(o)
	if err != nil {
		return nil
	}
	return v
}

// array is d's entry key as an array, its elements dereferenced.
func (x *extractor) array(d types.Dict, key string) types.Array {
	if d == nil {
		return nil
	}
	o, ok := d.Find(key)
	if !ok {
		return nil
	}
	o, _ = x.c.Dereference(o)
	arr, _ := o.(types.Array)
	out := make(types.Array, len(arr))
	for i, e := range arr {
		out[i], _ = x.c.Dereference(e)
	}
	return out
}

// stream is the decoded content of d's entry key, nil when it has none.
func (x *extractor) stream(d types.Dict, key string) []byte {
	o, ok := d.Find(key)
	if !ok {
		return nil
	}
	sd, _, err := x.c.DereferenceStreamDict(o)
	if err != nil || sd == nil || sd.Decode() != nil {
		return nil
	}
	return sd.Content
}

func number(o types.Object) float64 {
	switch v := o.(type) {
	case types.Integer:
		return float64(v)
	case types.Float:
		return float64(v)
	}
	return 0
}
