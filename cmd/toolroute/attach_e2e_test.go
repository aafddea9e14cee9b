package main

import (
	"encoding/base64"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolroute/toolroute/internal/fakemodel"
)

// /attach in `toolroute chat`: the files read go with the next message,
// the image as the format's image part and the text file as text under
// its name; a file the module refuses is said so before any call, and the
// files stay attached for the next try.
func TestChatAttach(t *testing.T) {
	model := fakemodel.New(fakemodel.OpenAI, fakemodel.Text("A dot and a note."))
	defer model.Close()
	u := newUser(t, model, fakemodel.OpenAI)
	png, _ := base64.StdEncoding.DecodeString("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==")
	dir := t.TempDir()
	for name, data := range map[string][]byte{"dot.png": png, "notes.txt": []byte("buy tea\n"), "doc.pdf": []byte("%PDF-1.7\x00\x01")} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	args := append([]string{"chat", "--model", "fake-1"}, providerFlags(fakemodel.OpenAI)...)
	stdin := strings.Join([]string{
		"/attach " + filepath.Join(dir, "doc.pdf"),
		"Read this",
		"/attach",
		"/detach",
		"/attach " + filepath.Join(dir, "dot.png"),
		"/attach " + filepath.Join(dir, "notes.txt"),
		"/attach",
		"What are these?",
		"/attach",
	}, "\n") + "\n"
	r := u.run(stdin, args...)
	mustContain(t, "the chat's output", r.stdout,
		"[attached doc.pdf, 10 bytes: it goes with your next message]",
		"[your files stay attached: /attach lists them, /detach drops them]",
		"Attached to your next message: doc.pdf (/detach drops them)",
		"[dropped doc.pdf]",
		"Attached to your next message: dot.png, notes.txt",
		"A dot and a note.",
		"No files attached")
	mustContain(t, "the chat's errors", r.stderr, `attachments[0] "doc.pdf": the file is neither an image the models read (PNG, JPEG, GIF or WebP) nor UTF-8 text`)
	reqs := model.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d model calls, want 1 (the refused message calls none)", len(reqs))
	}
	mustContain(t, "the model call", string(reqs[0].Body),
		`{"type":"image_url","image_url":{"url":"data:image/png;base64,iVBORw0KGgo`,
		`{"type":"text","text":"What are these?\n\n<file name=\"notes.txt\">\nbuy tea\n</file>"}`)
}
