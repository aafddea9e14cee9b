// Command toolroute is toolroute's program: it checks tool manifests, and in
// later versions chats with a model through the tool-group router.
//
// Usage:
//
//	toolroute check [--json] [--with-builtin] [--override] [DIR...]
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

const usage = `toolroute routes tools to language models by group.

Usage:
  toolroute check [--json] [--with-builtin] [--override] [DIR...]
      Check the JS tool manifests (NAME.json with NAME.js) in each folder, or
      the built-in manifests when no folder is given. Exit status 1 on any error.
`

// run is the program with its arguments and outputs, for tests.
func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	switch args[0] {
	case "check":
		return runCheck(args[1:], stdout, stderr)
	case "help", "-h", "--help":
		fmt.Fprint(stdout, usage)
		return 0
	default:
		fmt.Fprintf(stderr, "toolroute: unknown command %q\n\n%s", args[0], usage)
		return 2
	}
}

// parseArgs parses flags wherever they stand among the positional arguments,
// so "check DIR --json" works as well as "check --json DIR".
func parseArgs(fs *flag.FlagSet, args []string) ([]string, error) {
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		if fs.NArg() == 0 {
			return positional, nil
		}
		positional = append(positional, fs.Arg(0))
		args = fs.Args()[1:]
	}
}
