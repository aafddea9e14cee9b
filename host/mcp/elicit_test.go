package mcp

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolroute/toolroute/host"
	"github.com/toolroute/toolroute/internal/checktest"
	"github.com/toolroute/toolroute/internal/testwait"
	"github.com/toolroute/toolroute/registry"
)

// askerFunc is a test's host.Asker: a pointer, so that calls compare.
type askerFunc struct {
	mu    sync.Mutex
	asked []host.Elicitation
	reply func(host.Elicitation) host.ElicitReply
}

func (a *askerFunc) Ask(_ context.Context, q host.Elicitation) (host.ElicitReply, error) {
	a.mu.Lock()
	a.asked = append(a.asked, q)
	a.mu.Unlock()
	return a.reply(q), nil
}

// orderForm is the form the test server's order tool asks with.
const orderForm = `{"type":"object","properties":{
	"email":{"type":"string","title":"Email","format":"email"},
	"count":{"type":"integer","title":"How many","minimum":1,"default":1},
	"size":{"type":"string","title":"Size","oneOf":[{"const":"s","title":"Small"},{"const":"l","title":"Large"}]}},
	"required":["email"]}`

// elicitServer is a Go SDK server over HTTP whose order tool asks the user
// (ServerSession.Elicit) and answers what it got; its hold tool runs until
// released (one value of release each), saying when it started; caps says
// whether the client declared elicitation.
func elicitServer(t *testing.T) (url string, holding, release chan struct{}) {
	srv := mcp.NewServer(&mcp.Implementation{Name: "shop", Version: "1"}, nil)
	text := func(s string, isErr bool) *mcp.CallToolResult {
		return &mcp.CallToolResult{IsError: isErr, Content: []mcp.Content{&mcp.TextContent{Text: s}}}
	}
	mcp.AddTool(srv, &mcp.Tool{Name: "order", Description: "orders, asking the user"}, func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
		res, err := req.Session.Elicit(ctx, &mcp.ElicitParams{Message: "Where should we send it?", RequestedSchema: json.RawMessage(orderForm)})
		if err != nil {
			return text("asking failed: "+err.Error(), true), nil, nil
		}
		b, _ := json.Marshal(res.Content)
		return text(res.Action+" "+string(b), false), nil, nil
	})
	holding, release = make(chan struct{}, 1), make(chan struct{})
	mcp.AddTool(srv, &mcp.Tool{Name: "hold", Description: "runs until released"}, func(ctx context.Context, _ *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
		holding <- struct{}{}
		select {
		case <-release:
		case <-ctx.Done():
		}
		return text("released", false), nil, nil
	})
	mcp.AddTool(srv, &mcp.Tool{Name: "caps", Description: "says whether the client can be asked"}, func(_ context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
		c := req.Session.InitializeParams().Capabilities
		return text(map[bool]string{true: "elicitation", false: "none"}[c != nil && c.Elicitation != nil], false), nil, nil
	})
	front := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil))
	t.Cleanup(front.Close)
	return front.URL, holding, release
}

// callWith runs a tool as the host would, with ctx's Asker.
func callWith(t *testing.T, ctx context.Context, tool host.NativeTool, args string) wantFailure {
	t.Helper()
	ctx, cancel := context.WithTimeout(ctx, testwait.Failsafe)
	defer cancel()
	out, err := tool.RunOutput(ctx, json.RawMessage(args))
	return failureOf(t, out, err)
}

// A server that asks the user during a call gets the answer of the call's
// Asker, typed by the module with the defaults added; without an Asker it
// is refused with why, in the module's words; while calls of two chats
// run, it is refused too (toolroute cannot tell whose call asks); and a
// manager that cannot ask does not declare elicitation.
func TestElicitation(t *testing.T) {
	url, holding, release := elicitServer(t)
	m := start(t, Options{Ask: true}, ServerConfig{Key: "shop", URL: url})
	o := offered(t, m, registry.Catalogue{})

	if got := call(t, o.tool(t, "caps"), `{}`); got.Text != "elicitation" {
		t.Errorf("with Ask the server sees %q, want elicitation declared", got.Text)
	}

	user := &askerFunc{reply: func(host.Elicitation) host.ElicitReply {
		return host.ElicitReply{Action: "accept", Content: map[string]any{"email": "ann@example.com", "size": "Large"}}
	}}
	got := callWith(t, host.WithAsker(checktest.Context(t), user), o.tool(t, "order"), `{}`)
	if want := `accept {"count":1,"email":"ann@example.com","size":"l"}`; got.Text != want || got.ErrorType != "" {
		t.Errorf("answered: %+v, want %q", got, want)
	}
	if len(user.asked) != 1 || user.asked[0].Server != "shop" || !strings.Contains(string(user.asked[0].Params), "Where should we send it?") {
		t.Errorf("the user was asked %+v, want shop's question once", user.asked)
	}

	decline := &askerFunc{reply: func(host.Elicitation) host.ElicitReply { return host.ElicitReply{Action: "decline"} }}
	if got := callWith(t, host.WithAsker(checktest.Context(t), decline), o.tool(t, "order"), `{}`); got.Text != "decline null" {
		t.Errorf("declined: %+v", got)
	}

	got = call(t, o.tool(t, "order"), `{}`)
	mustContain(t, "the call without an Asker", got.Text, "MCP server 'shop' asked the user a question, and no one is here to answer it")

	// A call of another chat holds the server while this one asks.
	other := &askerFunc{reply: user.reply}
	held := make(chan wantFailure, 1)
	go func() { held <- callWith(t, host.WithAsker(checktest.Context(t), other), o.tool(t, "hold"), `{}`) }()
	<-holding
	got = callWith(t, host.WithAsker(checktest.Context(t), user), o.tool(t, "order"), `{}`)
	release <- struct{}{}
	mustContain(t, "the call beside another chat's", got.Text, "while several of its calls ran for different chats")
	if h := <-held; h.Text != "released" {
		t.Errorf("the held call: %+v", h)
	}

	// Two calls of one chat: the question is the latest's, and says so.
	user.asked = nil
	go func() {
		held <- callWith(t, host.WithCallID(host.WithAsker(checktest.Context(t), user), "call_hold"), o.tool(t, "hold"), `{}`)
	}()
	<-holding
	got = callWith(t, host.WithCallID(host.WithAsker(checktest.Context(t), user), "call_order"), o.tool(t, "order"), `{}`)
	release <- struct{}{}
	if got.ErrorType != "" || len(user.asked) != 1 || user.asked[0].CallID != "call_order" {
		ids := []string{}
		for _, q := range user.asked {
			ids = append(ids, q.CallID)
		}
		t.Errorf("beside a call of the same chat: %q (%s), the questions were for %q; want one, for call_order", got.Text, got.ErrorType, ids)
	}
	if h := <-held; h.Text != "released" {
		t.Errorf("the second held call: %+v", h)
	}

	m2 := start(t, Options{}, ServerConfig{Key: "shop", URL: url})
	if got := call(t, offered(t, m2, registry.Catalogue{}).tool(t, "caps"), `{}`); got.Text != "none" {
		t.Errorf("without Ask the server sees %q, want no elicitation declared", got.Text)
	}
}
