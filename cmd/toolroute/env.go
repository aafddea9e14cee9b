package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/toolroute/toolroute/host/store"
	"github.com/toolroute/toolroute/internal/app"
	"github.com/toolroute/toolroute/internal/builtin"
)

const envUsage = `usage: toolroute env list
       toolroute env set NAME     (the value is read from standard input)
       toolroute env unset NAME
The variables JS tools may read: a tool sees in params._env those its
manifest's "env" lists, and nothing else; never the program's own
environment, which holds the model's key and the Google credentials.
Values are secrets: they are replaced by [redacted NAME] wherever a tool's
result, a stored message or a model request would hold them.
  printenv WEATHER_API_KEY | toolroute env set WEATHER_API_KEY
`

func runEnv(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	sub, rest, cfg, code := settingsArgs("env", envUsage, args, map[string]int{"list": 0, "set": 1, "unset": 1}, stderr)
	if code >= 0 {
		return code
	}
	n := len(rest)
	if n == 1 && !builtin.ValidEnvName(rest[0]) {
		fmt.Fprintf(stderr, "toolroute env: %q is not a variable name: use letters, digits and _, not starting with a digit\n", rest[0])
		return 2
	}
	ctx := context.Background()
	db, ok := openSettingsStore(ctx, &cfg, stderr)
	if !ok {
		return 1
	}
	defer db.Close()
	switch sub {
	case "list":
		vars, err := db.Settings(ctx, builtin.EnvPrefix)
		if err != nil {
			fmt.Fprintf(stderr, "toolroute: %v\n", err)
			return 1
		}
		if len(vars) == 0 {
			fmt.Fprintln(stdout, "No variables are set for tools: toolroute env set NAME sets one.")
		}
		for _, v := range vars {
			fmt.Fprintln(stdout, strings.TrimPrefix(v.Key, builtin.EnvPrefix))
		}
	case "set":
		line, err := bufio.NewReader(io.LimitReader(stdin, 64<<10)).ReadString('\n')
		value := strings.TrimRight(line, "\r\n")
		if value == "" {
			if err != nil && err != io.EOF {
				fmt.Fprintf(stderr, "toolroute env: reading the value: %v\n", err)
			} else {
				fmt.Fprintf(stderr, "toolroute env: no value on standard input: printenv %s | toolroute env set %s\n", rest[0], rest[0])
			}
			return 1
		}
		if err := db.SetSetting(ctx, builtin.EnvPrefix+rest[0], value); err != nil {
			fmt.Fprintf(stderr, "toolroute: %v\n", err)
			return 1
		}
		fmt.Fprintf(stdout, "%s set for the tools whose manifest lists it in env.\n", rest[0])
	case "unset":
		if err := db.DeleteSetting(ctx, builtin.EnvPrefix+rest[0]); err != nil {
			fmt.Fprintf(stderr, "toolroute: %v\n", err)
			return 1
		}
		fmt.Fprintf(stdout, "%s removed.\n", rest[0])
	}
	return 0
}

// settingsArgs reads the arguments of a command that reads or writes the
// settings (env, policy): SUBCOMMAND, the --db and --data flags, and the
// operands, as many as counts gives the subcommand. code is the exit
// status to end with when they are not right (after the usage or the
// flag's error on stderr), -1 when they are.
func settingsArgs(name, usage string, args []string, counts map[string]int, stderr io.Writer) (sub string, rest []string, cfg app.Config, code int) {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return "", nil, cfg, 2
	}
	if isHelp(args[0]) {
		// The flags are the same for each subcommand.
		fmt.Fprint(stderr, usage)
		args = []string{"list", "--help"}
	}
	fs := newFlagSet(name+" "+args[0], stderr)
	fs.StringVar(&cfg.DBPath, "db", "", "the database: a SQLite file (default: the user's data folder/toolroute/toolroute.db), or a PostgreSQL URL postgres://user:password@host/database that several toolroute processes share")
	fs.StringVar(&cfg.DataDir, "data", "", "the data folder")
	rest, err := parseArgs(fs, args[1:])
	if err != nil {
		return "", nil, cfg, exitFor(err)
	}
	if n, ok := counts[args[0]]; !ok || len(rest) != n {
		fmt.Fprint(stderr, usage)
		return "", nil, cfg, 2
	}
	return args[0], rest, cfg, -1
}

// openSettingsStore fills in cfg's folders and opens its database, for the
// commands that only read or write settings (env, policy); it reports a
// failure on stderr.
func openSettingsStore(ctx context.Context, cfg *app.Config, stderr io.Writer) (*store.DB, bool) {
	if err := cfg.Defaults(); err != nil {
		fmt.Fprintf(stderr, "toolroute: %v\n", err)
		return nil, false
	}
	db, err := store.Open(ctx, cfg.DBPath)
	if err != nil {
		fmt.Fprintf(stderr, "toolroute: %v\n", err)
		return nil, false
	}
	return db, true
}
