package registry

import (
	"encoding/json"
	"os"
	"regexp"
	"strings"
	"testing"
)

// routingDoc is the routing behaviour's statement, whose exact blocks this
// test checks.
const routingDoc = "../docs/reference/routing.md"

// exactBlocks are the blocks of a doc marked "<!-- exact: NAME -->", by
// name: the fenced block after the marker, indentation taken off.
func exactBlocks(t *testing.T, path string) map[string]string {
	t.Helper()
	text, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	marker := regexp.MustCompile("(?m)^([ \t]*)<!-- exact: (.+?) -->\n[ \t]*```[a-z]*\n((?s:.*?))\n[ \t]*```")
	blocks := map[string]string{}
	for _, m := range marker.FindAllStringSubmatch(string(text), -1) {
		indent, name, body := m[1], m[2], m[3]
		lines := strings.Split(body, "\n")
		for i, l := range lines {
			lines[i] = strings.TrimPrefix(l, indent)
		}
		if _, dup := blocks[name]; dup {
			t.Errorf("%s: two blocks are named %q", path, name)
		}
		blocks[name] = strings.Join(lines, "\n")
	}
	return blocks
}

// routingDocCatalogue is the doc's example catalogue: get_current_time, and
// the groups text_utils (with _meta) and notes (without).
func routingDocCatalogue(t *testing.T) *Registry {
	t.Helper()
	r := New()
	for _, m := range []Manifest{
		{File: "get_current_time.json", Text: []byte(`{"name": "get_current_time", "description": "Get the current date and time"}`)},
		{File: "text_utils.json", Text: []byte(`[
  {"_meta": true, "display_name": "Text Utilities", "description": "Count words and encode text"},
  {"name": "word_count", "description": "Count the words in a text", "function": "wordCount"},
  {"name": "base64_encode", "description": "Encode a text as base64", "function": "base64Encode"}
]`)},
		{File: "notes.json", Text: []byte(`[
  {"name": "note_add", "description": "Add a note", "function": "addNote"},
  {"name": "note_list", "description": "List the notes", "function": "listNotes"}
]`)},
	} {
		if rep := r.LoadManifest(m); !rep.OK() {
			t.Fatal(rep.Err())
		}
	}
	return r
}

// TestRoutingDoc checks each exact block of docs/reference/routing.md
// against what the registry writes for the doc's example catalogue.
func TestRoutingDoc(t *testing.T) {
	load := func(r *Registry, args string) string {
		res, _ := r.LoadToolGroup(json.RawMessage(args))
		return res.Content()
	}
	want := map[string]func(r *Registry) string{
		"system prompt":               func(r *Registry) string { return r.SystemPrompt("You are a helpful assistant.") },
		"load_tool_group description": func(r *Registry) string { return loadToolGroupTool().Description },
		"load_tool_group parameters":  func(r *Registry) string { return string(loadToolGroupTool().Parameters) },
		"load text_utils":             func(r *Registry) string { return load(r, `{"group_name": "text_utils"}`) },
		"load without group_name":     func(r *Registry) string { return load(r, `{}`) },
		"load nope":                   func(r *Registry) string { return load(r, `{"group_name": "nope"}`) },
		"load notes, its tools disabled": func(r *Registry) string {
			for _, name := range []string{"note_add", "note_list"} {
				if err := r.SetToolEnabled(name, false); err != nil {
					t.Fatal(err)
				}
			}
			return load(r, `{"group_name": "notes"}`)
		},
	}
	blocks := exactBlocks(t, routingDoc)
	for name, got := range want {
		doc, ok := blocks[name]
		if !ok {
			t.Errorf("%s has no exact block %q", routingDoc, name)
			continue
		}
		if text := got(routingDocCatalogue(t)); text != doc {
			t.Errorf("%s, %q:\nthe doc says\n%s\nthe registry writes\n%s", routingDoc, name, doc, text)
		}
	}
	for name := range blocks {
		if _, ok := want[name]; !ok {
			t.Errorf("%s has an exact block %q that TestRoutingDoc does not check: add it", routingDoc, name)
		}
	}
}

// TestRoutingDocTranscripts checks that every transcript the doc names is
// in testdata/transcripts.
func TestRoutingDocTranscripts(t *testing.T) {
	text, err := os.ReadFile(routingDoc)
	if err != nil {
		t.Fatal(err)
	}
	names := regexp.MustCompile("`(0[0-9][0-9]_[a-z0-9_]+)`").FindAllStringSubmatch(string(text), -1)
	if len(names) < 13 {
		t.Fatalf("only %d transcripts named: is the pattern right?", len(names))
	}
	for _, m := range names {
		if _, err := os.Stat("../testdata/transcripts/" + m[1] + ".txtar"); err != nil {
			t.Errorf("%s names the transcript %s, which testdata/transcripts does not have", routingDoc, m[1])
		}
	}
}

// TestManifestDocTexts checks the texts docs/reference/manifest.md quotes
// under "What is refused": each, its placeholders made the format's verbs,
// is a string of the manifest loader's source.
func TestManifestDocTexts(t *testing.T) {
	doc, err := os.ReadFile("../docs/reference/manifest.md")
	if err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile("manifest.go")
	if err != nil {
		t.Fatal(err)
	}
	_, refused, ok := strings.Cut(string(doc), "## What is refused")
	if !ok {
		t.Fatal("docs/reference/manifest.md has no section \"What is refused\"")
	}
	verbs := strings.NewReplacer("'FILE'", "'%s'", "'NAME'", "'%s'", "'FN'", "'%s'", " N entries", " %d entries", "maximum: 50", "maximum: %d")
	n := 0
	for _, m := range regexp.MustCompile("`([A-Z][a-z][^`]*)`").FindAllStringSubmatch(refused, -1) {
		n++
		if format := verbs.Replace(m[1]); !strings.Contains(string(src), `"`+format+`"`) {
			t.Errorf("docs/reference/manifest.md quotes %q, which registry/manifest.go does not write (as %q)", m[1], format)
		}
	}
	if n < 9 {
		t.Errorf("only %d texts found: is the pattern right?", n)
	}
}
