package abi

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/toolroute/toolroute/internal/catalog"
	"github.com/toolroute/toolroute/manifests"
	"github.com/toolroute/toolroute/registry"
	"github.com/toolroute/toolroute/registry/session"
)

// sameAsMarshal fails t unless appendDescription writes d as marshal
// (encoding/json) does, byte for byte.
func sameAsMarshal(t *testing.T, d Description) {
	t.Helper()
	want, wantErr := marshal(d)
	got, err := appendDescription(nil, d)
	if (err != nil) != (wantErr != nil) || (err != nil && err.Error() != wantErr.Error()) {
		t.Fatalf("error %v, encoding/json %v", err, wantErr)
	}
	if err == nil && !bytes.Equal(got, want) {
		t.Fatalf("by hand:\n%s\nencoding/json:\n%s", got, want)
	}
}

// TestDescriptionJSON: describe's answer written by hand is what
// encoding/json writes, for the built-in catalogue as the page and the
// worker describe it, and for every field set and unset.
func TestDescriptionJSON(t *testing.T) {
	folder, err := catalog.ReadFolder(manifests.FS, "builtin", false)
	if err != nil {
		t.Fatal(err)
	}
	reg := registry.New()
	folder.Load(reg)
	if err := reg.AddSkill(registry.Skill{Name: "triage", Description: "Sort <mail> & such", Content: "x"}); err != nil {
		t.Fatal(err)
	}
	history := []session.Message{{Type: session.ToolCall, ToolCallID: "c1", ToolName: registry.LoadToolGroupName, ToolInput: `{"group_name":"google_gmail"}`, Status: registry.StatusSuccess}}
	d := Describe(reg, "Be brief.", session.ActiveTools(reg, history))
	if len(d.Tools) < 100 || len(d.Files) == 0 || len(d.LoadedGroups) != 1 {
		t.Fatalf("the built-in catalogue described %d tools, %d files, loaded %v", len(d.Tools), len(d.Files), d.LoadedGroups)
	}
	sameAsMarshal(t, d)
	d.ToolsJSON = &ToolsJSON{Active: `[{"type":"function"}]`, All: "<&>\u2028"}
	d.Routing = &RoutingInfo{Asked: "native", Used: "classic", Note: "gemini has no deferral"}
	sameAsMarshal(t, d)
	d.Routing.Note = ""
	sameAsMarshal(t, d)

	odd := registry.Tool{Name: "odd", Description: "a \"quoted\" <b>tag</b> & \u2028 \xff", Parameters: json.RawMessage(` { "type" : "object" } `),
		RequiredPermissions: []string{"send"}, Env: []string{"A_KEY"}, Group: "g", TimeoutSeconds: 7,
		Origin: registry.Origin{Kind: registry.OriginJS, File: "g.json", Source: "tools/g.js", Function: "run"}}
	sameAsMarshal(t, Description{
		Groups: []GroupInfo{{Group: registry.Group{Name: "g", DisplayName: "G & co", Origin: registry.Origin{Kind: registry.OriginHost}}}},
		Tools:  []ToolInfo{{Tool: odd, Enabled: true}, {Tool: registry.Tool{Name: "bare"}}},
		Files:  []FileInfo{{File: "g.json", Source: "tools/g.js", Tools: []string{"odd"}}, {File: "h.json"}},
	})
	bad := odd
	bad.Parameters = json.RawMessage(`{"type":`)
	sameAsMarshal(t, Description{Tools: []ToolInfo{{Tool: bad}}})
	bad.Parameters = json.RawMessage{}
	sameAsMarshal(t, Description{Tools: []ToolInfo{{Tool: bad}}})
}

// FuzzDescriptionJSON: any text in any field is written as encoding/json
// writes it.
func FuzzDescriptionJSON(f *testing.F) {
	f.Add("Be brief.", "gmail_send", "Send <mail> & more", `{"type":"object"}`, "send")
	f.Add("\u2028\xff\"\\", "", "", ` [1, 2] `, "")
	f.Add("", "x", "\x00\x1f", `{"a":`, "A")
	f.Fuzz(func(t *testing.T, prompt, name, text, params, extra string) {
		tool := registry.Tool{Name: name, Description: text, Parameters: json.RawMessage(params), Group: extra,
			RequiredPermissions: []string{extra}, Env: []string{text}, Origin: registry.Origin{Kind: registry.OriginKind(extra), File: text, Source: name, Function: prompt}}
		if params == "" {
			tool.Parameters = nil
		}
		sameAsMarshal(t, Description{
			SystemPrompt: prompt,
			Groups:       []GroupInfo{{Group: registry.Group{Name: name, DisplayName: text, Description: prompt, Origin: tool.Origin}, Tools: []string{extra}, Available: true}},
			Tools:        []ToolInfo{{Tool: tool, Enabled: len(text) > 3}},
			Files:        []FileInfo{{File: name, Source: text, Group: extra, Tools: []string{}}},
			Skills:       []SkillInfo{{Name: name, Description: text}},
			Active:       []string{name, text},
			ToolsJSON:    &ToolsJSON{Active: params, All: text},
			Routing:      &RoutingInfo{Asked: name, Used: extra, Note: text},
		})
	})
}
