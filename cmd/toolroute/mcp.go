package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolroute/toolroute/internal/mcpserve"
	"github.com/toolroute/toolroute/internal/server"
)

// mcpPath is where `toolroute mcp --http` answers.
const mcpPath = "/mcp"

// runMCP serves toolroute's tools to an MCP client: over standard input
// and output, or with --http over Streamable HTTP on 127.0.0.1.
func runMCP(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) > 0 && (args[0] == "login" || args[0] == "logout") {
		return runMCPLogin(args, stdin, stdout, stderr)
	}
	fs := newFlagSet("mcp", stderr)
	var af appFlags
	af.register(fs)
	af.registerMCP(fs)
	af.registerRelease(fs)
	overHTTP := fs.Bool("http", false, "serve Streamable HTTP on 127.0.0.1 instead of standard input and output")
	port := fs.Int("port", 8378, "with --http: the port to listen on, on 127.0.0.1 (0 picks a free one)")
	token := fs.String("token", "", "with --http: the token clients send as Authorization: Bearer (default: TOOLROUTE_TOKEN, or the one serve keeps in DATA/"+server.TokenFile+")")
	debugAddr := debugFlag(fs)
	rest, err := parseArgs(fs, args)
	if err != nil {
		return exitFor(err)
	}
	if len(rest) > 0 {
		fmt.Fprintf(stderr, "toolroute mcp: unexpected %q\n", rest[0])
		return 2
	}
	if *debugAddr != "" && !*overHTTP {
		// Over standard input the token is never given to anyone.
		fmt.Fprintln(stderr, "toolroute mcp: --debug-addr goes with --http, whose token the profiles ask for")
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	// The MCP client's model makes the calls: toolroute calls none.
	af.cfg.NoModel = true
	af.cfg.NoAgents = true // no model here to run them
	// A client's connect does not wait on a server slow to start, or hung:
	// its tools arrive with list_changed once it is up.
	af.cfg.MCPNoWait = true
	// A server upstream may ask the user: its question goes to the
	// client of the call, refused when that client cannot ask.
	af.cfg.MCP.Ask = true
	a, err := af.open(ctx, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "toolroute: %v\n", err)
		return 1
	}
	defer a.Close()
	srv := mcpserve.New(a.Host, mcpserve.Options{Changes: a.Changes})
	go srv.Watch(ctx)

	if !*overHTTP {
		// Standard output carries the protocol alone; what did not load
		// went to standard error.
		err := srv.RunIO(ctx, stdin, stdout)
		if err != nil && ctx.Err() == nil && !errors.Is(err, mcp.ErrConnectionClosed) && !errors.Is(err, io.EOF) {
			fmt.Fprintf(stderr, "toolroute mcp: %v\n", err)
			return 1
		}
		return 0
	}

	tok, from, err := serveToken(*token, os.Getenv, a.Config.DataDir)
	if err != nil {
		fmt.Fprintf(stderr, "toolroute: %v\n", err)
		return 1
	}
	ln, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", *port))
	if err != nil {
		fmt.Fprintf(stderr, "toolroute: %v (choose another port with --port)\n", err)
		return 1
	}
	mux := http.NewServeMux()
	// A client that stops reading a stream (a call's, or its session's
	// notifications) fails the write after the stall limit, which ends
	// that request as the client leaving would: the SDK's writes hold
	// the stream's lock meanwhile, and a notification's goroutine would
	// wait for ever.
	// An OAuth-aware client refused for want of the token looks for the
	// protected resource metadata the 401 names, then for an
	// authorization server: what it finds says where the token is.
	base := "http://" + ln.Addr().String()
	server.ServeMCPAuth(mux, base, mcpPath, from)
	mux.Handle(mcpPath, server.WriteDeadlines(server.RequireBearer(tok, from, base+server.ResourceMetadataPath+mcpPath, srv.Handler()), server.DefaultStallTimeout))
	// No WriteTimeout: a call may wait minutes on the user's answer, and a
	// session's notification stream stays open.
	ln = server.BoundSendBuffers(ln)
	hs := &http.Server{
		BaseContext:       func(net.Listener) context.Context { return ctx },
		Handler:           mux,
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       2 * time.Minute,
	}
	fmt.Fprintf(stdout, "toolroute: serving MCP over Streamable HTTP on http://%s%s (Ctrl-C stops)\n", ln.Addr(), mcpPath)
	fmt.Fprintf(stdout, "toolroute: clients send the header Authorization: Bearer %s (the token from %s)\n", tok, from)
	if *debugAddr != "" {
		if err := serveDebug(ctx, *debugAddr, tok, from, 0, stdout, stderr); err != nil {
			fmt.Fprintf(stderr, "toolroute: %v\n", err)
			return 1
		}
	}
	return serveUntilDone(ctx, hs, ln, stderr)
}
