package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/toolroute/toolroute/registry"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// golden compares got with testdata/NAME, or rewrites it with -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("%s (-want +got):\n%s", name, diff)
	}
}

// runIn runs the program from the repository root, so reports name files as
// a user in that folder would see them.
func runIn(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir("../..")
	// No mcp.json of the machine's user: check reports its servers.
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	var out, errOut bytes.Buffer
	code = run(args, strings.NewReader(""), &out, &errOut)
	t.Chdir(wd)
	return out.String(), errOut.String(), code
}

func TestCheckMixedFolder(t *testing.T) {
	out, stderr, code := runIn(t, "check", "testdata/manifests/mixed")
	if code != 1 {
		t.Errorf("exit status %d, want 1; stderr %s", code, stderr)
	}
	golden(t, "check_mixed.txt", []byte(out))
}

func TestCheckMixedFolderJSON(t *testing.T) {
	out, _, code := runIn(t, "check", "testdata/manifests/mixed", "--json")
	if code != 1 {
		t.Errorf("exit status %d, want 1", code)
	}
	golden(t, "check_mixed.json", []byte(out))

	var res checkResult
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err)
	}
	// The JSON holds the same problems the text shows, as data.
	var problems []registry.Problem
	for _, rep := range res.Reports {
		problems = append(problems, rep.Skipped...)
	}
	want := []registry.Problem{
		{File: "testdata/manifests/mixed/broken_json.json", Entry: -1, Reason: `invalid JSON at line 3, column 36: invalid character '"' after object key:value pair`},
		{File: "testdata/manifests/mixed/no_source.json", Entry: -1, Reason: "Missing corresponding .js file: no_source.js"},
		{File: "testdata/manifests/mixed/renamed.json", Entry: -1, Tool: "old_name", Reason: "Tool name 'old_name' does not match filename 'renamed'"},
		{File: "testdata/manifests/mixed/text_utils.json", Entry: 2, Tool: "regex_extract", Reason: "Tool 'regex_extract' in group 'text_utils.json' missing required 'function' field"},
		{File: "testdata/manifests/mixed/text_utils.json", Entry: 3, Tool: "word_count", Reason: "Duplicate tool name 'word_count' in group 'text_utils.json'"},
		{File: "testdata/manifests/mixed/text_utils.json", Entry: 4, Tool: "Base64", Reason: "Tool name 'Base64' must be snake_case (lowercase letters, digits, underscores)"},
	}
	if diff := cmp.Diff(want, problems); diff != "" {
		t.Errorf("problems (-want +got):\n%s", diff)
	}
	// What QuickJS found in the JS files, as data too.
	var codeProblems []registry.Problem
	for _, rep := range res.Reports {
		codeProblems = append(codeProblems, rep.Code...)
	}
	wantCode := []registry.Problem{
		{File: "testdata/manifests/mixed/broken_code.js", Entry: -1, Reason: "broken_code.js does not parse: SyntaxError: unexpected token in expression: ';' (line 3, column 9)"},
		{File: "testdata/manifests/mixed/notes.json", Entry: 2, Tool: "note_list", Reason: "function 'listNotes' is not defined in notes.js"},
	}
	if diff := cmp.Diff(wantCode, codeProblems); diff != "" {
		t.Errorf("code problems (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]jsFile{{File: "testdata/manifests/mixed/orphan_helper.js"}}, res.UnpairedJS); diff != "" {
		t.Errorf("unpaired JS files (-want +got):\n%s", diff)
	}
	if res.Tools != 6 || res.Groups != 2 || res.Errors != 8 || res.Warnings != 5 {
		t.Errorf("counts = %d tools, %d groups, %d errors, %d warnings", res.Tools, res.Groups, res.Errors, res.Warnings)
	}
}

// A .js file with no manifest is a warning, and an error when it does not
// parse; a file whose top level fails says so, with its line; a group
// whose functions are all there is clean.
func TestCheckCode(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("helper.js", "function helper( {\n")
	write("loads.json", `{"name":"loads","description":"Fails as it loads"}`)
	write("loads.js", "function execute() {}\nundefinedThing.call();\n")
	write("good.json", `[{"name":"good_a","description":"A","function":"a"},{"name":"good_b","description":"B","function":"b"}]`)
	write("good.js", "function a() {}\nconst b = async () => 1;\n")
	out, _, code := runIn(t, "check", dir)
	if code != 1 {
		t.Errorf("exit status %d, want 1", code)
	}
	for _, want := range []string{
		"ok    " + dir + "/good.json: group good (Good), 2 tools: good_a, good_b\n",
		"error:   loads.js fails as it loads, so none of its tools can run: ReferenceError: undefinedThing is not defined (line 2, column 1)\n",
		"ERROR " + dir + "/helper.js: no manifest beside it, and helper.js does not parse: SyntaxError: invalid property name (line ",
		"2 manifests: 3 tools in 1 group loaded; 2 errors, 1 warning\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the output lacks %q:\n%s", want, out)
		}
	}
}

func TestCheckBuiltins(t *testing.T) {
	out, stderr, code := runIn(t, "check", "--builtin")
	if code != 0 {
		t.Fatalf("built-in manifests fail the check (exit %d):\n%s%s", code, out, stderr)
	}
	if strings.Contains(out, "warning:") {
		t.Errorf("built-in manifests have warnings:\n%s", out)
	}
	for _, tool := range []string{"get_current_time", "read_file", "write_file", "http_request", "js_eval"} {
		if !strings.Contains(out, tool) {
			t.Errorf("%s not reported:\n%s", tool, out)
		}
	}
}

// A user folder checked against the built-ins: a clash is an error unless the
// folder may override.
func TestCheckWithBuiltins(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("read_file.json", `{"name":"read_file","description":"My own reader"}`)
	write("read_file.js", `function execute(p) { return "mine"; }`)

	out, _, code := runIn(t, "check", "--with-builtin", dir)
	if code != 1 || !strings.Contains(out, "Name conflict with existing tool 'read_file' from 'builtin/read_file.json' (skipped)") {
		t.Errorf("exit %d, output:\n%s", code, out)
	}
	out, _, code = runIn(t, "check", "--builtin", "--override", dir)
	if code != 0 || !strings.Contains(out, "read_file (replaces the one from 'builtin/read_file.json')") {
		t.Errorf("exit %d, output:\n%s", code, out)
	}
}

// With no folder, check checks the user's tools folder and says which; a
// folder not made yet is explained with the command that makes it.
func TestCheckUserFolder(t *testing.T) {
	config := t.TempDir()
	tools := filepath.Join(config, "tools")
	_, stderr, code := runIn(t, "check", "--config-dir", config)
	if code != 1 || !strings.Contains(stderr, "your tools folder, "+tools+", does not exist yet: make it with\n  mkdir -p "+tools+"\n") {
		t.Errorf("no tools folder: exit %d, stderr %q", code, stderr)
	}
	if strings.Contains(stderr, "no such file or directory") {
		t.Errorf("the error is the system's, not the user's: %q", stderr)
	}
	if err := os.MkdirAll(tools, 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(tools, "shout.json"), []byte(`{"name":"shout","description":"Shout a text","parameters":{"properties":{"text":{"type":"string"}}}}`), 0o644)
	os.WriteFile(filepath.Join(tools, "shout.js"), []byte(`function execute(p) { return p.text.toUpperCase(); }`), 0o644)
	out, stderr, code := runIn(t, "check", "--config-dir", config)
	if code != 0 {
		t.Fatalf("exit %d: %s%s", code, out, stderr)
	}
	mustContain(t, "check's output", out, "Your tools folder, "+tools+" (", "ok    "+tools+"/shout.json: 1 tool: shout\n", "1 manifest: 1 tool in 0 groups loaded; 0 errors, 0 warnings")
	if strings.Contains(out, "read_file") {
		t.Errorf("the built-in tools were checked too:\n%s", out)
	}
}

func TestCheckBadArguments(t *testing.T) {
	tests := []struct {
		name     string
		args     []string
		wantCode int
		wantErr  string
	}{
		{"missing folder", []string{"check", "no/such/folder"}, 1, "there is no folder no/such/folder: give the folder holding your NAME.json and NAME.js files (to make one: mkdir -p no/such/folder)"},
		{"a file, not a folder", []string{"check", "go.mod"}, 1, "go.mod is not a folder"},
		{"unknown flag", []string{"check", "--nope"}, 2, "flag provided but not defined: -nope"},
		{"unknown command", []string{"frobnicate"}, 2, `unknown command "frobnicate"`},
		{"no command", nil, 2, "Usage:"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, stderr, code := runIn(t, tt.args...)
			if code != tt.wantCode || !strings.Contains(stderr, tt.wantErr) {
				t.Errorf("exit %d, stderr %q; want %d and %q", code, stderr, tt.wantCode, tt.wantErr)
			}
		})
	}
}
