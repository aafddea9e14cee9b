package mcpserve

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// Lines that are not one JSON-RPC message get an error in their place;
// the others pass as they are.
func TestGuard(t *testing.T) {
	tests := []struct {
		name, input, wantNext, wantAnswer string
	}{
		{name: "a request passes", input: `{"jsonrpc":"2.0","id":1,"method":"tools/list"}` + "\n",
			wantNext: `{"jsonrpc":"2.0","id":1,"method":"tools/list"}` + "\n"},
		{name: "blank lines and CRLF", input: "\n  \r\n" + `{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\r\n",
			wantNext: `{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n"},
		{name: "the last line without its newline", input: `{"jsonrpc":"2.0","id":"a","result":{}}`,
			wantNext: `{"jsonrpc":"2.0","id":"a","result":{}}` + "\n"},
		{name: "not JSON", input: "hello\n",
			wantAnswer: `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"not JSON: send one JSON-RPC message a line"}}` + "\n"},
		{name: "a batch", input: `[{"jsonrpc":"2.0","id":1,"method":"ping"}]` + "\n",
			wantAnswer: `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"JSON-RPC batches are not taken: send one message a line"}}` + "\n"},
		{name: "another version, its id kept", input: `{"jsonrpc":"1.0","id":7,"method":"ping"}` + "\n",
			wantAnswer: `{"jsonrpc":"2.0","id":7,"error":{"code":-32600,"message":"not a JSON-RPC 2.0 message: invalid message version tag \"1.0\"; expected \"2.0\""}}` + "\n"},
		{name: "an id that is no id", input: `{"jsonrpc":"2.0","id":[1],"method":"ping"}` + "\n",
			wantAnswer: `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"not a JSON-RPC 2.0 message: parse error: invalid ID type []interface {}"}}` + "\n"},
		{name: "a line too long", input: `{"jsonrpc":"2.0","id":1,"method":"` + strings.Repeat("x", MaxLine) + `"}` + "\nnull\n",
			wantAnswer: `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"a message is at most 16777216 bytes"}}` + "\n" +
				`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"not a JSON-RPC 2.0 message: invalid message version tag \"\"; expected \"2.0\""}}` + "\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var next, answers bytes.Buffer
			if err := guard(strings.NewReader(tt.input), &next, &answers); err != nil {
				t.Fatal(err)
			}
			if next.String() != tt.wantNext {
				t.Errorf("passed on:\n%q\nwant:\n%q", next.String(), tt.wantNext)
			}
			if answers.String() != tt.wantAnswer {
				t.Errorf("answered:\n%s\nwant:\n%s", answers.String(), tt.wantAnswer)
			}
		})
	}
}

// Whatever a client writes, what passes is JSON-RPC messages the SDK
// decodes, a line each, and what is answered is a JSON-RPC error a line.
func FuzzGuard(f *testing.F) {
	f.Add([]byte(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}` + "\n"))
	f.Add([]byte("hello\n[1]\n{}\n"))
	f.Add([]byte(`{"jsonrpc":"2.0","id":{"a":1},"method":"x"}` + "\r\n\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		var next, answers bytes.Buffer
		if err := guard(bytes.NewReader(data), &next, &answers); err != nil {
			t.Fatal(err)
		}
		for _, line := range bytes.Split(bytes.TrimSuffix(next.Bytes(), []byte("\n")), []byte("\n")) {
			if next.Len() == 0 {
				break
			}
			if _, err := jsonrpc.DecodeMessage(line); err != nil {
				t.Errorf("passed on %q: %v", line, err)
			}
		}
		for _, line := range bytes.Split(bytes.TrimSuffix(answers.Bytes(), []byte("\n")), []byte("\n")) {
			if answers.Len() == 0 {
				break
			}
			var m struct {
				JSONRPC string              `json:"jsonrpc"`
				ID      json.RawMessage     `json:"id"`
				Error   *struct{ Code int } `json:"error"`
			}
			if err := json.Unmarshal(line, &m); err != nil || m.JSONRPC != "2.0" || m.Error == nil || len(m.ID) == 0 {
				t.Errorf("answered %q", line)
			}
		}
	})
}
