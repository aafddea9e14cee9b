package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"github.com/toolroute/toolroute/host/mcp"
	"github.com/toolroute/toolroute/internal/app"
)

const mcpLoginUsage = `usage: toolroute mcp login NAME [--no-browser] [--client-id ID [--client-secret SECRET]]
       toolroute mcp login NAME --token < TOKEN
       toolroute mcp logout NAME
login signs toolroute in to the MCP server NAME of mcp.json (one reached at
a "url") that needs authorization: toolroute registers itself with the
server's authorization server, opens its sign-in page in a browser, and
keeps the tokens in CONFIG/` + mcp.AuthFile + `, readable by you alone; the
program refreshes them. --client-id gives a client registered beforehand,
for an authorization server that takes no registration. --token keeps a
static token read from standard input instead, sent as Authorization:
Bearer. A running serve or mcp connects with the new token within a second.
`

// runMCPLogin is `toolroute mcp login|logout NAME`.
func runMCPLogin(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	sub := args[0]
	fs := newFlagSet("mcp "+sub, stderr)
	var cfg app.Config
	fs.StringVar(&cfg.ConfigDir, "config-dir", "", "the folder of mcp.json and "+mcp.AuthFile+" (default: ~/.config/toolroute)")
	fs.StringVar(&cfg.MCPConfig, "mcp-config", "", "the MCP servers (default: CONFIG/mcp.json)")
	noBrowser := fs.Bool("no-browser", false, "login: only print the sign-in address; do not open a browser")
	clientID := fs.String("client-id", "", "login: a client registered beforehand with the server's authorization server")
	clientSecret := fs.String("client-secret", "", "login: that client's secret, if it has one")
	static := fs.Bool("token", false, "login: keep a static token read from standard input, sent as Authorization: Bearer")
	rest, err := parseArgs(fs, args[1:])
	if err != nil {
		return exitFor(err)
	}
	if len(rest) != 1 {
		fmt.Fprint(stderr, mcpLoginUsage)
		return 2
	}
	if err := cfg.Defaults(); err != nil {
		fmt.Fprintf(stderr, "toolroute: %v\n", err)
		return 1
	}
	servers, err := cfg.ReadMCP()
	if err != nil {
		fmt.Fprintf(stderr, "toolroute: %v\n", err)
		return 1
	}
	i := slices.IndexFunc(servers.Servers, func(s mcp.ServerConfig) bool { return s.Key == rest[0] })
	if i < 0 {
		var keys []string
		for _, s := range servers.Servers {
			keys = append(keys, s.Key)
		}
		where := servers.File
		if where == "" {
			where = filepath.Join(cfg.ConfigDir, mcp.ConfigFile)
		}
		fmt.Fprintf(stderr, "toolroute: no MCP server %q in %s (it has: %s)\n", rest[0], where, strings.Join(keys, ", "))
		return 1
	}
	server := servers.Servers[i]
	file := filepath.Join(cfg.ConfigDir, mcp.AuthFile)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	switch {
	case sub == "logout":
		ok, err := mcp.Logout(file, server)
		switch {
		case err != nil:
			fmt.Fprintf(stderr, "toolroute: %v\n", err)
			return 1
		case !ok:
			fmt.Fprintf(stdout, "toolroute held no credentials for MCP server '%s'.\n", server.Key)
			return 0
		}
		fmt.Fprintf(stdout, "Forgot the credentials of MCP server '%s' (%s); the authorization server may keep its grant until you revoke it there.\n", server.Key, file)
		return 0
	case *static:
		line, err := bufio.NewReader(io.LimitReader(stdin, 64<<10)).ReadString('\n')
		token := strings.TrimSpace(line)
		if token == "" {
			if err != nil && err != io.EOF {
				fmt.Fprintf(stderr, "toolroute mcp login: reading the token: %v\n", err)
			} else {
				fmt.Fprintf(stderr, "toolroute mcp login: no token on standard input: printenv TOKEN_VARIABLE | toolroute mcp login %s --token\n", server.Key)
			}
			return 1
		}
		if err := mcp.SetBearer(file, server, token); err != nil {
			fmt.Fprintf(stderr, "toolroute: %v\n", err)
			return 1
		}
		fmt.Fprintf(stdout, "Kept the token of MCP server '%s' in %s; toolroute sends it as Authorization: Bearer.\n", server.Key, file)
		return 0
	}
	login := mcp.Login{Server: server, File: file, ClientID: *clientID, ClientSecret: *clientSecret,
		Show: func(u string) {
			fmt.Fprintf(stdout, "Open this address in a browser to sign toolroute in to MCP server '%s':\n\n  %s\n\nWaiting for the answer (Ctrl-C stops)...\n", server.Key, u)
			if !*noBrowser {
				openBrowser(u)
			}
		}}
	res, err := login.Run(ctx)
	switch {
	case errors.Is(err, mcp.ErrNoAuthorization):
		fmt.Fprintf(stdout, "%v.\n", err)
		return 0
	case err != nil:
		fmt.Fprintf(stderr, "toolroute: %v\n", err)
		return 1
	}
	scopes := ""
	if len(res.Scopes) > 0 {
		scopes = " (scopes " + strings.Join(res.Scopes, " ") + ")"
	}
	fmt.Fprintf(stdout, "Signed in to MCP server '%s'%s: it lists %s. The tokens are kept in %s.\n", server.Key, scopes, plural(res.Tools, "tool"), file)
	return 0
}
