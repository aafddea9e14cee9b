// Package builtin holds toolroute's host-native tools: the core tool
// webfetch and the js_tool_management group (create, list, update and
// delete user JS tools); and the toolroute bridge's operations over the
// store (ops.go) that the built-in JS tools of manifests/ reach: memories,
// history, settings, variables for tools, tool states.
package builtin

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strings"

	"github.com/toolroute/toolroute/host"
	"github.com/toolroute/toolroute/host/jsrun"
	"github.com/toolroute/toolroute/host/safehttp"
	"github.com/toolroute/toolroute/host/store"
	"github.com/toolroute/toolroute/host/webpage"
	"github.com/toolroute/toolroute/registry"
)

// Deps are what the tools work with.
type Deps struct {
	Store *store.DB
	JS    *jsrun.Runner
	Web   *safehttp.Client
	// ToolsDir is the user tools folder js_tool_management writes.
	ToolsDir string
	// Reload applies a change to the catalogue: new tools, tool states.
	Reload func(ctx context.Context) error
	// SetDisabled gives the host the disabled tools' names.
	SetDisabled func(names []string)
	// Tools lists the catalogue's tools, disabled ones included, with their
	// state; list_tool_states shows it.
	Tools func(ctx context.Context) ([]registry.ToolState, error)
	// Settings names the settings set_setting may change.
	Settings []SettingSpec
}

// SettingSpec is one setting the config group manages.
type SettingSpec struct {
	Key         string
	Description string
	// Default is the value when none is set.
	Default string
	// Check refuses a bad value with an error saying what is expected.
	Check func(string) error
}

// Setting keys in the store.
const (
	EnvPrefix      = "env."           // env.NAME: a variable tools may read
	DisabledPrefix = "tool.disabled." // tool.disabled.NAME: "true"
)

func schema(s string) json.RawMessage { return json.RawMessage(s) }

func args[T any](in json.RawMessage) (T, error) {
	var v T
	if err := json.Unmarshal(in, &v); err != nil {
		return v, &host.ToolError{Type: "invalid_arguments", Message: "the arguments do not match the parameters: " + err.Error()}
	}
	return v, nil
}

// Core returns the core tools: sent to the model on every call.
func Core(d Deps) []host.NativeTool {
	return []host.NativeTool{webfetch(d)}
}

// MaxPageChars is webfetch's default cut of the markdown it returns.
const MaxPageChars = 20000

func webfetch(d Deps) host.NativeTool {
	return host.NativeTool{
		Tool: registry.Tool{
			Name: "webfetch", RequiredPermissions: []string{registry.PermissionRead},
			Description: "Fetch a web page and return its main content as readable markdown (title, headings, text, links, lists, tables), " +
				"without scripts, menus or ads. Use it to read an article, documentation or any page by URL; use http_request for APIs.",
			Parameters: schema(`{"type":"object","properties":{"url":{"type":"string","description":"The page's full URL, starting with http:// or https://"},` +
				`"max_chars":{"type":"integer","description":"Cut the markdown after this many characters (default 20000)"}},"required":["url"]}`),
			TimeoutSeconds: 30,
		},
		Run: func(ctx context.Context, in json.RawMessage) (string, error) {
			a, err := args[struct {
				URL      string `json:"url"`
				MaxChars int    `json:"max_chars"`
			}](in)
			if err != nil {
				return "", err
			}
			if a.MaxChars <= 0 {
				a.MaxChars = MaxPageChars
			}
			return fetchPage(ctx, d.Web, a.URL, a.MaxChars)
		},
	}
}

// fetchPage gets a page and makes it readable.
func fetchPage(ctx context.Context, c *safehttp.Client, raw string, maxChars int) (string, error) {
	u, rewritten, err := c.Target(raw)
	if err != nil {
		return "", &host.ToolError{Type: "invalid_arguments", Message: err.Error()}
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return "", err
	}
	req.Header.Set("User-Agent", "toolroute webfetch")
	req.Header.Set("Accept", "text/html,application/xhtml+xml,text/plain;q=0.9,*/*;q=0.5")
	resp, err := c.Do(req, rewritten)
	if err != nil {
		if errors.Is(err, safehttp.ErrPrivate) {
			return "", &host.ToolError{Type: "refused", Message: raw + " is refused: loopback, private and link-local addresses cannot be fetched"}
		}
		return "", fmt.Errorf("fetching %s: %v", raw, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return "", &host.ToolError{Type: "http_error", Message: fmt.Sprintf("%s answered %s", raw, resp.Status)}
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, 5<<20))
	if err != nil {
		return "", fmt.Errorf("reading %s: %v", raw, err)
	}
	mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	var title, text string
	switch {
	case mt == "text/html" || mt == "application/xhtml+xml" || mt == "":
		page, err := webpage.Markdown(body, resp.Request.URL)
		if err != nil {
			return "", err
		}
		title, text = page.Title, page.Markdown
	case strings.HasPrefix(mt, "text/") || mt == "application/json" || strings.HasSuffix(mt, "+json") || strings.HasSuffix(mt, "+xml") || mt == "application/xml":
		text = string(body)
	default:
		return "", &host.ToolError{Type: "unsupported", Message: fmt.Sprintf("%s is %s, not a text page", raw, mt)}
	}
	var b strings.Builder
	if title != "" {
		b.WriteString("# " + title + "\n")
	}
	b.WriteString("URL: " + resp.Request.URL.String() + "\n\n")
	if r := []rune(text); len(r) > maxChars {
		text = string(r[:maxChars]) + fmt.Sprintf("\n\n[cut at %d of %d characters: ask for more with max_chars]", maxChars, len(r))
	}
	b.WriteString(text)
	return b.String(), nil
}
