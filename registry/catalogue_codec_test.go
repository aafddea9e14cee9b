package registry

import (
	"encoding/json"
	"fmt"
	"reflect"
	"testing"

	"github.com/toolroute/toolroute/registry/internal/jsondec"
)

// catalogueSeeds are catalogues as hosts send them, and what a bad host
// might: nulls, empty lists, unknown and repeated keys, keys in another
// case, wrong types, numbers that are not ints, broken JSON.
var catalogueSeeds = []string{
	`{}`, `null`, `{"groups":null,"tools":[],"manifests":null,"skills":[],"disabled":null}`,
	`{"groups":[{"name":"g","display_name":"G","description":"d","origin":{"kind":"native"}}],"tools":[{"name":"t","description":"x","group":"g","parameters":{"type":"object","properties":{"a":{"type":"string"}}},"required_permissions":["read"],"timeout_seconds":30,"env":["K"],"origin":{"kind":"js","file":"f.json","source":"s","function":"run"}}]}`,
	`{"manifests":[{"file":"a.json","text":"{\"name\":\"a\"}","source":"user/a.js","override":true}],"skills":[{"name":"s","description":"d","content":"c"}],"disabled":["a","b"]}`,
	`{"tools":[{"name":"t","parameters":null}]}`, `{"tools":[{"name":"t","parameters": { "a" : [1, 2] } }]}`,
	`{"tools":[{"name":"t","timeout_seconds":1.5}]}`, `{"tools":[{"name":"t","timeout_seconds":1e3}]}`, `{"tools":[{"name":"t","timeout_seconds":"30"}]}`,
	`{"tools":[{"Name":"t"}]}`, `{"TOOLS":[]}`, `{"tools":[{"name":"t","name":"u"}]}`, `{"tools":[],"tools":[]}`,
	`{"tools":[{"name":"t","unknown":{"deep":[1,{"x":null}]}}]}`, `{"tools":[{"origin":null}]}`, `{"tools":[{"origin":{"kind":1}}]}`,
	`{"disabled":[null,"a"]}`, `{"disabled":"a"}`, `{"groups":{}}`, `{"groups":[1]}`, `{"manifests":[{"override":"yes"}]}`,
	`[]`, `"x"`, `{`, `{"tools":[}`, `{"tools":[{"name":"\u00e9\ud800"}]}`, `{"tools":[{"name":"a"}]} x`, "{\"tools\":[{\"name\":\"\xff\"}]}",
}

func sameAsJSON(t *testing.T, in string) {
	t.Helper()
	if jsondec.TooDeep([]byte(in), 10000) >= 0 {
		return // the hand reader reads on, without recursion, where encoding/json stops
	}
	got, gotErr := UnmarshalCatalogue([]byte(in))
	var want Catalogue
	wantErr := json.Unmarshal([]byte(in), &want)
	if fmt.Sprint(gotErr) != fmt.Sprint(wantErr) {
		t.Fatalf("UnmarshalCatalogue(%.200q): error %v, encoding/json %v", in, gotErr, wantErr)
	}
	if wantErr == nil && !reflect.DeepEqual(got, want) {
		t.Fatalf("UnmarshalCatalogue(%.200q):\n got %#v\nwant %#v", in, got, want)
	}
}

func TestUnmarshalCatalogueAsJSON(t *testing.T) {
	for _, s := range catalogueSeeds {
		sameAsJSON(t, s)
	}
}

func FuzzUnmarshalCatalogue(f *testing.F) {
	for _, s := range catalogueSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) { sameAsJSON(t, in) })
}
