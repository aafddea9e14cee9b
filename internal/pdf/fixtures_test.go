package pdf

import (
	"bytes"
	"compress/zlib"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pdfcpu/pdfcpu/pkg/api"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/model"
)

var update = flag.Bool("update", false, "write testdata/pdf's fixtures again")

// fixtureDir holds the PDFs every host's tests read (testdata/pdf).
const fixtureDir = "../../testdata/pdf"

// fixtures are the PDFs made here byte for byte; encrypted.pdf is made from
// two-pages.pdf with a random key, so only -update writes it.
func fixtures() map[string][]byte {
	return map[string][]byte{
		"two-pages.pdf": twoPages(),
		"image.pdf":     imagePDF(),
		"broken.pdf":    []byte("%PDF-1.7\n1 0 obj\n<< /Type /Catalog /Pages 2 0 R >>\nendobj\n2 0 obj\n<< /Type /Pages /Kids [3 0 R"),
		"notes.txt":     []byte("These are notes, not a PDF.\n"),
	}
}

// TestFixtures checks that testdata/pdf holds what the generator makes;
// -update writes them, encrypted.pdf too.
func TestFixtures(t *testing.T) {
	for name, want := range fixtures() {
		path := filepath.Join(fixtureDir, name)
		if *update {
			if err := os.WriteFile(path, want, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		got, err := os.ReadFile(path)
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s is not what the generator makes: run go test ./internal/pdf -run TestFixtures -update", path)
		}
	}
	if *update {
		var out bytes.Buffer
		conf := model.NewAESConfiguration(FixturePassword, "owner-"+FixturePassword, 128)
		if err := api.Encrypt(bytes.NewReader(twoPages()), &out, conf); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(fixtureDir, "encrypted.pdf"), out.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// FixturePassword opens encrypted.pdf.
const FixturePassword = "secret"

// pdfWriter writes a PDF of numbered objects with its cross-reference
// table. Every fixture but image.pdf is ASCII, so that the JS hosts' text
// sandboxes (IndexedDB, a Durable Object) keep it byte for byte.
type pdfWriter struct {
	buf     bytes.Buffer
	offsets []int
}

func newPDF() *pdfWriter {
	w := &pdfWriter{}
	w.buf.WriteString("%PDF-1.7\n")
	return w
}

// obj writes the next object, numbered from 1.
func (w *pdfWriter) obj(body string) {
	w.offsets = append(w.offsets, w.buf.Len())
	fmt.Fprintf(&w.buf, "%d 0 obj\n%s\nendobj\n", len(w.offsets), body)
}

// stream writes a stream object, Flate-compressed when deflate is set.
func (w *pdfWriter) stream(dict string, data []byte, deflate bool) {
	if deflate {
		var z bytes.Buffer
		zw, _ := zlib.NewWriterLevel(&z, zlib.BestCompression)
		zw.Write(data)
		zw.Close()
		data = z.Bytes()
		dict += " /Filter /FlateDecode"
	}
	w.obj(fmt.Sprintf("<< %s /Length %d >>\nstream\n%s\nendstream", dict, len(data), data))
}

// bytes ends the file: the table, the trailer (root 1 0 R, info infoObj
// when not 0) and startxref.
func (w *pdfWriter) bytes(infoObj int) []byte {
	xref := w.buf.Len()
	fmt.Fprintf(&w.buf, "xref\n0 %d\n0000000000 65535 f \n", len(w.offsets)+1)
	for _, off := range w.offsets {
		fmt.Fprintf(&w.buf, "%010d 00000 n \n", off)
	}
	info := ""
	if infoObj > 0 {
		info = fmt.Sprintf(" /Info %d 0 R", infoObj)
	}
	fmt.Fprintf(&w.buf, "trailer\n<< /Size %d /Root 1 0 R%s >>\nstartxref\n%d\n%%%%EOF\n", len(w.offsets)+1, info, xref)
	return w.buf.Bytes()
}

// textLines is a content stream writing lines from (x, y) down, 18 pt apart.
func textLines(font string, size, x, y int, lines ...string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "BT\n/%s %d Tf\n%d %d Td\n", font, size, x, y)
	for i, l := range lines {
		if i > 0 {
			b.WriteString("0 -18 Td\n")
		}
		fmt.Fprintf(&b, "(%s) Tj\n", l)
	}
	b.WriteString("ET\n")
	return b.String()
}

// twoPages is a US Letter PDF of two pages of text in Helvetica
// (WinAnsiEncoding: \351 is é, \200 is €), with a full Info dictionary;
// page 2 draws its text with TJ and a Tm.
func twoPages() []byte {
	w := newPDF()
	w.obj("<< /Type /Catalog /Pages 2 0 R >>")
	w.obj("<< /Type /Pages /Kids [3 0 R 4 0 R] /Count 2 /MediaBox [0 0 612 792] >>")
	w.obj("<< /Type /Page /Parent 2 0 R /Resources << /Font << /F1 5 0 R >> >> /Contents 6 0 R >>")
	w.obj("<< /Type /Page /Parent 2 0 R /Resources << /Font << /F1 5 0 R >> >> /Contents 7 0 R >>")
	w.obj("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>")
	w.stream("", []byte(textLines("F1", 14, 72, 720,
		"Quarterly notes",
		"Revenue grew 12% in the first quarter.",
		`Caf\351 prices: \2003 each, \(taxes included\).`)), false)
	w.stream("", []byte("BT\n/F1 12 Tf\n1 0 0 1 72 700 Tm\n[(Page two) ( says goodbye.)] TJ\n0 -16 Td\n(The end.) Tj\nET\n"), false)
	w.obj("<< /Title (Quarterly notes) /Author (toolroute tests) /Subject (Fixtures for the pdf tools) " +
		"/Keywords (pdf, fixtures) /Creator (toolroute's fixture generator) /Producer (toolroute) " +
		"/CreationDate (D:20240102030405Z) /ModDate (D:20240203040506+01'00') >>")
	return w.bytes(8)
}

// imagePDF is an A4 PDF of two pages: a 64 x 48 gradient with a caption,
// then the gradient alone (a page without text, as a scan is). Its streams
// are Flate-compressed, so it is binary; its Info has a UTF-16 title.
func imagePDF() []byte {
	pixels := make([]byte, 0, 64*48*3)
	for y := range 48 {
		for x := range 64 {
			pixels = append(pixels, byte(x*4), byte(y*5), byte(255-x*2))
		}
	}
	w := newPDF()
	w.obj("<< /Type /Catalog /Pages 2 0 R >>")
	w.obj("<< /Type /Pages /Kids [3 0 R 4 0 R] /Count 2 >>")
	w.obj("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595.28 841.89] /Resources << /Font << /F1 5 0 R >> /XObject << /Im1 6 0 R >> >> /Contents 7 0 R >>")
	w.obj("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595.28 841.89] /Resources << /XObject << /Im1 6 0 R >> >> /Contents 8 0 R >>")
	w.obj("<< /Type /Font /Subtype /Type1 /BaseFont /Times-Roman >>")
	w.stream("/Type /XObject /Subtype /Image /Width 64 /Height 48 /ColorSpace /DeviceRGB /BitsPerComponent 8", pixels, true)
	w.stream("", []byte("q 384 0 0 288 105 450 cm /Im1 Do Q\n"+textLines("F1", 16, 105, 420, "A picture of a gradient.")), true)
	w.stream("", []byte("q 384 0 0 288 105 450 cm /Im1 Do Q\n"), true)
	// "Gradient ✓" in UTF-16BE with its byte order mark.
	w.obj("<< /Title <FEFF004700720061006400690065006E007400202713> >>")
	return w.bytes(9)
}
