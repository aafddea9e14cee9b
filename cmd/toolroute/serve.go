package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/signal"
	"path/filepath"
	"sync"
	"syscall"
	"time"

	"github.com/toolroute/toolroute/internal/server"
	"github.com/toolroute/toolroute/internal/webui"
	"github.com/toolroute/toolroute/wasm"
)

func runServe(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("serve", stderr)
	var af appFlags
	af.register(fs)
	af.registerMCP(fs)
	af.registerRouting(fs)
	af.registerRelease(fs)
	port := fs.Int("port", 8377, "the port to listen on, on 127.0.0.1 (0 picks a free one)")
	open := fs.Bool("open", false, "open the page in a browser once serving")
	ui := fs.String("ui", "", "serve the browser UI built in this folder instead of the one built into the program, for working on it (make ui builds web/apps/chat/dist)")
	minimal := fs.Bool("minimal-page", false, "serve the minimal page instead of the browser UI: its turns run in this program, through the API")
	fs.BoolVar(&af.cfg.Exec, "exec", false, "offer the exec tool (shell commands in the sandbox folder, asked about every time) to the turns this program runs")
	token := fs.String("token", "", "the token the API asks for (default: TOOLROUTE_TOKEN, or the one kept in DATA/"+server.TokenFile+", made the first time)")
	debugAddr := debugFlag(fs)
	if _, err := parseArgs(fs, args); err != nil {
		return exitFor(err)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	// Tools that act ask the user: the turn's stream shows the question,
	// the page answers it with POST .../approvals.
	approvals := server.NewApprovals(server.DefaultApprovalTimeout)
	af.cfg.Approver = approvals
	// The page can call a model with a key kept in the browser: serve
	// starts without a provider, and the API's turns say what to set.
	af.cfg.NoModel = true
	af.cfg.Browser = true
	// The page does not wait on an MCP server slow to start, or hung: its
	// tools are offered once it is up.
	af.cfg.MCPNoWait = true
	// An MCP server may ask the page's user something during a call the
	// page made (a turn's stream, or a server tool for the page's own
	// turn): the question goes to the page, which answers with POST
	// /api/ui/elicitations/{id}. A call with no page behind it is refused
	// in the module's words.
	af.cfg.MCP.Ask = true
	a, err := af.open(ctx, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "toolroute: %v\n", err)
		return 1
	}
	defer a.Close()
	// Scheduled tasks run while serve runs, each a turn of its own with no
	// one to answer questions; chat and call do not run them.
	a.RunTasks(func(format string, args ...any) { fmt.Fprintf(stderr, "toolroute: "+format+"\n", args...) })
	tok, from, err := serveToken(*token, os.Getenv, a.Config.DataDir)
	if err != nil {
		fmt.Fprintf(stderr, "toolroute: %v\n", err)
		return 1
	}
	page, err := servePage(*ui, *minimal)
	if err != nil {
		fmt.Fprintf(stderr, "toolroute: %v\n", err)
		return 1
	}
	ln, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", *port))
	if err != nil {
		fmt.Fprintf(stderr, "toolroute: %v (choose another port with --port)\n", err)
		return 1
	}
	// No ReadTimeout or WriteTimeout: a turn streams for as long as it
	// takes. The handler bounds the time a body takes to arrive, and the
	// time a write waits on a client that reads nothing (a stalled stream
	// ends its turn as a Stop does); each connection's send buffer is kept
	// small so that this wait is the client's. Requests share ctx, so
	// Ctrl-C ends the turns (one may wait minutes on a question) before the
	// app closes under them.
	ln = server.BoundSendBuffers(ln)
	srv := &http.Server{
		BaseContext:       func(net.Listener) context.Context { return ctx },
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       2 * time.Minute,
	}
	// The page signs in with one-use codes, never with the token in an
	// address: a command line (the browser's, xdg-open's) is readable by
	// every local user, and an address stays in the browser's history.
	logins := server.NewLogins()
	srv.Handler = server.Handler(a, server.Options{Token: tok, TokenFrom: from, Page: page, Approvals: approvals, Logins: logins})
	base := fmt.Sprintf("http://%s/", ln.Addr())
	fmt.Fprintf(stdout, "toolroute: serving on %s?login=%s with %s; the link signs one browser in, within %d minutes (Ctrl-C stops)\n",
		base, logins.New(printedLoginTTL), a.Provider, int(printedLoginTTL/time.Minute))
	if a.Provider.Name == "none" {
		fmt.Fprintln(stdout, "toolroute: no model provider is configured: the page can use its own key, kept in the browser (its settings: OpenAI, Anthropic, the Responses API or Gemini); the API's turns and the page's \"server\" provider need one of OPENAI_API_KEY, OPENAI_BASE_URL, ANTHROPIC_API_KEY or GEMINI_API_KEY set when serve starts, or --provider demo for the scripted demo")
	}
	fmt.Fprintf(stderr, "toolroute: API clients send Authorization: Bearer with the token from %s\n", from)
	if *debugAddr != "" {
		if err := serveDebug(ctx, *debugAddr, tok, from, ln.Addr().(*net.TCPAddr).Port, stdout, stderr); err != nil {
			fmt.Fprintf(stderr, "toolroute: %v\n", err)
			return 1
		}
	}
	if *open {
		// The listener is bound: the browser's request waits for Serve.
		if remove, err := openSignIn(a.Config.DataDir, base, logins); err != nil {
			fmt.Fprintf(stderr, "toolroute: opening the page: %v (open the link above)\n", err)
		} else {
			defer remove()
		}
	}
	return serveUntilDone(ctx, srv, ln, stderr)
}

// How long the sign-in links last: the printed one a person may copy
// later; the one --open hands the browser is used at once.
const (
	printedLoginTTL = 15 * time.Minute
	openLoginTTL    = 2 * time.Minute
)

// openSignIn opens the page in the user's browser without the token or a
// code on any command line: it writes a page readable by the user alone
// that sends the browser to a one-use sign-in link, and opens that file.
// remove deletes the file; it is also deleted once the code has expired.
func openSignIn(dataDir, base string, logins *server.Logins) (remove func(), err error) {
	f, err := os.CreateTemp(dataDir, "sign-in-*.html") // mode 0600
	if err != nil {
		return nil, err
	}
	link := base + "?login=" + logins.New(openLoginTTL)
	_, err = fmt.Fprintf(f, signInPage, link, link)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(f.Name())
		return nil, err
	}
	once := sync.OnceFunc(func() { os.Remove(f.Name()) })
	time.AfterFunc(openLoginTTL, once)
	openBrowser((&url.URL{Scheme: "file", Path: f.Name()}).String())
	return once, nil
}

// signInPage sends the browser on to the sign-in link (%s twice).
const signInPage = `<!doctype html>
<meta charset="utf-8">
<meta name="referrer" content="no-referrer">
<meta http-equiv="refresh" content="0;url=%s">
<title>toolroute: signing in</title>
<p>Signing in to toolroute… <a href="%s">Continue</a></p>
`

// serveUntilDone serves on ln until the server fails (exit status 1) or
// ctx ends (Ctrl-C): then it shuts down, letting requests finish for 5 s.
func serveUntilDone(ctx context.Context, srv *http.Server, ln net.Listener, stderr io.Writer) int {
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		if !errors.Is(err, http.ErrServerClosed) {
			fmt.Fprintf(stderr, "toolroute: %v\n", err)
			return 1
		}
	case <-ctx.Done():
		shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		srv.Shutdown(shutdown)
	}
	return 0
}

// serveToken gives the token serve asks for: --token, then
// TOOLROUTE_TOKEN, then the one kept in the data folder; and where a client
// finds it.
func serveToken(flagToken string, getenv func(string) string, dataDir string) (tok, from string, err error) {
	if flagToken != "" {
		if err := server.CheckToken(flagToken); err != nil {
			return "", "", fmt.Errorf("--token: %w", err)
		}
		return flagToken, "serve's --token flag", nil
	}
	if env := getenv("TOOLROUTE_TOKEN"); env != "" {
		if err := server.CheckToken(env); err != nil {
			return "", "", fmt.Errorf("TOOLROUTE_TOKEN: %w", err)
		}
		return env, "TOOLROUTE_TOKEN", nil
	}
	tok, err = server.LoadToken(dataDir)
	return tok, filepath.Join(dataDir, server.TokenFile), err
}

// servePage is what serve answers at /: the browser UI built into the
// program (nil: server.Handler's default), one built in the folder ui, or
// the minimal page. A folder's own toolroute.wasm is served when it has
// one (web/apps/chat/build.mjs copies it), else the program's.
func servePage(ui string, minimal bool) (http.Handler, error) {
	switch {
	case ui != "" && minimal:
		return nil, errors.New("--ui and --minimal-page: choose one")
	case minimal:
		return http.HandlerFunc(server.MinimalPage), nil
	case ui != "":
		if _, err := os.Stat(filepath.Join(ui, "index.html")); err != nil {
			return nil, fmt.Errorf("no built UI in %s (%v): run make ui, or leave out --ui for the one built in", ui, err)
		}
		return webui.Handler(os.DirFS(ui), wasm.Binary), nil
	}
	return nil, nil
}
