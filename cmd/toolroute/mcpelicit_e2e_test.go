package main

import (
	"bytes"
	"os/exec"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolroute/toolroute/internal/mcptest"
)

// mcpClientAt is mcpClient speaking the MCP revision given.
func (u *user) mcpClientAt(revision string, elicit elicitor) *mcpPeer {
	u.t.Helper()
	cmd := exec.Command(binary(u.t), "mcp")
	cmd.Env, cmd.Dir = u.env, u.home
	p := &mcpPeer{t: u.t, changes: make(chan struct{}, 16), stderr: &bytes.Buffer{}}
	cmd.Stderr = p.stderr
	return p.connect(&mcp.CommandTransport{Command: cmd}, elicit, revision)
}

// An MCP server behind toolroute mcp that asks the user during its tool's
// call (the test server asks as 2026-07-28 does, in its result) has its
// form passed on to the client, the message naming the server: as a
// request to a client of 2025-11-25, as the call's input_required result
// to one of 2026-07-28; the client's answer reaches the server, typed,
// with the defaults of the fields left empty. A client without
// elicitation gets the server refused, and its tool's result says why.
func TestServeMCPForwardsElicitation(t *testing.T) {
	u := newUser(t, nil, "")
	mcpServers(t, u.mcpConfig(), mcpEntry{"shop", stdio(mcptest.TestServer(t, tmpRoot), "-elicit")})

	var mu sync.Mutex
	var asked []*mcp.ElicitParams
	answer := func(req *mcp.ElicitRequest) *mcp.ElicitResult {
		mu.Lock()
		asked = append(asked, req.Params)
		mu.Unlock()
		return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"email": "ann@example.com", "size": "l"}}
	}
	for _, rev := range []string{"2025-11-25", "2026-07-28"} {
		c := u.mcpClientAt(rev, answer)
		c.waitGroups("shop")
		c.ok("load_tool_group", `{"group_name":"shop"}`)
		if got, want := c.ok("order", `{}`), `accept {"count":1,"email":"ann@example.com","size":"l"}`; got != want {
			t.Errorf("%s: the order answered %q, want %q", rev, got, want)
		}
		mu.Lock()
		if len(asked) != 1 || asked[0].Message != "MCP server 'shop' asks: Where should we send it?" {
			t.Errorf("%s: the client was asked %+v, want shop's question once, naming shop", rev, asked)
		}
		asked = nil
		mu.Unlock()
	}

	blind := u.mcpClientAt("2025-11-25", nil)
	blind.waitGroups("shop")
	blind.ok("load_tool_group", `{"group_name":"shop"}`)
	text, failed := blind.call("order", `{}`)
	if !failed || !strings.Contains(text, "MCP server 'shop' asked the user a question, and the MCP client using toolroute cannot put questions to the user") {
		t.Errorf("without elicitation the order answered %v %q, want shop refused saying why", failed, text)
	}
}
