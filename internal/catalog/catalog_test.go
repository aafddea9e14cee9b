package catalog

import (
	"io/fs"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"
	"github.com/toolroute/toolroute/registry"
)

func TestReadFolder(t *testing.T) {
	fsys := fstest.MapFS{
		"b_tools.json":  {Data: []byte(`[{"name":"b_one","description":"B","function":"one"}]`)},
		"b_tools.js":    {Data: []byte(`function one() {}`)},
		"a_single.json": {Data: []byte(`{"name":"a_single","description":"A"}`)},
		"a_single.js":   {Data: []byte(`function execute() {}`)},
		"lonely.json":   {Data: []byte(`{"name":"lonely","description":"No source"}`)},
		"helper.js":     {Data: []byte(`// no manifest`)},
		"notes.txt":     {Data: []byte(`ignored`)},
		"sub/deep.json": {Data: []byte(`{"name":"deep","description":"In a sub-folder"}`)},
		"sub/deep.js":   {Data: []byte(``)},
		"folder.json/x": {Data: []byte(``)},
	}
	f, err := ReadFolder(fsys, "user", true)
	if err != nil {
		t.Fatal(err)
	}
	var files []string
	for _, file := range f.Files {
		files = append(files, file.Manifest.File+" "+file.Manifest.Source+" "+file.Refused)
	}
	want := []string{
		"user/a_single.json user/a_single.js ",
		"user/b_tools.json user/b_tools.js ",
		"user/lonely.json  Missing corresponding .js file: lonely.js",
	}
	if diff := cmp.Diff(want, files); diff != "" {
		t.Errorf("files (-want +got):\n%s", diff)
	}
	if !f.Files[0].Manifest.Override {
		t.Error("override not copied into the manifests")
	}
	if got := string(f.Sources["user/b_tools.js"]); got != `function one() {}` {
		t.Errorf("source = %q", got)
	}

	// As a catalogue: the files not refused, override carried.
	wantCat := []registry.CatalogueManifest{
		{File: "user/a_single.json", Text: `{"name":"a_single","description":"A"}`, Source: "user/a_single.js", Override: true},
		{File: "user/b_tools.json", Text: `[{"name":"b_one","description":"B","function":"one"}]`, Source: "user/b_tools.js", Override: true},
	}
	if diff := cmp.Diff(wantCat, f.Catalogue().Manifests); diff != "" {
		t.Errorf("catalogue (-want +got):\n%s", diff)
	}

	r := registry.New()
	reports := f.Load(r)
	var got []string
	for _, rep := range reports {
		got = append(got, rep.File)
	}
	if diff := cmp.Diff([]string{"user/a_single.json", "user/b_tools.json", "user/lonely.json"}, got); diff != "" {
		t.Errorf("reports in file order (-want +got):\n%s", diff)
	}
	if reports[2].OK() || reports[2].Skipped[0].Reason != "Missing corresponding .js file: lonely.js" {
		t.Errorf("lonely report = %+v", reports[2])
	}
	tool, ok := r.Tool("b_one")
	if !ok || tool.Origin.Source != "user/b_tools.js" || tool.Group != "b_tools" {
		t.Errorf("b_one = %+v", tool)
	}
}

func TestReadFolderMissing(t *testing.T) {
	if _, err := ReadFolder(fstest.MapFS{"x": {Mode: 0}}, "x", false); err != nil {
		t.Fatalf("a folder with a file: %v", err)
	}
	if _, err := ReadFolder(badFS{}, "broken", false); err == nil {
		t.Fatal("unreadable folder gave no error")
	}
}

type badFS struct{}

func (badFS) Open(name string) (fs.File, error) {
	return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrPermission}
}
