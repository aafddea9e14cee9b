package mcp

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseConfig(t *testing.T) {
	for _, tc := range []struct {
		name    string
		input   string
		want    []ServerConfig
		wantErr string
	}{
		{
			name: "stdio and http, in the file's order, with the defaults",
			input: `{"mcpServers": {
				"zeta": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-memory"], "env": {"MEMORY_FILE_PATH": "/tmp/m.jsonl"}},
				"alpha": {"url": "https://mcp.example.com/mcp", "headers": {"Authorization": "Bearer x"}, "timeoutSeconds": 5},
				"off": {"command": "old-server", "disabled": true}
			}}`,
			want: []ServerConfig{
				{Key: "zeta", Command: "npx", Args: []string{"-y", "@modelcontextprotocol/server-memory"}, Env: map[string]string{"MEMORY_FILE_PATH": "/tmp/m.jsonl"}, TimeoutSeconds: 60},
				{Key: "alpha", URL: "https://mcp.example.com/mcp", Headers: map[string]string{"Authorization": "Bearer x"}, TimeoutSeconds: 5},
				{Key: "off", Command: "old-server", Disabled: true, TimeoutSeconds: 60},
			},
		},
		{
			name:  "Claude Desktop's and Cursor's own fields are ignored; a type that agrees is fine",
			input: `{"mcpServers": {"gh": {"type": "http", "url": "http://127.0.0.1:3001/mcp", "autoApprove": []}}, "globalShortcut": ""}`,
			want:  []ServerConfig{{Key: "gh", URL: "http://127.0.0.1:3001/mcp", TimeoutSeconds: 60}},
		},
		{name: "no servers", input: `{"mcpServers": {}}`, want: []ServerConfig{}},
		{name: "not JSON", input: `{"mcpServers": {`, wantErr: `it is not a JSON object (unexpected end of JSON input): write {"mcpServers"`},
		{name: "no mcpServers", input: `{"servers": {}}`, wantErr: `it has no "mcpServers" object`},
		{name: "mcpServers not an object", input: `{"mcpServers": []}`, wantErr: `"mcpServers" must be an object of servers by name`},
		{name: "a key twice", input: `{"mcpServers": {"a": {"command": "x"}, "a": {"command": "y"}}}`, wantErr: `"a" is given twice`},
		{name: "neither command nor url", input: `{"mcpServers": {"a": {"args": ["x"]}}}`, wantErr: `server "a" has neither "command"`},
		{name: "both", input: `{"mcpServers": {"a": {"command": "x", "url": "http://h/mcp"}}}`, wantErr: `server "a" has both "command" and "url": keep one`},
		{name: "sse", input: `{"mcpServers": {"a": {"type": "sse", "url": "http://h/sse"}}}`, wantErr: `old SSE transport`},
		{name: "unknown type", input: `{"mcpServers": {"a": {"type": "ws", "url": "http://h/mcp"}}}`, wantErr: `"type": "ws"`},
		{name: "not an http URL", input: `{"mcpServers": {"a": {"url": "ftp://h/mcp"}}}`, wantErr: `"url" "ftp://h/mcp" is not an http or https URL`},
		{name: "args with a url", input: `{"mcpServers": {"a": {"url": "http://h/mcp", "args": ["x"]}}}`, wantErr: `which only a command uses`},
		{name: "headers with a command", input: `{"mcpServers": {"a": {"command": "x", "headers": {"A": "b"}}}}`, wantErr: `which only a url uses`},
		{name: "args of the wrong type", input: `{"mcpServers": {"a": {"command": "x", "args": "-y"}}}`, wantErr: `"args" must be a list of strings`},
		{name: "an entry that is not an object", input: `{"mcpServers": {"a": "npx server"}}`, wantErr: `server "a": it is a string`},
		{name: "timeout out of range", input: `{"mcpServers": {"a": {"command": "x", "timeoutSeconds": 0}}}`, wantErr: `"timeoutSeconds" must be between 1 and 3600`},
		{name: "empty name", input: `{"mcpServers": {" ": {"command": "x"}}}`, wantErr: `a server has an empty name`},
		{name: "two keys, one group", input: `{"mcpServers": {"my-server": {"command": "x"}, "My Server": {"command": "y"}}}`, wantErr: `servers "my-server" and "My Server" both make the group name my_server: rename one of them`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg, err := ParseConfig("mcp.json", []byte(tc.input))
			if tc.wantErr != "" {
				if err == nil || !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), tc.wantErr) || !strings.HasPrefix(err.Error(), "mcp: invalid configuration: mcp.json: ") {
					t.Fatalf("err = %v, want one with %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, cfg.Servers); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestReadConfig(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "mcp.json")
	os.WriteFile(path, []byte(`{"mcpServers": {"local": {"command": "./server", "cwd": "servers/local"}, "abs": {"command": "x", "cwd": "/srv"}}}`), 0o644)
	cfg, err := ReadConfig(path)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.File != path || cfg.Servers[0].Cwd != filepath.Join(dir, "servers", "local") || cfg.Servers[1].Cwd != "/srv" {
		t.Errorf("%+v", cfg)
	}
	if _, err := ReadConfig(filepath.Join(dir, "none.json")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a missing file: %v", err)
	}
}

// An entry's headers go to its server's host only, not to one a redirect
// leads to.
func TestHeaders(t *testing.T) {
	var got []string
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = append(got, "other:"+r.Header.Get("Authorization"))
	}))
	defer other.Close()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = append(got, "server:"+r.Header.Get("Authorization"))
		http.Redirect(w, r, other.URL+"/elsewhere", http.StatusFound)
	}))
	defer srv.Close()
	u, _ := url.Parse(srv.URL)
	c := &http.Client{Transport: headers{host: u.Host, values: map[string]string{"Authorization": "Bearer secret"}}}
	resp, err := c.Get(srv.URL + "/mcp")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if want := []string{"server:Bearer secret", "other:"}; !cmp.Equal(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
}

func TestEnv(t *testing.T) {
	process := map[string]string{"PATH": "/usr/bin", "HOME": "/home/u", "OPENAI_API_KEY": "sk-secret", "TOOLROUTE_TOKEN": "t"}
	got := Env(func(k string) string { return process[k] }, map[string]string{"MEMORY_FILE_PATH": "/tmp/m", "PATH": "/opt/bin"})
	want := []string{"HOME=/home/u", "MEMORY_FILE_PATH=/tmp/m", "PATH=/opt/bin"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}
