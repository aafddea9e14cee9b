package mcpserve_test

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolroute/toolroute/host"
	"github.com/toolroute/toolroute/registry"
)

// asking is a core tool that does what host/mcp does when the MCP server
// behind it asks the user during the call: it puts shop's question to the
// call's Asker, and answers what the user said, or why they were not asked.
func asking() host.NativeTool {
	return host.NativeTool{
		Tool: registry.Tool{Name: "shop_order", Description: "Orders, asking the user", Parameters: json.RawMessage(`{"type":"object","properties":{}}`)},
		Run: func(ctx context.Context, _ json.RawMessage) (string, error) {
			a := host.AskerFrom(ctx)
			if a == nil {
				return "no one to ask", nil
			}
			r, err := a.Ask(ctx, host.Elicitation{Server: "shop", Params: json.RawMessage(
				`{"message":"Which size?","requestedSchema":{"type":"object","properties":{"size":{"type":"string","enum":["s","l"],"default":"s"}}}}`)})
			if err != nil {
				return "refused: " + err.Error(), nil
			}
			b, _ := json.Marshal(r.Content)
			return r.Action + " " + string(b), nil
		},
	}
}

// toolroute mcp forwards an upstream server's question to its client, when
// the client declared elicitation, saying which server asks (on
// 2026-07-28 as the call's input_required result, which the SDK's client
// answers by calling again); a client of a revision before elicitation
// gets the server refused, with why.
func TestForwardElicitation(t *testing.T) {
	for _, rev := range revisions {
		t.Run(rev, func(t *testing.T) {
			s, h, cat := newServer(t)
			cat.set(t, h, asking())
			var asked []*mcp.ElicitParams
			c := connect(t, s, rev, func(req *mcp.ElicitRequest) *mcp.ElicitResult {
				asked = append(asked, req.Params)
				return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"size": "l"}}
			})
			text, failed := c.call(t, "shop_order", map[string]any{})
			if failed {
				t.Fatalf("the call failed: %s", text)
			}
			if !slices.Contains(elicitation, rev) {
				if !strings.HasPrefix(text, "refused: MCP server 'shop' asked the user a question, and the MCP client using toolroute cannot put questions to the user") {
					t.Errorf("%s: %q, want shop refused", rev, text)
				}
				if len(asked) > 0 {
					t.Errorf("%s: the client was asked %+v", rev, asked)
				}
				return
			}
			if text != `accept {"size":"l"}` {
				t.Errorf("the answer: %q", text)
			}
			if len(asked) != 1 || asked[0].Message != "MCP server 'shop' asks: Which size?" {
				t.Fatalf("the client was asked %+v, want shop's question once, naming shop", asked)
			}
			if b, _ := json.Marshal(asked[0].RequestedSchema); !strings.Contains(string(b), `"enum":["s","l"]`) {
				t.Errorf("the form forwarded: %s", b)
			}
		})
	}
}
