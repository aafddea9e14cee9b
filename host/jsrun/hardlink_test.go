package jsrun

import (
	"os"
	"path/filepath"
	goruntime "runtime"
	"strings"
	"testing"

	"github.com/toolroute/toolroute/registry"
)

// A hard link in the sandbox folder is a name inside it for a file outside
// it, which os.Root cannot tell: fs refuses a file with other names, to
// read, to write and to append, and the file outside keeps its content.
func TestSandboxRefusesHardLinks(t *testing.T) {
	if goruntime.GOOS == "windows" {
		t.Skip("the link count is read on Unix systems")
	}
	dir := t.TempDir()
	outside := filepath.Join(t.TempDir(), "secret.txt")
	if err := os.WriteFile(outside, []byte("the user's secret"), 0o600); err != nil {
		t.Fatal(err)
	}
	sandbox := filepath.Join(dir, "files")
	os.MkdirAll(sandbox, 0o755)
	if err := os.Link(outside, filepath.Join(sandbox, "planted.txt")); err != nil {
		t.Skipf("no hard links here: %v", err)
	}
	r := newRunner(t, Options{SandboxRoot: sandbox})
	for _, src := range []string{
		`function execute() { return fs.readFile("planted.txt") }`,
		`function execute() { fs.writeFile("planted.txt", "overwritten"); }`,
		`function execute() { fs.appendFile("planted.txt", " and more"); }`,
	} {
		res := call(r, src, failsafe)
		if res.Status != registry.StatusError || !strings.Contains(res.Message, "has other names (hard links)") || strings.Contains(res.Output, "secret") {
			t.Errorf("%s: %+v", src, res.Result)
		}
	}
	if b, _ := os.ReadFile(outside); string(b) != "the user's secret" {
		t.Errorf("the file outside now holds %q", b)
	}
	// A file of its own is read as ever.
	if res := call(r, `function execute() { fs.writeFile("own.txt", "mine"); return fs.readFile("own.txt") }`, failsafe); res.Output != "mine" {
		t.Errorf("an ordinary file: %+v", res.Result)
	}
}
