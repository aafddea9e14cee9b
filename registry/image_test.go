package registry

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestCheckImages(t *testing.T) {
	png := Image{MIMEType: "image/png", Data: "iVBORw0KGgo="}
	big := Image{MIMEType: "image/jpeg", Data: strings.Repeat("A", MaxImageChars-4) + "AA=="}
	images := []Image{
		png,
		{MIMEType: "image/bmp", Data: "Qk0="},
		{MIMEType: "image/png", Data: "not base64!"},
		{MIMEType: "image/png", Data: "iVBORw0KGgo"}, // no padding
		{MIMEType: "image/png", Data: "ab=c"},
		{MIMEType: "image/png", Data: ""},
		big, // fits alone, not after the first
		{MIMEType: "image/gif", Data: strings.Repeat("A", MaxImageChars+4)},
		png, png, png,
	}
	text, kept := CheckImages("pictures", images)
	if diff := cmp.Diff([]Image{png, png, png, png}, kept); diff != "" {
		t.Errorf("kept (-want +got):\n%s", diff)
	}
	want := []string{
		"pictures",
		`[toolroute: image 2 of 11 was not sent to the model: its type "image/bmp" is not one the model reads (PNG, JPEG, GIF or WebP)]`,
		"[toolroute: image 3 of 11 was not sent to the model: its data is not base64]",
		"[toolroute: image 4 of 11 was not sent to the model: its data is not base64]",
		"[toolroute: image 5 of 11 was not sent to the model: its data is not base64]",
		"[toolroute: image 6 of 11 was not sent to the model: its data is not base64]",
		"[toolroute: image 7 of 11 was not sent to the model: the result's images would pass 5242880 base64 characters]",
		"[toolroute: image 8 of 11 was not sent to the model: it is 5242884 base64 characters, over the limit of 5242880 per image]",
	}
	if diff := cmp.Diff(strings.Join(want, "\n\n"), text); diff != "" {
		t.Errorf("text (-want +got):\n%s", diff)
	}
	text, kept = CheckImages("", []Image{big, png, png, png, png})
	if len(kept) != 1 || strings.Count(text, "[toolroute: image") != 4 || strings.HasPrefix(text, "\n") {
		t.Errorf("after a 5 MiB image: kept %d, text %q", len(kept), text)
	}
	text, kept = CheckImages("five", []Image{png, png, png, png, png})
	if len(kept) != MaxResultImages || text != "five\n\n[toolroute: image 5 of 5 was not sent to the model: a result carries at most 4 images]" {
		t.Errorf("five images: kept %d, text %q", len(kept), text)
	}
	if text, kept := CheckImages("none", nil); text != "none" || kept != nil {
		t.Errorf("no images: %q %v", text, kept)
	}
}

// TestCheckDocuments: a result keeps its PDFs within the caps its images
// have, the images kept counted first; each left out gets a note saying
// why, after the text.
func TestCheckDocuments(t *testing.T) {
	pdf := Document{MIMEType: "application/pdf", Data: "JVBERi0xLjQK", Name: "file:///a.pdf"}
	big := strings.Repeat("A", MaxResultImageChars-8)
	text, kept := CheckDocuments("r", []Image{{MIMEType: "image/png", Data: big}},
		[]Document{pdf, {MIMEType: "application/zip", Data: "UEsDBA=="}, {MIMEType: "application/pdf", Data: "not base64!"}})
	if len(kept) != 0 {
		t.Errorf("kept %+v past the result's cap", kept)
	}
	want := "r\n\n[toolroute: document 1 of 3 was not sent to the model: the result's images and documents would pass 5242880 base64 characters]" +
		"\n\n[toolroute: document 2 of 3 was not sent to the model: its type \"application/zip\" is not one the model reads as a document (PDF)]" +
		"\n\n[toolroute: document 3 of 3 was not sent to the model: its data is not base64]"
	if text != want {
		t.Errorf("text:\n%s\nwant:\n%s", text, want)
	}
	text, kept = CheckDocuments("", nil, []Document{pdf, pdf, pdf})
	if len(kept) != MaxResultDocuments || text != "[toolroute: document 3 of 3 was not sent to the model: a result carries at most 2 documents]" {
		t.Errorf("three PDFs: kept %d, text %q", len(kept), text)
	}
}
