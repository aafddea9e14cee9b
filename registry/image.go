package registry

import (
	"fmt"
	"slices"
)

// Image is a picture in a tool's result, for the model to see where the wire
// format carries images (Anthropic's tool_result blocks); the result's text
// names it with a placeholder for the formats that do not.
type Image struct {
	// MIMEType is the image's media type, such as "image/png".
	MIMEType string `json:"mime_type"`
	// Data is the image, standard base64 with padding.
	Data string `json:"data"`
}

// The caps on the images of one tool result. A provider refuses a whole
// request over an image it cannot take, and every image stays in the
// session's log and goes with every later model call: an image past a cap is
// left out with a note the model reads.
const (
	// MaxImageChars is the most base64 characters of one image: Anthropic's
	// limit per image (5 MiB of base64).
	MaxImageChars = 5 << 20
	// MaxResultImageChars is the most base64 characters of all the images
	// of one result.
	MaxResultImageChars = 5 << 20
	// MaxResultImages is the most images one result carries.
	MaxResultImages = 4
)

// ImageTypes are the media types the models take, in the order notes name
// them.
var ImageTypes = []string{"image/png", "image/jpeg", "image/gif", "image/webp"}

// CheckImages keeps the images of a result that a model can take, within
// the caps, in order, and adds to text a note for each left out saying why.
func CheckImages(text string, images []Image) (string, []Image) {
	var kept []Image
	text = keepBlobs(text, imageRules, 0, len(images), func(i int) (string, string) {
		return images[i].MIMEType, images[i].Data
	}, func(i int) { kept = append(kept, images[i]) })
	return text, kept
}

// blobRules are what a result's images, or its documents, may be: the
// words of the notes differ, the caps are the same kinds.
type blobRules struct {
	noun     string   // "image": the notes' "image 2 of 3", "per image"
	types    []string // the media types kept
	typeNote string   // why another type is left out, after its type
	most     int      // how many one result carries
	total    string   // what the shared size cap counts, for its note
}

var imageRules = blobRules{
	noun:     "image",
	types:    ImageTypes,
	typeNote: "is not one the model reads (PNG, JPEG, GIF or WebP)",
	most:     MaxResultImages,
	total:    "images",
}

var documentRules = blobRules{
	noun:     "document",
	types:    DocumentTypes,
	typeNote: "is not one the model reads as a document (PDF)",
	most:     MaxResultDocuments,
	total:    "images and documents",
}

// keepBlobs goes through n blobs in order (blob gives each one's media
// type and base64 data), calls keep for each within the rules and caps,
// used the base64 characters the result's blobs kept before these already
// take of MaxResultImageChars, and gives text with a note for each left
// out saying why.
func keepBlobs(text string, rules blobRules, used, n int, blob func(int) (mime, data string), keep func(int)) string {
	kept := 0
	for i := range n {
		mime, data := blob(i)
		why := ""
		switch {
		case !slices.Contains(rules.types, mime):
			why = fmt.Sprintf("its type %q %s", mime, rules.typeNote)
		case !isBase64(data):
			why = "its data is not base64"
		case len(data) > MaxImageChars:
			why = fmt.Sprintf("it is %d base64 characters, over the limit of %d per %s", len(data), MaxImageChars, rules.noun)
		case kept == rules.most:
			why = fmt.Sprintf("a result carries at most %d %ss", rules.most, rules.noun)
		case used+len(data) > MaxResultImageChars:
			why = fmt.Sprintf("the result's %s would pass %d base64 characters", rules.total, MaxResultImageChars)
		}
		if why == "" {
			used += len(data)
			kept++
			keep(i)
			continue
		}
		if text != "" {
			text += "\n\n"
		}
		text += fmt.Sprintf("[toolroute: %s %d of %d was not sent to the model: %s]", rules.noun, i+1, n, why)
	}
	return text
}

// isBase64 reports whether s is non-empty standard base64 with padding.
func isBase64(s string) bool {
	if s == "" || len(s)%4 != 0 {
		return false
	}
	pad := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '=':
			pad++
			if i < len(s)-2 {
				return false
			}
		case pad > 0:
			return false
		case 'A' <= c && c <= 'Z', 'a' <= c && c <= 'z', '0' <= c && c <= '9', c == '+', c == '/':
		default:
			return false
		}
	}
	return true
}

// SniffImage is the media type of the image data starts with, by its
// signature, if it is one of ImageTypes, or "": what a file the user
// attached is, whatever its name says.
func SniffImage(data []byte) string {
	switch {
	case len(data) >= 8 && string(data[:8]) == "\x89PNG\r\n\x1a\n":
		return "image/png"
	case len(data) >= 3 && string(data[:3]) == "\xff\xd8\xff":
		return "image/jpeg"
	case len(data) >= 6 && (string(data[:6]) == "GIF87a" || string(data[:6]) == "GIF89a"):
		return "image/gif"
	case len(data) >= 12 && string(data[:4]) == "RIFF" && string(data[8:12]) == "WEBP":
		return "image/webp"
	}
	return ""
}

// Document is a file in a tool's result that the model reads as a
// document where the wire format carries one (Anthropic's document
// block, the Responses API's input_file, Gemini's inline data): a PDF an
// MCP server embedded as a resource. The result's text names it with a
// placeholder for the formats that do not.
type Document struct {
	// MIMEType is the document's media type: one of DocumentTypes.
	MIMEType string `json:"mime_type"`
	// Data is the document, standard base64 with padding.
	Data string `json:"data"`
	// Name is what the document is called, such as the resource's URI:
	// the formats that name a file (Anthropic's title, Responses'
	// filename) give it.
	Name string `json:"name,omitempty"`
}

// DocumentTypes are the media types of documents the model reads: PDF,
// which every format that takes a document in a tool result reads. Text
// is the result's text instead.
var DocumentTypes = []string{"application/pdf"}

// MaxResultDocuments is the most documents one result carries.
const MaxResultDocuments = 2

// CheckDocuments keeps the documents of a result that a model can take,
// in order, within the caps a result's images have (MaxImageChars each,
// MaxResultImageChars for the images kept and documents together), at
// most MaxResultDocuments, and adds to text a note for each left out
// saying why. A document goes with every later model call, as an image
// does.
func CheckDocuments(text string, images []Image, docs []Document) (string, []Document) {
	used := 0
	for _, img := range images {
		used += len(img.Data)
	}
	var kept []Document
	text = keepBlobs(text, documentRules, used, len(docs), func(i int) (string, string) {
		return docs[i].MIMEType, docs[i].Data
	}, func(i int) { kept = append(kept, docs[i]) })
	return text, kept
}
