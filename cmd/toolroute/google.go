package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"

	"github.com/toolroute/toolroute/internal/app"
	"github.com/toolroute/toolroute/internal/safehttp"
)

const googleUsage = `usage: toolroute google login [--client-id ID --client-secret SECRET] [--scopes S1,S2] [--no-browser]
       toolroute google logout
       toolroute google status
login connects a Google account for the Google Workspace tools through
Google's sign-in page and keeps its refresh token in CONFIG/google.json,
readable by you alone. It needs an OAuth client of type "Desktop app"
(Google Cloud console, APIs & Services > Credentials): --client-id and
--client-secret, or GOOGLE_CLIENT_ID and GOOGLE_CLIENT_SECRET.
`

// googleClient reaches Google's OAuth endpoints; tests point it elsewhere.
var googleClient = func() *safehttp.Client { return safehttp.New(safehttp.Options{}) }

func runGoogle(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, googleUsage)
		return 2
	}
	if isHelp(args[0]) {
		// The flags are the same for each subcommand.
		fmt.Fprint(stderr, googleUsage)
		args = []string{"login", "--help"}
	}
	fs := newFlagSet("google "+args[0], stderr)
	var cfg app.Config
	fs.StringVar(&cfg.ConfigDir, "config-dir", "", "the folder holding google.json (default: ~/.config/toolroute)")
	clientID := fs.String("client-id", os.Getenv("GOOGLE_CLIENT_ID"), "the OAuth client's id (default: GOOGLE_CLIENT_ID)")
	clientSecret := fs.String("client-secret", os.Getenv("GOOGLE_CLIENT_SECRET"), "the OAuth client's secret (default: GOOGLE_CLIENT_SECRET)")
	scopes := fs.String("scopes", "", "comma-separated scopes to ask for (default: what the Google tools need)")
	noBrowser := fs.Bool("no-browser", false, "only print the sign-in address; do not open a browser")
	if rest, err := parseArgs(fs, args[1:]); err != nil {
		return exitFor(err)
	} else if len(rest) > 0 {
		fmt.Fprintf(stderr, "toolroute google: unexpected %q\n\n%s", rest[0], googleUsage)
		return 2
	}
	if err := cfg.Defaults(); err != nil {
		fmt.Fprintf(stderr, "toolroute: %v\n", err)
		return 1
	}
	file := filepath.Join(cfg.ConfigDir, app.GoogleFile)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	switch args[0] {
	case "login":
		login := app.GoogleLogin{ClientID: *clientID, ClientSecret: *clientSecret, Client: googleClient(),
			Show: func(u string) {
				fmt.Fprintf(stdout, "Open this address in a browser to connect a Google account:\n\n  %s\n\nWaiting for Google's answer (Ctrl-C stops)...\n", u)
				if !*noBrowser {
					openBrowser(u)
				}
			}}
		if *scopes != "" {
			login.Scopes = strings.Split(*scopes, ",")
		}
		acct, err := login.Run(ctx)
		if err != nil {
			fmt.Fprintf(stderr, "toolroute: %v\n", err)
			return 1
		}
		if err := app.WriteGoogleAccount(file, acct); err != nil {
			fmt.Fprintf(stderr, "toolroute: saving the account: %v\n", err)
			return 1
		}
		who := acct.Email
		if who == "" {
			who = "the Google account"
		}
		fmt.Fprintf(stdout, "Connected %s; the Google tools use it from now on (saved in %s).\n", who, file)
		return 0
	case "logout":
		acct, ok, err := app.ReadGoogleAccount(file)
		if err != nil || !ok {
			if err == nil {
				err = fmt.Errorf("no Google account is connected (%s does not exist)", file)
			}
			fmt.Fprintf(stderr, "toolroute: %v\n", err)
			return 1
		}
		if err := app.RevokeGoogle(ctx, googleClient(), acct.RefreshToken); err != nil {
			fmt.Fprintf(stderr, "toolroute: revoking at Google: %v; removing the local copy anyway\n", err)
		}
		if err := os.Remove(file); err != nil {
			fmt.Fprintf(stderr, "toolroute: %v\n", err)
			return 1
		}
		fmt.Fprintf(stdout, "Disconnected %s.\n", acct.Email)
		return 0
	case "status":
		switch {
		case os.Getenv("GOOGLE_ACCESS_TOKEN") != "":
			fmt.Fprintln(stdout, "The Google tools use GOOGLE_ACCESS_TOKEN (it expires within the hour of its making).")
		case os.Getenv("GOOGLE_REFRESH_TOKEN") != "":
			fmt.Fprintln(stdout, "The Google tools use GOOGLE_REFRESH_TOKEN with GOOGLE_CLIENT_ID and GOOGLE_CLIENT_SECRET.")
		default:
			acct, ok, err := app.ReadGoogleAccount(file)
			switch {
			case err != nil:
				fmt.Fprintf(stderr, "toolroute: %v\n", err)
				return 1
			case !ok:
				fmt.Fprintln(stdout, "No Google account is connected: run toolroute google login.")
				return 1
			}
			fmt.Fprintf(stdout, "Connected: %s, with %d scopes (%s).\n", acct.Email, len(acct.Scopes), file)
		}
		return 0
	}
	fmt.Fprintf(stderr, "toolroute google: unknown command %q\n\n%s", args[0], googleUsage)
	return 2
}

// openBrowser tries to show the address in the user's browser.
func openBrowser(u string) {
	var cmd *exec.Cmd
	switch {
	case os.Getenv("BROWSER") != "":
		// The browser the user chose, as xdg-open and Python's webbrowser
		// take it: a command, given the address as its last argument.
		f := strings.Fields(os.Getenv("BROWSER"))
		cmd = exec.Command(f[0], append(f[1:], u)...)
	case runtime.GOOS == "darwin":
		cmd = exec.Command("open", u)
	case runtime.GOOS == "windows":
		cmd = exec.Command("rundll32", "url.dll,FileProtocolHandler", u)
	default:
		if os.Getenv("DISPLAY") == "" && os.Getenv("WAYLAND_DISPLAY") == "" {
			return
		}
		cmd = exec.Command("xdg-open", u)
	}
	if cmd.Start() == nil {
		go cmd.Wait()
	}
}
