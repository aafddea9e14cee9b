package module

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/toolroute/toolroute/internal/abi"
	"github.com/toolroute/toolroute/registry"
	"github.com/toolroute/toolroute/registry/session"
)

// depthCases is testdata/depth/cases.json, which its "about" explains.
type depthCases struct {
	Depths    []int           `json:"depths"`
	Catalogue json.RawMessage `json:"catalogue"`
	Cases     []struct {
		Name   string            `json:"name"`
		Export string            `json:"export"`
		Depths []int             `json:"depths"`
		Closed *bool             `json:"closed"`
		Input  [2]string         `json:"input"`
		Start  json.RawMessage   `json:"start"`
		Setup  []json.RawMessage `json:"setup"`
		Then   []json.RawMessage `json:"then"`
		Want   struct {
			Error   string   `json:"error"`
			Failed  string   `json:"failed"`
			Result  string   `json:"result"`
			Errors  string   `json:"errors"`
			Skipped string   `json:"skipped"`
			Message string   `json:"message"`
			Last    string   `json:"last"`
			Tools   []string `json:"tools"`
		} `json:"want"`
	} `json:"cases"`
}

// TestDeepJSON replays testdata/depth/cases.json, as the JS hosts do
// (web/packages/toolroute/test/depth-case.js): every export and every path to JSON inside
// one, fed 10^3 to 10^6 levels, answers with the error the path gives,
// and the instance, with the session it keeps, serves on. wazero's stack
// is larger than V8's, so the old module did not trap here on most: its
// answers were not these errors.
func TestDeepJSON(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "testdata", "depth", "cases.json"))
	if err != nil {
		t.Fatal(err)
	}
	var file depthCases
	if err := json.Unmarshal(data, &file); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	inst := instance(t)
	load := func() {
		t.Helper()
		if rep, err := inst.Load(ctx, file.Catalogue); err != nil || !rep.OK() {
			t.Fatalf("loading the catalogue: %+v, %v", rep, err)
		}
	}
	load()

	// A session the instance keeps, whose next turn must resume.
	const settings = `"settings":{"format":"openai","model":"m"}`
	h, err := inst.TurnNew(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := inst.TurnActions(ctx, h, []byte(`{"type":"start","session":"s1","user":"hi",`+settings+`}`)); err != nil {
		t.Fatal(err)
	}
	acts, err := inst.TurnActions(ctx, h, []byte(`{"type":"response","body":"{\"choices\":[{\"message\":{\"content\":\"Hello.\"},\"finish_reason\":\"stop\"}]}"}`))
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(acts, func(a session.Action) bool { return a.Type == session.ActionCache })
	if i < 0 {
		t.Fatalf("no cache action: %+v", acts)
	}
	kept := acts[i].Cache
	inst.TurnFree(ctx, h)

	for _, c := range file.Cases {
		depths := file.Depths
		if c.Depths != nil {
			depths = c.Depths
		}
		for _, n := range depths {
			t.Run(fmt.Sprintf("%s %d", c.Name, n), func(t *testing.T) {
				input := c.Input[0] + strings.Repeat("[", n)
				if c.Closed == nil || *c.Closed {
					input += strings.Repeat("]", n)
				}
				input += c.Input[1]
				var (
					out  json.RawMessage
					err  error
					acts []session.Action
				)
				feed := func(export string, data []byte) error {
					var a []session.Action
					err := inst.requestInto(ctx, export, []uint64{uint64(h)}, data, &a)
					acts = append(acts, a...)
					if err == nil && slices.ContainsFunc(a, func(a session.Action) bool { return a.Type == session.ActionCallModel }) {
						_, err = inst.TurnBody(ctx, h)
					}
					return err
				}
				switch c.Export {
				case "load", "describe", "demo":
					out, err = inst.request(ctx, "toolroute_"+c.Export, nil, []byte(input))
				case "turn_event", "turn_chunk":
					if h, err = inst.TurnNew(ctx); err != nil {
						t.Fatal(err)
					}
					defer inst.TurnFree(ctx, h)
					var before []json.RawMessage
					if c.Start != nil {
						before = append(before, json.RawMessage(`{"type":"start","user":"hi","settings":`+string(c.Start)+`}`))
					}
					for _, e := range append(before, c.Setup...) {
						if err := feed(abi.ExportTurnEvent, e); err != nil {
							t.Fatalf("setup %s: %v", e, err)
						}
					}
					acts = nil
					err = feed("toolroute_"+c.Export, []byte(input))
					for _, e := range c.Then {
						if err := feed(abi.ExportTurnEvent, e); err != nil {
							t.Fatalf("then %s: %v", e, err)
						}
					}
				default:
					t.Fatalf("unknown export %q", c.Export)
				}
				if inst.Broken() != nil {
					t.Fatalf("the instance broke: %v", inst.Broken())
				}
				w := c.Want
				var refusal *abi.Error
				if errors.As(err, &refusal) && w.Error == refusal.Code && strings.HasPrefix(refusal.Message, w.Message) {
					err = nil
				} else if w.Error != "" {
					t.Fatalf("got %v, want the error %s %q", err, w.Error, w.Message)
				}
				if err != nil {
					t.Fatal(err)
				}
				if w.Failed != "" {
					last := acts[len(acts)-1]
					if last.Type != session.ActionFailed || last.Error.Code != w.Failed || !strings.HasPrefix(last.Error.Message, w.Message) {
						t.Errorf("last action %s %+v, want failed %s %q", last.Type, last.Error, w.Failed, w.Message)
					}
				}
				if w.Result != "" {
					var result *session.Message
					for _, a := range acts {
						for i, m := range a.Messages {
							if m.Type == session.ToolResult {
								result = &a.Messages[i]
							}
						}
					}
					if result == nil || result.ErrorType != w.Result || !strings.HasPrefix(result.Content, w.Message) {
						t.Errorf("tool result %+v, want %s %q", result, w.Result, w.Message)
					}
				}
				if w.Last != "" && (len(acts) == 0 || string(acts[len(acts)-1].Type) != w.Last) {
					t.Errorf("actions %+v, want the last %s", acts, w.Last)
				}
				if w.Errors != "" || w.Skipped != "" {
					var rep registry.BuildReport
					if err := json.Unmarshal(out, &rep); err != nil {
						t.Fatal(err)
					}
					if w.Errors != "" && (len(rep.Errors) != 1 || !strings.HasPrefix(rep.Errors[0], w.Errors)) {
						t.Errorf("errors %q, want one starting %q", rep.Errors, w.Errors)
					}
					if w.Skipped != "" && (len(rep.Manifests) == 0 || len(rep.Manifests[0].Skipped) != 1 || !strings.HasPrefix(rep.Manifests[0].Skipped[0].Reason, w.Skipped)) {
						t.Errorf("manifests %+v, want one skipped %q", rep.Manifests, w.Skipped)
					}
				}
				if w.Tools != nil {
					d, err := inst.Describe(ctx, abi.DescribeRequest{})
					if err != nil {
						t.Fatal(err)
					}
					for _, name := range w.Tools {
						if !slices.ContainsFunc(d.Tools, func(t abi.ToolInfo) bool { return t.Name == name }) {
							t.Errorf("%s did not load", name)
						}
					}
				}
				if c.Export == "load" {
					load()
				}
			})
		}
	}

	// The instance serves on, and kept the session.
	if inst.Broken() != nil {
		t.Fatalf("the instance broke: %v", inst.Broken())
	}
	if h, err = inst.TurnNew(ctx); err != nil {
		t.Fatal(err)
	}
	acts, err = inst.TurnActions(ctx, h, []byte(`{"type":"start","session":"s1","fingerprint":"`+kept.Fingerprint+`","user":"again",`+settings+`}`))
	if err != nil || len(acts) == 0 || acts[len(acts)-1].Type != session.ActionCallModel {
		t.Fatalf("the kept session's next start: %+v, %v; want it resumed, with call_model", acts, err)
	}
}
