package server_test

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/toolroute/toolroute/internal/fakemodel"
)

// A session id the stores cannot both hold (a NUL byte, a line break,
// invalid UTF-8, over 128 characters) is refused by every session endpoint
// with 400 and the rule, before anything is stored or the model called;
// SQLite stored such an id, where PostgreSQL failed with SQLSTATE 22021.
func TestSessionIDRule(t *testing.T) {
	model := fakemodel.New(fakemodel.OpenAI, fakemodel.Text("Hi."))
	defer model.Close()
	srv := start(t, model)
	ids := map[string]string{
		"a%00b":                        `session id "a\x00b" holds the control character U+0000`,
		"line%0Abreak":                 `session id "line\nbreak" holds the control character U+000A`,
		"bad%FF":                       `session id "bad\xff" is not valid UTF-8`,
		strings.Repeat("x", 129):       "has 129 characters",
		"x" + strings.Repeat("é", 128): "has 129 characters",
	}
	for _, id := range []string{"a%00b", "line%0Abreak", "bad%FF", strings.Repeat("x", 129), "x" + strings.Repeat("é", 128)} {
		for _, r := range []struct{ method, path, body string }{
			{"POST", "/api/sessions/" + id + "/messages", `{"text":"hello"}`},
			{"POST", "/api/sessions/" + id + "/compact", `{}`},
			{"GET", "/api/sessions/" + id, ""},
			{"GET", "/api/sessions/" + id + "/messages", ""},
			{"GET", "/api/sessions/" + id + "/usage", ""},
			{"PATCH", "/api/sessions/" + id, `{"title":"t"}`},
			{"DELETE", "/api/sessions/" + id, ""},
			{"POST", "/api/sessions/" + id + "/clear", `{}`},
			{"GET", "/api/sessions/" + id + "/approvals", ""},
			{"POST", "/api/sessions/" + id + "/approvals", `{"approvals":[]}`},
			{"GET", "/api/catalogue?session=" + id, ""},
		} {
			resp := do(t, r.method, srv.URL+r.path, r.body)
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			var e struct {
				Error string `json:"error"`
			}
			json.Unmarshal(body, &e)
			if resp.StatusCode != http.StatusBadRequest || !strings.Contains(e.Error, ids[id]) ||
				!strings.HasSuffix(e.Error, "a session id is 1 to 128 characters of text with no control characters (no NUL, tab or line break); POST /api/sessions makes one, GET /api/sessions lists them") {
				t.Errorf("%s %.60s: HTTP %d %.300s; want 400 saying %s and the rule", r.method, r.path, resp.StatusCode, body, ids[id])
			}
		}
	}
	var list []map[string]any
	get(t, srv, "/api/sessions", http.StatusOK, &list)
	if len(list) != 0 || len(model.Requests()) != 0 {
		t.Errorf("stored %v, %d model calls; want nothing", list, len(model.Requests()))
	}
	// An id of the rule's longest, and one not of toolroute's making.
	for _, id := range []string{strings.Repeat("é", 128), "notes%20%C3%A9t%C3%A9"} {
		if evs := turn(t, srv, id, "hello"); evs[len(evs)-1].Name != "done" {
			t.Errorf("a turn in %q ended with %+v", id, evs[len(evs)-1])
		}
		model.Add(fakemodel.Text("Hi."))
	}
}
