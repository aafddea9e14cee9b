package registry

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestRestrict(t *testing.T) {
	full := sampleCatalogue(t)
	mustNil(t, full.SetToolEnabled("pdf_render_page", false))
	tests := []struct {
		name       string
		groups     []string
		wantGroups []string
		wantTools  []string // enabled, in order
	}{
		{"none is every group", nil, []string{"config", "pdf", "google_gmail", "google_drive"}, nil},
		{"one group", []string{"pdf"}, []string{"pdf"},
			[]string{"load_tool_group", "load_skill", "get_current_time", "read_file", "js_eval", "pdf_info", "pdf_extract_text"}},
		{"registration order, not the list's", []string{"google_gmail", "config"}, []string{"config", "google_gmail"},
			[]string{"load_tool_group", "load_skill", "get_current_time", "read_file", "js_eval", "get_config", "set_config", "gmail_search", "gmail_read"}},
		{"unknown names are ignored", []string{"nope"}, nil,
			[]string{"load_tool_group", "load_skill", "get_current_time", "read_file", "js_eval"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := full.Restrict(tt.groups)
			var groups []string
			for _, g := range r.AvailableGroups() {
				groups = append(groups, g.Name)
			}
			if diff := cmp.Diff(tt.wantGroups, groups); diff != "" {
				t.Errorf("groups (-want +got):\n%s", diff)
			}
			if tt.wantTools == nil {
				return
			}
			var tools []string
			for _, tool := range r.Tools() {
				tools = append(tools, tool.Name)
			}
			if diff := cmp.Diff(tt.wantTools, tools); diff != "" {
				t.Errorf("tools (-want +got):\n%s", diff)
			}
		})
	}
}

func TestRestrictHidesOtherGroups(t *testing.T) {
	full := sampleCatalogue(t)
	r := full.Restrict([]string{"pdf"})
	if strings.Contains(r.SystemPrompt("base"), "google_gmail") {
		t.Error("the system prompt lists google_gmail, outside the allowlist")
	}
	res, group := r.LoadToolGroup(json.RawMessage(`{"group_name":"google_gmail"}`))
	if group != "" || res.ErrorType != "not_found" || !strings.HasSuffix(res.Message, "Available groups: pdf") {
		t.Errorf("loading google_gmail: %q %+v, want not_found naming pdf only", group, res)
	}
	if _, hits := r.SearchTools(json.RawMessage(`{"query":"gmail search messages"}`), func(string) bool { return false }); len(hits) != 0 {
		t.Errorf("search_tools found %d tools outside the allowlist", len(hits))
	}
	// The full registry is unchanged.
	if _, ok := full.Group("google_gmail"); !ok || len(full.GroupTools("google_gmail")) != 2 {
		t.Error("Restrict changed the registry it was called on")
	}
}
