package host_test

import (
	"context"
	"encoding/base64"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/toolroute/toolroute/host"
	"github.com/toolroute/toolroute/internal/module"
	"github.com/toolroute/toolroute/registry/session"
	"github.com/toolroute/toolroute/registry/wire"
)

// A 1x1 PNG.
const dotPNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="

// The files attached to a message reach the provider in its own form, in
// every format: the image as the format's image part, the text file as
// text under its name; both are logged on the user message.
func TestSendAttachments(t *testing.T) {
	replies := map[wire.Format]string{
		wire.OpenAI:    `{"choices":[{"message":{"role":"assistant","content":"A dot."},"finish_reason":"stop"}]}`,
		wire.Anthropic: `{"type":"message","role":"assistant","content":[{"type":"text","text":"A dot."}],"stop_reason":"end_turn"}`,
		wire.Responses: `{"status":"completed","output":[{"type":"message","role":"assistant","content":[{"type":"output_text","text":"A dot."}]}]}`,
		wire.Gemini:    `{"candidates":[{"content":{"role":"model","parts":[{"text":"A dot."}]},"finishReason":"STOP"}]}`,
	}
	image := map[wire.Format]string{
		wire.OpenAI:    `{"type":"image_url","image_url":{"url":"data:image/png;base64,` + dotPNG + `"}}`,
		wire.Anthropic: `{"type":"image","source":{"type":"base64","media_type":"image/png","data":"` + dotPNG + `"}}`,
		wire.Responses: `{"type":"input_image","image_url":"data:image/png;base64,` + dotPNG + `"}`,
		wire.Gemini:    `{"inlineData":{"mimeType":"image/png","data":"` + dotPNG + `"}}`,
	}
	for _, f := range []wire.Format{wire.OpenAI, wire.Anthropic, wire.Responses, wire.Gemini} {
		t.Run(string(f), func(t *testing.T) {
			var mu sync.Mutex
			var body string
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				b, _ := io.ReadAll(r.Body)
				mu.Lock()
				body = string(b)
				mu.Unlock()
				w.Header().Set("Content-Type", "application/json")
				io.WriteString(w, replies[f])
			}))
			defer srv.Close()
			p := &host.HTTPProvider{Wire: f, BaseURL: srv.URL, APIKey: "test-key", ModelName: "fake-model"}
			h, err := host.New(context.Background(), host.Options{Provider: p, NoBuiltins: true, Module: module.Config{CacheDir: cacheDir}})
			if err != nil {
				t.Fatal(err)
			}
			defer h.Close(context.Background())
			files := []session.Attachment{{Name: "dot.png", Data: dotPNG}, {Name: "notes.txt", Data: base64.StdEncoding.EncodeToString([]byte("line one\n"))}}
			var end host.Event
			for ev, err := range h.Session("s").Send(context.Background(), "What is this?", files...) {
				if err != nil {
					t.Fatal(err)
				}
				end = ev
			}
			if end.Type != host.EventDone {
				t.Fatalf("last event %+v %+v, want done", end, end.Failure)
			}
			mu.Lock()
			defer mu.Unlock()
			if !strings.Contains(body, image[f]) {
				t.Errorf("the request carries no image part %s:\n%s", image[f], body)
			}
			if want := `What is this?\n\n\u003cfile name=\"notes.txt\"\u003e\nline one\n\u003c/file\u003e`; !strings.Contains(body, want) && !strings.Contains(body, `What is this?\n\n<file name=\"notes.txt\">\nline one\n</file>`) {
				t.Errorf("the request carries no text file:\n%s", body)
			}
			msgs, _ := h.Session("s").Messages(context.Background())
			if len(msgs) == 0 || len(msgs[0].Attachments) != 2 || msgs[0].Attachments[0].MIMEType != "image/png" || msgs[0].Attachments[1].Text != "line one\n" {
				t.Errorf("the log's user message = %+v", msgs)
			}
		})
	}
}

// A file the module cannot send refuses the turn before any request,
// saying which file and what to do; nothing is logged.
func TestSendAttachmentRefused(t *testing.T) {
	calls := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { calls++ }))
	defer srv.Close()
	p := &host.HTTPProvider{Wire: wire.OpenAI, BaseURL: srv.URL, APIKey: "test-key", ModelName: "gpt-3.5-turbo"}
	h, err := host.New(context.Background(), host.Options{Provider: p, NoBuiltins: true, Module: module.Config{CacheDir: cacheDir}})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close(context.Background())
	for _, tt := range []struct {
		file session.Attachment
		want string
	}{
		{session.Attachment{Name: "dot.png", Data: dotPNG}, `attachments[0] "dot.png": the model gpt-3.5-turbo reads no images: remove the image, or choose a model that reads them`},
		{session.Attachment{Name: "doc.pdf", Data: base64.StdEncoding.EncodeToString([]byte("%PDF-1.7\x00\x01"))}, `attachments[0] "doc.pdf": the file is neither an image`},
	} {
		var got error
		for _, err := range h.Session("s").Send(context.Background(), "Look", tt.file) {
			if err != nil {
				got = err
			}
		}
		var refused *host.RefusedError
		if got == nil || !errors.As(got, &refused) || !strings.HasPrefix(refused.Message, tt.want) {
			t.Errorf("error %v, want a refusal with %q", got, tt.want)
		}
	}
	if msgs, _ := h.Session("s").Messages(context.Background()); len(msgs) != 0 || calls != 0 {
		t.Errorf("logged %+v and called the model %d times, want nothing", msgs, calls)
	}
}
