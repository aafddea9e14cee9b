package mcp

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/toolroute/toolroute/registry"
	"github.com/toolroute/toolroute/registry/check"
)

// DefaultTimeoutSeconds is a call's timeout when a server's entry sets none.
const DefaultTimeoutSeconds = 60

// ConfigFile is the configuration's name in the config folder.
const ConfigFile = "mcp.json"

// Config is an mcp.json file: the servers in the order the file lists them,
// which is the order their groups are listed in.
type Config struct {
	// File is where the configuration was read from, for messages.
	File    string
	Servers []ServerConfig
}

// ServerConfig is one entry of mcpServers: a command to run (stdio) or a URL
// (Streamable HTTP).
type ServerConfig struct {
	// Key is the entry's key; the group's name is made from it.
	Key string
	// Command, Args, Env and Cwd start a server that speaks over stdin and
	// stdout. Env adds to the few variables every server gets (see Env).
	Command string
	Args    []string
	Env     map[string]string
	Cwd     string
	// URL and Headers reach a server over Streamable HTTP.
	URL     string
	Headers map[string]string
	// Disabled leaves the server out without removing its entry.
	Disabled bool
	// TimeoutSeconds bounds each call; 0 means DefaultTimeoutSeconds.
	TimeoutSeconds int
}

// Transport names how the server is reached: "stdio" or "http".
func (c ServerConfig) Transport() string {
	if c.URL != "" {
		return "http"
	}
	return "stdio"
}

// Group is the name of the server's group: its key made a valid name.
func (c ServerConfig) Group() string { return check.MCPName(c.Key) }

// ErrConfig is wrapped by every error about the configuration's content.
var ErrConfig = errors.New("mcp: invalid configuration")

// ReadConfig reads an mcp.json file. A relative cwd in it is taken from the
// file's folder.
func ReadConfig(path string) (Config, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Config{}, fmt.Errorf("mcp: reading the MCP servers' configuration: %w", err)
	}
	cfg, err := ParseConfig(path, data)
	if err != nil {
		return Config{}, err
	}
	for i, s := range cfg.Servers {
		if s.Cwd != "" && !filepath.IsAbs(s.Cwd) {
			cfg.Servers[i].Cwd = filepath.Join(filepath.Dir(path), s.Cwd)
		}
	}
	return cfg, nil
}

// entry is one server's entry as the file gives it. Fields toolroute does
// not use (Claude Desktop's and Cursor's own) are ignored.
type entry struct {
	Type           string            `json:"type"`
	Command        string            `json:"command"`
	Args           []string          `json:"args"`
	Env            map[string]string `json:"env"`
	Cwd            string            `json:"cwd"`
	URL            string            `json:"url"`
	Headers        map[string]string `json:"headers"`
	Disabled       bool              `json:"disabled"`
	TimeoutSeconds *int              `json:"timeoutSeconds"`
}

// ParseConfig parses an mcp.json text, {"mcpServers": {"KEY": {...}}};
// file names it in errors.
//
// # Errors
//
// Every problem wraps ErrConfig and says which entry and what to write
// instead: not JSON, no mcpServers object, an entry with neither command nor
// url (or both), a URL that is not http or https, a timeout out of range,
// two keys that make the same group name.
func ParseConfig(file string, data []byte) (Config, error) {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: %s: %s", ErrConfig, file, fmt.Sprintf(format, args...))
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil || top == nil {
		return Config{}, bad(`it is not a JSON object (%v): write {"mcpServers": {"NAME": {"command": "...", "args": [...]}}}`, jsonProblem(err))
	}
	raw, ok := top["mcpServers"]
	if !ok {
		return Config{}, bad(`it has no "mcpServers" object: write {"mcpServers": {"NAME": {"command": "...", "args": [...]}}}`)
	}
	keys, values, err := orderedObject(raw)
	if err != nil {
		return Config{}, bad(`"mcpServers" must be an object of servers by name: %v`, err)
	}
	cfg := Config{File: file, Servers: []ServerConfig{}}
	groups := map[string]string{}
	for i, key := range keys {
		var e entry
		dec := json.NewDecoder(bytes.NewReader(values[i]))
		if err := dec.Decode(&e); err != nil {
			return Config{}, bad("server %q: %v: an entry is an object such as {\"command\": \"npx\", \"args\": [\"-y\", \"some-server\"]} or {\"url\": \"https://...\"}", key, jsonProblem(err))
		}
		s := ServerConfig{Key: key, Command: e.Command, Args: e.Args, Env: e.Env, Cwd: e.Cwd, URL: e.URL,
			Headers: e.Headers, Disabled: e.Disabled, TimeoutSeconds: DefaultTimeoutSeconds}
		switch {
		case strings.TrimSpace(key) == "":
			return Config{}, bad("a server has an empty name: give each entry of mcpServers a name")
		case s.Command == "" && s.URL == "":
			return Config{}, bad(`server %q has neither "command" (a program speaking MCP on stdin and stdout) nor "url" (a Streamable HTTP endpoint): give one`, key)
		case s.Command != "" && s.URL != "":
			return Config{}, bad(`server %q has both "command" and "url": keep one`, key)
		case e.Type == "sse":
			return Config{}, bad(`server %q uses the old SSE transport, which toolroute does not speak: give the server's Streamable HTTP URL (often ending in /mcp)`, key)
		case e.Type != "" && !slices.Contains([]string{"stdio", "http", "streamable-http", "streamableHttp"}, e.Type):
			return Config{}, bad(`server %q has "type": %q: use "stdio" with a command or "http" with a url, or leave "type" out`, key, e.Type)
		}
		if s.URL != "" {
			u, err := url.Parse(s.URL)
			if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
				return Config{}, bad(`server %q: "url" %q is not an http or https URL`, key, s.URL)
			}
			if len(s.Args) > 0 || len(s.Env) > 0 || s.Cwd != "" {
				return Config{}, bad(`server %q has a "url" and also "args", "env" or "cwd", which only a command uses: remove them`, key)
			}
		}
		if s.Command != "" && len(s.Headers) > 0 {
			return Config{}, bad(`server %q has "headers", which only a url uses: remove them`, key)
		}
		if e.TimeoutSeconds != nil {
			if *e.TimeoutSeconds < 1 || *e.TimeoutSeconds > registry.MaxTimeoutSeconds {
				return Config{}, bad(`server %q: "timeoutSeconds" must be between 1 and %d`, key, registry.MaxTimeoutSeconds)
			}
			s.TimeoutSeconds = *e.TimeoutSeconds
		}
		g := s.Group()
		if other, ok := groups[g]; ok {
			return Config{}, bad("servers %q and %q both make the group name %s: rename one of them", other, key, g)
		}
		groups[g] = key
		cfg.Servers = append(cfg.Servers, s)
	}
	return cfg, nil
}

// orderedObject splits a JSON object into its keys, in order, and values.
func orderedObject(raw json.RawMessage) ([]string, []json.RawMessage, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, nil, errors.New("it is not an object")
	}
	var keys []string
	var values []json.RawMessage
	seen := map[string]bool{}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, nil, err
		}
		key := t.(string) // an object's tokens alternate key, value
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, nil, err
		}
		if seen[key] {
			return nil, nil, fmt.Errorf("%q is given twice", key)
		}
		seen[key] = true
		keys, values = append(keys, key), append(values, v)
	}
	return keys, values, nil
}

// jsonProblem says what is wrong with a JSON text, without Go's type names.
func jsonProblem(err error) string {
	var typeErr *json.UnmarshalTypeError
	switch {
	case err == nil:
		return "null"
	case errors.As(err, &typeErr) && typeErr.Field != "":
		return fmt.Sprintf("%q must be a %s", typeErr.Field, jsonKind(typeErr.Type.Kind().String()))
	case errors.As(err, &typeErr):
		return "it is a " + typeErr.Value
	}
	return err.Error()
}

func jsonKind(goKind string) string {
	switch goKind {
	case "slice":
		return "list of strings"
	case "map":
		return "object of strings"
	case "int":
		return "number"
	case "bool":
		return "true or false"
	}
	return goKind
}
