package registry

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseSkill(t *testing.T) {
	tests := []struct {
		name    string
		dir     string
		text    string
		want    Skill
		wantErr string
	}{
		{
			name: "plain",
			dir:  "pdf-forms",
			text: "---\nname: pdf-forms\ndescription: Fill in PDF forms. Use when the user asks to fill one.\nlicense: MIT\n---\n\n# Filling forms\n\n1. Read the fields.\n",
			want: Skill{Name: "pdf-forms", Description: "Fill in PDF forms. Use when the user asks to fill one.", Content: "# Filling forms\n\n1. Read the fields."},
		},
		{
			name: "quoted values, comments, nested metadata, CRLF",
			dir:  "trip",
			text: "---\r\n# a comment\r\nname: 'trip'\r\ndescription: \"Plan a trip: \\\"dates\\\", trains\" \r\nmetadata:\r\n  author: ann\r\n  version: 2\r\nallowed-tools: Read Write # tools\r\n---\r\nAsk for the dates.\r\n",
			want: Skill{Name: "trip", Description: `Plan a trip: "dates", trains`, Content: "Ask for the dates."},
		},
		{
			name: "folded block description",
			dir:  "notes",
			text: "---\nname: notes\ndescription: >\n  Keep notes\n  in notes.md.\n---\nWrite them.",
			want: Skill{Name: "notes", Description: "Keep notes in notes.md.", Content: "Write them."},
		},
		{name: "no front matter", dir: "x", text: "# Just markdown", wantErr: "must start with YAML front matter"},
		{name: "unclosed", dir: "x", text: "---\nname: x\n", wantErr: "no closing ---"},
		{name: "no name", dir: "x", text: "---\ndescription: d\n---\nbody", wantErr: "has no name"},
		{name: "name differs from folder", dir: "x", text: "---\nname: y\ndescription: d\n---\nbody", wantErr: `name "y" must match its folder's name "x"`},
		{name: "bad name", dir: "Big Name", text: "---\nname: Big Name\ndescription: d\n---\nbody", wantErr: "must be lowercase"},
		{name: "no description", dir: "x", text: "---\nname: x\n---\nbody", wantErr: "no description"},
		{name: "no instructions", dir: "x", text: "---\nname: x\ndescription: d\n---\n  \n", wantErr: "no instructions"},
		{name: "not key value", dir: "x", text: "---\nname x\n---\nbody", wantErr: "is not key: value"},
		{name: "duplicate key", dir: "x", text: "---\nname: x\nname: x\ndescription: d\n---\nb", wantErr: "given twice"},
		{name: "bad quotes", dir: "x", text: "---\nname: \"x\ndescription: d\n---\nb", wantErr: "bad double-quoted"},
		{name: "long description", dir: "x", text: "---\nname: x\ndescription: " + strings.Repeat("d", 1025) + "\n---\nb", wantErr: "over 1024"},
		{name: "not UTF-8", dir: "x", text: "---\nname: x\xff\n---", wantErr: "not UTF-8"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseSkill(tt.dir, []byte(tt.text))
			if tt.wantErr != "" {
				if !errors.Is(err, ErrSkill) || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func FuzzParseSkill(f *testing.F) {
	f.Add("s", "---\nname: s\ndescription: d\n---\nbody")
	f.Add("x", "---\nname: 'x'\ndescription: |\n  a\n  b\n---\n")
	f.Fuzz(func(t *testing.T, dir, text string) {
		s, err := ParseSkill(dir, []byte(text))
		if err != nil {
			return
		}
		if s.Name != dir || s.Description == "" || s.Content == "" {
			t.Fatalf("accepted an incomplete skill: %+v", s)
		}
		if New().AddSkill(s) != nil {
			t.Fatalf("parsed a skill the registry refuses: %+v", s)
		}
	})
}
