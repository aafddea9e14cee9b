package fakegoogle

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestFields(t *testing.T) {
	doc := `{"id":"f1","name":"a.txt","size":"12",
		"owners":[{"displayName":"Ada","emailAddress":"ada@example.com","me":true}],
		"shortcutDetails":{"targetId":"t1","targetMimeType":"text/plain"}}`
	users := fieldNames{"displayName": nil, "emailAddress": nil, "me": nil}
	tree := fieldNames{"id": nil, "name": nil, "size": nil, "owners": users,
		"shortcutDetails": fieldNames{"targetId": nil, "targetMimeType": nil}}
	tests := []struct {
		name, input string
		known       fieldNames
		want        string // the cut document
		wantPaths   string // the selection as a field mask
		wantErr     string
	}{
		{name: "top level", input: "id,name", known: tree, want: `{"id":"f1","name":"a.txt"}`, wantPaths: "id name"},
		{name: "inside a list", input: "owners(displayName)", known: tree,
			want: `{"owners":[{"displayName":"Ada"}]}`, wantPaths: "owners.displayName"},
		{name: "slash path", input: "shortcutDetails/targetId,id", known: tree,
			want: `{"id":"f1","shortcutDetails":{"targetId":"t1"}}`, wantPaths: "id shortcutDetails.targetId"},
		{name: "dot path", input: "shortcutDetails.targetId", known: tree,
			want: `{"shortcutDetails":{"targetId":"t1"}}`, wantPaths: "shortcutDetails.targetId"},
		{name: "path then list", input: "owners/me,owners(emailAddress)", known: tree,
			want: `{"owners":[{"emailAddress":"ada@example.com","me":true}]}`, wantPaths: "owners.emailAddress owners.me"},
		{name: "whole field wins", input: "shortcutDetails(targetId),shortcutDetails", known: tree,
			want: `{"shortcutDetails":{"targetId":"t1","targetMimeType":"text/plain"}}`, wantPaths: "shortcutDetails"},
		{name: "wildcard", input: "*", known: tree, want: doc, wantPaths: "*"},
		{name: "wildcard inside", input: "owners/*", known: tree,
			want: `{"owners":[{"displayName":"Ada","emailAddress":"ada@example.com","me":true}]}`, wantPaths: "owners.*"},
		{name: "spaces", input: " id , owners( me ) ", known: tree, want: `{"id":"f1","owners":[{"me":true}]}`, wantPaths: "id owners.me"},
		{name: "absent field", input: "id,size", known: fieldNames{"id": nil, "size": nil}, want: `{"id":"f1","size":"12"}`, wantPaths: "id size"},
		{name: "unchecked", input: "nosuch,id", want: `{"id":"f1"}`, wantPaths: "id nosuch"},
		{name: "flat names at any depth", input: "owners(name)", known: flatNames("owners name"), want: `{"owners":[{}]}`, wantPaths: "owners.name"},
		{name: "typo", input: "id,nmae", known: tree, wantErr: "Invalid field selection nmae"},
		{name: "nested typo", input: "owners(displayName,emial)", known: tree, wantErr: "Invalid field selection owners.emial"},
		{name: "flat typo", input: "owners(nmae)", known: flatNames("owners name"), wantErr: "Invalid field selection owners.nmae"},
		{name: "inside a plain field", input: "name(first)", known: tree, wantErr: "name has no fields to select"},
		{name: "unclosed", input: "owners(me", wantErr: "a ')' is missing"},
		{name: "empty name", input: "id,,name", wantErr: "a field name is missing"},
		{name: "trailing comma", input: "id,", wantErr: "a field name is missing"},
		{name: "empty parentheses", input: "owners()", wantErr: "a field name is missing"},
		{name: "stray parenthesis", input: "id)", wantErr: `unexpected ")"`},
		{name: "partial wildcard", input: "own*", wantErr: "a wildcard stands alone"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sel, err := parseFields(tt.input)
			if err == nil && tt.known != nil {
				err = sel.check(tt.known, "")
			}
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("parse(%q) = %v; want an error with %q", tt.input, err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("parse(%q): %v", tt.input, err)
			}
			var v, want any
			json.Unmarshal([]byte(doc), &v)
			json.Unmarshal([]byte(tt.want), &want)
			if diff := cmp.Diff(want, sel.cut(v)); diff != "" {
				t.Errorf("cut(%q) (-want +got):\n%s", tt.input, diff)
			}
			if got := strings.Join(sel.paths(), " "); got != tt.wantPaths {
				t.Errorf("paths(%q) = %q, want %q", tt.input, got, tt.wantPaths)
			}
		})
	}
}

func FuzzFields(f *testing.F) {
	for _, s := range []string{"id,name", "a(b,c/d),e.f", "*", "a/*", "items(id,start/dateTime),nextPageToken", "a(", ")"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		sel, err := parseFields(s)
		if err != nil {
			return
		}
		// A selector that parses parses again from its own paths.
		again, err := parseFields(strings.Join(sel.paths(), ","))
		if err != nil {
			t.Fatalf("the paths of %q do not parse: %v", s, err)
		}
		if diff := cmp.Diff(sel, again); diff != "" {
			t.Errorf("%q parsed again from its paths (-first +again):\n%s", s, diff)
		}
	})
}
