// Command testserver is an MCP server written with the official Go SDK for
// toolroute's tests: it does on demand what the npm servers do not, adding
// and removing tools in the middle of a session (notifications/tools/
// list_changed), crashing, hanging, failing and answering JSON-RPC errors.
//
// Usage:
//
//	testserver [-http ADDR] [-page-size N] [-extra N] [-instructions TEXT] [-exit-at-start TEXT] [-garbage] [-starts FILE] [-calls FILE] [-rich]
//
// Over stdio by default; with -http it serves Streamable HTTP at ADDR/mcp
// and prints "listening on http://ADDR/mcp" once it does.
//
// Its tools:
//
//	echo {text}          the text (readOnlyHint)
//	add_tool {name}      adds a tool NAME answering "NAME ran" (destructiveHint false)
//	remove_tool {name}   removes a tool
//	crash {}             exits with status 3, saying so on stderr
//	hang {}              never answers
//	fail {}              an isError result
//	garble {}            writes a line that is not JSON-RPC, then answers
//	rpc_error {}         a JSON-RPC error -32042
//	get_current_time {}  a name the built-in tools have, to be renamed
//	say-hi {}            a name to be made valid
//	extra_NNN {}         with -extra N, N more tools, for paging
//	wait {}              with -calls FILE: writes "started" to FILE, waits
//	                     until the call is cancelled, then writes "cancelled"
//	play_tone {}         with -rich: a text and an audio clip (audio/wav)
//	get_report {}        with -rich: a text and an embedded PDF resource
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func main() {
	addr := flag.String("http", "", "serve Streamable HTTP on this address instead of stdio")
	pageSize := flag.Int("page-size", 0, "tools per tools/list page (default: the SDK's)")
	extra := flag.Int("extra", 0, "add this many tools extra_000, extra_001, ...")
	instructions := flag.String("instructions", "", "the server's instructions")
	exitAtStart := flag.String("exit-at-start", "", "write this to stderr and exit with status 1 at once")
	garbage := flag.Bool("garbage", false, "write a line that is not JSON-RPC before each answer")
	starts := flag.String("starts", "", "append a line to this file at each start, to count them: the time and the process id")
	calls := flag.String("calls", "", "add the tool wait, which writes what its calls do to this file")
	elicit := flag.Bool("elicit", false, "add the tool order, which asks the user (elicitation/create) and answers what they said")
	rich := flag.Bool("rich", false, "add the tools play_tone (audio) and get_report (an embedded PDF)")
	flag.Parse()
	if *starts != "" {
		f, err := os.OpenFile(*starts, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
		if err == nil {
			fmt.Fprintln(f, time.Now().Format(time.RFC3339Nano), os.Getpid())
			f.Close()
		}
	}
	if *exitAtStart != "" {
		fmt.Fprintln(os.Stderr, *exitAtStart)
		os.Exit(1)
	}
	s := newServer(*pageSize, *extra, *instructions)
	if *calls != "" {
		addWait(s, *calls)
	}
	if *elicit {
		addOrder(s)
	}
	if *rich {
		addRich(s)
	}
	if *addr != "" {
		serveHTTP(s, *addr)
		return
	}
	var t mcp.Transport = &mcp.StdioTransport{}
	if *garbage {
		t = &mcp.IOTransport{Reader: os.Stdin, Writer: garbageWriter{}}
	}
	if err := s.Run(context.Background(), t); err != nil {
		fmt.Fprintln(os.Stderr, "testserver:", err)
		os.Exit(1)
	}
}

// garbageWriter writes a line that is not JSON-RPC before each message.
type garbageWriter struct{}

func (garbageWriter) Write(p []byte) (int, error) {
	if _, err := os.Stdout.Write([]byte("this is not JSON\n")); err != nil {
		return 0, err
	}
	return os.Stdout.Write(p)
}

func (garbageWriter) Close() error { return os.Stdout.Close() }

func serveHTTP(s *mcp.Server, addr string) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		fmt.Fprintln(os.Stderr, "testserver:", err)
		os.Exit(1)
	}
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil)
	mux := http.NewServeMux()
	mux.Handle("/mcp", h)
	fmt.Printf("listening on http://%s/mcp\n", ln.Addr())
	if err := http.Serve(ln, mux); err != nil {
		fmt.Fprintln(os.Stderr, "testserver:", err)
		os.Exit(1)
	}
}

var (
	yes, no     = true, false
	readOnly    = &mcp.ToolAnnotations{ReadOnlyHint: true}
	additive    = &mcp.ToolAnnotations{DestructiveHint: &no}
	destructive = &mcp.ToolAnnotations{DestructiveHint: &yes}
	noArgs      = json.RawMessage(`{"type":"object"}`)
)

func text(s string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
}

func args[T any](req *mcp.CallToolRequest) (T, error) {
	var v T
	if err := json.Unmarshal(req.Params.Arguments, &v); err != nil {
		return v, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: err.Error()}
	}
	return v, nil
}

// addWait adds the tool wait, whose calls end only when cancelled and say
// so in the file log: a call cancelled upstream is seen to end there.
func addWait(s *mcp.Server, log string) {
	write := func(line string) {
		f, err := os.OpenFile(log, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
		if err == nil {
			fmt.Fprintln(f, line)
			f.Close()
		}
	}
	s.AddTool(&mcp.Tool{Name: "wait", Description: "Wait until the call is cancelled", Annotations: readOnly, InputSchema: noArgs},
		func(ctx context.Context, _ *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			write("started")
			<-ctx.Done()
			write("cancelled")
			return nil, ctx.Err()
		})
}

// addOrder adds the tool order, which asks the user where to send an
// order and answers what they said: the action and the values, or why
// asking failed.
func addOrder(s *mcp.Server) {
	form := json.RawMessage(`{"type":"object","properties":{
		"email":{"type":"string","title":"Email","format":"email"},
		"count":{"type":"integer","title":"How many","minimum":1,"default":1},
		"size":{"type":"string","title":"Size","oneOf":[{"const":"s","title":"Small"},{"const":"l","title":"Large"}]}},
		"required":["email"]}`)
	s.AddTool(&mcp.Tool{Name: "order", Description: "Order something, asking the user where to send it", Annotations: readOnly, InputSchema: noArgs},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			// Asked as 2026-07-28 asks (SEP-2322): the result asks, and the
			// call comes again with the answer; the SDK asks a client of
			// an earlier revision with elicitation/create meanwhile.
			res, ok := req.Params.InputResponses["where"].(*mcp.ElicitResult)
			if !ok {
				return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{
					"where": &mcp.ElicitParams{Message: "Where should we send it?", RequestedSchema: form}}}, nil
			}
			b, _ := json.Marshal(res.Content)
			return text(res.Action + " " + string(b)), nil
		})
}

// The bytes of addRich's results: the start of a WAV file and of a PDF,
// enough for a client to tell them.
var (
	tone   = []byte("RIFF\x24\x00\x00\x00WAVEfmt ")
	report = []byte("%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
)

// addRich adds tools whose results are not text: an audio clip, and a PDF
// embedded as a resource.
func addRich(s *mcp.Server) {
	s.AddTool(&mcp.Tool{Name: "play_tone", Description: "Play a tone", Annotations: readOnly, InputSchema: noArgs},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "A tone:"},
				&mcp.AudioContent{MIMEType: "audio/wav", Data: tone}}}, nil
		})
	s.AddTool(&mcp.Tool{Name: "get_report", Description: "Get the quarter's report", Annotations: readOnly, InputSchema: noArgs},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "The report:"},
				&mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: "file:///reports/q3.pdf", MIMEType: "application/pdf", Blob: report}}}}, nil
		})
}

func newServer(pageSize, extra int, instructions string) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "toolroute-testserver", Title: "Test Server", Version: "1.0.0"},
		&mcp.ServerOptions{PageSize: pageSize, Instructions: instructions})
	s.AddTool(&mcp.Tool{Name: "echo", Description: "Answer with the text given", Annotations: readOnly,
		InputSchema: json.RawMessage(`{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}`)},
		func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			a, err := args[struct{ Text string }](req)
			if err != nil {
				return nil, err
			}
			return text(a.Text), nil
		})
	s.AddTool(&mcp.Tool{Name: "add_tool", Description: "Add a tool with the name given", Annotations: additive,
		InputSchema: json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}`)},
		func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			a, err := args[struct{ Name string }](req)
			if err != nil {
				return nil, err
			}
			name := a.Name
			s.AddTool(&mcp.Tool{Name: name, Description: "A tool added during the session", Annotations: readOnly, InputSchema: noArgs},
				func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
					return text(name + " ran"), nil
				})
			// The SDK sends list_changed 10 ms after a change: let it go
			// out ahead of this answer, as a server adding tools as it
			// answers does.
			time.Sleep(200 * time.Millisecond)
			return text("added " + name), nil
		})
	s.AddTool(&mcp.Tool{Name: "remove_tool", Description: "Remove the tool with the name given", Annotations: destructive,
		InputSchema: json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}`)},
		func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			a, err := args[struct{ Name string }](req)
			if err != nil {
				return nil, err
			}
			s.RemoveTools(a.Name)
			time.Sleep(200 * time.Millisecond)
			return text("removed " + a.Name), nil
		})
	s.AddTool(&mcp.Tool{Name: "crash", Description: "Exit at once with status 3", InputSchema: noArgs},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			fmt.Fprintln(os.Stderr, "crashing on purpose")
			os.Exit(3)
			return nil, nil
		})
	s.AddTool(&mcp.Tool{Name: "hang", Description: "Never answer", Annotations: readOnly, InputSchema: noArgs},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			select {} // not even when the call is cancelled
		})
	s.AddTool(&mcp.Tool{Name: "fail", Description: "Fail as a tool fails", Annotations: readOnly, InputSchema: noArgs},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "the disk is full"}}}, nil
		})
	s.AddTool(&mcp.Tool{Name: "garble", Description: "Write a line that is not JSON-RPC", Annotations: readOnly, InputSchema: noArgs},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			os.Stdout.Write([]byte("this is not JSON\n"))
			return text("garbled"), nil
		})
	s.AddTool(&mcp.Tool{Name: "rpc_error", Description: "Refuse the call with a JSON-RPC error", Annotations: readOnly, InputSchema: noArgs},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return nil, &jsonrpc.Error{Code: -32042, Message: "the frobnicator is offline"}
		})
	s.AddTool(&mcp.Tool{Name: "get_current_time", Description: "A clock that always says noon", Annotations: readOnly, InputSchema: noArgs},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) { return text("noon"), nil })
	s.AddTool(&mcp.Tool{Name: "say-hi", Description: "Say hi", Annotations: readOnly, InputSchema: noArgs},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) { return text("hi"), nil })
	for i := range extra {
		name := fmt.Sprintf("extra_%03d", i)
		s.AddTool(&mcp.Tool{Name: name, Description: "An extra tool", Annotations: readOnly, InputSchema: noArgs},
			func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) { return text(name), nil })
	}
	return s
}
