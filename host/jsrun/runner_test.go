package jsrun

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"testing/fstest"
	"time"

	"github.com/toolroute/toolroute/host"
	"github.com/toolroute/toolroute/internal/checktest"
	"github.com/toolroute/toolroute/internal/testwait"
	"github.com/toolroute/toolroute/registry"
)

func newRunner(t testing.TB, opts Options) *Runner {
	t.Helper()
	r, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(r.Close)
	// As a Runner is once its first call has run: runtimes kept ready.
	waitWarm(t, r)
	return r
}

// TestLazyStart: New starts no QuickJS runtime, and the first call makes
// one and runs; the runtimes kept ready come after it.
func TestLazyStart(t *testing.T) {
	r, err := New(Options{SandboxRoot: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	r.mu.Lock()
	warming := r.warming
	r.mu.Unlock()
	if warming || len(r.warm) > 0 {
		t.Fatal("New started QuickJS before any call")
	}
	res := callParams(r, `function execute(p) { return "hi " + p.name; }`, map[string]string{"name": "Ada"}, failsafe)
	if res.ErrorType != "" || res.Output != "hi Ada" {
		t.Fatalf("the first call: %+v", res)
	}
	waitWarm(t, r)
}

// failsafe is the timeout of a call whose time the test does not check: a
// loaded machine never reaches it while the code is right (one with a load
// of 30 on 2 cores ran past the 10 s some tests gave), and a call that went
// wrong still ends before go test's own limit.
const failsafe = testwait.Failsafe

func call(r *Runner, source string, timeout time.Duration) Result {
	return r.Call(checktest.Background(), host.JSCall{Tool: "t", SourceRef: "t.js", Source: []byte(source), Function: "execute", Timeout: timeout})
}

// qjs mounts its working folder at /: it must be an empty folder of its own,
// never the process's, and gone after the call.
func TestWorkingFolderIsEmptyAndPrivate(t *testing.T) {
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	probe := filepath.Join(wd, "cwd_probe.json")
	if err := os.WriteFile(probe, []byte(`{"secret":"from the process's folder"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	defer os.Remove(probe)
	// The runtimes' folders go into a temporary folder of this test's own,
	// so other processes' folders do not count.
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	r, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	res := call(r, `async function execute() {
		const out = [];
		for (const p of ["./cwd_probe.json", "/cwd_probe.json", "cwd_probe.json", "../jsrun/cwd_probe.json"]) {
			out.push(await import(p).then(m => "read " + JSON.stringify(m.default), e => "no"));
		}
		return out.join(" ");
	}`, failsafe)
	if res.Status != registry.StatusSuccess || res.Output != "no no no no" {
		t.Fatalf("result = %+v", res)
	}
	for range 5 {
		call(r, `function execute() { return "x" }`, failsafe)
	}
	if during, _ := filepath.Glob(filepath.Join(tmp, "toolroute-qjs-*")); len(during) > 3 { // the warm runtimes and one being made
		t.Errorf("working folders pile up: %d after 6 calls", len(during))
	}
	r.Close()
	if left, _ := filepath.Glob(filepath.Join(tmp, "toolroute-qjs-*")); len(left) != 0 {
		t.Errorf("working folders left after Close: %v", left)
	}
}

// After a timeout, a crash or running out of memory, the host is fine and the
// next call works.
func TestHostSurvivesBrokenCalls(t *testing.T) {
	r := newRunner(t, Options{})
	for _, src := range []string{
		`function execute() { while (true) {} }`,
		`function f(n) { return 1 + f(n + 1) } function execute() { return f(0) }`,
		`function execute() { const k = []; for (;;) k.push(new Uint8Array(1 << 20)); }`,
	} {
		if res := call(r, src, time.Second); res.Status != registry.StatusError {
			t.Fatalf("%s: %+v", src, res)
		}
		if res := call(r, `function execute() { return "still fine" }`, failsafe); res.Output != "still fine" {
			t.Fatalf("after %s: %+v", src, res)
		}
	}
}

// Concurrent calls each get their own runtime; state never leaks between
// them.
func TestConcurrentCalls(t *testing.T) {
	r := newRunner(t, Options{Warm: 2})
	const n = 12
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			src := fmt.Sprintf(`function execute(p) { if (globalThis.seen) return "leak"; globalThis.seen = %d; let s = 0; for (let k = 0; k < 20000; k++) s += k; return String(p.i) + ":" + s; }`, i)
			res := r.Call(checktest.Context(t), host.JSCall{Tool: "t", SourceRef: "c.js", Source: []byte(src), Function: "execute",
				Params: []byte(fmt.Sprintf(`{"i":%d}`, i)), Timeout: failsafe})
			if want := fmt.Sprintf("%d:199990000", i); res.Output != want {
				errs <- fmt.Errorf("call %d: %+v, want %s", i, res, want)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// A stuck call does not hold up others: a quick call started after it
// returns while it is still running. The stuck call's timeout is the
// failsafe, so that a slow quick call cannot see it end first; it is then
// cancelled.
func TestStuckCallDoesNotBlockOthers(t *testing.T) {
	dir := t.TempDir()
	r := newRunner(t, Options{SandboxRoot: dir})
	ctx, cancel := context.WithCancel(checktest.Context(t))
	defer cancel()
	done := make(chan Result, 1)
	go func() {
		done <- r.Call(ctx, host.JSCall{Tool: "t", SourceRef: "t.js", Function: "execute", Timeout: failsafe,
			Source: []byte(`function execute() { fs.writeFile("running", "yes"); while (true) {} }`)})
	}()
	// Wait until the stuck call is inside its loop.
	for {
		if _, err := os.Stat(filepath.Join(dir, "running")); err == nil {
			break
		}
		select {
		case res := <-done:
			t.Fatalf("the stuck call ended before its loop: %+v", res)
		case <-time.After(time.Millisecond):
		}
	}
	if res := call(r, `function execute() { return "quick" }`, failsafe); res.Output != "quick" {
		t.Fatalf("%+v", res)
	}
	select {
	case res := <-done:
		t.Fatalf("the stuck call ended first: %+v", res)
	default:
	}
	cancel()
	if res := <-done; res.ErrorType != "canceled" {
		t.Errorf("stuck call: %+v", res)
	}
}

func TestPrecompile(t *testing.T) {
	r := newRunner(t, Options{})
	r.Precompile(map[string][]byte{"a.js": []byte(`function execute() { return "a" }`), "bad.js": []byte(`function (`)})
	r.mu.Lock()
	n := len(r.bytecode)
	r.mu.Unlock()
	if n != 1 {
		t.Fatalf("%d sources compiled, want 1", n)
	}
	res := r.Call(checktest.Context(t), host.JSCall{Tool: "a", SourceRef: "a.js", Source: []byte(`function execute() { return "a" }`), Function: "execute", Timeout: failsafe})
	if res.Output != "a" {
		t.Fatalf("%+v", res)
	}
	res = r.Call(checktest.Context(t), host.JSCall{Tool: "b", SourceRef: "bad.js", Source: []byte(`function (`), Function: "execute", Timeout: failsafe})
	if res.Status != registry.StatusError || !strings.Contains(res.Message, "SyntaxError") || !strings.Contains(res.Message, "bad.js:1") {
		t.Fatalf("%+v", res)
	}
}

func TestBadCalls(t *testing.T) {
	r := newRunner(t, Options{})
	tests := []struct {
		name string
		call host.JSCall
		want string
	}{
		{"function name with code", host.JSCall{Tool: "t", Source: []byte(`function execute(){}`), Function: "execute();evil"}, "is not a JS identifier"},
		{"parameters not an object", host.JSCall{Tool: "t", Source: []byte(`function execute(){}`), Function: "execute", Params: []byte(`[1]`)}, "not a JSON object"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := r.Call(checktest.Context(t), tt.call)
			if res.Status != registry.StatusError || !strings.Contains(res.Message, tt.want) {
				t.Errorf("%+v, want an error containing %q", res, tt.want)
			}
		})
	}
}

func TestGoogleProviderErrors(t *testing.T) {
	r := newRunner(t, Options{Google: failingGoogle{}})
	res := r.Call(checktest.Context(t), host.JSCall{Tool: "t", SourceRef: "t.js", Function: "execute", Timeout: failsafe, Google: true,
		Source: []byte(`async function execute() { return await google.getAccessToken() }`)})
	if res.Status != registry.StatusError || !strings.Contains(res.Message, "token endpoint said invalid_grant") {
		t.Errorf("%+v", res)
	}
}

type failingGoogle struct{}

func (failingGoogle) AccessToken(context.Context) (string, error) {
	return "", errors.New("token endpoint said invalid_grant: reconnect the account")
}
func (failingGoogle) AccountEmail(context.Context) (string, error) { return "", ErrNotConnected }

func TestPatchRefusesOtherBinaries(t *testing.T) {
	names, err := moduleNames("")
	if err != nil {
		t.Fatal(err)
	}
	other := append([]byte(nil), qjsWasm...)
	other[len(other)-1] ^= 1
	if _, err := patchQuickJS(other, 64<<20, names, true); !errors.Is(err, errWrongQuickJS) {
		t.Fatalf("err = %v", err)
	}
	if _, err := patchQuickJS([]byte("not wasm"), 64<<20, names, true); !errors.Is(err, errWrongQuickJS) {
		t.Fatalf("err = %v", err)
	}
	if _, err := patchQuickJS(qjsWasm, 64<<20, [3]string{"qjs:std", names[1], names[2]}, true); err == nil {
		t.Error("a guessable module name was accepted")
	}
}

// Without a cache folder, every process draws its own module names; with
// one, they are drawn once, kept for the user alone, and the compiled module
// is kept there too.
func TestModuleNames(t *testing.T) {
	a, _ := moduleNames("")
	b, _ := moduleNames("")
	if a == b || a[0] == a[1] {
		t.Errorf("random names repeat: %v %v", a, b)
	}
	dir := t.TempDir()
	c, err := moduleNames(dir)
	if err != nil {
		t.Fatal(err)
	}
	d, _ := moduleNames(dir)
	if c != d || c == a {
		t.Errorf("names in a cache folder: %v then %v", c, d)
	}
	info, err := os.Stat(filepath.Join(dir, "quickjs-names"))
	if err != nil || info.Mode().Perm() != 0o600 {
		t.Errorf("quickjs-names: %v, %v", info, err)
	}
	// A damaged file is replaced.
	os.WriteFile(filepath.Join(dir, "quickjs-names"), []byte("qjs:std qjs:os qjs:bjson\n"), 0o600)
	if e, _ := moduleNames(dir); e == c || !validName(e[0]) {
		t.Errorf("names from a damaged file: %v", e)
	}

	cache := t.TempDir()
	r := newRunner(t, Options{CacheDir: cache})
	if res := call(r, `function execute() { return typeof std + typeof os }`, failsafe); res.Output != "undefinedundefined" {
		t.Errorf("with a cache folder: %+v", res)
	}
	entries, _ := os.ReadDir(cache)
	if len(entries) < 2 {
		t.Errorf("the cache folder holds %d entries, want the names and the compiled module", len(entries))
	}
}

func TestScrub(t *testing.T) {
	env := map[string]string{"KEY": "abcd1234", "SHORT": "ab", "OTHER": "zzzzz"}
	got := scrub("key abcd1234 and ab and zzzzz", env)
	if got != "key [redacted KEY] and ab and [redacted OTHER]" {
		t.Errorf("scrub = %q", got)
	}
}

func TestCheck(t *testing.T) {
	r := newRunner(t, Options{})
	if err := r.Check("ok.js", []byte("function execute(p) { return p.x }")); err != nil {
		t.Errorf("a good source: %v", err)
	}
	err := r.Check("tools/bad.js", []byte("function execute(p) {\n  return p.x +;\n}"))
	if err == nil || !strings.Contains(err.Error(), "SyntaxError") || !strings.Contains(err.Error(), "tools/bad.js:2") {
		t.Errorf("a bad source: %v", err)
	}
	// Nesting that overflows the parser's stack says so.
	err = r.Check("tools/deep.js", []byte("function execute() { return "+strings.Repeat("(", 100000)+"; }"))
	if err == nil || !strings.Contains(err.Error(), "stack overflow") {
		t.Errorf("a source nested 100,000 deep: %v", err)
	}
}

// Undefined finds the functions a call would find after the top level ran,
// and says what the top level did wrong; the top level reaches neither the
// network nor the sandbox folder.
func TestUndefined(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "secret.txt"), []byte("x"), 0o644)
	r := newRunner(t, Options{SandboxRoot: dir, Libraries: []fs.FS{fstest.MapFS{"helper.js": {Data: []byte("exports.f = function () {};")}}}})
	tests := []struct {
		name, source string
		names, want  []string
		wantErr      string
	}{
		{name: "declarations and bindings", source: "function a() {}\nconst b = () => 1;\nvar c = 5;\nlet h = lib('helper').f;\n",
			names: []string{"a", "b", "c", "d", "h", "delete"}, want: []string{"c", "d", "delete"}},
		{name: "all there", source: "async function execute() {}", names: []string{"execute"}, want: []string{}},
		{name: "syntax error", source: "function a() {\n  return x +;\n}\n", names: []string{"a"}, wantErr: "SyntaxError: unexpected token in expression: ';'\n    at t.js:2:"},
		{name: "top level throws", source: "throw new TypeError('boom');", names: []string{"a"}, wantErr: "TypeError: boom"},
		{name: "top level fetches", source: "fetch('https://example.com/');\nfunction a() {}", names: []string{"a"}, wantErr: "was not requested: toolroute check runs a file's top level without the network"},
		{name: "top level reads a file", source: "fs.readFile('secret.txt');", names: []string{"a"}, wantErr: "no sandbox folder is configured"},
		{name: "top level recurses", source: "function f(n) { return f(n + 1) + 1; }\nf(0);", names: []string{"f"}, wantErr: "its top level stopped: stack overflow"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := r.Undefined(checktest.Context(t), "t.js", []byte(tt.source), tt.names)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if strings.Join(got, ",") != strings.Join(tt.want, ",") {
				t.Errorf("missing %q, want %q", got, tt.want)
			}
		})
	}
}
