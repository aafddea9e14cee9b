package registry

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/toolroute/toolroute/assets"
)

// FuzzLoadManifest: any text and file name give a report, never a panic, and
// the report agrees with the registry.
func FuzzLoadManifest(f *testing.F) {
	f.Add("g.json", `[{"_meta":true,"display_name":"G","description":"d"},{"name":"a","description":"d","function":"f","parameters":{"properties":{"x":{"type":"string"}},"required":["x"]}}]`)
	f.Add("a.json", `{"name":"a","description":"d","timeoutSeconds":5,"env":["A"],"requiredPermissions":["net"]}`)
	f.Add("g.json", `[]`)
	f.Add("g.json", `[{"name":"a"},{"name":"a","description":"d","function":"f"},{"_meta":true}]`)
	f.Add("x.json", `{"name":"x","description":"d","parameters":{"type":"object","properties":{"p":{}}}}`)
	f.Add("x.json", `[[[[`)
	f.Add("x", `{}`)
	f.Fuzz(func(t *testing.T, file, text string) {
		r := New()
		rep := r.LoadManifest(Manifest{File: file, Text: []byte(text), Source: "src"})
		for _, l := range rep.Loaded {
			tool, ok := r.Tool(l.Tool)
			if !ok {
				t.Fatalf("loaded %q is not registered", l.Tool)
			}
			if !json.Valid(tool.Parameters) || !strings.HasPrefix(string(tool.Parameters), "{") {
				t.Fatalf("tool %q has schema %s", l.Tool, tool.Parameters)
			}
			if !ValidToolName(tool.Name) || !ValidFunctionName(tool.Origin.Function) {
				t.Fatalf("invalid names got through: %+v", tool)
			}
		}
		if rep.Group != "" {
			if _, ok := r.Group(rep.Group); !ok {
				t.Fatalf("group %q reported but not registered", rep.Group)
			}
		}
		for _, p := range append(rep.Skipped, rep.Warnings...) {
			if p.Reason == "" || p.File != file {
				t.Fatalf("problem without reason or file: %+v", p)
			}
		}
		// Whatever loaded, the prompt and the meta-tool still work.
		_ = r.SystemPrompt("base")
		_, _ = r.LoadToolGroup(json.RawMessage(`{"group_name":"` + rep.Group + `"}`))
	})
}

// FuzzNormalizeSchema: any schema text is accepted as a JSON object or refused
// with an error, never a panic.
func FuzzNormalizeSchema(f *testing.F) {
	f.Add(`{"properties":{"a":{"type":"string"}},"required":["a"]}`)
	f.Add(`{}`)
	f.Add(`{"type":"object"}`)
	f.Add(`null`)
	f.Fuzz(func(t *testing.T, in string) {
		out, _, err := NormalizeSchema(json.RawMessage(in))
		if err != nil {
			return
		}
		var obj map[string]json.RawMessage
		if json.Unmarshal(out, &obj) != nil {
			t.Fatalf("accepted %q but produced %q", in, out)
		}
		if _, ok := obj["type"]; !ok {
			t.Fatalf("no type in %s", out)
		}
	})
}

// FuzzParseToolList: any text is a tool list with unique, non-blank names
// or an error wrapping ErrToolList, never a panic; and whatever it gives,
// every query is ranked without a panic, best first, the k asked at most.
func FuzzParseToolList(f *testing.F) {
	f.Add(`[{"name":"a","description":"Weather for a city","parameters":{"properties":{"city":{"description":"City"}}}}]`, "weather in Oslo")
	f.Add(`[{"name":"CompanyInfoTool","description":"d","description_for_model":"dd","name_for_human":"C"},{"name":"b"}]`, "Company INFO")
	f.Add(`[{"name":"a"},{"name":"a"}]`, "a")
	f.Add(`[{"name":"x","inputSchema":{"properties":{"p":{"items":{"properties":{"q":{}}}}}}}]`, "p q")
	f.Add(`{"name":"a"}`, "")
	f.Add(`[null, 1, "x"]`, "\xff\xfe")
	f.Add(`[]`, "what is the weather")
	f.Fuzz(func(t *testing.T, list, query string) {
		docs, err := ParseToolList([]byte(list))
		if err != nil {
			if !errors.Is(err, ErrToolList) {
				t.Fatalf("error %v does not wrap ErrToolList", err)
			}
			return
		}
		seen := map[string]bool{}
		for _, d := range docs {
			if strings.TrimSpace(d.Name) == "" || seen[d.Name] {
				t.Fatalf("name %q blank or repeated", d.Name)
			}
			seen[d.Name] = true
		}
		hits := NewIndex(docs, assets.Vectors()).Search(query, 3)
		if len(hits) > 3 {
			t.Fatalf("%d hits for k=3", len(hits))
		}
		for i, h := range hits {
			if !seen[h.Name] || h.Score <= 0 || i > 0 && h.Score > hits[i-1].Score {
				t.Fatalf("hits %+v", hits)
			}
		}
	})
}
