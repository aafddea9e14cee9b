package abi

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/toolroute/toolroute/registry/session"
)

// TestTurnNewEnvelope: the handle TurnNew writes by hand is the envelope
// encoding/json gives for it, for handles of every length.
func TestTurnNewEnvelope(t *testing.T) {
	g := &Guest{}
	if out := g.Load([]byte(`{"tools":[]}`)); !bytes.HasPrefix(out, []byte(`{"ok":`)) {
		t.Fatalf("load: %s", out)
	}
	for _, next := range []uint32{0, 8, 99, 4294967290} {
		g.next = next
		got := g.TurnNew()
		want := ok(TurnHandle{Turn: g.next})
		if !bytes.Equal(got, want) {
			t.Errorf("handle after %d: %s, want %s", next, got, want)
		}
	}
}

// TestActionsEnvelope: actions encoded in place are the envelope of what
// MarshalActions gives, none and an empty list included.
func TestActionsEnvelope(t *testing.T) {
	for _, acts := range [][]session.Action{nil, {}, {{Type: session.ActionDone, Text: "<b>done</b> & \u2028"}}} {
		b, err := session.MarshalActions(acts)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := actions(nil, acts), envelope(b); !bytes.Equal(got, want) {
			t.Errorf("%+v: %s, want %s", acts, got, want)
		}
	}
}

// TestBadStartKeepsSession: a start event the turn refuses changes
// nothing, so it does not use up the session's kept state: the next,
// good, start with the same fingerprint resumes it. A fingerprint without
// its session, or with the whole history again, is refused rather than
// ignored or doubled.
func TestBadStartKeepsSession(t *testing.T) {
	g := &Guest{}
	if out := g.Load([]byte(`{"tools":[]}`)); !bytes.HasPrefix(out, []byte(`{"ok":`)) {
		t.Fatalf("load: %s", out)
	}
	event := func(h uint32, ev string) string { return string(g.TurnEvent(h, []byte(ev))) }
	const settings = `"settings":{"format":"openai","model":"m"}`
	g.TurnNew()
	first := g.next
	if out := event(first, `{"type":"start","session":"s1","user":"hi",`+settings+`}`); !strings.Contains(out, `"call_model"`) {
		t.Fatalf("start: %s", out)
	}
	out := event(first, `{"type":"response","body":{"choices":[{"message":{"content":"Hello."},"finish_reason":"stop"}]}}`)
	i := strings.Index(out, `"fingerprint":"`)
	if i < 0 {
		t.Fatalf("the turn handed out no fingerprint: %s", out)
	}
	fp := out[i+len(`"fingerprint":"`):]
	fp = fp[:strings.IndexByte(fp, '"')]
	g.TurnFree(first)

	g.TurnNew()
	next := g.next
	for _, tt := range []struct{ event, want string }{
		{`{"type":"start","fingerprint":"` + fp + `","user":"again",` + settings + `}`, `a fingerprint needs the session it was handed out for`},
		{`{"type":"start","session":"s1","fingerprint":"` + fp + `","user":" ",` + settings + `}`, `the user message is empty: give its text, or attach files`},
		// The whole history again with the fingerprint: the turn would
		// hold the conversation twice.
		{`{"type":"start","session":"s1","fingerprint":"` + fp + `","user":"again",` + settings +
			`,"history":[{"type":"user","content":"hi"},{"type":"assistant","content":"Hello."}]}`,
			`the history given with the fingerprint opens with the session's first message: with a fingerprint send only the messages after the first 2`},
	} {
		if out := event(next, tt.event); !strings.Contains(out, `"code":"bad_event"`) || !strings.Contains(out, tt.want) {
			t.Errorf("%s: %s, want bad_event saying %q", tt.event, out, tt.want)
		}
	}
	// A message the host appended itself is not the whole history.
	out = event(next, `{"type":"start","session":"s1","fingerprint":"`+fp+`","user":"again",`+settings+
		`,"history":[{"type":"assistant","content":"A reply cut short"}]}`)
	body := string(g.TurnBody(next))
	if !strings.Contains(out, `"call_model"`) || strings.Count(body, `"content":"hi"`) != 1 ||
		!strings.Contains(body, `{"role":"assistant","content":"Hello."},{"role":"assistant","content":"A reply cut short"}`) {
		t.Errorf("the good start after the refused ones did not resume the session once: %s\n%s", out, body)
	}
}

// checkCase is one case of testdata/checks/cases.json: the answer's ok
// (Want) or the envelope's error code (Code).
type checkCase struct {
	Name    string          `json:"name"`
	Request json.RawMessage `json:"request"`
	Want    json.RawMessage `json:"want"`
	Code    string          `json:"code"`
}

// TestCheckCases: Check answers every case of testdata/checks, as the
// module does for every host (internal/module, web/packages/toolroute/test/module.test.js).
func TestCheckCases(t *testing.T) {
	data, err := os.ReadFile("../../testdata/checks/cases.json")
	if err != nil {
		t.Fatal(err)
	}
	var cases []checkCase
	if err := json.Unmarshal(data, &cases); err != nil {
		t.Fatal(err)
	}
	g := &Guest{}
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			got := g.Check(c.Request)
			if c.Code != "" {
				if !bytes.HasPrefix(got, []byte(`{"error":{"code":"`+c.Code+`"`)) {
					t.Errorf("%s, want the error %s", got, c.Code)
				}
				return
			}
			var g, w any
			if err := json.Unmarshal(got, &g); err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal([]byte(`{"ok":`+string(c.Want)+`}`), &w); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(w, g); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
	for _, bad := range []string{"", "not json", strings.Repeat("[", 100000), `{"op":5}`} {
		if got := g.Check([]byte(bad)); !bytes.HasPrefix(got, []byte(`{"error":{"code":"bad_json"`)) {
			t.Errorf("Check(%.20q) = %s, want bad_json", bad, got)
		}
	}
}

// TestTitleRenames: Check's session_title gives every title a user gives
// in testdata/sessions/titles.json as it is to be kept, or the refusal.
func TestTitleRenames(t *testing.T) {
	data, err := os.ReadFile("../../testdata/sessions/titles.json")
	if err != nil {
		t.Fatal(err)
	}
	var cases struct {
		Renames []struct{ Name, Title, Want, Error string }
	}
	if err := json.Unmarshal(data, &cases); err != nil {
		t.Fatal(err)
	}
	g := &Guest{}
	for _, c := range cases.Renames {
		req, _ := json.Marshal(map[string]any{"op": "session_title", "args": map[string]string{"title": c.Title}})
		want := map[string]any{"args": map[string]any{"title": c.Want}}
		if c.Error != "" {
			want = map[string]any{"error": map[string]any{"type": "invalid_arguments", "message": c.Error}}
		}
		var got struct{ OK any }
		if err := json.Unmarshal(g.Check(req), &got); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(any(want), got.OK); diff != "" {
			t.Errorf("%s (-want +got):\n%s", c.Name, diff)
		}
	}
}

// TestRetryCases: Retry answers every case of testdata/retries, as the
// module does for every host (internal/module, web/packages/toolroute/test/module.test.js).
func TestRetryCases(t *testing.T) {
	data, err := os.ReadFile("../../testdata/retries/cases.json")
	if err != nil {
		t.Fatal(err)
	}
	var cases []struct {
		Name    string          `json:"name"`
		Request json.RawMessage `json:"request"`
		Want    json.RawMessage `json:"want"`
	}
	if err := json.Unmarshal(data, &cases); err != nil {
		t.Fatal(err)
	}
	g := &Guest{}
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			var want bytes.Buffer
			if err := json.Compact(&want, c.Want); err != nil {
				t.Fatal(err)
			}
			if got := g.Retry(c.Request); string(got) != `{"ok":`+want.String()+`}` {
				t.Errorf("%s, want the ok of %s", got, want.String())
			}
		})
	}
	for _, bad := range []string{"", "not json", strings.Repeat("[", 100000), `{"status":"x"}`} {
		if got := g.Retry([]byte(bad)); !bytes.HasPrefix(got, []byte(`{"error":{"code":"bad_json"`)) {
			t.Errorf("Retry(%.20q) = %s, want bad_json", bad, got)
		}
	}
}
