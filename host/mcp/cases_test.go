package mcp

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolroute/toolroute/host"
	"github.com/toolroute/toolroute/registry"
)

// cases is testdata/mcp/cases.json, the rules every host replays.
type cases struct {
	About string
	Names []struct {
		Input, Want string
	}
	Groups []struct {
		Name         string
		Key          string
		ServerInfo   *mcp.Implementation `json:"server_info"`
		Instructions string
		Tools        []string
		Want         registry.Group
	}
	Tools []struct {
		Name           string
		Key            string
		TimeoutSeconds int `json:"timeout_seconds"`
		Taken          []string
		Tools          []*mcp.Tool
		Want           []wantTool
	}
	Results []struct {
		Name   string
		Tool   string
		Result json.RawMessage
		Want   wantFailure
	}
	RPCErrors []struct {
		Name  string
		Key   string
		Error struct {
			Code    int64
			Message string
		}
		Want wantFailure
	} `json:"rpc_errors"`
	Unavailable []struct {
		Name         string
		Key, Why     string
		RetrySeconds int  `json:"retry_seconds"`
		MidCall      bool `json:"mid_call"`
		Want         wantFailure
	}
}

type wantTool struct {
	MCPName        string          `json:"mcp_name"`
	Name           string          `json:"name,omitempty"`
	Description    string          `json:"description,omitempty"`
	Parameters     json.RawMessage `json:"parameters,omitempty"`
	Permissions    []string        `json:"permissions,omitempty"`
	TimeoutSeconds int             `json:"timeout_seconds,omitempty"`
	Skipped        bool            `json:"skipped,omitempty"`
}

type wantFailure struct {
	ErrorType string           `json:"error_type"`
	Text      string           `json:"text"`
	Images    []registry.Image `json:"images"`
}

func readCases(t *testing.T) cases {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "testdata", "mcp", "cases.json"))
	if err != nil {
		t.Fatal(err)
	}
	var c cases
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&c); err != nil {
		t.Fatalf("cases.json: %v", err)
	}
	return c
}

// failureOf is what a tool's Run outcome is for the model: its text, and
// its error type when it failed.
func failureOf(t *testing.T, out host.Output, err error) wantFailure {
	t.Helper()
	if err == nil {
		return wantFailure{Text: out.Text, Images: out.Images}
	}
	var te *host.ToolError
	if !errors.As(err, &te) {
		t.Fatalf("a failure without a type: %v", err)
	}
	return wantFailure{ErrorType: te.Type, Text: te.Message}
}

func compact(t *testing.T, raw json.RawMessage) string {
	t.Helper()
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func TestCases(t *testing.T) {
	c := readCases(t)
	t.Run("names", func(t *testing.T) {
		for _, tc := range c.Names {
			if got := ValidName(tc.Input); got != tc.Want {
				t.Errorf("ValidName(%q) = %q, want %q", tc.Input, got, tc.Want)
			}
			if got := ValidName(tc.Input); !registry.ValidToolName(got) {
				t.Errorf("ValidName(%q) = %q, which the registry refuses", tc.Input, got)
			}
		}
	})
	for _, tc := range c.Groups {
		t.Run("group/"+tc.Name, func(t *testing.T) {
			got := registry.Group{Name: ValidName(tc.Key), DisplayName: DisplayName(tc.ServerInfo, tc.Key), Description: GroupDescription(tc.Instructions, tc.Tools)}
			if diff := cmp.Diff(tc.Want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
	for _, tc := range c.Tools {
		t.Run("tools/"+tc.Name, func(t *testing.T) {
			taken := map[string]bool{}
			for _, n := range tc.Taken {
				taken[n] = true
			}
			named := NameTools(tc.Key, ValidName(tc.Key), tc.TimeoutSeconds, tc.Tools, taken)
			var got []wantTool
			for _, n := range named {
				w := wantTool{MCPName: n.MCPName, Skipped: n.Skipped != ""}
				if n.Name != "" {
					w.Name, w.Description, w.Permissions, w.TimeoutSeconds = n.Name, n.Tool.Description, n.Permissions, n.Tool.TimeoutSeconds
					w.Parameters = n.Tool.Parameters
					if n.Tool.Name != n.Name || n.Tool.Group != ValidName(tc.Key) || !cmp.Equal(n.Tool.RequiredPermissions, n.Permissions) {
						t.Errorf("%s: the tool %+v does not match its naming", n.MCPName, n.Tool)
					}
				}
				if n.Skipped != "" && n.Name != "" {
					t.Errorf("%s is named %s and skipped: %s", n.MCPName, n.Name, n.Skipped)
				}
				got = append(got, w)
			}
			for i := range tc.Want {
				if tc.Want[i].Parameters != nil {
					tc.Want[i].Parameters = json.RawMessage(compact(t, tc.Want[i].Parameters))
				}
			}
			if diff := cmp.Diff(tc.Want, got, cmp.Comparer(func(a, b json.RawMessage) bool { return string(a) == string(b) })); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			// Every name given is now taken, for the next server.
			for _, n := range named {
				if n.Name != "" && !taken[n.Name] {
					t.Errorf("%s is not marked taken", n.Name)
				}
			}
			// The registry takes every tool offered.
			r := registry.New()
			if err := r.AddGroup(registry.Group{Name: ValidName(tc.Key)}); err != nil {
				t.Fatal(err)
			}
			for _, n := range named {
				if n.Name == "" {
					continue
				}
				if err := r.AddTool(n.Tool); err != nil {
					t.Errorf("the registry refuses %s: %v", n.Name, err)
				}
			}
		})
	}
	for _, tc := range c.Results {
		t.Run("result/"+tc.Name, func(t *testing.T) {
			var res mcp.CallToolResult
			if err := json.Unmarshal(tc.Result, &res); err != nil {
				t.Fatal(err)
			}
			out, err := toolResult(tc.Tool, &res)
			if diff := cmp.Diff(tc.Want, failureOf(t, out, err)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
	for _, tc := range c.RPCErrors {
		t.Run("rpc_error/"+tc.Name, func(t *testing.T) {
			got := wantFailure{ErrorType: ErrorMCP, Text: RPCErrorText(tc.Key, tc.Error.Code, tc.Error.Message)}
			if diff := cmp.Diff(tc.Want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
	for _, tc := range c.Unavailable {
		t.Run("unavailable/"+tc.Name, func(t *testing.T) {
			got := wantFailure{ErrorType: ErrorUnavailable, Text: UnavailableText(tc.Key, tc.Why, time.Duration(tc.RetrySeconds)*time.Second, tc.MidCall)}
			if diff := cmp.Diff(tc.Want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}
