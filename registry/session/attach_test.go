package session

import (
	"encoding/base64"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	"github.com/toolroute/toolroute/registry"
	"github.com/toolroute/toolroute/registry/wire"
)

func b64(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }

// TestAttachFiles: what a file is comes from its bytes, whatever its
// name says; the caps refuse with the file named and what to do.
func TestAttachFiles(t *testing.T) {
	png := "\x89PNG\r\n\x1a\n" + strings.Repeat("x", 8)
	bigImage := "\x89PNG\r\n\x1a\n" + strings.Repeat("x", registry.MaxImageChars/4*3)
	tests := []struct {
		name    string
		files   []Attachment
		format  wire.Format
		model   string
		want    []Attachment
		wantErr string
	}{
		{name: "image named as text", files: []Attachment{{Name: "x.txt", Data: b64(png)}},
			want: []Attachment{{Name: "x.txt", MIMEType: "image/png", Data: b64(png)}}},
		{name: "text named as image", files: []Attachment{{Name: "x.png", Data: b64("hello\n")}},
			want: []Attachment{{Name: "x.png", MIMEType: TextType, Text: "hello\n"}}},
		{name: "webp", files: []Attachment{{Name: "w", Data: b64("RIFF\x00\x00\x00\x00WEBPVP8 ")}},
			want: []Attachment{{Name: "w", MIMEType: "image/webp", Data: b64("RIFF\x00\x00\x00\x00WEBPVP8 ")}}},
		{name: "text given as text", files: []Attachment{{Name: "p", Text: "\ufeffsome"}},
			want: []Attachment{{Name: "p", MIMEType: TextType, Text: "some"}}},
		{name: "text at the cap", files: []Attachment{{Name: "a", Text: strings.Repeat("a", MaxAttachedText)}},
			want: []Attachment{{Name: "a", MIMEType: TextType, Text: strings.Repeat("a", MaxAttachedText)}}},
		{name: "text past the cap", files: []Attachment{{Name: "big.log", Text: strings.Repeat("a", MaxAttachedText+1)}},
			wantErr: `attachments[0] "big.log": the text file is 100001 bytes, over the limit of 100000: attach the part that matters, or paste it`},
		{name: "texts past the cap in all", files: []Attachment{{Name: "a", Text: strings.Repeat("a", MaxAttachedText/2)}, {Name: "b", Text: strings.Repeat("b", MaxAttachedText/2+1)}},
			wantErr: `attachments[1] "b": the message's text files pass 100000 bytes in all: send some in another message`},
		{name: "image past the cap", files: []Attachment{{Name: "huge.png", Data: b64(bigImage)}},
			wantErr: `attachments[0] "huge.png": the image is 3932168 bytes, over the limit of 3932160 (5242880 base64 characters): make it smaller`},
		{name: "data past every cap, an image", files: []Attachment{{Name: "huge.png", Data: b64(bigImage + strings.Repeat("x", 3<<20))}},
			wantErr: `attachments[0] "huge.png": the image is 7077896 bytes, over the limit of 3932160 (5242880 base64 characters): make it smaller`},
		{name: "data past every cap, not an image", files: []Attachment{{Name: "big.log", Data: b64(strings.Repeat("a", 4<<20))}},
			wantErr: `attachments[0] "big.log": the file is 4194304 bytes, more than any attachment takes (an image 3932160, a text file 100000): attach the part that matters`},
		{name: "text given past the cap", files: []Attachment{{Name: "big.log", Text: strings.Repeat("a", 4<<20)}},
			wantErr: `attachments[0] "big.log": the text file is 4194304 bytes, over the limit of 100000: attach the part that matters, or paste it`},
		{name: "control character in the name", files: []Attachment{{Name: "a\nb", Text: "x"}},
			wantErr: `attachments[0]: give the file's name: not blank, at most 255 bytes of UTF-8 with no control characters`},
		{name: "text-only model", model: "deepseek-chat", files: []Attachment{{Name: "a.png", Data: b64(png)}},
			wantErr: `attachments[0] "a.png": the model deepseek-chat reads no images: remove the image, or choose a model that reads them`},
		{name: "text to a text-only model", model: "deepseek-chat", files: []Attachment{{Name: "a", Text: "x"}},
			want: []Attachment{{Name: "a", MIMEType: TextType, Text: "x"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			format, model := tt.format, tt.model
			if format == "" {
				format = wire.OpenAI
			}
			if model == "" {
				model = "gpt-4o"
			}
			got, err := AttachFiles(tt.files, format, model)
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Fatalf("error %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("attachments (-want +got):\n%s", diff)
			}
		})
	}
}

// TestUserText: a text file is read after the message's text, under its
// name; images are not text.
func TestUserText(t *testing.T) {
	m := Message{Type: User, Content: "Compare", Attachments: []Attachment{
		{Name: `a "1".txt`, MIMEType: TextType, Text: "one\n"},
		{Name: "p.png", MIMEType: "image/png", Data: "iVBORw0KGgo="},
		{Name: "b.md", MIMEType: TextType, Text: "two"},
	}}
	want := "Compare\n\n<file name=\"a \\\"1\\\".txt\">\none\n</file>\n\n<file name=\"b.md\">\ntwo\n</file>"
	if got := UserText(&m); got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

// FuzzAttachFiles: any file is refused with an error or kept as an image
// of a type the models read or as UTF-8 text, within the caps.
func FuzzAttachFiles(f *testing.F) {
	f.Add("a.png", "\x89PNG\r\n\x1a\nxxxx", true)
	f.Add("a.txt", "\ufeffhello", false)
	f.Add("", "GIF89a", true)
	f.Fuzz(func(t *testing.T, name, content string, asData bool) {
		file := Attachment{Name: name, Text: content}
		if asData {
			file = Attachment{Name: name, Data: b64(content)}
		}
		got, err := AttachFiles([]Attachment{file}, wire.Gemini, "m")
		if err != nil {
			return
		}
		a := got[0]
		switch {
		case a.MIMEType == TextType:
			if !utf8.ValidString(a.Text) || len(a.Text) > MaxAttachedText || a.Data != "" {
				t.Errorf("kept text %+v", a)
			}
		case slices.Contains(registry.ImageTypes, a.MIMEType) && a.MIMEType != "image/gif":
			if a.Text != "" || len(a.Data) > registry.MaxImageChars {
				t.Errorf("kept image %+v", a)
			}
		default:
			t.Errorf("kept %+v", a)
		}
	})
}
