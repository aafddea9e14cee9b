package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/toolroute/toolroute/internal/app"
	"github.com/toolroute/toolroute/registry"
)

const policyUsage = `usage: toolroute policy list
       toolroute policy set tool|group NAME ask|allow|deny
       toolroute policy reset tool|group NAME
Whether a tool may run without asking you. By default the tools that send,
delete, share or write outside the sandbox folder ask first (their
manifest's requiredPermissions say so) and the others run: ask makes a tool
(or every tool of a group) ask, allow lets it run unasked, deny refuses it.
A tool's rule wins over its group's. The model cannot change these rules.
  toolroute policy set group google_gmail ask
  toolroute policy set tool gmail_send deny
`

func runPolicy(args []string, stdout, stderr io.Writer) int {
	sub, rest, cfg, code := settingsArgs("policy", policyUsage, args, map[string]int{"list": 0, "set": 3, "reset": 2}, stderr)
	if code >= 0 {
		return code
	}
	n := len(rest)
	if n > 0 {
		if rest[0] != "tool" && rest[0] != "group" {
			fmt.Fprintf(stderr, "toolroute policy: %q: say tool or group\n", rest[0])
			return 2
		}
		if !registry.ValidToolName(rest[1]) {
			fmt.Fprintf(stderr, "toolroute policy: %q is not a tool or group name\n", rest[1])
			return 2
		}
	}
	if n == 3 && !registry.ValidDecision(registry.Decision(rest[2])) {
		fmt.Fprintf(stderr, "toolroute policy: %q: say ask, allow or deny\n", rest[2])
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
		rules, err := db.Settings(ctx, app.PolicyPrefix)
		if err != nil {
			fmt.Fprintf(stderr, "toolroute: %v\n", err)
			return 1
		}
		if len(rules) == 0 {
			fmt.Fprintln(stdout, "No rules: the tools that send, delete, share or write outside the sandbox ask first; the others run.")
		}
		for _, r := range rules {
			kind, name, _ := strings.Cut(strings.TrimPrefix(r.Key, app.PolicyPrefix), ".")
			fmt.Fprintf(stdout, "%s %s: %s\n", kind, name, r.Value)
		}
	case "set":
		if err := db.SetSetting(ctx, app.PolicyPrefix+rest[0]+"."+rest[1], rest[2]); err != nil {
			fmt.Fprintf(stderr, "toolroute: %v\n", err)
			return 1
		}
		fmt.Fprintf(stdout, "%s %s: %s, from the next message.\n", rest[0], rest[1], rest[2])
	case "reset":
		if err := db.DeleteSetting(ctx, app.PolicyPrefix+rest[0]+"."+rest[1]); err != nil {
			fmt.Fprintf(stderr, "toolroute: %v\n", err)
			return 1
		}
		fmt.Fprintf(stdout, "%s %s follows its default again.\n", rest[0], rest[1])
	}
	return 0
}
