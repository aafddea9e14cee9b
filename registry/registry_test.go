package registry

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// sampleCatalogue registers a catalogue shaped like the built-in one
// (docs/reference/routing.md): core tools,
// host groups config and pdf, and two JS groups.
func sampleCatalogue(t *testing.T) *Registry {
	t.Helper()
	r := New()
	for _, name := range []string{"get_current_time", "read_file"} {
		rep := r.LoadManifest(Manifest{File: name + ".json", Source: name + ".js", Text: []byte(fmt.Sprintf(`{"name":%q,"description":"The %s tool"}`, name, name))})
		if !rep.OK() {
			t.Fatal(rep.Err())
		}
	}
	mustNil(t, r.AddTool(Tool{Name: "js_eval", Description: "Run JavaScript"}))
	mustNil(t, r.AddGroup(Group{Name: "config", DisplayName: "Configuration", Description: "Manage providers, models, agents, app settings, environment variables, and tool states"}))
	mustNil(t, r.AddGroup(Group{Name: "pdf", DisplayName: "PDF Tools", Description: "Extract text, get info, and render pages from PDF files"}))
	for _, tool := range []Tool{
		{Name: "get_config", Description: "Read a setting", Group: "config"},
		{Name: "set_config", Description: "Change a setting", Group: "config"},
		{Name: "pdf_info", Description: "PDF metadata", Group: "pdf"},
		{Name: "pdf_extract_text", Description: "PDF text", Group: "pdf"},
		{Name: "pdf_render_page", Description: "Render a PDF page", Group: "pdf"},
	} {
		mustNil(t, r.AddTool(tool))
	}
	for _, m := range []Manifest{
		{File: "google_gmail.json", Source: "google_gmail.js", Text: []byte(group(
			`{"_meta":true,"display_name":"Google Gmail","description":"Email management: search, read, send, draft, label, archive, and manage Gmail messages"}`,
			`{"name":"gmail_search","description":"Search Gmail messages by query","function":"search"}`,
			`{"name":"gmail_read","description":"Read a specific Gmail message by ID","function":"read"}`))},
		{File: "google_drive.json", Source: "google_drive.js", Text: []byte(group(
			`{"_meta":true,"display_name":"Google Drive","description":"File storage: list, search, upload, download, share, and manage Google Drive files and folders"}`,
			`{"name":"drive_list_files","description":"List files","function":"list"}`))},
	} {
		if rep := r.LoadManifest(m); !rep.OK() {
			t.Fatal(rep.Err())
		}
	}
	return r
}

func TestQueries(t *testing.T) {
	r := sampleCatalogue(t)
	t.Run("core tools", func(t *testing.T) {
		want := []string{"load_tool_group", "get_current_time", "read_file", "js_eval"}
		if diff := cmp.Diff(want, names(r.CoreTools())); diff != "" {
			t.Errorf("core (-want +got):\n%s", diff)
		}
	})
	t.Run("a group's tools in registration order", func(t *testing.T) {
		want := []string{"pdf_info", "pdf_extract_text", "pdf_render_page"}
		if diff := cmp.Diff(want, names(r.GroupTools("pdf"))); diff != "" {
			t.Errorf("pdf (-want +got):\n%s", diff)
		}
		if got := r.GroupTools("nonexistent"); got != nil {
			t.Errorf("unknown group gave %v", names(got))
		}
		if got := r.GroupTools(""); got != nil {
			t.Errorf("group \"\" gave %v", names(got))
		}
	})
	t.Run("every group definition in registration order", func(t *testing.T) {
		var got []string
		for _, g := range r.Groups() {
			got = append(got, g.Name+":"+string(g.Origin.Kind))
		}
		want := []string{"config:host", "pdf:host", "google_gmail:js", "google_drive:js"}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("groups (-want +got):\n%s", diff)
		}
	})
	t.Run("group membership whatever the origin", func(t *testing.T) {
		want := []GroupMembers{
			{Group: "config", Tools: []string{"get_config", "set_config"}},
			{Group: "pdf", Tools: []string{"pdf_info", "pdf_extract_text", "pdf_render_page"}},
			{Group: "google_gmail", Tools: []string{"gmail_search", "gmail_read"}},
			{Group: "google_drive", Tools: []string{"drive_list_files"}},
		}
		if diff := cmp.Diff(want, r.GroupMembership()); diff != "" {
			t.Errorf("membership (-want +got):\n%s", diff)
		}
	})
	t.Run("one tool by name", func(t *testing.T) {
		tool, ok := r.Tool("gmail_read")
		if !ok || tool.Group != "google_gmail" || tool.Origin.Function != "read" || tool.Origin.Source != "google_gmail.js" {
			t.Errorf("Tool(gmail_read) = %+v, %v", tool, ok)
		}
		if _, ok := r.Tool("nope"); ok {
			t.Error("unknown tool found")
		}
		host, _ := r.Tool("js_eval")
		if host.Origin.Kind != OriginHost || host.TimeoutSeconds != DefaultTimeoutSeconds || string(host.Parameters) != `{"type":"object","properties":{}}` {
			t.Errorf("host tool = %+v", host)
		}
		meta, _ := r.Tool("load_tool_group")
		if meta.Origin.Kind != OriginMeta || meta.TimeoutSeconds != 5 {
			t.Errorf("meta tool = %+v", meta)
		}
	})
}

// A meta-tool is offered only when it has something to load.
func TestMetaToolsOfferedWhenUseful(t *testing.T) {
	r := New()
	mustNil(t, r.AddTool(Tool{Name: "js_eval", Description: "Run JavaScript"}))
	if got := names(r.CoreTools()); !cmp.Equal(got, []string{"js_eval"}) {
		t.Errorf("no groups, no skills: core = %v", got)
	}
	mustNil(t, r.AddSkill(Skill{Name: "pdf-forms", Description: "Fill PDF forms"}))
	if got := names(r.CoreTools()); !cmp.Equal(got, []string{"load_skill", "js_eval"}) {
		t.Errorf("a skill: core = %v", got)
	}
	mustNil(t, r.AddGroup(Group{Name: "pdf", Description: "PDF"}))
	if got := names(r.CoreTools()); contains(got, "load_tool_group") {
		t.Errorf("a group without tools offers load_tool_group: %v", got)
	}
	mustNil(t, r.AddTool(Tool{Name: "pdf_info", Description: "Info", Group: "pdf"}))
	if got := names(r.CoreTools()); !cmp.Equal(got, []string{"load_tool_group", "load_skill", "js_eval"}) {
		t.Errorf("a group and a skill: core = %v", got)
	}
	mustNil(t, r.SetToolEnabled("pdf_info", false))
	if got := names(r.CoreTools()); contains(got, "load_tool_group") {
		t.Errorf("every group tool disabled, load_tool_group still offered: %v", got)
	}
	// Either way the meta-tools stay registered and callable.
	if _, ok := r.Tool(LoadToolGroupName); !ok {
		t.Error("load_tool_group is not registered")
	}
}

func TestAddErrors(t *testing.T) {
	r := New()
	mustNil(t, r.AddGroup(Group{Name: "config", Description: "Settings"}))
	tests := []struct {
		name string
		err  error
		want error
	}{
		{"tool name", r.AddTool(Tool{Name: "Bad", Description: "x"}), ErrInvalid},
		{"tool description", r.AddTool(Tool{Name: "no_desc"}), ErrInvalid},
		{"tool schema", r.AddTool(Tool{Name: "bad_schema", Description: "x", Parameters: json.RawMessage(`[1]`)}), ErrInvalid},
		{"tool timeout", r.AddTool(Tool{Name: "slow", Description: "x", TimeoutSeconds: -1}), ErrInvalid},
		{"tool of an unknown group", r.AddTool(Tool{Name: "orphan", Description: "x", Group: "nope"}), ErrUnknownGroup},
		{"duplicate meta-tool", r.AddTool(Tool{Name: "load_tool_group", Description: "x"}), ErrDuplicateTool},
		{"duplicate group", r.AddGroup(Group{Name: "config"}), ErrDuplicateGroup},
		{"group name", r.AddGroup(Group{Name: "Config"}), ErrInvalid},
		{"skill name", r.AddSkill(Skill{Name: "Bad Name", Description: "x"}), ErrInvalid},
		{"skill description", r.AddSkill(Skill{Name: "ok"}), ErrInvalid},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if !errors.Is(tt.err, tt.want) {
				t.Errorf("err = %v, want %v", tt.err, tt.want)
			}
		})
	}
	mustNil(t, r.AddSkill(Skill{Name: "pdf-forms", Description: "x"}))
	if err := r.AddSkill(Skill{Name: "pdf-forms", Description: "y"}); !errors.Is(err, ErrDuplicateSkill) {
		t.Errorf("duplicate skill: %v", err)
	}
	g, _ := r.Group("config")
	if g.DisplayName != "Config" || g.Origin.Kind != OriginHost {
		t.Errorf("defaults not filled: %+v", g)
	}
	// A timeout of 0 is the default; the refusal of one too long says so.
	mustNil(t, r.AddTool(Tool{Name: "quick", Description: "x"}))
	if tool, _ := r.Tool("quick"); tool.TimeoutSeconds != DefaultTimeoutSeconds {
		t.Errorf("a tool without a timeout has %d s, want the default %d", tool.TimeoutSeconds, DefaultTimeoutSeconds)
	}
	err := r.AddTool(Tool{Name: "slower", Description: "x", TimeoutSeconds: MaxTimeoutSeconds + 1})
	if want := `timeout must be between 1 and 3600 seconds, or 0 for the default 30`; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("a timeout of %d s: %v, want an error saying %q", MaxTimeoutSeconds+1, err, want)
	}
}

func TestSetToolEnabled(t *testing.T) {
	r := sampleCatalogue(t)
	mustNil(t, r.SetToolEnabled("pdf_info", false))
	mustNil(t, r.SetToolEnabled("get_current_time", false))

	if _, ok := r.Tool("pdf_info"); ok {
		t.Error("disabled tool can be looked up for a call")
	}
	if !r.Has("pdf_info") || r.Enabled("pdf_info") {
		t.Error("Has/Enabled wrong for a disabled tool")
	}
	if def, ok := r.Definition("pdf_info"); !ok || def.Description != "PDF metadata" {
		t.Errorf("Definition of a disabled tool = %+v, %v", def, ok)
	}
	if contains(names(r.GroupTools("pdf")), "pdf_info") || contains(names(r.Tools()), "pdf_info") {
		t.Error("disabled tool is listed")
	}
	if contains(names(r.CoreTools()), "get_current_time") {
		t.Error("disabled core tool is listed")
	}
	var states []string
	for _, s := range r.ToolStates() {
		if !s.Enabled {
			states = append(states, s.Name)
		}
	}
	if !cmp.Equal(states, []string{"get_current_time", "pdf_info"}) {
		t.Errorf("disabled states = %v", states)
	}

	// Load a group, then disable a tool in it: the next load lists the rest.
	res, _ := r.LoadToolGroup(json.RawMessage(`{"group_name":"pdf"}`))
	if !strings.HasPrefix(res.Output, "Loaded 2 tools from group 'PDF Tools':") {
		t.Errorf("load after disabling one: %q", res.Output)
	}

	// A group whose tools are all disabled is empty, and not offered.
	mustNil(t, r.SetToolEnabled("drive_list_files", false))
	res, _ = r.LoadToolGroup(json.RawMessage(`{"group_name":"google_drive"}`))
	want := Failure("empty_group", "Tool group 'google_drive' has no available tools.")
	if diff := cmp.Diff(want, res); diff != "" {
		t.Errorf("empty group (-want +got):\n%s", diff)
	}
	if strings.Contains(r.SystemPrompt(""), "google_drive") {
		t.Error("a group with no enabled tool is listed in the prompt")
	}

	mustNil(t, r.SetToolEnabled("drive_list_files", true))
	if _, ok := r.Tool("drive_list_files"); !ok {
		t.Error("re-enabled tool missing")
	}
	if err := r.SetToolEnabled("nope", false); !errors.Is(err, ErrUnknownTool) {
		t.Errorf("unknown tool: %v", err)
	}
	if err := r.SetToolEnabled("load_tool_group", false); !errors.Is(err, ErrInvalid) {
		t.Errorf("disabling a meta-tool: %v", err)
	}
}

func TestLoadToolGroup(t *testing.T) {
	r := sampleCatalogue(t)
	mustNil(t, r.AddGroup(Group{Name: "empty", Description: "Nothing"}))
	mustNil(t, r.AddGroup(Group{Name: "lab", Description: "Starting", Unavailable: "MCP server 'lab' is starting."}))
	tests := []struct {
		name      string
		args      string
		want      Result
		wantGroup string
	}{
		{
			name: "TEST-040-03 success lists the tools",
			args: `{"group_name":"google_gmail"}`,
			want: Success("Loaded 2 tools from group 'Google Gmail':\n" +
				"- gmail_search: Search Gmail messages by query\n" +
				"- gmail_read: Read a specific Gmail message by ID"),
			wantGroup: "google_gmail",
		},
		{
			name:      "a group of one",
			args:      `{"group_name":"google_drive"}`,
			want:      Success("Loaded 1 tools from group 'Google Drive':\n- drive_list_files: List files"),
			wantGroup: "google_drive",
		},
		{
			name: "TEST-040-04 unknown group lists the available groups",
			args: `{"group_name":"nonexistent"}`,
			want: Failure("not_found", "Tool group 'nonexistent' not found. Available groups: config, pdf, google_gmail, google_drive"),
		},
		{
			name: "missing group_name",
			args: `{}`,
			want: Failure("missing_parameter", "Required parameter 'group_name' is missing."),
		},
		{
			name: "group_name not a string",
			args: `{"group_name":42}`,
			want: Failure("missing_parameter", "Required parameter 'group_name' is missing."),
		},
		{
			name: "arguments not an object",
			args: `not json`,
			want: Failure("missing_parameter", "Required parameter 'group_name' is missing."),
		},
		{
			name: "a registered group without tools",
			args: `{"group_name":"empty"}`,
			want: Failure("empty_group", "Tool group 'empty' has no available tools."),
		},
		{
			name: "a group without tools yet says why",
			args: `{"group_name":"lab"}`,
			want: Failure("unavailable", "Tool group 'lab' has no tools yet: MCP server 'lab' is starting."),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, group := r.LoadToolGroup(json.RawMessage(tt.args))
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("result (-want +got):\n%s", diff)
			}
			if group != tt.wantGroup {
				t.Errorf("group = %q, want %q", group, tt.wantGroup)
			}
		})
	}
}

func TestLoadToolGroupSchema(t *testing.T) {
	tool, ok := New().Tool(LoadToolGroupName)
	if !ok {
		t.Fatal("load_tool_group missing")
	}
	want := `{"name":"load_tool_group","description":"Load all tools in a tool group to make them available for use. You MUST load a tool group before you can use any tools in it. After loading, the tools will be available for the rest of this conversation.","parameters":{"type":"object","properties":{"group_name":{"type":"string","description":"The name of the tool group to load"}},"required":["group_name"]}}`
	got, _ := json.Marshal(struct {
		Name        string          `json:"name"`
		Description string          `json:"description"`
		Parameters  json.RawMessage `json:"parameters"`
	}{tool.Name, tool.Description, tool.Parameters})
	if string(got) != want {
		t.Errorf("schema:\n got %s\nwant %s", got, want)
	}
	if tool.Group != "" || tool.TimeoutSeconds != 5 || !cmp.Equal(tool.Required, []string{"group_name"}) {
		t.Errorf("tool = %+v", tool)
	}
}

func TestLoadSkill(t *testing.T) {
	r := New()
	tests := []struct {
		name string
		args string
		want Result
	}{
		{"no skills", `{"name":"x"}`, Failure("not_found", "Skill 'x' not found. Available skills: (none)")},
	}
	for _, tt := range tests {
		if got := r.LoadSkill(json.RawMessage(tt.args)); !cmp.Equal(tt.want, got) {
			t.Errorf("%s: got %+v", tt.name, got)
		}
	}
	mustNil(t, r.AddSkill(Skill{Name: "pdf-forms", Description: "Fill PDF forms", Content: "Step 1: read the form."}))
	mustNil(t, r.AddSkill(Skill{Name: "trip_planning", Description: "Plan a trip", Content: "Ask for dates."}))
	tests = []struct {
		name string
		args string
		want Result
	}{
		{"found", `{"name":"pdf-forms"}`, Success("Step 1: read the form.")},
		{"not found lists skills", `{"name":"nope"}`, Failure("not_found", "Skill 'nope' not found. Available skills: pdf-forms, trip_planning")},
		{"missing name", `{"skill":"pdf-forms"}`, Failure("missing_parameter", "Required parameter 'name' is missing.")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, r.LoadSkill(json.RawMessage(tt.args))); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestResultContent(t *testing.T) {
	tests := []struct {
		r    Result
		want string
	}{
		{Success("ok"), "ok"},
		{Success(""), ""},
		{Failure("not_found", "Tool group 'x' not found."), "Error (not_found): Tool group 'x' not found."},
		{Result{Status: StatusError, Message: "boom"}, "Error: boom"},
	}
	for _, tt := range tests {
		if got := tt.r.Content(); got != tt.want {
			t.Errorf("Content() = %q, want %q", got, tt.want)
		}
	}
}

func TestSystemPrompt(t *testing.T) {
	const groupsSection = "## Available Tool Groups\n\n" +
		"Use `load_tool_group` to load tools from a group before using them.\n\n" +
		"- config: Manage providers, models, agents, app settings, environment variables, and tool states\n" +
		"- pdf: Extract text, get info, and render pages from PDF files\n" +
		"- google_gmail: Email management: search, read, send, draft, label, archive, and manage Gmail messages\n" +
		"- google_drive: File storage: list, search, upload, download, share, and manage Google Drive files and folders"

	t.Run("TEST-040-02 groups listed after the base prompt", func(t *testing.T) {
		r := sampleCatalogue(t)
		want := "You are helpful.\n\n---\n\n" + groupsSection
		if got := r.SystemPrompt("You are helpful."); got != want {
			t.Errorf("prompt:\n%s\nwant:\n%s", got, want)
		}
	})
	t.Run("blank base prompt", func(t *testing.T) {
		r := sampleCatalogue(t)
		if got := r.SystemPrompt("  \n"); got != groupsSection {
			t.Errorf("prompt:\n%q", got)
		}
	})
	t.Run("no groups adds nothing", func(t *testing.T) {
		r := New()
		r.LoadManifest(Manifest{File: "read_file.json", Text: []byte(`{"name":"read_file","description":"Read"}`)})
		if got := r.SystemPrompt("Base."); got != "Base." {
			t.Errorf("prompt = %q", got)
		}
	})
	t.Run("skills then groups", func(t *testing.T) {
		r := sampleCatalogue(t)
		mustNil(t, r.AddSkill(Skill{Name: "pdf-forms", Description: "Fill in\nPDF   forms", Content: "..."}))
		want := "Base.\n\n---\n\n## Available Skills\n\n" +
			"Use `load_skill` to load a skill's instructions before following them.\n\n" +
			"- pdf-forms: Fill in PDF forms\n\n---\n\n" + groupsSection
		if got := r.SystemPrompt("Base."); got != want {
			t.Errorf("prompt:\n%s\nwant:\n%s", got, want)
		}
		// The sections alone, for hosts that put them elsewhere.
		if got := r.GroupListing(); got != groupsSection {
			t.Errorf("GroupListing:\n%s", got)
		}
		if got, want := r.SkillListing(), "## Available Skills\n\nUse `load_skill` to load a skill's instructions before following them.\n\n- pdf-forms: Fill in PDF forms"; got != want {
			t.Errorf("SkillListing:\n%s", got)
		}
		if empty := New(); empty.GroupListing() != "" || empty.SkillListing() != "" {
			t.Errorf("an empty registry lists %q and %q", empty.GroupListing(), empty.SkillListing())
		}
	})
	t.Run("long and multi-line descriptions", func(t *testing.T) {
		r := New()
		long := strings.Repeat("é", 150) + " " + strings.Repeat("x", 100)
		r.LoadManifest(Manifest{File: "g.json", Text: []byte(group(
			`{"_meta":true,"description":`+quote(long)+`}`, entry("a", "f")))})
		r.LoadManifest(Manifest{File: "h.json", Text: []byte(group(
			`{"_meta":true,"description":"line one\nline two\t tabbed"}`, entry("b", "f")))})
		prompt := r.SystemPrompt("")
		lines := strings.Split(prompt, "\n")
		gotG, gotH := lines[len(lines)-2], lines[len(lines)-1]
		wantG := "- g: " + strings.Repeat("é", 150) + " " + strings.Repeat("x", 48) + "…"
		if gotG != wantG {
			t.Errorf("long description:\n got %q\nwant %q", gotG, wantG)
		}
		if n := len([]rune(strings.TrimPrefix(gotG, "- g: "))); n != MaxListedDescription {
			t.Errorf("cut description has %d runes, want %d", n, MaxListedDescription)
		}
		if gotH != "- h: line one line two tabbed" {
			t.Errorf("multi-line description: %q", gotH)
		}
	})
}

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// TEST-040-01 and TEST-040-08: with over 100 tools registered, a new
// conversation starts with the core tools alone.
func TestCoreOnlyAtStart(t *testing.T) {
	r := New()
	for _, name := range []string{"get_current_time", "read_file", "write_file", "http_request"} {
		r.LoadManifest(Manifest{File: name + ".json", Text: []byte(fmt.Sprintf(`{"name":%q,"description":"d"}`, name))})
	}
	for _, name := range []string{"save_memory", "search_history", "js_eval", "webfetch"} {
		mustNil(t, r.AddTool(Tool{Name: name, Description: "d"}))
	}
	for g := 0; g < 10; g++ {
		var entries []string
		for i := 0; i < 10; i++ {
			entries = append(entries, entry(fmt.Sprintf("g%d_tool%d", g, i), "f"))
		}
		r.LoadManifest(Manifest{File: fmt.Sprintf("group%d.json", g), Text: []byte(group(entries...))})
	}
	if n := len(r.Tools()); n < 110 {
		t.Fatalf("only %d tools registered", n)
	}
	want := []string{"load_tool_group", "get_current_time", "read_file", "write_file", "http_request",
		"save_memory", "search_history", "js_eval", "webfetch"}
	active := r.NewActive()
	if diff := cmp.Diff(want, names(active.Tools())); diff != "" {
		t.Errorf("first call's tools (-want +got):\n%s", diff)
	}
}

// TEST-040-07: loading a group twice does not duplicate its tools; groups
// append in load order and nothing is reordered.
func TestActive(t *testing.T) {
	r := sampleCatalogue(t)
	a := r.NewActive()
	core := names(a.Tools())
	if !a.LoadGroup("pdf") {
		t.Fatal("pdf did not load")
	}
	if a.LoadGroup("pdf") {
		t.Error("second load of pdf reported a change")
	}
	if !a.LoadGroup("google_gmail") {
		t.Fatal("gmail did not load")
	}
	if a.LoadGroup("nonexistent") {
		t.Error("unknown group loaded")
	}
	want := append(core, "pdf_info", "pdf_extract_text", "pdf_render_page", "gmail_search", "gmail_read")
	if diff := cmp.Diff(want, names(a.Tools())); diff != "" {
		t.Errorf("active (-want +got):\n%s", diff)
	}
	if !cmp.Equal(a.Groups(), []string{"pdf", "google_gmail"}) {
		t.Errorf("groups = %v", a.Groups())
	}
	if !a.Has("gmail_read") || a.Has("get_config") {
		t.Error("Has is wrong")
	}
}

// Deterministic: the same registrations in the same order give byte-identical
// prompts and lists.
func TestDeterministic(t *testing.T) {
	render := func() string {
		r := sampleCatalogue(t)
		mustNil(t, r.AddSkill(Skill{Name: "b-skill", Description: "B"}))
		mustNil(t, r.AddSkill(Skill{Name: "a-skill", Description: "A"}))
		out, _ := json.Marshal(struct {
			Prompt     string
			Tools      []Tool
			Groups     []Group
			Membership []GroupMembers
			States     []ToolState
		}{r.SystemPrompt("base"), r.Tools(), r.Groups(), r.GroupMembership(), r.ToolStates()})
		return string(out)
	}
	first := render()
	for i := 0; i < 20; i++ {
		if got := render(); got != first {
			t.Fatalf("run %d differs", i)
		}
	}
}
