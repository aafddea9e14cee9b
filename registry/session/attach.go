package session

import (
	"encoding/base64"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/toolroute/toolroute/registry"
	"github.com/toolroute/toolroute/registry/wire"
)

// Attachment is a file the user attached to a message. A start event gives
// each as its Name and Data, the file's bytes in standard base64 (or as
// Text, a text file already read); the turn decides from the bytes what it
// is (AttachFiles) and logs it on the user message: an image, with its
// MIMEType and Data, which the model sees in its wire format's image form;
// or a text file, MIMEType "text/plain" and its Text, which the model reads
// after the message's text, under its name (UserText).
type Attachment struct {
	Name     string `json:"name"`
	MIMEType string `json:"mime_type,omitempty"`
	Data     string `json:"data,omitempty"`
	Text     string `json:"text,omitempty"`
}

// The caps on one message's attachments. Each stays in the session's log
// and goes with every later model call, so they are kept small; an image's
// are the caps of a tool result's images (registry.MaxImageChars and the
// others).
const (
	// MaxAttachments is the most files one message carries.
	MaxAttachments = 8
	// MaxAttachedImages is the most images one message carries.
	MaxAttachedImages = registry.MaxResultImages
	// MaxAttachedText is the most bytes of one text file, and of all the
	// text files of one message: about 25,000 tokens.
	MaxAttachedText = 100_000
	// MaxAttachmentName is the most bytes of a file's name.
	MaxAttachmentName = 255
)

// TextType is the media type a text file is logged with.
const TextType = "text/plain"

// AttachFiles checks the files attached to a user message for a model
// call in format to model, and returns them as the log keeps them, in
// order. A file is an image when its bytes begin with the signature of
// one of registry.ImageTypes, and text when they are UTF-8 with no NUL (a
// byte-order mark dropped); anything else, a file past a cap, or an image
// for a model that reads none (ImagesRefused) is refused with an error
// that names the file and says what to do: before any request, so the
// message and its files are still the user's to change.
func AttachFiles(files []Attachment, format wire.Format, model string) ([]Attachment, error) {
	if len(files) > MaxAttachments {
		return nil, fmt.Errorf("%d files are attached: a message carries at most %d", len(files), MaxAttachments)
	}
	var out []Attachment
	images, imageChars, text := 0, 0, 0
	for i, f := range files {
		bad := func(format string, args ...any) error {
			return fmt.Errorf("attachments[%d] %q: %s", i, f.Name, fmt.Sprintf(format, args...))
		}
		if strings.TrimSpace(f.Name) == "" || len(f.Name) > MaxAttachmentName || !utf8.ValidString(f.Name) || strings.ContainsFunc(f.Name, isControl) {
			return nil, fmt.Errorf("attachments[%d]: give the file's name: not blank, at most %d bytes of UTF-8 with no control characters", i, MaxAttachmentName)
		}
		var content []byte
		switch {
		case f.Data != "" && f.Text != "":
			return nil, bad("give the file's bytes in data or its text in text, not both")
		case len(f.Data) > registry.MaxImageChars:
			// Past every cap: refused before decoding megabytes, as an
			// image when its first bytes say so.
			head, _ := base64.StdEncoding.DecodeString(f.Data[:16])
			n := len(f.Data)/4*3 - strings.Count(f.Data[len(f.Data)-2:], "=")
			if registry.SniffImage(head) != "" {
				return nil, bad("the image is %d bytes, over the limit of %d (%d base64 characters): make it smaller", n, registry.MaxImageChars/4*3, registry.MaxImageChars)
			}
			return nil, bad("the file is %d bytes, more than any attachment takes (an image %d, a text file %d): attach the part that matters", n, registry.MaxImageChars/4*3, MaxAttachedText)
		case len(f.Text) > MaxAttachedText+3: // a byte-order mark is dropped
			return nil, bad("the text file is %d bytes, over the limit of %d: attach the part that matters, or paste it", len(f.Text), MaxAttachedText)
		case f.Data != "":
			b, err := base64.StdEncoding.DecodeString(f.Data)
			if err != nil {
				return nil, bad("data is not standard base64 with padding: give the file's bytes so encoded")
			}
			content = b
		default:
			content = []byte(f.Text)
		}
		if len(content) == 0 {
			return nil, bad("the file is empty: attach a file with something in it")
		}
		if t := registry.SniffImage(content); t != "" {
			data := f.Data
			if data == "" {
				data = base64.StdEncoding.EncodeToString(content)
			}
			images++
			imageChars += len(data)
			switch {
			case images > MaxAttachedImages:
				return nil, bad("a message carries at most %d images: send the others in another message", MaxAttachedImages)
			case len(data) > registry.MaxImageChars:
				return nil, bad("the image is %d bytes, over the limit of %d (%d base64 characters): make it smaller", len(content), registry.MaxImageChars/4*3, registry.MaxImageChars)
			case imageChars > registry.MaxResultImageChars:
				return nil, bad("the message's images pass %d base64 characters in all (about %d bytes): make them smaller, or send some in another message", registry.MaxResultImageChars, registry.MaxResultImageChars/4*3)
			}
			if why := ImagesRefused(format, model, t); why != "" {
				return nil, bad("%s", why)
			}
			out = append(out, Attachment{Name: f.Name, MIMEType: t, Data: data})
			continue
		}
		content = trimBOM(content)
		if !utf8.Valid(content) || strings.ContainsRune(string(content), 0) {
			return nil, bad("the file is neither an image the models read (PNG, JPEG, GIF or WebP) nor UTF-8 text: convert it to one of them, or paste what it says")
		}
		text += len(content)
		switch {
		case len(content) > MaxAttachedText:
			return nil, bad("the text file is %d bytes, over the limit of %d: attach the part that matters, or paste it", len(content), MaxAttachedText)
		case text > MaxAttachedText:
			return nil, bad("the message's text files pass %d bytes in all: send some in another message", MaxAttachedText)
		}
		out = append(out, Attachment{Name: f.Name, MIMEType: TextType, Text: string(content)})
	}
	return out, nil
}

func isControl(r rune) bool { return r < 0x20 || r == 0x7f }

func trimBOM(b []byte) []byte {
	if len(b) >= 3 && string(b[:3]) == "\xef\xbb\xbf" {
		return b[3:]
	}
	return b
}

// textOnly are models known to read no images, by name (exact, or a
// prefix when it ends in "*"). A model not listed may still refuse an
// image: the provider's refusal then ends the turn as a model error.
var textOnly = []string{"gpt-3.5*", "gpt-4", "gpt-4-0314", "gpt-4-0613", "gpt-4-32k*", "o1-mini*", "o3-mini*",
	"claude-2*", "claude-instant*", "deepseek-chat", "deepseek-reasoner", "deepseek-coder*"}

// ImagesRefused says why an image of media type t cannot go to model in
// format, or "" when it can (as far as toolroute knows).
func ImagesRefused(format wire.Format, model, t string) string {
	for _, m := range textOnly {
		if p, ok := strings.CutSuffix(m, "*"); (ok && strings.HasPrefix(model, p)) || model == m {
			return fmt.Sprintf("the model %s reads no images: remove the image, or choose a model that reads them", model)
		}
	}
	if format == wire.Gemini && !wire.GeminiImageType(t) {
		return fmt.Sprintf("Gemini reads no %s images: convert it to PNG, JPEG or WebP", strings.ToUpper(strings.TrimPrefix(t, "image/")))
	}
	return ""
}

// UserText is the text the model reads for a user message: its content,
// then each text file attached, under its name.
func UserText(m *Message) string {
	if len(m.Attachments) == 0 {
		return m.Content
	}
	var b strings.Builder
	b.WriteString(m.Content)
	for _, a := range m.Attachments {
		if a.MIMEType != TextType {
			continue
		}
		if b.Len() > 0 {
			b.WriteString("\n\n")
		}
		fmt.Fprintf(&b, "<file name=%q>\n%s\n</file>", a.Name, strings.TrimSuffix(a.Text, "\n"))
	}
	return b.String()
}

// userImages are the images attached to a user message, as the codecs
// take them.
func userImages(m *Message) []wire.Image {
	var out []wire.Image
	for _, a := range m.Attachments {
		if a.MIMEType != TextType && a.Data != "" {
			out = append(out, wire.Image{MIMEType: a.MIMEType, Data: a.Data})
		}
	}
	return out
}
