package registry

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"
)

// deepSchema is a parameter schema nesting n levels: a property's enum
// of nested arrays.
func deepSchema(n int) string {
	return `{"properties":{"p":{"enum":[` + strings.Repeat("[", n-4) + strings.Repeat("]", n-4) + `]}}}`
}

// TestCatalogueTooDeep: a catalogue tool's parameters, or a manifest,
// nesting past MaxDepth is refused on its own, saying so, before anything
// reads it recursively (in wasm under V8 the schema scan trapped at about
// 5,500 levels), and the rest of the catalogue loads; what nests to the
// limit loads. The catalogue is read as the module reads it, from JSON.
func TestCatalogueTooDeep(t *testing.T) {
	for _, n := range []int{MaxDepth, MaxDepth + 1, 1_000, 10_000, 100_000, 1_000_000} {
		t.Run(strconv.Itoa(n), func(t *testing.T) {
			manifest := func(params string) string {
				b, _ := json.Marshal(`{"name":"deep_manifest","description":"Deep","parameters":` + params + `}`)
				return string(b)
			}
			// A manifest nests a level more than its schema: the manifest at
			// the limit holds a schema a level shallower.
			manifestSchema := deepSchema(n)
			if n == MaxDepth {
				manifestSchema = deepSchema(n - 1)
			}
			data := `{"tools":[{"name":"deep_tool","description":"Deep","parameters":` + deepSchema(n) + `},` +
				`{"name":"flat_tool","description":"Flat","parameters":{"properties":{"q":{"type":"string"}}}}],` +
				`"manifests":[{"file":"deep_manifest.json","source":"deep_manifest.js","text":` + manifest(manifestSchema) + `},` +
				`{"file":"flat_manifest.json","source":"flat_manifest.js","text":"{\"name\":\"flat_manifest\",\"description\":\"Flat\"}"}]}`
			c, err := UnmarshalCatalogue([]byte(data))
			if err != nil {
				t.Fatal(err)
			}
			reg, rep := Build(c)
			for _, name := range []string{"flat_tool", "flat_manifest"} {
				if !reg.Has(name) {
					t.Errorf("%s did not load: %+v", name, rep)
				}
			}
			if n == MaxDepth {
				if !rep.OK() || !reg.Has("deep_tool") || !reg.Has("deep_manifest") {
					t.Fatalf("at the limit: %+v", rep)
				}
				return
			}
			if reg.Has("deep_tool") || reg.Has("deep_manifest") {
				t.Error("a tool nesting past the limit loaded")
			}
			// The schema's enum array opens 3 levels down; the bracket past
			// the limit is the one that many after it.
			wantTool := `tool "deep_tool": registry: invalid definition: tool "deep_tool": 'parameters' nests more than 512 levels of arrays and objects (at byte ` +
				strconv.Itoa(len(`{"properties":{"p":{"enum":[`)+MaxDepth-4) + `): a tool's schema needs far fewer; nest it less`
			if len(rep.Errors) != 1 || rep.Errors[0] != wantTool {
				t.Errorf("errors %q, want [%q]", rep.Errors, wantTool)
			}
			wantManifest := "manifest nests more than 512 levels of arrays and objects (at line 1, column " +
				strconv.Itoa(len(`{"name":"deep_manifest","description":"Deep","parameters":{"properties":{"p":{"enum":[`)+MaxDepth-5+1) +
				"), the most the registry reads: no tool needs that; nest its parameters less"
			if len(c.Manifests[0].Text) > MaxManifestBytes {
				wantManifest = "manifest is " + strconv.Itoa(len(c.Manifests[0].Text)) + " bytes; the limit is 1048576"
			}
			if got := rep.Manifests[0].Skipped; len(got) != 1 || got[0].Reason != wantManifest {
				t.Errorf("manifest skipped %+v, want %q", got, wantManifest)
			}
		})
	}
}

// TestUnknownFieldsSkippedAtAnyDepth: what the catalogue holds besides
// what the registry reads is skipped, however deep, without recursion.
func TestUnknownFieldsSkippedAtAnyDepth(t *testing.T) {
	deep := strings.Repeat("[", 1_000_000) + strings.Repeat("]", 1_000_000)
	c, err := UnmarshalCatalogue([]byte(`{"x":` + deep + `,"tools":[{"name":"t","description":"T","y":` + deep + `}]}`))
	if err != nil {
		t.Fatal(err)
	}
	if reg, rep := Build(c); !rep.OK() || !reg.Has("t") {
		t.Fatalf("%+v", rep)
	}
}
