package doccheck

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"go/doc"
	"go/parser"
	"go/token"
	"io"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/toolroute/toolroute/internal/fakemodel"
	"github.com/toolroute/toolroute/internal/testcache"
)

// docPages are the pages whose Go code blocks are programs an embedder
// copies: each must be whole (package main) and run.
var docPages = []string{"README.md", "docs/embedding/go.md"}

// TestExamplesRunCopied copies what an embedder copies into a fresh module
// outside the repository, which requires toolroute through a replace
// directive: every file of the public packages with Example functions, and
// every Go code block of docPages, a program each. go test runs the
// Examples there (checking their Output comments), and each program runs
// with go run against a stand-in for OpenAI, which it reaches at
// api.openai.com as it would the real one, through an HTTPS proxy the
// test runs (HTTPS_PROXY, its certificate authority in SSL_CERT_FILE). The
// go command works offline (GOPROXY=off), from the module cache the
// repository's own build filled.
func TestExamplesRunCopied(t *testing.T) {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	gobin := goCommand(t)
	dir := t.TempDir()
	writeModule(t, root, dir)
	examples := copyExamples(t, root, dir)
	programs := copyPrograms(t, root, dir)
	if len(examples) == 0 || len(programs) == 0 {
		t.Fatalf("copied %d example files and %d programs: the walk found nothing", len(examples), len(programs))
	}

	var calls atomic.Int32
	model := fakemodel.NewFunc(fakemodel.OpenAI, clockModel(&calls))
	t.Cleanup(model.Close)
	proxy, caFile := startInterceptor(t, model.URL)
	env := childEnv(t, gobin, proxy, caFile)

	run := func(args ...string) (string, error) {
		cmd := exec.CommandContext(t.Context(), gobin, args...)
		cmd.Dir, cmd.Env = dir, env
		var stdout, stderr strings.Builder
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		if err != nil {
			hint := ""
			if strings.Contains(stderr.String(), "GOPROXY=off") {
				hint = "\n(a module the copies need is not in the module cache: build the repository once first, as make test does, or run go mod download)"
			}
			return stdout.String(), fmt.Errorf("go %s: %v\n%s%s%s", strings.Join(args, " "), err, stdout.String(), stderr.String(), hint)
		}
		return stdout.String(), nil
	}
	t.Logf("copied the examples of %s", strings.Join(examples, ", "))
	if out, err := run("test", "-count=1", "-run", "^Example", "./examples/..."); err != nil {
		t.Errorf("the Examples, copied into a module of their own, do not pass:\n%v", err)
	} else {
		t.Logf("go test, on the copied examples:\n%s", out)
	}
	for _, p := range programs {
		before := calls.Load()
		out, err := run("run", "./"+p)
		switch {
		case err != nil:
			t.Errorf("%s, copied into a module of its own, does not run:\n%v", p, err)
		case calls.Load() == before:
			t.Errorf("%s ran without calling the model:\n%s", p, out)
		case strings.TrimSpace(out) == "":
			t.Errorf("%s printed nothing", p)
		default:
			t.Logf("%s, run as copied, printed:\n%s", p, out)
		}
	}
}

// goCommand is the go command of the toolchain running the test.
func goCommand(t *testing.T) string {
	if p, err := exec.LookPath("go"); err == nil {
		return p
	}
	p := filepath.Join(runtime.GOROOT(), "bin", "go")
	if _, err := os.Stat(p); err != nil {
		t.Skipf("no go command to build the copies with: %v", err)
	}
	return p
}

// writeModule writes the fresh module's go.mod, requiring toolroute from
// root, and the repository's go.sum, whose sums cover every module the
// copies can need.
func writeModule(t *testing.T, root, dir string) {
	mod, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	version := regexp.MustCompile(`(?m)^go (\S+)$`).FindSubmatch(mod)
	if version == nil {
		t.Fatal("go.mod has no go line")
	}
	gomod := fmt.Sprintf("module example.com/copied\n\ngo %s\n\nrequire github.com/toolroute/toolroute v0.0.0\n\nreplace github.com/toolroute/toolroute => %s\n", version[1], root)
	write(t, filepath.Join(dir, "go.mod"), []byte(gomod))
	sum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(dir, "go.sum"), sum)
}

// copyExamples copies each test file of the public packages that holds
// Example functions, whole, into examples/ (a folder per package), and
// names them.
func copyExamples(t *testing.T, root, dir string) []string {
	var copied []string
	for _, pkg := range importableDirs(t, root) {
		files, err := filepath.Glob(filepath.Join(pkg, "*_test.go"))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			src, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			file, err := parser.ParseFile(token.NewFileSet(), f, src, parser.ParseComments)
			if err != nil {
				t.Fatal(err)
			}
			if len(doc.Examples(file)) == 0 {
				continue
			}
			rel, _ := filepath.Rel(root, f)
			to := filepath.Join(dir, "examples", rel)
			write(t, to, src)
			copied = append(copied, filepath.ToSlash(rel))
		}
	}
	return copied
}

// copyPrograms writes each Go code block of docPages as the main.go of a
// program of its own, under docs/, and names their folders; a block that
// is not a whole program is an error, as it cannot run as copied.
func copyPrograms(t *testing.T, root, dir string) []string {
	var programs []string
	for _, page := range docPages {
		text, err := os.ReadFile(filepath.Join(root, page))
		if err != nil {
			t.Fatal(err)
		}
		for i, block := range goBlocks(string(text)) {
			if !strings.HasPrefix(block, "package main\n") {
				t.Errorf("%s: Go block %d is not a whole program: make it one (package main, its imports, func main) that runs as copied, or show the code in prose", page, i+1)
				continue
			}
			name := fmt.Sprintf("docs/%s_%d", strings.NewReplacer("/", "_", ".md", "").Replace(page), i+1)
			write(t, filepath.Join(dir, name, "main.go"), []byte(block))
			programs = append(programs, name)
		}
	}
	return programs
}

// goBlocks are the contents of a Markdown text's ```go fences.
func goBlocks(text string) []string {
	var blocks []string
	var b strings.Builder
	in := false
	for _, line := range strings.Split(text, "\n") {
		fence, isFence := strings.CutPrefix(strings.TrimSpace(line), "```")
		switch {
		case isFence && !in && fence == "go":
			in = true
			b.Reset()
		case isFence && in:
			in = false
			blocks = append(blocks, b.String())
		case in:
			b.WriteString(line + "\n")
		}
	}
	return blocks
}

func write(t *testing.T, path string, data []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// childEnv is the environment of the go commands run on the copies:
// offline, from the caches this go command uses, the model reached
// through the test's proxy, and no provider of the user's.
func childEnv(t *testing.T, gobin, proxy, caFile string) []string {
	out, err := exec.Command(gobin, "env", "GOCACHE", "GOMODCACHE").Output()
	if err != nil {
		t.Fatalf("go env: %v", err)
	}
	caches := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(caches) != 2 {
		t.Fatalf("go env GOCACHE GOMODCACHE answered %q", out)
	}
	drop := regexp.MustCompile(`^(GO[A-Z0-9_]*|(?i:https?_proxy|no_proxy|all_proxy)|SSL_CERT_(FILE|DIR)|OPENAI_[A-Z_]*|ANTHROPIC_[A-Z_]*|GEMINI_[A-Z_]*|GOOGLE_[A-Z_]*|TOOLROUTE_[A-Z_]*)=`)
	var env []string
	for _, kv := range os.Environ() {
		if !drop.MatchString(kv) {
			env = append(env, kv)
		}
	}
	env = append(env,
		"GOCACHE="+caches[0], "GOMODCACHE="+caches[1],
		"GOPROXY=off", "GOSUMDB=off", "GOFLAGS=-mod=mod", "GOWORK=off", "GOTOOLCHAIN=local",
		"HTTPS_PROXY="+proxy, "SSL_CERT_FILE="+caFile,
		"OPENAI_API_KEY=sk-copied")
	if home := testcache.Home(""); home != "" {
		// The run's compiled module and QuickJS, which the copies' hosts
		// keep in the user's cache folder.
		env = append(env, "XDG_CACHE_HOME="+home)
	}
	return env
}

// clockModel answers as a model would the docs' programs, which offer a
// clock group with a clock_now tool: it loads the group, calls the tool,
// and answers with its result.
func clockModel(calls *atomic.Int32) func(fakemodel.Request) fakemodel.Reply {
	return func(r fakemodel.Request) fakemodel.Reply {
		calls.Add(1)
		var body struct {
			Messages []struct {
				Role    string          `json:"role"`
				Content json.RawMessage `json:"content"`
			} `json:"messages"`
		}
		json.Unmarshal(r.Body, &body)
		var role, content string
		if n := len(body.Messages); n > 0 {
			role = body.Messages[n-1].Role
			json.Unmarshal(body.Messages[n-1].Content, &content)
		}
		tools := r.ToolNames()
		switch {
		case role == "tool" && !strings.HasPrefix(content, "Loaded"):
			return fakemodel.Text("It is " + content + ".")
		case slices.Contains(tools, "clock_now"):
			return fakemodel.ToolCall("clock_now", `{}`)
		case slices.Contains(tools, "load_tool_group"):
			return fakemodel.ToolCall("load_tool_group", `{"group_name":"clock"}`)
		}
		return fakemodel.Text("Hello.")
	}
}

// startInterceptor runs an HTTPS proxy whose every tunnel ends at a TLS
// server of the test's, with a certificate for the host asked signed by a
// certificate authority of its own, which hands the requests to target.
// It returns the proxy's URL and the authority's PEM file, for
// HTTPS_PROXY and SSL_CERT_FILE.
func startInterceptor(t *testing.T, target string) (string, string) {
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	caTemplate := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "toolroute doccheck"},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(24 * time.Hour), IsCA: true, BasicConstraintsValid: true,
		KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature}
	caDER, err := x509.CreateCertificate(rand.Reader, caTemplate, caTemplate, &caKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	ca, err := x509.ParseCertificate(caDER)
	if err != nil {
		t.Fatal(err)
	}
	caFile := filepath.Join(t.TempDir(), "ca.pem")
	write(t, caFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER}))
	var serial atomic.Int64
	serial.Store(1)
	leaf := func(hello *tls.ClientHelloInfo) (*tls.Certificate, error) {
		key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		if err != nil {
			return nil, err
		}
		tmpl := &x509.Certificate{SerialNumber: big.NewInt(serial.Add(1)), Subject: pkix.Name{CommonName: hello.ServerName},
			DNSNames: []string{hello.ServerName}, NotBefore: now.Add(-time.Hour), NotAfter: now.Add(24 * time.Hour),
			KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
		der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, &key.PublicKey, caKey)
		if err != nil {
			return nil, err
		}
		return &tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}, nil
	}
	to, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	end := httptest.NewUnstartedServer(httputil.NewSingleHostReverseProxy(to))
	end.TLS = &tls.Config{GetCertificate: leaf}
	end.StartTLS()
	t.Cleanup(end.Close)

	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodConnect {
			http.Error(w, "this proxy only tunnels", http.StatusMethodNotAllowed)
			return
		}
		upstream, err := net.Dial("tcp", end.Listener.Addr().String())
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		conn, buf, err := http.NewResponseController(w).Hijack()
		if err != nil {
			upstream.Close()
			return
		}
		fmt.Fprint(conn, "HTTP/1.1 200 Connection established\r\n\r\n")
		go pipe(upstream, buf.Reader, conn)
		pipe(conn, upstream, upstream)
	}))
	t.Cleanup(proxy.Close)
	return proxy.URL, caFile
}

// pipe copies from src to dst, then closes dst and closer (the other
// end), so that each tunnel ends when either side does.
func pipe(dst io.WriteCloser, src io.Reader, closer io.Closer) {
	io.Copy(dst, src)
	dst.Close()
	closer.Close()
}
