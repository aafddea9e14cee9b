package server_test

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/toolroute/toolroute/internal/fakemodel"
	"github.com/toolroute/toolroute/registry/session"
)

// A message's files in serve's API: they reach the model in its own form
// and the log keeps them; a file that is neither an image nor text is a
// 400 saying so, with nothing stored and no model call.
func TestSendAttachments(t *testing.T) {
	model := fakemodel.New(fakemodel.OpenAI, fakemodel.Text("A dot and tea."))
	defer model.Close()
	srv := start(t, model)
	const png = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="
	evs := readEvents(t, post(t, srv, "/api/sessions/a1/messages", `{"text":"What is this?","attachments":[{"name":"dot.png","data":"`+png+`"},{"name":"n.txt","text":"tea\n"}]}`))
	if last := evs[len(evs)-1]; last.Name != "done" {
		t.Fatalf("last event %s %v", last.Name, last.Data)
	}
	body := string(model.Requests()[0].Body)
	for _, want := range []string{`{"type":"image_url","image_url":{"url":"data:image/png;base64,` + png + `"}}`, `{"type":"text","text":"What is this?\n\n<file name=\"n.txt\">\ntea\n</file>"}`} {
		if !strings.Contains(body, want) {
			t.Errorf("the model call lacks %s:\n%s", want, body)
		}
	}
	var log []session.Message
	get(t, srv, "/api/sessions/a1/messages", http.StatusOK, &log)
	if len(log) == 0 || len(log[0].Attachments) != 2 || log[0].Attachments[0].MIMEType != "image/png" || log[0].Attachments[1].Text != "tea\n" {
		t.Errorf("the log = %+v", log)
	}

	resp := post(t, srv, "/api/sessions/a2/messages", `{"text":"Read","attachments":[{"name":"x.bin","data":"AAEC"}]}`)
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest || !strings.Contains(string(b), `attachments[0] \"x.bin\": the file is neither an image`) {
		t.Errorf("HTTP %d %s, want 400 saying what x.bin is not", resp.StatusCode, b)
	}
	if n := len(model.Requests()); n != 1 {
		t.Errorf("%d model calls, want 1", n)
	}
	var missing map[string]any
	get(t, srv, "/api/sessions/a2/messages", http.StatusNotFound, &missing)
}
