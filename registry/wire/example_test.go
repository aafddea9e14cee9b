package wire_test

import (
	"fmt"
	"log"

	"github.com/toolroute/toolroute/registry/wire"
)

// One model call in two providers' formats: Encode gives the path, headers
// and body to POST (the host adds the key), Decode reads the answer.
func Example() {
	req := wire.Request{
		Model:    "demo",
		System:   "Answer briefly.",
		Messages: []wire.Message{{Role: wire.RoleUser, Text: "Hi"}},
	}
	for _, f := range []wire.Format{wire.OpenAI, wire.Anthropic} {
		call, err := wire.Encode(f, req)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("%s: POST %s\n%s\n", f, call.Path, call.Body)
	}

	resp, err := wire.Decode(wire.OpenAI, []byte(`{"choices":[{"message":{"role":"assistant","content":"Hello."},"finish_reason":"stop"}],
		"usage":{"prompt_tokens":12,"completion_tokens":2}}`))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%q %s %d+%d tokens\n", resp.Text, resp.StopReason, resp.Usage.InputTokens, resp.Usage.OutputTokens)
	// Output:
	// openai: POST /chat/completions
	// {"model":"demo","messages":[{"role":"system","content":"Answer briefly."},{"role":"user","content":"Hi"}]}
	// anthropic: POST /v1/messages
	// {"model":"demo","max_tokens":4096,"system":[{"type":"text","text":"Answer briefly.","cache_control":{"type":"ephemeral"}}],"messages":[{"role":"user","content":[{"type":"text","text":"Hi","cache_control":{"type":"ephemeral"}}]}]}
	// "Hello." stop 12+2 tokens
}
