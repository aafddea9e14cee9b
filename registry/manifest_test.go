package registry

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// group builds an array manifest from entries written as JSON.
func group(entries ...string) string { return "[" + strings.Join(entries, ",") + "]" }

func entry(name, fn string) string {
	return fmt.Sprintf(`{"name":%q,"description":"Does %s","function":%q}`, name, name, fn)
}

func TestLoadManifestReport(t *testing.T) {
	tests := []struct {
		name string
		file string
		text string
		want Report
	}{
		{
			name: "single tool object",
			file: "weather_lookup.json",
			text: `{"name":"weather_lookup","description":"Look up the weather","parameters":{"properties":{"city":{"type":"string"}},"required":["city"]}}`,
			want: Report{File: "weather_lookup.json", Loaded: []Loaded{{Tool: "weather_lookup", Entry: -1}}},
		},
		{
			name: "single tool name must equal file name",
			file: "weather.json",
			text: `{"name":"weather_lookup","description":"x"}`,
			want: Report{File: "weather.json", Skipped: []Problem{{File: "weather.json", Entry: -1, Tool: "weather_lookup",
				Reason: "Tool name 'weather_lookup' does not match filename 'weather'"}}},
		},
		{
			name: "group of three",
			file: "google_drive.json",
			text: group(entry("drive_list", "listFiles"), entry("drive_read", "readFile"), entry("drive_upload", "uploadFile")),
			want: Report{File: "google_drive.json", Group: "google_drive", Loaded: []Loaded{
				{Tool: "drive_list", Entry: 0}, {Tool: "drive_read", Entry: 1}, {Tool: "drive_upload", Entry: 2}}},
		},
		{
			name: "group entry missing function is skipped, the rest load",
			file: "g.json",
			text: group(entry("a", "fa"), `{"name":"b","description":"B"}`, entry("c", "fc")),
			want: Report{File: "g.json", Group: "g",
				Loaded:  []Loaded{{Tool: "a", Entry: 0}, {Tool: "c", Entry: 2}},
				Skipped: []Problem{{File: "g.json", Entry: 1, Tool: "b", Reason: "Tool 'b' in group 'g.json' missing required 'function' field"}}},
		},
		{
			name: "group entry missing name",
			file: "g.json",
			text: group(`{"description":"B","function":"f"}`, entry("c", "fc")),
			want: Report{File: "g.json", Group: "g", Loaded: []Loaded{{Tool: "c", Entry: 1}},
				Skipped: []Problem{{File: "g.json", Entry: 0, Reason: "Missing required field: 'name'"}}},
		},
		{
			name: "group entry missing description",
			file: "g.json",
			text: group(`{"name":"b","function":"f"}`),
			want: Report{File: "g.json", Group: "g",
				Skipped:  []Problem{{File: "g.json", Entry: 0, Tool: "b", Reason: "Missing required field: 'description'"}},
				Warnings: []Problem{{File: "g.json", Entry: -1, Reason: "Tool group 'g' has no tools: it is registered but not offered to the model"}}},
		},
		{
			name: "duplicate name in group: first wins",
			file: "g.json",
			text: group(entry("a", "first"), entry("a", "second")),
			want: Report{File: "g.json", Group: "g", Loaded: []Loaded{{Tool: "a", Entry: 0}},
				Skipped: []Problem{{File: "g.json", Entry: 1, Tool: "a", Reason: "Duplicate tool name 'a' in group 'g.json'"}}},
		},
		{
			name: "an invalid first entry does not claim its name",
			file: "g.json",
			text: group(`{"name":"a","description":"A"}`, entry("a", "f")),
			want: Report{File: "g.json", Group: "g", Loaded: []Loaded{{Tool: "a", Entry: 1}},
				Skipped: []Problem{{File: "g.json", Entry: 0, Tool: "a", Reason: "Tool 'a' in group 'g.json' missing required 'function' field"}}},
		},
		{
			name: "empty array is a warning and no tools",
			file: "g.json",
			text: `[]`,
			want: Report{File: "g.json", Warnings: []Problem{{File: "g.json", Entry: -1, Reason: "Empty tool group in 'g.json'"}}},
		},
		{
			name: "tool name pattern",
			file: "g.json",
			text: group(entry("Bad-Name", "f"), entry("1abc", "f"), entry("ok_1", "f")),
			want: Report{File: "g.json", Group: "g", Loaded: []Loaded{{Tool: "ok_1", Entry: 2}}, Skipped: []Problem{
				{File: "g.json", Entry: 0, Tool: "Bad-Name", Reason: "Tool name 'Bad-Name' must be snake_case (lowercase letters, digits, underscores)"},
				{File: "g.json", Entry: 1, Tool: "1abc", Reason: "Tool name '1abc' must be snake_case (lowercase letters, digits, underscores)"}}},
		},
		{
			name: "function name pattern",
			file: "g.json",
			text: group(entry("a", "../inject"), entry("b", ""), entry("c", "x();evil"), entry("d", "$ok_1"), entry("e", "delete"), entry("f", "execute")),
			want: Report{File: "g.json", Group: "g",
				Loaded: []Loaded{{Tool: "d", Entry: 3}, {Tool: "e", Entry: 4}, {Tool: "f", Entry: 5}},
				Skipped: []Problem{
					{File: "g.json", Entry: 0, Tool: "a", Reason: "Invalid function name '../inject' for tool 'a'"},
					{File: "g.json", Entry: 1, Tool: "b", Reason: "Tool 'b' in group 'g.json' missing required 'function' field"},
					{File: "g.json", Entry: 2, Tool: "c", Reason: "Invalid function name 'x();evil' for tool 'c'"}}},
		},
		{
			name: "wrong types",
			file: "g.json",
			text: group(`{"name":5,"description":"d","function":"f"}`,
				`{"name":"a","description":["d"],"function":"f"}`,
				`{"name":"b","description":"d","function":7}`,
				`{"name":"c","description":"d","function":"f","parameters":"x"}`,
				`{"name":"d","description":"d","function":"f","timeoutSeconds":"30"}`,
				`{"name":"e","description":"d","function":"f","requiredPermissions":"net"}`,
				`{"name":"f","description":"d","function":"f","env":["OK","not ok"]}`,
				`"just a string"`,
				`{"name":"g","description":"d","function":"f","parameters":{"type":"string"}}`,
				`{"name":"h","description":"d","function":"f","parameters":{"properties":[]}}`,
				`{"name":"i","description":"d","function":"f","parameters":{"required":"x"}}`,
				`{"name":"j","description":"d","function":"f","timeoutSeconds":0}`,
				`{"name":"k","description":"  ","function":"f"}`,
				`{"name":"l","description":"d","function":"f","parameters":{"properties":{"p":"string"}}}`),
			want: Report{File: "g.json", Group: "g",
				Warnings: []Problem{{File: "g.json", Entry: -1, Reason: "Tool group 'g' has no tools: it is registered but not offered to the model"}},
				Skipped: []Problem{
					{File: "g.json", Entry: 0, Reason: "Field 'name' must be a string"},
					{File: "g.json", Entry: 1, Tool: "a", Reason: "Field 'description' must be a string"},
					{File: "g.json", Entry: 2, Tool: "b", Reason: "Field 'function' must be a string naming a function in the .js file"},
					{File: "g.json", Entry: 3, Tool: "c", Reason: `'parameters' must be a JSON Schema object, like {"type":"object","properties":{...}}`},
					{File: "g.json", Entry: 4, Tool: "d", Reason: "Field 'timeoutSeconds' must be a whole number of seconds from 1 to 3600"},
					{File: "g.json", Entry: 5, Tool: "e", Reason: "Field 'requiredPermissions' must be an array of strings"},
					{File: "g.json", Entry: 6, Tool: "f", Reason: "Field 'env' holds 'not ok', which is not an environment variable name (letters, digits, '_')"},
					{File: "g.json", Entry: 7, Reason: "entry must be a JSON object with 'name', 'description' and 'function'"},
					{File: "g.json", Entry: 8, Tool: "g", Reason: `'parameters.type' must be "object": a tool takes named arguments`},
					{File: "g.json", Entry: 9, Tool: "h", Reason: "'parameters.properties' must be an object mapping each parameter name to its schema"},
					{File: "g.json", Entry: 10, Tool: "i", Reason: "'parameters.required' must be an array of parameter names"},
					{File: "g.json", Entry: 11, Tool: "j", Reason: "Field 'timeoutSeconds' must be a whole number of seconds from 1 to 3600"},
					{File: "g.json", Entry: 12, Tool: "k", Reason: "Field 'description' is empty: say what the tool does and when to use it"},
					{File: "g.json", Entry: 13, Tool: "l", Reason: `'parameters.properties.p' must be a schema object, like {"type":"string"}`},
				}},
		},
		{
			name: "unknown fields are warnings",
			file: "g.json",
			text: group(`{"name":"a","description":"d","function":"f","timeout":5,"descripton":"typo"}`),
			want: Report{File: "g.json", Group: "g", Loaded: []Loaded{{Tool: "a", Entry: 0}}, Warnings: []Problem{
				{File: "g.json", Entry: 0, Tool: "a", Reason: "unknown field 'descripton' is ignored: did you mean 'description'?"},
				{File: "g.json", Entry: 0, Tool: "a", Reason: "unknown field 'timeout' is ignored: did you mean 'timeoutSeconds'?"}}},
		},
		{
			name: "too many entries refuses the file",
			file: "g.json",
			text: group(repeatEntries(51)...),
			want: Report{File: "g.json", Skipped: []Problem{{File: "g.json", Entry: -1, Reason: "Tool group in 'g.json' has 51 entries (maximum: 50)"}}},
		},
		{
			name: "_meta only: a group with no tools",
			file: "g.json",
			text: `[{"_meta":true,"display_name":"G","description":"Nothing yet"}]`,
			want: Report{File: "g.json", Group: "g", Warnings: []Problem{{File: "g.json", Entry: -1, Reason: "Tool group 'g' has no tools: it is registered but not offered to the model"}}},
		},
		{
			name: "_meta not first is skipped",
			file: "g.json",
			text: group(entry("a", "f"), `{"_meta":true,"display_name":"G"}`),
			want: Report{File: "g.json", Group: "g", Loaded: []Loaded{{Tool: "a", Entry: 0}},
				Skipped: []Problem{{File: "g.json", Entry: 1, Reason: `a '_meta' entry must be the first in the array and have "_meta": true`}}},
		},
		{
			name: "_meta with wrong types falls back with warnings",
			file: "g.json",
			text: group(`{"_meta":true,"display_name":3,"description":"ok","extra":1}`, entry("a", "f")),
			want: Report{File: "g.json", Group: "g", Loaded: []Loaded{{Tool: "a", Entry: 1}}, Warnings: []Problem{
				{File: "g.json", Entry: 0, Reason: "_meta 'display_name' must be a string; it is generated instead"},
				{File: "g.json", Entry: 0, Reason: "unknown _meta field 'extra' is ignored"}}},
		},
		{
			name: "group name from file must be snake_case",
			file: "My-Tools.json",
			text: group(entry("a", "f")),
			want: Report{File: "My-Tools.json", Skipped: []Problem{{File: "My-Tools.json", Entry: -1,
				Reason: "Tool group name 'My-Tools' comes from the file name and must be snake_case (lowercase letters, digits, underscores): rename the file"}}},
		},
		{
			name: "invalid JSON says where",
			file: "g.json",
			text: "[\n  {\"name\": \"a\",}\n]",
			want: Report{File: "g.json", Skipped: []Problem{{File: "g.json", Entry: -1,
				Reason: "invalid JSON at line 2, column 16: invalid character '}' looking for beginning of object key string"}}},
		},
		{
			name: "truncated JSON",
			file: "g.json",
			text: `[{"name":"a"`,
			want: Report{File: "g.json", Skipped: []Problem{{File: "g.json", Entry: -1, Reason: "invalid JSON at line 1, column 12: unexpected end of JSON input"}}},
		},
		{
			name: "trailing data",
			file: "g.json",
			text: `{} {}`,
			want: Report{File: "g.json", Skipped: []Problem{{File: "g.json", Entry: -1, Reason: "invalid JSON at line 1, column 4: invalid character '{' after top-level value"}}},
		},
		{
			name: "wrong shape",
			file: "g.json",
			text: `"a tool"`,
			want: Report{File: "g.json", Skipped: []Problem{{File: "g.json", Entry: -1, Reason: "manifest must be a JSON object (one tool) or a JSON array (a tool group)"}}},
		},
		{
			name: "empty file",
			file: "g.json",
			text: " \n",
			want: Report{File: "g.json", Skipped: []Problem{{File: "g.json", Entry: -1, Reason: "manifest is empty: write a JSON object (one tool) or a JSON array (a tool group)"}}},
		},
		{
			name: "file name without .json",
			file: "g.js",
			text: `{}`,
			want: Report{File: "g.js", Skipped: []Problem{{File: "g.js", Entry: -1, Reason: "manifest file name 'g.js' must be NAME.json"}}},
		},
		{
			name: "too deep",
			file: "g.json",
			text: strings.Repeat("[", 100000) + strings.Repeat("]", 100000),
			want: Report{File: "g.json", Skipped: []Problem{{File: "g.json", Entry: -1, Reason: "manifest nests more than 512 levels of arrays and objects (at line 1, column 513), the most the registry reads: no tool needs that; nest its parameters less"}}},
		},
		{
			name: "too big",
			file: "g.json",
			text: `[` + strings.Repeat(" ", 10<<20) + `]`,
			want: Report{File: "g.json", Skipped: []Problem{{File: "g.json", Entry: -1, Reason: "manifest is 10485762 bytes; the limit is 1048576"}}},
		},
		{
			name: "tool name too long",
			file: "g.json",
			text: group(entry(strings.Repeat("a", 65), "f")),
			want: Report{File: "g.json", Group: "g",
				Skipped:  []Problem{{File: "g.json", Entry: 0, Tool: strings.Repeat("a", 65), Reason: "Tool name '" + strings.Repeat("a", 65) + "' is 65 characters; providers accept at most 64"}},
				Warnings: []Problem{{File: "g.json", Entry: -1, Reason: "Tool group 'g' has no tools: it is registered but not offered to the model"}}},
		},
		{
			name: "byte order mark and a directory in the file name",
			file: "tools/weather_lookup.json",
			text: "\ufeff" + `{"name":"weather_lookup","description":"Weather"}`,
			want: Report{File: "tools/weather_lookup.json", Loaded: []Loaded{{Tool: "weather_lookup", Entry: -1}}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := New()
			got := r.LoadManifest(Manifest{File: tt.file, Text: []byte(tt.text), Source: "src"})
			want := tt.want
			for _, p := range []*[]Problem{&want.Skipped, &want.Warnings} {
				if *p == nil {
					*p = []Problem{}
				}
			}
			if want.Loaded == nil {
				want.Loaded = []Loaded{}
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("report (-want +got):\n%s", diff)
			}
			if got.OK() != (len(want.Skipped) == 0) {
				t.Errorf("OK() = %v with %d skipped", got.OK(), len(want.Skipped))
			}
			for _, l := range got.Loaded {
				if _, ok := r.Tool(l.Tool); !ok {
					t.Errorf("report says %s loaded, registry does not have it", l.Tool)
				}
			}
		})
	}
}

func repeatEntries(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = entry(fmt.Sprintf("t%d", i), "f")
	}
	return out
}

func TestLoadManifestTools(t *testing.T) {
	r := New()
	rep := r.LoadManifest(Manifest{File: "google_drive.json", Source: "builtin:google_drive.js", Text: []byte(`[
		{"name":"drive_list","description":"List files","function":"listFiles",
		 "parameters":{"properties":{"folder_id":{"type":"string","description":"Folder"}},"required":[]},
		 "requiredPermissions":["network"],"timeoutSeconds":12,"env":["DRIVE_TOKEN"]},
		{"name":"drive_read","description":"Read a file","function":"readFile",
		 "parameters":{"type":"object","required":["file_id"],"properties":{"file_id":{"type":"string"}}}},
		{"name":"drive_ping","description":"Ping","function":"ping"}
	]`)})
	if !rep.OK() {
		t.Fatal(rep.Err())
	}
	want := []Tool{
		{
			Name: "drive_list", Description: "List files",
			Parameters:          json.RawMessage(`{"type":"object","properties":{"folder_id":{"type":"string","description":"Folder"}},"required":[]}`),
			RequiredPermissions: []string{"network"}, TimeoutSeconds: 12, Env: []string{"DRIVE_TOKEN"},
			Group: "google_drive", Required: []string{},
			Origin: Origin{Kind: OriginJS, File: "google_drive.json", Source: "builtin:google_drive.js", Function: "listFiles"},
		},
		{
			Name: "drive_read", Description: "Read a file",
			// Kept as given: "type" stays where the author put it, nothing is reordered.
			Parameters:     json.RawMessage(`{"type":"object","required":["file_id"],"properties":{"file_id":{"type":"string"}}}`),
			TimeoutSeconds: 30, Group: "google_drive", Required: []string{"file_id"},
			Origin: Origin{Kind: OriginJS, File: "google_drive.json", Source: "builtin:google_drive.js", Function: "readFile"},
		},
		{
			Name: "drive_ping", Description: "Ping",
			Parameters:     json.RawMessage(`{"type":"object","properties":{}}`),
			TimeoutSeconds: 30, Group: "google_drive",
			Origin: Origin{Kind: OriginJS, File: "google_drive.json", Source: "builtin:google_drive.js", Function: "ping"},
		},
	}
	if diff := cmp.Diff(want, r.GroupTools("google_drive")); diff != "" {
		t.Errorf("group tools (-want +got):\n%s", diff)
	}
	g, ok := r.Group("google_drive")
	if !ok {
		t.Fatal("group not registered")
	}
	wantGroup := Group{Name: "google_drive", DisplayName: "Google Drive", Description: "Tools: drive_list, drive_read, drive_ping",
		Origin: Origin{Kind: OriginJS, File: "google_drive.json", Source: "builtin:google_drive.js"}}
	if diff := cmp.Diff(wantGroup, g); diff != "" {
		t.Errorf("group (-want +got):\n%s", diff)
	}
}

func TestSingleToolManifest(t *testing.T) {
	tests := []struct {
		name, text, wantFunction string
	}{
		{"calls execute", `{"name":"weather","description":"Weather"}`, "execute"},
		{"may name its function", `{"name":"weather","description":"Weather","function":"lookup"}`, "lookup"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := New()
			if rep := r.LoadManifest(Manifest{File: "weather.json", Text: []byte(tt.text), Source: "weather.js"}); !rep.OK() {
				t.Fatal(rep.Err())
			}
			tool, ok := r.Tool("weather")
			if !ok {
				t.Fatal("not registered")
			}
			if tool.Group != "" || tool.Origin.Function != tt.wantFunction || tool.Origin.Source != "weather.js" {
				t.Errorf("got group %q function %q source %q", tool.Group, tool.Origin.Function, tool.Origin.Source)
			}
			if len(r.Groups()) != 0 {
				t.Errorf("a single-tool manifest made groups: %v", r.Groups())
			}
			if core := names(r.CoreTools()); !contains(core, "weather") {
				t.Errorf("single tool is not core: %v", core)
			}
		})
	}
}

// TestGroupOfOne: an array of one entry is a group like any other.
func TestGroupOfOne(t *testing.T) {
	r := New()
	r.LoadManifest(Manifest{File: "solo.json", Text: []byte(group(entry("solo_tool", "run")))})
	if got := names(r.GroupTools("solo")); !cmp.Equal(got, []string{"solo_tool"}) {
		t.Errorf("group tools = %v", got)
	}
	if contains(names(r.CoreTools()), "solo_tool") {
		t.Error("group tool is in the core list")
	}
}

func TestGroupOfFifty(t *testing.T) {
	r := New()
	rep := r.LoadManifest(Manifest{File: "big.json", Text: []byte(group(append([]string{`{"_meta":true}`}, repeatEntries(50)...)...))})
	if !rep.OK() || len(rep.Loaded) != 50 {
		t.Fatalf("loaded %d, problems %v", len(rep.Loaded), rep.Err())
	}
}

func TestTwoEntriesOneFunction(t *testing.T) {
	r := New()
	rep := r.LoadManifest(Manifest{File: "g.json", Text: []byte(group(entry("a", "shared"), entry("b", "shared")))})
	if !rep.OK() || len(rep.Loaded) != 2 {
		t.Fatalf("report %+v", rep)
	}
	a, _ := r.Tool("a")
	b, _ := r.Tool("b")
	if a.Origin.Function != "shared" || b.Origin.Function != "shared" {
		t.Errorf("functions %q %q", a.Origin.Function, b.Origin.Function)
	}
}

func TestConflictsAcrossFiles(t *testing.T) {
	builtin := Manifest{File: "tools.json", Source: "builtin:tools.js", Text: []byte(group(entry("shared_name", "a"), entry("only_builtin", "b")))}
	single := func(override bool) Manifest {
		return Manifest{File: "shared_name.json", Source: "user:shared_name.js", Override: override,
			Text: []byte(`{"name":"shared_name","description":"User version"}`)}
	}

	t.Run("skipped without override", func(t *testing.T) {
		r := New()
		r.LoadManifest(builtin)
		rep := r.LoadManifest(single(false))
		want := []Problem{{File: "shared_name.json", Entry: -1, Tool: "shared_name",
			Reason: "Name conflict with existing tool 'shared_name' from 'tools.json' (skipped): rename the tool"}}
		if diff := cmp.Diff(want, rep.Skipped); diff != "" {
			t.Errorf("skipped (-want +got):\n%s", diff)
		}
		if tool, _ := r.Tool("shared_name"); tool.Origin.Source != "builtin:tools.js" {
			t.Errorf("built-in was replaced: %+v", tool.Origin)
		}
	})
	t.Run("replaced with override", func(t *testing.T) {
		r := New()
		r.LoadManifest(builtin)
		rep := r.LoadManifest(single(true))
		want := []Loaded{{Tool: "shared_name", Entry: -1, Replaced: "'tools.json'"}}
		if diff := cmp.Diff(want, rep.Loaded); diff != "" {
			t.Errorf("loaded (-want +got):\n%s", diff)
		}
		tool, _ := r.Tool("shared_name")
		if tool.Description != "User version" || tool.Group != "" {
			t.Errorf("tool = %+v", tool)
		}
		if got := names(r.GroupTools("tools")); !cmp.Equal(got, []string{"only_builtin"}) {
			t.Errorf("group tools after override = %v", got)
		}
	})
	t.Run("meta-tools are never replaced", func(t *testing.T) {
		r := New()
		rep := r.LoadManifest(Manifest{File: "load_tool_group.json", Override: true, Text: []byte(`{"name":"load_tool_group","description":"mine"}`)})
		if rep.OK() {
			t.Fatal("meta-tool replaced")
		}
		if tool, _ := r.Tool("load_tool_group"); tool.Origin.Kind != OriginMeta {
			t.Errorf("load_tool_group origin = %v", tool.Origin)
		}
	})
	t.Run("group name colliding with a host group", func(t *testing.T) {
		r := New()
		mustNil(t, r.AddGroup(Group{Name: "config", DisplayName: "Configuration", Description: "Settings"}))
		mustNil(t, r.AddTool(Tool{Name: "get_config", Description: "Read settings", Group: "config"}))
		rep := r.LoadManifest(Manifest{File: "config.json", Override: true, Text: []byte(group(entry("js_config", "f")))})
		want := []Problem{{File: "config.json", Entry: -1, Reason: "Tool group 'config' collides with the host group of the same name: rename the file"}}
		if diff := cmp.Diff(want, rep.Skipped); diff != "" {
			t.Errorf("skipped (-want +got):\n%s", diff)
		}
		if r.Has("js_config") {
			t.Error("tools of a refused file were registered")
		}
		if got := names(r.GroupTools("config")); !cmp.Equal(got, []string{"get_config"}) {
			t.Errorf("host group was merged: %v", got)
		}
	})
	t.Run("the same group twice without override", func(t *testing.T) {
		r := New()
		r.LoadManifest(builtin)
		rep := r.LoadManifest(Manifest{File: "tools.json", Source: "user:tools.js", Text: []byte(group(entry("user_tool", "f")))})
		want := []Problem{{File: "tools.json", Entry: -1,
			Reason: `Tool group 'tools' is already registered from 'tools.json' (source "builtin:tools.js"): rename the file, or load it as a user tool allowed to override`}}
		if diff := cmp.Diff(want, rep.Skipped); diff != "" {
			t.Errorf("skipped (-want +got):\n%s", diff)
		}
	})
	t.Run("a user group replaces a built-in group whole", func(t *testing.T) {
		r := New()
		r.LoadManifest(builtin)
		r.LoadManifest(Manifest{File: "after.json", Text: []byte(group(entry("after_tool", "f")))})
		rep := r.LoadManifest(Manifest{File: "tools.json", Source: "user:tools.js", Override: true,
			Text: []byte(group(`{"_meta":true,"display_name":"Mine","description":"My tools"}`, entry("user_tool", "f")))})
		if !rep.OK() {
			t.Fatal(rep.Err())
		}
		if got := names(r.GroupTools("tools")); !cmp.Equal(got, []string{"user_tool"}) {
			t.Errorf("group tools = %v", got)
		}
		if r.Has("only_builtin") {
			t.Error("a replaced group's tool is still registered")
		}
		var order []string
		for _, g := range r.Groups() {
			order = append(order, g.Name+"="+g.DisplayName)
		}
		if !cmp.Equal(order, []string{"tools=Mine", "after=After"}) {
			t.Errorf("group order = %v: a replaced group keeps its place", order)
		}
		if len(rep.Warnings) != 1 || !strings.Contains(rep.Warnings[0].Reason, "replaces") {
			t.Errorf("warnings = %v", rep.Warnings)
		}
	})
	t.Run("a group tool and a single tool with one name in one folder", func(t *testing.T) {
		r := New()
		r.LoadManifest(Manifest{File: "g.json", Text: []byte(group(entry("clash", "f")))})
		rep := r.LoadManifest(Manifest{File: "clash.json", Text: []byte(`{"name":"clash","description":"single"}`)})
		if rep.OK() {
			t.Fatal("second definition of clash was accepted")
		}
		if tool, _ := r.Tool("clash"); tool.Group != "g" {
			t.Errorf("first definition lost: %+v", tool)
		}
	})
}

func TestMetaEntry(t *testing.T) {
	tests := []struct {
		name      string
		file      string
		text      string
		wantGroup Group
		wantTools []string
	}{
		{
			name:      "TEST-040-10 _meta gives display name and description and is not a tool",
			file:      "google_gmail.json",
			text:      group(`{"_meta":true,"display_name":"Google Gmail","description":"Email tools"}`, entry("gmail_search", "search")),
			wantGroup: Group{Name: "google_gmail", DisplayName: "Google Gmail", Description: "Email tools"},
			wantTools: []string{"gmail_search"},
		},
		{
			name:      "TEST-040-11 without _meta, names come from the file and the tools",
			file:      "my_tools.json",
			text:      group(entry("tool1", "fn1"), entry("tool2", "fn2")),
			wantGroup: Group{Name: "my_tools", DisplayName: "My Tools", Description: "Tools: tool1, tool2"},
			wantTools: []string{"tool1", "tool2"},
		},
		{
			name:      "_meta without fields",
			file:      "text_utils.json",
			text:      group(`{"_meta":true}`, entry("word_count", "wc")),
			wantGroup: Group{Name: "text_utils", DisplayName: "Text Utils", Description: "Tools: word_count"},
			wantTools: []string{"word_count"},
		},
		{
			name:      "_meta false is not metadata",
			file:      "g.json",
			text:      group(`{"_meta":false,"display_name":"X"}`, entry("a", "f")),
			wantGroup: Group{Name: "g", DisplayName: "G", Description: "Tools: a"},
			wantTools: []string{"a"},
		},
		{
			name:      "special characters in the description are kept",
			file:      "g.json",
			text:      group(`{"_meta":true,"display_name":"Ünïcode & <Co>","description":"Emails: \"quotes\", emoji 📧, back\\slash"}`, entry("a", "f")),
			wantGroup: Group{Name: "g", DisplayName: "Ünïcode & <Co>", Description: "Emails: \"quotes\", emoji 📧, back\\slash"},
			wantTools: []string{"a"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := New()
			r.LoadManifest(Manifest{File: tt.file, Text: []byte(tt.text)})
			g, ok := r.Group(tt.wantGroup.Name)
			if !ok {
				t.Fatalf("group %s not registered", tt.wantGroup.Name)
			}
			g.Origin = Origin{}
			if diff := cmp.Diff(tt.wantGroup, g); diff != "" {
				t.Errorf("group (-want +got):\n%s", diff)
			}
			if got := names(r.GroupTools(g.Name)); !cmp.Equal(got, tt.wantTools) {
				t.Errorf("tools = %v, want %v", got, tt.wantTools)
			}
			if r.Has("_meta") || len(r.Tools()) != 2+len(tt.wantTools) {
				t.Errorf("tools registered: %v", names(r.Tools()))
			}
		})
	}
}

func TestProblemError(t *testing.T) {
	tests := []struct {
		p    Problem
		want string
	}{
		{Problem{File: "g.json", Entry: 2, Tool: "x", Reason: "bad"}, "g.json: entry 2 (x): bad"},
		{Problem{File: "g.json", Entry: -1, Reason: "bad"}, "g.json: bad"},
		{Problem{File: "x.json", Entry: -1, Tool: "x", Reason: "bad"}, "x.json (x): bad"},
	}
	for _, tt := range tests {
		if got := tt.p.Error(); got != tt.want {
			t.Errorf("Error() = %q, want %q", got, tt.want)
		}
	}
}

func TestDisplayNameFromFile(t *testing.T) {
	for in, want := range map[string]string{
		"my_tools":              "My Tools",
		"google_gmail_settings": "Google Gmail Settings",
		"pdf":                   "Pdf",
		"a__b":                  "A B",
	} {
		if got := DisplayNameFromFile(in); got != want {
			t.Errorf("DisplayNameFromFile(%q) = %q, want %q", in, got, want)
		}
	}
}

func names(tools []Tool) []string {
	var out []string
	for _, t := range tools {
		out = append(out, t.Name)
	}
	return out
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func mustNil(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
