package pdf

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf16"

	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/types"
)

// info answers pdf_info: the page count, the version, the size, the
// Info dictionary's texts and dates, and the page sizes (web/packages/toolroute/host/pdf.js
// writes the same lines from pdf.js).
func (t *tools) info(ctx context.Context, in json.RawMessage) (string, error) {
	src, err := args[source](in)
	if err != nil {
		return "", err
	}
	d, err := t.open(ctx, src)
	if err != nil {
		return "", err
	}
	c := d.ctx
	lines := []string{
		"File: " + d.name,
		"Pages: " + strconv.Itoa(c.PageCount),
		"PDF version: " + c.VersionString(),
		"Size: " + strconv.Itoa(len(d.data)) + " bytes",
	}
	var infoDict types.Dict
	if c.Info != nil {
		infoDict, _ = c.DereferenceDict(*c.Info)
	}
	for _, f := range infoFields {
		o, ok := infoDict.Find(f.key)
		if !ok {
			continue
		}
		o, _ = c.Dereference(o)
		s := pdfString(o)
		if f.date {
			s = pdfDate(s)
		}
		if s = strings.TrimSpace(s); s != "" {
			lines = append(lines, f.label+": "+s)
		}
	}
	if c.Encrypt != nil {
		lines = append(lines, text("encrypted_line"))
	}
	var sizes []pageSize
	for p := 1; p <= min(c.PageCount, Def.InfoMaxPages); p++ {
		_, _, inh, err := c.PageDict(p, false)
		if err != nil || inh == nil {
			return "", fail("damaged_pdf", "damaged", "name", d.name)
		}
		sizes = append(sizes, sizeOf(inh.MediaBox, inh.CropBox, inh.Rotate))
	}
	lines = append(lines, sizeLines(sizes, c.PageCount)...)
	return strings.Join(lines, "\n"), nil
}

// infoFields are the Info dictionary's entries pdf_info shows, in order.
var infoFields = []struct {
	key, label string
	date       bool
}{
	{"Title", "Title", false},
	{"Author", "Author", false},
	{"Subject", "Subject", false},
	{"Keywords", "Keywords", false},
	{"Creator", "Creator", false},
	{"Producer", "Producer", false},
	{"CreationDate", "Created", true},
	{"ModDate", "Modified", true},
}

// pageSize is a page's visible size in points, as shown (rotated).
type pageSize struct{ w, h float64 }

// sizeOf is the crop box within the media box, turned by the rotation, as
// pdf.js's page.view and rotate give it.
func sizeOf(media, crop *types.Rectangle, rotate int) pageSize {
	r := types.Rectangle{UR: types.Point{X: 612, Y: 792}}
	if media != nil {
		r = *media
	}
	if crop != nil {
		i := types.Rectangle{
			LL: types.Point{X: max(r.LL.X, crop.LL.X), Y: max(r.LL.Y, crop.LL.Y)},
			UR: types.Point{X: min(r.UR.X, crop.UR.X), Y: min(r.UR.Y, crop.UR.Y)},
		}
		if i.UR.X > i.LL.X && i.UR.Y > i.LL.Y {
			r = i
		}
	}
	s := pageSize{w: r.UR.X - r.LL.X, h: r.UR.Y - r.LL.Y}
	if s.w < 0 {
		s.w = -s.w
	}
	if s.h < 0 {
		s.h = -s.h
	}
	if ((rotate%360)+360)%180 == 90 {
		s.w, s.h = s.h, s.w
	}
	return s
}

// sizeLines says the pages' sizes: one line when all are the same, else a
// line per run of pages of one size.
func sizeLines(sizes []pageSize, count int) []string {
	type run struct {
		s           pageSize
		first, last int
	}
	var runs []run
	for i, s := range sizes {
		if n := len(runs); n > 0 && runs[n-1].s == s {
			runs[n-1].last = i + 1
			continue
		}
		runs = append(runs, run{s, i + 1, i + 1})
	}
	if len(runs) == 1 && len(sizes) == count {
		return []string{"Page size: " + sizeText(runs[0].s)}
	}
	head := "Page sizes:"
	if len(sizes) < count {
		head = fmt.Sprintf("Page sizes (the first %d pages):", len(sizes))
	}
	out := []string{head}
	for _, r := range runs {
		out = append(out, "- "+pagesText(r.first, r.last)+": "+sizeText(r.s))
	}
	return out
}

func pagesText(first, last int) string {
	if first == last {
		return "page " + strconv.Itoa(first)
	}
	return fmt.Sprintf("pages %d-%d", first, last)
}

// sizeText is "612 x 792 pt (8.5 x 11 in)".
func sizeText(s pageSize) string {
	return fmt.Sprintf("%s x %s pt (%s x %s in)", num(s.w), num(s.h), num(s.w/72), num(s.h/72))
}

// num writes a number with at most two decimals, trailing zeros dropped,
// as the JS hosts' Number.toFixed(2) and the same trimming do.
func num(f float64) string {
	s := strconv.FormatFloat(f, 'f', 2, 64)
	s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	if s == "-0" {
		s = "0"
	}
	return s
}

// pdfString decodes a text string of the document (its Info): UTF-16BE
// with its byte order mark, UTF-8 with its mark (PDF 2.0), else
// PDFDocEncoding.
func pdfString(o types.Object) string {
	var b []byte
	switch v := o.(type) {
	case types.StringLiteral:
		u, err := types.Unescape(string(v))
		if err != nil {
			return ""
		}
		b = u
	case types.HexLiteral:
		u, err := v.Bytes()
		if err != nil {
			return ""
		}
		b = u
	case types.Name:
		return string(v)
	default:
		return ""
	}
	return decodeTextString(b)
}

func decodeTextString(b []byte) string {
	switch {
	case len(b) >= 2 && b[0] == 0xFE && b[1] == 0xFF:
		u := make([]uint16, 0, len(b)/2)
		for i := 2; i+1 < len(b); i += 2 {
			u = append(u, uint16(b[i])<<8|uint16(b[i+1]))
		}
		return string(utf16.Decode(u))
	case len(b) >= 3 && b[0] == 0xEF && b[1] == 0xBB && b[2] == 0xBF:
		return strings.ToValidUTF8(string(b[3:]), "\uFFFD")
	}
	var sb strings.Builder
	for _, c := range b {
		sb.WriteRune(pdfDocRune(c))
	}
	return sb.String()
}

// pdfDocRune is PDFDocEncoding: Latin-1 but for 0x18-0x1F and 0x80-0xA0.
func pdfDocRune(c byte) rune {
	switch {
	case c >= 0x18 && c <= 0x1F:
		return []rune("˘ˇˆ˙˝˛˚˜")[c-0x18]
	case c >= 0x80 && c <= 0xA0:
		r := []rune("•†‡…—–ƒ⁄‹›−‰„“”‘’‚™ﬁﬂŁŒŠŸŽıłœšž\uFFFD€")[c-0x80]
		return r
	}
	return rune(c)
}

// pdfDate writes a PDF date (D:YYYYMMDDHHmmSSOHH'mm') as ISO 8601 with
// what it gives: 2024-01-02T03:04:05Z, or as it is when it is not one.
func pdfDate(s string) string {
	raw := strings.TrimSpace(s)
	d := strings.TrimPrefix(raw, "D:")
	digits := 0
	for digits < len(d) && digits < 14 && d[digits] >= '0' && d[digits] <= '9' {
		digits++
	}
	if digits < 4 || digits%2 != 0 {
		return raw
	}
	parts := []string{"01", "01", "00", "00", "00"}
	for i := 0; 4+2*i < digits; i++ {
		parts[i] = d[4+2*i : 6+2*i]
	}
	out := fmt.Sprintf("%s-%s-%sT%s:%s:%s", d[:4], parts[0], parts[1], parts[2], parts[3], parts[4])
	rest := d[digits:]
	switch {
	case rest == "" || rest == "Z" || strings.HasPrefix(rest, "Z"):
		if rest == "" {
			return out
		}
		return out + "Z"
	case rest[0] == '+' || rest[0] == '-':
		tz := strings.ReplaceAll(rest[1:], "'", "")
		if len(tz) >= 2 && isDigits(tz[:2]) {
			mm := "00"
			if len(tz) >= 4 && isDigits(tz[2:4]) {
				mm = tz[2:4]
			}
			return out + rest[:1] + tz[:2] + ":" + mm
		}
	}
	return out
}

func isDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}
