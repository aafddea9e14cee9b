// Package doccheck holds go doc to every exported name of the packages a
// Go program imports: each has a doc comment; and it holds the public API
// to at most MaxPublicPackages packages, each with a runnable example.
package doccheck

import (
	"go/ast"
	"go/doc"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestEveryExportedNameIsDocumented walks the module's importable packages
// (not internal, cmd or testdata) and lists each exported const, var,
// type, func and method with no doc comment, and each package without one.
func TestEveryExportedNameIsDocumented(t *testing.T) {
	root := filepath.Join("..", "..")
	dirs := importableDirs(t, root)
	var missing []string
	for _, dir := range dirs {
		missing = append(missing, undocumented(t, root, dir)...)
	}
	if len(missing) > 0 {
		t.Errorf("%d exported names have no doc comment (go doc shows nothing for them): write one saying what each is for\n%s", len(missing), strings.Join(missing, "\n"))
	}
}

// importableDirs lists root and the folders under it a program outside the
// module may import from: not internal, cmd, testdata, web or hidden ones.
func importableDirs(t *testing.T, root string) []string {
	var dirs []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return nil
		}
		name := d.Name()
		if p != root && (strings.HasPrefix(name, ".") || name == "internal" || name == "testdata" || name == "cmd" || name == "node_modules" || name == "web") {
			return filepath.SkipDir
		}
		dirs = append(dirs, p)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return dirs
}

func undocumented(t *testing.T, root, dir string) []string {
	fset := token.NewFileSet()
	pkgs, err := parser.ParseDir(fset, dir, func(fi fs.FileInfo) bool { return !strings.HasSuffix(fi.Name(), "_test.go") }, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	rel, _ := filepath.Rel(root, dir)
	var out []string
	names := make([]string, 0, len(pkgs))
	for n := range pkgs {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		if n == "main" {
			continue
		}
		p := doc.New(pkgs[n], "./"+rel, 0)
		where := "./" + filepath.ToSlash(rel)
		if strings.TrimSpace(p.Doc) == "" {
			out = append(out, where+": the package")
		}
		values := func(vs []*doc.Value) {
			for _, v := range vs {
				if v.Doc != "" {
					continue
				}
				for _, spec := range v.Decl.Specs {
					vs := spec.(*ast.ValueSpec)
					if vs.Doc != nil || vs.Comment != nil {
						continue
					}
					for _, id := range vs.Names {
						if id.IsExported() {
							out = append(out, where+": "+id.Name)
						}
					}
				}
			}
		}
		funcs := func(prefix string, fs []*doc.Func) {
			for _, f := range fs {
				if f.Doc == "" && ast.IsExported(f.Name) {
					out = append(out, where+": "+prefix+f.Name)
				}
			}
		}
		values(p.Consts)
		values(p.Vars)
		funcs("", p.Funcs)
		for _, ty := range p.Types {
			if ty.Doc == "" {
				out = append(out, where+": type "+ty.Name)
			}
			values(ty.Consts)
			values(ty.Vars)
			funcs("", ty.Funcs)
			funcs(ty.Name+".", ty.Methods)
		}
	}
	return out
}
