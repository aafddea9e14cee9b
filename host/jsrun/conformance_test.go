package jsrun

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/toolroute/toolroute/host"
	"github.com/toolroute/toolroute/internal/checktest"
	"github.com/toolroute/toolroute/registry"
)

// jsCase is one conformance case of testdata/js: a tool source, a call and
// what it must give. The browser and worker hosts replay the same files.
type jsCase struct {
	Function string            `json:"function"`
	Params   json.RawMessage   `json:"params"`
	Env      map[string]string `json:"env"`
	// RequiredPermissions are the tool's manifest's: "google" grants the
	// google bridge.
	RequiredPermissions []string          `json:"required_permissions"`
	TimeoutSeconds      int               `json:"timeout_seconds"`
	MemoryLimitMB       int               `json:"memory_limit_mb"`
	Files               map[string]string `json:"files"`
	// FilesBase64 are files of any content, base64.
	FilesBase64 map[string]string `json:"files_base64"`
	Symlinks    map[string]string `json:"symlinks"`
	Libraries   []map[string]string
	Server      []route `json:"server"`
	Fetch       struct {
		AllowPrivate bool `json:"allow_private"`
		Rewrites     []struct {
			From string `json:"from"`
			To   string `json:"to"`
		} `json:"rewrites"`
	} `json:"fetch"`
	Google *struct {
		Token string `json:"token"`
		Email string `json:"email"`
	} `json:"google"`
	Now         string             `json:"now"`
	Hosts       []string           `json:"hosts"`
	HostsWhy    string             `json:"hosts_why"`
	Repeat      int                `json:"repeat"`
	Expect      expectation        `json:"expect"`
	ExpectFiles map[string]*string `json:"expect_files"`
	// ExpectFilesBase64 are files of any content, base64; null for none.
	ExpectFilesBase64 map[string]*string `json:"expect_files_base64"`
	ExpectRequests    []requestSeen      `json:"expect_requests"`
}

type route struct {
	Method     string            `json:"method"`
	Path       string            `json:"path"`
	Status     int               `json:"status"`
	Headers    map[string]string `json:"headers"`
	Body       string            `json:"body"`
	BodyBase64 string            `json:"body_base64"`
	BodyRepeat []json.RawMessage `json:"body_repeat"`
	DelayMs    int               `json:"delay_ms"`
}

type requestSeen struct {
	Method  string            `json:"method"`
	Path    string            `json:"path"`
	Query   string            `json:"query,omitempty"`
	Body    string            `json:"body,omitempty"`
	Headers map[string]string `json:"headers,omitempty"`
	// BodyContains are texts the body holds; BodyContainsBase64 bytes it
	// holds, base64; HeaderPrefixes what headers start with.
	BodyContains       []string          `json:"body_contains,omitempty"`
	BodyContainsBase64 []string          `json:"body_contains_base64,omitempty"`
	HeaderPrefixes     map[string]string `json:"header_prefixes,omitempty"`
}

type expectation struct {
	Status          registry.Status `json:"status"`
	Output          *string         `json:"output"`
	OutputContains  []string        `json:"output_contains"`
	ErrorType       string          `json:"error_type"`
	MessageContains []string        `json:"message_contains"`
	MessageAny      []string        `json:"message_any"`
	MessageExcludes []string        `json:"message_excludes"`
	Logs            []LogLine       `json:"logs"`
}

type staticGoogle struct{ token, email string }

func (g staticGoogle) AccessToken(context.Context) (string, error)  { return g.token, nil }
func (g staticGoogle) AccountEmail(context.Context) (string, error) { return g.email, nil }

// loadCase reads a case: case.json and tool.js from a txtar archive.
func loadCase(t *testing.T, path string) (jsCase, string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	parts := map[string]string{}
	var name string
	for _, line := range strings.SplitAfter(string(data), "\n") {
		if m := regexp.MustCompile(`^-- (.+) --\n$`).FindStringSubmatch(line); m != nil {
			name = m[1]
			continue
		}
		if name != "" {
			parts[name] += line
		}
	}
	var c jsCase
	if err := json.Unmarshal([]byte(parts["case.json"]), &c); err != nil {
		t.Fatalf("case.json: %v", err)
	}
	return c, parts["tool.js"]
}

// fakeServer answers the case's routes and records the requests.
type fakeServer struct {
	*httptest.Server
	mu   sync.Mutex
	seen []requestSeen
}

func newFakeServer(routes []route) *fakeServer {
	s := &fakeServer{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		seen := requestSeen{Method: r.Method, Path: r.URL.Path, Query: r.URL.RawQuery, Body: string(body), Headers: map[string]string{}}
		for k := range r.Header {
			seen.Headers[k] = r.Header.Get(k)
		}
		s.mu.Lock()
		s.seen = append(s.seen, seen)
		s.mu.Unlock()
		for _, rt := range routes {
			if !strings.EqualFold(rt.Method, r.Method) || rt.Path != r.URL.Path {
				continue
			}
			if rt.DelayMs > 0 {
				select {
				case <-time.After(time.Duration(rt.DelayMs) * time.Millisecond):
				case <-r.Context().Done():
					return
				}
			}
			for k, v := range rt.Headers {
				w.Header().Set(k, v)
			}
			body := rt.Body
			if rt.BodyBase64 != "" {
				b, err := base64.StdEncoding.DecodeString(rt.BodyBase64)
				if err != nil {
					panic(err)
				}
				body = string(b)
			}
			if len(rt.BodyRepeat) == 2 {
				var unit string
				var n int
				json.Unmarshal(rt.BodyRepeat[0], &unit)
				json.Unmarshal(rt.BodyRepeat[1], &n)
				body = strings.Repeat(unit, n)
				w.Header().Set("Content-Length", itoa(len(body)))
			}
			status := rt.Status
			if status == 0 {
				status = 200
			}
			w.WriteHeader(status)
			io.WriteString(w, body)
			return
		}
		http.Error(w, "no route", http.StatusNotFound)
	}))
	return s
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

func TestConformance(t *testing.T) {
	paths, err := filepath.Glob("../../testdata/js/*.txtar")
	if err != nil || len(paths) == 0 {
		t.Fatalf("no cases: %v", err)
	}
	for _, path := range paths {
		t.Run(strings.TrimSuffix(filepath.Base(path), ".txtar"), func(t *testing.T) {
			t.Parallel()
			c, source := loadCase(t, path)
			// A case names its hosts only with the reason the others
			// cannot offer what it checks (web/packages/toolroute/test/conformance-case.js's
			// skipFor is the JS hosts' side).
			if len(c.Hosts) > 0 && c.HostsWhy == "" {
				t.Fatalf("the case runs only in %v and does not say why (hosts_why)", c.Hosts)
			}
			if len(c.Hosts) > 0 && !contains(c.Hosts, "go") {
				t.Skip("not in go: " + c.HostsWhy)
			}
			srv := newFakeServer(c.Server)
			defer srv.Close()
			sub := func(s string) string { return strings.ReplaceAll(s, "{{server}}", srv.URL) }

			sandboxDir := t.TempDir()
			for name, content := range c.Files {
				p := filepath.Join(sandboxDir, name)
				os.MkdirAll(filepath.Dir(p), 0o755)
				if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			for name, b64 := range c.FilesBase64 {
				b, err := base64.StdEncoding.DecodeString(b64)
				if err != nil {
					t.Fatal(err)
				}
				p := filepath.Join(sandboxDir, name)
				os.MkdirAll(filepath.Dir(p), 0o755)
				if err := os.WriteFile(p, b, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			for name, target := range c.Symlinks {
				if err := os.Symlink(target, filepath.Join(sandboxDir, name)); err != nil {
					t.Fatal(err)
				}
			}
			var libs []fs.FS
			for _, folder := range c.Libraries {
				dir := t.TempDir()
				for name, src := range folder {
					os.WriteFile(filepath.Join(dir, name+".js"), []byte(src), 0o644)
				}
				libs = append(libs, os.DirFS(dir))
			}
			opts := Options{SandboxRoot: sandboxDir, Libraries: libs, MemoryLimit: c.MemoryLimitMB << 20, Warm: 1}
			opts.Fetch.AllowPrivate = c.Fetch.AllowPrivate
			for _, rw := range c.Fetch.Rewrites {
				opts.Fetch.Rewrites = append(opts.Fetch.Rewrites, Rewrite{From: rw.From, To: sub(rw.To)})
			}
			if c.Google != nil {
				opts.Google = staticGoogle{c.Google.Token, c.Google.Email}
			}
			if c.Now != "" {
				now, err := time.Parse(time.RFC3339, c.Now)
				if err != nil {
					t.Fatal(err)
				}
				opts.Now = func() time.Time { return now }
			}
			r, err := New(opts)
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()

			// A case without a timeout of its own is not about time: it
			// gets the failsafe, which a busy machine does not reach.
			timeout := failsafe
			if c.TimeoutSeconds > 0 {
				timeout = time.Duration(c.TimeoutSeconds) * time.Second
			}
			params := json.RawMessage(sub(string(c.Params)))
			for range max(1, c.Repeat) {
				res := r.Call(checktest.Context(t), host.JSCall{
					Tool: "case_tool", SourceRef: "tool.js", Source: []byte(source), Function: c.Function,
					Params: params, Env: c.Env, Timeout: timeout,
					Google: slices.Contains(c.RequiredPermissions, registry.PermissionGoogle),
				})
				expect(t, c.Expect, res)
			}
			for name, want := range c.ExpectFiles {
				got, err := os.ReadFile(filepath.Join(sandboxDir, name))
				switch {
				case want == nil && !errors.Is(err, fs.ErrNotExist):
					t.Errorf("file %s exists, want none", name)
				case want != nil && (err != nil || string(got) != *want):
					t.Errorf("file %s = %q, %v; want %q", name, got, err, *want)
				}
			}
			for name, want := range c.ExpectFilesBase64 {
				got, err := os.ReadFile(filepath.Join(sandboxDir, name))
				switch {
				case want == nil && !errors.Is(err, fs.ErrNotExist):
					t.Errorf("file %s exists, want none", name)
				case want != nil && (err != nil || base64.StdEncoding.EncodeToString(got) != *want):
					t.Errorf("file %s = %s, %v; want %s", name, base64.StdEncoding.EncodeToString(got), err, *want)
				}
			}
			if c.ExpectRequests != nil {
				srv.mu.Lock()
				seen := srv.seen
				srv.mu.Unlock()
				if len(seen) != len(c.ExpectRequests) {
					t.Fatalf("server saw %d requests, want %d: %+v", len(seen), len(c.ExpectRequests), seen)
				}
				for i, want := range c.ExpectRequests {
					got := seen[i]
					if got.Method != want.Method || got.Path != want.Path || got.Query != want.Query || (want.Body != "" && got.Body != want.Body) {
						t.Errorf("request %d = %s %s?%s %q, want %s %s?%s %q", i, got.Method, got.Path, got.Query, got.Body, want.Method, want.Path, want.Query, want.Body)
					}
					for k, v := range want.Headers {
						if got.Headers[k] != v {
							t.Errorf("request %d header %s = %q, want %q", i, k, got.Headers[k], v)
						}
					}
					for k, v := range want.HeaderPrefixes {
						if !strings.HasPrefix(got.Headers[k], v) {
							t.Errorf("request %d header %s = %q, want it to start with %q", i, k, got.Headers[k], v)
						}
					}
					for _, sub := range want.BodyContains {
						if !strings.Contains(got.Body, sub) {
							t.Errorf("request %d body %q does not contain %q", i, got.Body, sub)
						}
					}
					for _, b64 := range want.BodyContainsBase64 {
						sub, err := base64.StdEncoding.DecodeString(b64)
						if err != nil {
							t.Fatal(err)
						}
						if !strings.Contains(got.Body, string(sub)) {
							t.Errorf("request %d body %q does not contain the bytes of %s", i, got.Body, b64)
						}
					}
				}
			}
		})
	}
}

func expect(t *testing.T, want expectation, got Result) {
	t.Helper()
	if got.Status != want.Status {
		t.Fatalf("status %s (%s: %s%s), want %s", got.Status, got.ErrorType, got.Message, got.Output, want.Status)
	}
	if want.Output != nil && got.Output != *want.Output {
		t.Errorf("output:\n got %q\nwant %q", got.Output, *want.Output)
	}
	for _, s := range want.OutputContains {
		if !strings.Contains(got.Output, s) {
			t.Errorf("output %q does not contain %q", got.Output, s)
		}
	}
	if want.ErrorType != "" && got.ErrorType != want.ErrorType {
		t.Errorf("error type %q (%s), want %q", got.ErrorType, got.Message, want.ErrorType)
	}
	for _, s := range want.MessageContains {
		if !strings.Contains(got.Message, s) {
			t.Errorf("message %q does not contain %q", got.Message, s)
		}
	}
	if len(want.MessageAny) > 0 && !containsAny(got.Message, want.MessageAny) {
		t.Errorf("message %q contains none of %q", got.Message, want.MessageAny)
	}
	for _, s := range want.MessageExcludes {
		if strings.Contains(got.Message, s) {
			t.Errorf("message %q contains %q", got.Message, s)
		}
	}
	if want.Logs != nil {
		if diff := cmp.Diff(want.Logs, got.Logs); diff != "" {
			t.Errorf("logs (-want +got):\n%s", diff)
		}
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func containsAny(s string, subs []string) bool {
	for _, sub := range subs {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}
