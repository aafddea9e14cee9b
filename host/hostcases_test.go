package host_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/toolroute/toolroute/host"
	"github.com/toolroute/toolroute/internal/fakemodel"
	"github.com/toolroute/toolroute/registry"
	"github.com/toolroute/toolroute/registry/session"
	"github.com/toolroute/toolroute/registry/wire"
)

// hostCase is a case of testdata/approvals or testdata/redaction, which
// web/packages/toolroute/test/hostcases.test.js replays in the JS host; testdata/README.md
// says the format.
type hostCase struct {
	Name     string           `json:"name"`
	Hosts    []string         `json:"hosts"`
	HostsWhy string           `json:"hosts_why"`
	Groups   []registry.Group `json:"groups"`
	Tools    []struct {
		registry.Tool
		Output string `json:"output"`
		Error  string `json:"error"`
	} `json:"tools"`
	Secrets   []host.Secret    `json:"secrets"`
	APIKey    string           `json:"api_key"`
	Policies  []session.Policy `json:"policies"`
	Approver  *bool            `json:"approver"`
	AllowHint string           `json:"allow_hint"`
	Turns     []struct {
		User string `json:"user"`
		// Attachments are the files attached to the message.
		Attachments []session.Attachment `json:"attachments"`
		Model       []struct {
			Tool  string          `json:"tool"`
			Input json.RawMessage `json:"input"`
			Text  string          `json:"text"`
			Error *struct {
				Status int    `json:"status"`
				Body   string `json:"body"`
			} `json:"error"`
		} `json:"model"`
		Answers []session.Answer `json:"answers"`
		Expect  struct {
			Asked     *[][]string `json:"asked"`
			Ran       *[]string   `json:"ran"`
			Log       []string    `json:"log"`
			Stored    []string    `json:"stored"`
			ModelRead []string    `json:"model_read"`
			Failure   []string    `json:"failure"`
		} `json:"expect"`
	} `json:"turns"`
}

func (c *hostCase) UnmarshalJSON(b []byte) error {
	type plain hostCase
	if err := json.Unmarshal(b, (*plain)(c)); err != nil {
		return err
	}
	// Secret's fields have no JSON names: read them as the file writes them.
	var s struct {
		Secrets []struct{ Name, Value string } `json:"secrets"`
	}
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	c.Secrets = nil
	for _, x := range s.Secrets {
		c.Secrets = append(c.Secrets, host.Secret{Name: x.Name, Value: x.Value})
	}
	return nil
}

func TestApprovalCases(t *testing.T)  { replayHostCases(t, "../testdata/approvals/cases.json") }
func TestRedactionCases(t *testing.T) { replayHostCases(t, "../testdata/redaction/cases.json") }

func replayHostCases(t *testing.T, file string) {
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var f struct {
		Cases []hostCase `json:"cases"`
	}
	if err := json.Unmarshal(b, &f); err != nil {
		t.Fatal(err)
	}
	if len(f.Cases) == 0 {
		t.Fatalf("%s has no cases", file)
	}
	for _, c := range f.Cases {
		t.Run(c.Name, func(t *testing.T) {
			if len(c.Hosts) > 0 && c.HostsWhy == "" {
				t.Fatalf("the case runs only in %v and does not say why (hosts_why)", c.Hosts)
			}
			if len(c.Hosts) > 0 && !contains(c.Hosts, "go") {
				t.Skip("not in go: " + c.HostsWhy)
			}
			replayHostCase(t, c)
		})
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func replayHostCase(t *testing.T, c hostCase) {
	var replies []fakemodel.Reply
	for _, turn := range c.Turns {
		for _, m := range turn.Model {
			switch {
			case m.Error != nil:
				replies = append(replies, fakemodel.Error(m.Error.Status, m.Error.Body))
			case m.Tool != "":
				replies = append(replies, fakemodel.ToolCall(m.Tool, string(m.Input)))
			default:
				replies = append(replies, fakemodel.Text(m.Text))
			}
		}
	}
	model := fakemodel.New(fakemodel.OpenAI, replies...)
	defer model.Close()

	var mu sync.Mutex
	var ran []string
	var tools []host.NativeTool
	for _, tl := range c.Tools {
		tl := tl
		if tl.TimeoutSeconds == 0 {
			tl.TimeoutSeconds = 10
		}
		if tl.Parameters == nil {
			tl.Parameters = json.RawMessage(`{"type":"object","properties":{}}`)
		}
		tools = append(tools, host.NativeTool{Tool: tl.Tool, Run: func(context.Context, json.RawMessage) (string, error) {
			mu.Lock()
			ran = append(ran, tl.Name)
			mu.Unlock()
			if tl.Error != "" {
				return "", errors.New(tl.Error)
			}
			return tl.Output, nil
		}})
	}
	var asked [][]string
	var answers []session.Answer
	opts := host.Options{NoBuiltins: true, Groups: c.Groups, Tools: tools, AllowHint: c.AllowHint,
		Policies: func(context.Context) ([]session.Policy, error) { return c.Policies, nil },
		Secrets:  func(context.Context) []host.Secret { return c.Secrets }}
	if c.Approver == nil || *c.Approver {
		opts.Approver = host.ApproverFunc(func(_ context.Context, _ string, calls []session.Call) ([]session.Approval, error) {
			var names []string
			var out []session.Approval
			if len(answers) == 0 {
				return nil, errors.New("the case has no answer left for this question")
			}
			for _, call := range calls {
				names = append(names, call.Tool)
				out = append(out, session.Approval{ID: call.ID, Answer: answers[0]})
			}
			asked = append(asked, names)
			answers = answers[1:]
			return out, nil
		})
	}
	h := newHost(t, model, wire.OpenAI, opts)
	if c.APIKey != "" {
		opts.Provider = &host.HTTPProvider{Wire: wire.OpenAI, BaseURL: model.BaseURL(), APIKey: c.APIKey, ModelName: "fake-model"}
		var err error
		if h, err = host.New(context.Background(), opts); err != nil {
			t.Fatal(err)
		}
		defer h.Close(context.Background())
	}

	s := h.Session("s")
	logged := 0
	requests := 0
	var secretValues []string
	for _, sec := range c.Secrets {
		secretValues = append(secretValues, sec.Value)
	}
	if c.APIKey != "" {
		secretValues = append(secretValues, c.APIKey)
	}
	for i, turn := range c.Turns {
		asked, ran, answers = [][]string{}, []string{}, turn.Answers
		var evs []host.Event
		for ev, err := range s.Send(context.Background(), turn.User, turn.Attachments...) {
			if err != nil {
				t.Fatalf("turn %d: %v", i, err)
			}
			evs = append(evs, ev)
		}
		msgs, err := s.Messages(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		newMsgs := msgs[logged:]
		logged = len(msgs)
		reqs := model.Requests()[requests:]
		requests = len(model.Requests())
		var bodies []string
		for _, r := range reqs {
			bodies = append(bodies, string(r.Body))
		}
		read := strings.Join(bodies, "\n")
		stored, _ := json.Marshal(newMsgs)
		// The events but done's text: the reply as shown to the user, which
		// neither host redacts (its stored message is redacted).
		var shown []host.Event
		for _, ev := range evs {
			if ev.Type == host.EventDone {
				ev.Text = ""
			}
			shown = append(shown, ev)
		}
		events, _ := json.Marshal(shown)
		var failure string
		if last := evs[len(evs)-1]; last.Type == host.EventFailed && last.Failure != nil {
			failure = last.Failure.Message
		}

		want := turn.Expect
		if want.Asked != nil {
			if diff := cmp.Diff(*want.Asked, asked); diff != "" {
				t.Errorf("turn %d asked (-want +got):\n%s", i, diff)
			}
		}
		if want.Ran != nil {
			if diff := cmp.Diff(*want.Ran, ran); diff != "" {
				t.Errorf("turn %d ran (-want +got):\n%s", i, diff)
			}
		}
		if want.Log != nil {
			var kinds []string
			for _, m := range newMsgs {
				content := m.Content
				if m.Type == session.ToolCall {
					content = ""
				}
				kinds = append(kinds, string(m.Type)+":"+string(m.Status)+":"+content)
			}
			if diff := cmp.Diff(want.Log, kinds); diff != "" {
				t.Errorf("turn %d log (-want +got):\n%s", i, diff)
			}
		}
		for _, s := range want.Stored {
			if !strings.Contains(string(stored), jsonForms(s)[1]) {
				t.Errorf("turn %d: the stored messages do not hold %q: %s", i, s, stored)
			}
		}
		for _, s := range want.ModelRead {
			if !containsAny(read, jsonForms(s)) {
				t.Errorf("turn %d: the model read no %q: %s", i, s, read)
			}
		}
		for _, s := range want.Failure {
			if !strings.Contains(failure, s) {
				t.Errorf("turn %d: the failure %q does not say %q", i, failure, s)
			}
		}
		for _, v := range secretValues {
			if len(v) < host.MinSecretLength {
				continue // not a secret: too short to tell from ordinary words
			}
			for _, w := range []struct{ what, text string }{{"stored messages", string(stored)}, {"model requests", read}, {"events", string(events)}} {
				if containsAny(w.text, jsonForms(v)) {
					t.Errorf("turn %d: the %s hold the secret %q: %s", i, w.what, v, w.text)
				}
			}
		}
	}
}

// jsonForms are the ways s may appear in JSON text: as written, escaped in
// a JSON string, and escaped with HTML escapes as Go's encoder writes it.
func jsonForms(s string) []string {
	html, _ := json.Marshal(s)
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.Encode(s)
	plain := strings.TrimSpace(b.String())
	return []string{s, plain[1 : len(plain)-1], string(html[1 : len(html)-1])}
}

func containsAny(text string, subs []string) bool {
	for _, s := range subs {
		if strings.Contains(text, s) {
			return true
		}
	}
	return false
}
