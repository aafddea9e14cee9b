package check_test

import (
	"encoding/json"
	"fmt"
	"log"

	"github.com/toolroute/toolroute/registry/check"
)

// A host asks before it does an operation's I/O; a refusal says what to
// do, in the same words in every host.
func Example() {
	for _, name := range []string{"weather_lookup", "Weather"} {
		args, _ := json.Marshal(map[string]string{"name": name})
		answer, err := check.Run(check.Request{Op: "tool_name", Args: args})
		if err != nil {
			log.Fatal(err)
		}
		if answer.Error != nil {
			fmt.Printf("%s: %s: %s\n", name, answer.Error.Type, answer.Error.Message)
			continue
		}
		fmt.Printf("%s: passes\n", name)
	}
	// Output:
	// weather_lookup: passes
	// Weather: invalid_arguments: "Weather" is not a tool name: use snake_case, such as weather_lookup
}
