// Command routed is the start-up benchmark's toolroute agent: the plain
// app's agent (package startbench's plain) written with toolroute's public
// Go API, its model calls sent through the openai-go SDK
// (sdk/openaisdk), with a tool written in Go, a JS tool and the same MCP
// server. It runs one turn and prints its figures. Its compiled code goes
// where toolroute.Options.CacheDir's default puts it: the user's cache
// folder, which the benchmark points at a kept or a new folder.
//
//	routed -base-url URL -mcp SERVER
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"testing/fstest"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/toolroute/toolroute"
	"github.com/toolroute/toolroute/host"
	"github.com/toolroute/toolroute/host/mcp"
	"github.com/toolroute/toolroute/internal/startbench/probe"
	"github.com/toolroute/toolroute/registry"
	"github.com/toolroute/toolroute/registry/wire"
	"github.com/toolroute/toolroute/sdk/openaisdk"
)

func main() {
	baseURL := flag.String("base-url", "", "the model server's /v1")
	server := flag.String("mcp", "", "the MCP server to start over stdio")
	flag.Parse()
	if err := run(*baseURL, *server); err != nil {
		fmt.Fprintln(os.Stderr, "routed:", err)
		os.Exit(1)
	}
}

// jsTools is a JS tool, as a program embeds its tools.
var jsTools fs.FS = fstest.MapFS{
	"greet.json": {Data: []byte(`{"name":"greet","description":"Greet someone by name","parameters":{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}}`)},
	"greet.js":   {Data: []byte(`function execute(params) { return "Hello, " + params.name + "!"; }`)},
}

func run(baseURL, server string) error {
	ctx := context.Background()
	client := openai.NewClient(option.WithBaseURL(baseURL), option.WithAPIKey("none"))
	h, err := toolroute.New(ctx, openaisdk.Provider(&client, "demo", wire.OpenAI), toolroute.Options{
		SystemPrompt: "You are a helpful assistant.",
		Groups:       []registry.Group{{Name: "clock", Description: "Tell the time in a city"}},
		Tools: []host.NativeTool{{
			Tool: registry.Tool{Name: "clock_now", Description: "The time now in a city", Group: "clock",
				Parameters: json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}`)},
			Run: func(ctx context.Context, input json.RawMessage) (string, error) { return "09:00", nil },
		}},
		ToolFS:     []fs.FS{jsTools},
		MCPServers: []mcp.ServerConfig{{Key: "echo", Command: server}},
	})
	if err != nil {
		return err
	}
	defer h.Close(ctx)
	answer := ""
	for ev, err := range h.Session("bench").Send(ctx, "Hello") {
		if err != nil {
			return err
		}
		if ev.Type == host.EventDone {
			answer = ev.Text
		}
	}
	probe.FirstTurn(answer)
	return nil
}
