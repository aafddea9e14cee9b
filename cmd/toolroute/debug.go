package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"

	"github.com/toolroute/toolroute/internal/server"
)

// debugFlag registers --debug-addr, which serve and mcp --http take.
func debugFlag(fs *flag.FlagSet) *string {
	return fs.String("debug-addr", "", "serve the Go runtime's profiles (pprof: heap, goroutines, CPU) at http://ADDR/debug/pprof/ on a loopback address such as 127.0.0.1:6060, behind the same token as the API")
}

// serveDebug serves the profiles on addr until ctx ends, behind tok;
// cookiePort, when not zero, is the API's port, whose sign-in cookie is
// taken too. It returns once the listener is bound, or with its error.
func serveDebug(ctx context.Context, addr, tok, from string, cookiePort int, stdout, stderr io.Writer) error {
	ln, err := server.ListenDebug(addr)
	if err != nil {
		return fmt.Errorf("--debug-addr: %w", err)
	}
	srv := &http.Server{
		BaseContext:       func(net.Listener) context.Context { return ctx },
		Handler:           server.DebugHandler(server.DebugOptions{Token: tok, TokenFrom: from, CookiePort: cookiePort}),
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       2 * time.Minute,
	}
	go func() {
		<-ctx.Done()
		srv.Close() // a CPU profile or a trace may be running: nothing to wait for
	}()
	go func() {
		if err := srv.Serve(ln); err != nil && err != http.ErrServerClosed {
			fmt.Fprintf(stderr, "toolroute: the profiles' server: %v\n", err)
		}
	}()
	fmt.Fprintf(stdout, "toolroute: profiles on http://%s/debug/pprof/ for requests with the API's token: curl -H 'Authorization: Bearer TOKEN' -o heap.pb.gz http://%s/debug/pprof/heap, then go tool pprof heap.pb.gz\n", ln.Addr(), ln.Addr())
	return nil
}
