package doccheck

import (
	"go/doc"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// MaxPublicPackages bounds the packages an embedder may import: each is a
// promise kept across releases, so what only the program uses is internal
// (docs/design/folders.md says which is which, and why).
const MaxPublicPackages = 16

// TestPublicPackages counts the importable packages and checks that each
// shows its use in a runnable example an embedder can copy: example_test.go
// holds an Example function with an Output comment (go test runs it), and
// imports no internal package, which a program outside the module could
// not.
func TestPublicPackages(t *testing.T) {
	root := filepath.Join("..", "..")
	var public []string
	for _, dir := range importableDirs(t, root) {
		fset := token.NewFileSet()
		pkgs, err := parser.ParseDir(fset, dir, func(fi fs.FileInfo) bool { return !strings.HasSuffix(fi.Name(), "_test.go") }, parser.PackageClauseOnly)
		if err != nil {
			t.Fatal(err)
		}
		library := false
		for name := range pkgs {
			library = library || name != "main"
		}
		if !library {
			continue
		}
		rel, _ := filepath.Rel(root, dir)
		where := "./" + filepath.ToSlash(rel)
		public = append(public, where)

		path := filepath.Join(dir, "example_test.go")
		f, err := parser.ParseFile(fset, path, nil, parser.ParseComments)
		if err != nil {
			t.Errorf("%s has no example_test.go: write one with an Example function whose Output comment go test checks (%v)", where, err)
			continue
		}
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			if strings.HasPrefix(p, "github.com/toolroute/toolroute/") && strings.Contains(p+"/", "/internal/") {
				t.Errorf("%s/example_test.go imports %s, which an embedder cannot: use public packages only (a model stand-in goes in the example, with net/http/httptest)", where, p)
			}
		}
		runs := false
		for _, ex := range doc.Examples(f) {
			runs = runs || ex.Output != "" || ex.EmptyOutput
		}
		if !runs {
			t.Errorf("%s/example_test.go has no Example with an Output comment, so go test does not run it", where)
		}
	}
	if len(public) > MaxPublicPackages {
		t.Errorf("%d importable packages, more than %d: move what only the program uses under internal/ (docs/design/folders.md)\n%s", len(public), MaxPublicPackages, strings.Join(public, "\n"))
	}
}
