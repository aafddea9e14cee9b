package wire

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"
)

// codec is one way of encoding a request and decoding a chunk.
type codec struct {
	name   string
	encode func(oaRequest) ([]byte, error)
	decode func([]byte, *oaChunk) error
}

// codecs are the ways BenchmarkCodec sets side by side; a build with
// GOEXPERIMENT=jsonv2 adds encoding/json/v2 (codec_v2_bench_test.go).
var codecs = []codec{
	{"hand", func(r oaRequest) ([]byte, error) { return r.appendJSON(nil) }, unmarshalOAChunk},
	{"encoding-json", func(r oaRequest) ([]byte, error) { return json.Marshal(r) }, func(b []byte, c *oaChunk) error { return json.Unmarshal(b, c) }},
}

// benchRequest is a Chat Completions request as a mid-length agent turn
// makes it: 40 messages (user, assistant tool calls, tool results) and 20
// tools, about 24 KB of JSON.
func benchRequest() oaRequest {
	params := json.RawMessage(`{"type":"object","properties":{"query":{"type":"string","description":"What to look for, in the user's words"},"limit":{"type":"integer","minimum":1,"maximum":50}},"required":["query"]}`)
	r := oaRequest{Model: "gpt-5.4-mini", Stream: true, StreamOptions: &oaStreamOptions{IncludeUsage: true}}
	for i := range 40 {
		switch i % 3 {
		case 0:
			r.Messages = append(r.Messages, oaMessage{Role: "user", Content: ptr(strings.Repeat("Find the invoices from March and sum them. ", 4))})
		case 1:
			r.Messages = append(r.Messages, oaMessage{Role: "assistant", ToolCalls: []oaToolCall{{ID: fmt.Sprintf("call_%d", i), Type: "function",
				Function: oaFunction{Name: "search_mail", Arguments: `{"query":"invoice March","limit":20}`}}}})
		default:
			r.Messages = append(r.Messages, oaMessage{Role: "tool", ToolCallID: fmt.Sprintf("call_%d", i-1), Content: ptr(strings.Repeat(`{"from":"billing@example.com","subject":"Invoice \"March\"","total":"1,204.50 €"}`, 3))})
		}
	}
	tools := []oaTool{}
	for i := range 20 {
		tools = append(tools, oaTool{Type: "function", Function: oaFunctionDef{Name: fmt.Sprintf("tool_%02d", i), Description: "Searches the user's mail and returns the matching messages, newest first.", Parameters: params}})
	}
	r.Tools = tools
	return r
}

// benchChunk is one streamed Chat Completions chunk carrying a tool call's
// arguments, the event a streamed turn decodes most.
const benchChunk = `{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1764000000,"model":"gpt-5.4-mini","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"search_mail","arguments":"{\"query\":\"inv"}}]},"finish_reason":null}]}`

// BenchmarkCodec sets the hand-written codec beside encoding/json on the
// same values, in wasm, where the module runs them (make bench builds this
// package for wasip1 and runs it under wazero, one process per run):
//
//	GOEXPERIMENT=jsonv2 GOOS=wasip1 GOARCH=wasm go test -c -o /tmp/wire.wasm ./registry/wire
//	go run github.com/tetratelabs/wazero/cmd/wazero run /tmp/wire.wasm -test.run '^$' -test.bench Codec
//
// first-call-ns is the first call in the process: encoding/json builds its
// encoder for a type then, as a new instance of the module does on its
// first turn.
func BenchmarkCodec(b *testing.B) {
	r := benchRequest()
	data := []byte(benchChunk)
	for _, c := range codecs {
		b.Run("encode/"+c.name, func(b *testing.B) {
			start := time.Now()
			if _, err := c.encode(r); err != nil {
				b.Fatal(err)
			}
			first := time.Since(start)
			for b.Loop() {
				if _, err := c.encode(r); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(first.Nanoseconds()), "first-call-ns")
		})
	}
	for _, c := range codecs {
		b.Run("decode-chunk/"+c.name, func(b *testing.B) {
			start := time.Now()
			var v oaChunk
			if err := c.decode(data, &v); err != nil {
				b.Fatal(err)
			}
			first := time.Since(start)
			for b.Loop() {
				var v oaChunk
				if err := c.decode(data, &v); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(first.Nanoseconds()), "first-call-ns")
		})
	}
}

// TestBenchValuesAgree keeps the benchmark honest: both codecs give the
// same bytes for its request and the same value for its chunk.
func TestBenchValuesAgree(t *testing.T) {
	r := benchRequest()
	hand, err := r.appendJSON(nil)
	if err != nil {
		t.Fatal(err)
	}
	std, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	if string(hand) != string(std) {
		t.Fatalf("hand-written encoding differs from encoding/json:\n%s\n%s", hand, std)
	}
	var a, c oaChunk
	if err := unmarshalOAChunk([]byte(benchChunk), &a); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(benchChunk), &c); err != nil {
		t.Fatal(err)
	}
	ja, _ := json.Marshal(a)
	jc, _ := json.Marshal(c)
	if string(ja) != string(jc) {
		t.Fatalf("decoded chunks differ:\n%s\n%s", ja, jc)
	}
}
