package registry

import (
	"strings"
	"testing"
)

// TestMemoForgetsChanges: what the registry keeps of its catalogue (the
// listings and prompt, Memo's values) is built once and built again after
// every kind of change, so no turn reads a stale prompt.
func TestMemoForgetsChanges(t *testing.T) {
	tests := []struct {
		name   string
		change func(t *testing.T, r *Registry)
		want   string // in the system prompt after the change
		gone   string // no longer in it
	}{
		{name: "group and tool added", want: "- news: News", change: func(t *testing.T, r *Registry) {
			mustNil(t, r.AddGroup(Group{Name: "news", Description: "News"}))
			mustNil(t, r.AddTool(Tool{Name: "news_read", Description: "Read", Group: "news"}))
		}},
		{name: "tool disabled", gone: "- pdf:", change: func(t *testing.T, r *Registry) {
			for _, name := range []string{"pdf_info", "pdf_extract_text", "pdf_render_page"} {
				mustNil(t, r.SetToolEnabled(name, false))
			}
		}},
		{name: "skill added", want: "- haiku: Write", change: func(t *testing.T, r *Registry) {
			mustNil(t, r.AddSkill(Skill{Name: "haiku", Description: "Write a haiku"}))
		}},
		{name: "JS group replaced", want: "- google_gmail: Mail only", change: func(t *testing.T, r *Registry) {
			rep := r.LoadManifest(Manifest{File: "google_gmail.json", Source: "other.js", Override: true, Text: []byte(group(
				`{"_meta":true,"description":"Mail only"}`, `{"name":"gmail_search","description":"Search","function":"search"}`))})
			if !rep.OK() {
				t.Fatal(rep.Err())
			}
		}},
	}
	type key struct{}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := sampleCatalogue(t)
			builds := 0
			build := func() any { builds++; return builds }
			before := r.SystemPrompt("Base.")
			for _, g := range r.Groups() {
				r.LoadToolGroup([]byte(`{"group_name":"` + g.Name + `"}`)) // kept, to be forgotten
			}
			if r.Memo(key{}, build) != 1 || r.Memo(key{}, build) != 1 || r.SystemPrompt("Base.") != before {
				t.Fatalf("built %d times before the change", builds)
			}
			tt.change(t, r)
			after := r.SystemPrompt("Base.")
			if got := r.Memo(key{}, build); got != 2 {
				t.Errorf("Memo after the change answers build number %v, want 2", got)
			}
			if fresh := r.buildSystemPrompt("Base.", true); after != fresh {
				t.Errorf("prompt kept from before the change:\n%s\nwant\n%s", after, fresh)
			}
			if tt.want != "" && !strings.Contains(after, tt.want) {
				t.Errorf("prompt lacks %q:\n%s", tt.want, after)
			}
			if tt.gone != "" && strings.Contains(after, tt.gone) {
				t.Errorf("prompt still has %q:\n%s", tt.gone, after)
			}
			for _, g := range r.Groups() {
				tools := r.filter(func(t Tool) bool { return t.Group == g.Name })
				if got := r.GroupTools(g.Name); len(got) != len(tools) {
					t.Errorf("group %s: GroupTools has %d tools, want %d", g.Name, len(got), len(tools))
				}
				res, _ := r.LoadToolGroup([]byte(`{"group_name":"` + g.Name + `"}`))
				if want := loadText(g, tools); len(tools) > 0 && res.Output != want {
					t.Errorf("loading %s gives %q, want %q", g.Name, res.Output, want)
				}
			}
			if r.HasGroups() != (len(r.AvailableGroups()) > 0) {
				t.Errorf("HasGroups %v, AvailableGroups %v", r.HasGroups(), r.AvailableGroups())
			}
		})
	}
}
