// Command plain is the start-up benchmark's yardstick: the agent a Go
// developer writes without toolroute, with the official openai-go SDK. It
// starts an MCP server over stdio and lists its tools, offers them with a
// tool written in Go on one Chat Completions call, and prints the turn's
// figures (package startbench reads them).
//
//	plain -base-url URL -mcp SERVER
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/toolroute/toolroute/internal/startbench/probe"
)

func main() {
	baseURL := flag.String("base-url", "", "the model server's /v1")
	server := flag.String("mcp", "", "the MCP server to start over stdio")
	flag.Parse()
	if err := run(*baseURL, *server); err != nil {
		fmt.Fprintln(os.Stderr, "plain:", err)
		os.Exit(1)
	}
}

func run(baseURL, server string) error {
	ctx := context.Background()
	client := openai.NewClient(option.WithBaseURL(baseURL), option.WithAPIKey("none"))
	tools := []openai.ChatCompletionToolUnionParam{
		openai.ChatCompletionFunctionTool(openai.FunctionDefinitionParam{
			Name:        "clock_now",
			Description: openai.String("The time now in a city"),
			Parameters: openai.FunctionParameters{
				"type":       "object",
				"properties": map[string]any{"city": map[string]any{"type": "string"}},
				"required":   []string{"city"},
			},
		}),
	}
	mc := mcp.NewClient(&mcp.Implementation{Name: "plain", Version: "1"}, nil)
	cs, err := mc.Connect(ctx, &mcp.CommandTransport{Command: exec.Command(server)}, nil)
	if err != nil {
		return fmt.Errorf("MCP server: %w", err)
	}
	defer cs.Close()
	list, err := cs.ListTools(ctx, nil)
	if err != nil {
		return fmt.Errorf("MCP tools: %w", err)
	}
	for _, t := range list.Tools {
		var params openai.FunctionParameters
		schema, _ := json.Marshal(t.InputSchema)
		if err := json.Unmarshal(schema, &params); err != nil {
			return err
		}
		tools = append(tools, openai.ChatCompletionFunctionTool(openai.FunctionDefinitionParam{
			Name: t.Name, Description: openai.String(t.Description), Parameters: params,
		}))
	}
	resp, err := client.Chat.Completions.New(ctx, openai.ChatCompletionNewParams{
		Model:    "demo",
		Messages: []openai.ChatCompletionMessageParamUnion{openai.SystemMessage("You are a helpful assistant."), openai.UserMessage("Hello")},
		Tools:    tools,
	})
	if err != nil {
		return err
	}
	if len(resp.Choices) == 0 {
		return fmt.Errorf("no choices")
	}
	probe.FirstTurn(resp.Choices[0].Message.Content)
	return nil
}
