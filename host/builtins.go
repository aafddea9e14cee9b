package host

import (
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strings"

	"github.com/toolroute/toolroute/manifests"
)

// BuiltinFiles names the built-in manifests, in the order they load: each a
// core tool ("get_current_time") or a group ("google_gmail"), as
// Options.Builtins takes them.
func BuiltinFiles() []string {
	entries, err := fs.ReadDir(manifests.FS, ".")
	if err != nil {
		return nil // an embedded folder always reads
	}
	var out []string
	for _, e := range entries { // sorted by name, as the folder loads
		if name, ok := strings.CutSuffix(e.Name(), ".json"); ok && !e.IsDir() {
			out = append(out, name)
		}
	}
	return out
}

// checkBuiltins refuses names that are not built-in manifests.
func checkBuiltins(names []string) error {
	known := BuiltinFiles()
	for _, n := range names {
		if !slices.Contains(known, n) {
			return fmt.Errorf("host: Options.Builtins names %q, which is no built-in manifest: use one of %s", n, strings.Join(known, ", "))
		}
	}
	return nil
}

// builtinFS is manifests.FS, or only the manifests names lists (with their
// sources) when names is not nil.
func builtinFS(names []string) fs.FS {
	if names == nil {
		return manifests.FS
	}
	return onlyFS{fsys: manifests.FS, names: names}
}

// onlyFS shows the files at the root of fsys whose name without its
// extension is one of names; below the root (libraries), everything.
type onlyFS struct {
	fsys  fs.FS
	names []string
}

func (o onlyFS) kept(name string) bool {
	if strings.Contains(name, "/") {
		return true
	}
	base, _, _ := strings.Cut(name, ".")
	return name == "." || slices.Contains(o.names, base)
}

func (o onlyFS) Open(name string) (fs.File, error) {
	if !o.kept(name) {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
	}
	return o.fsys.Open(name)
}

func (o onlyFS) ReadDir(name string) ([]fs.DirEntry, error) {
	entries, err := fs.ReadDir(o.fsys, name)
	if err != nil || name != "." {
		return entries, err
	}
	var out []fs.DirEntry
	for _, e := range entries {
		if e.IsDir() || o.kept(e.Name()) {
			out = append(out, e)
		}
	}
	return out, nil
}

var _ fs.ReadDirFS = onlyFS{}

// errNoRun is ProviderFunc's error when it has no function.
var errNoRun = errors.New("host: ProviderFunc has no Func: give the function that sends a model call")
