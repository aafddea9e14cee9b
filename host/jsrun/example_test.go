package jsrun_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"os"
	"time"

	"github.com/toolroute/toolroute/host"
	"github.com/toolroute/toolroute/host/jsrun"
)

// A JS tool's call, in a QuickJS runtime of its own, with a sandbox folder
// for the fs bridge: what host.New does with each call of a JS tool
// (Options.JS).
func Example() {
	sandbox, err := os.MkdirTemp("", "sandbox")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(sandbox)
	runner, err := jsrun.New(jsrun.Options{SandboxRoot: sandbox})
	if err != nil {
		log.Fatal(err)
	}
	defer runner.Close()

	res := runner.Run(context.Background(), host.JSCall{
		Tool:      "shout",
		SourceRef: "shout.js",
		Source:    []byte(`function shout(args) { console.log("shouting"); fs.writeFile("last.txt", args.text); return args.text.toUpperCase() + "!"; }`),
		Function:  "shout",
		Params:    json.RawMessage(`{"text":"hello"}`),
		Timeout:   10 * time.Second,
	})
	fmt.Println(res.Status, res.Output, res.Logs)
	saved, err := os.ReadFile(sandbox + "/last.txt")
	fmt.Println(string(saved), err)
	// Output:
	// success HELLO! [log: shouting]
	// hello <nil>
}
