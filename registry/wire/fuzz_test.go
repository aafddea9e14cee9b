package wire

import (
	"os"
	"testing"
)

func fuzzSeeds(f *testing.F) {
	for i, file := range []string{"testdata/openai_stream_tools.sse", "testdata/anthropic_stream_tools.sse",
		"testdata/responses_stream_tools.sse", "testdata/gemini_stream_tools.sse"} {
		b, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(uint8(i), b, uint8(7))
		f.Add(uint8(i), b, uint8(1))
	}
	f.Add(uint8(0), []byte(`{"choices":[{"message":{"content":"hi","tool_calls":[{"id":"a","function":{"name":"x","arguments":"{}"}}]},"finish_reason":"stop"}]}`), uint8(3))
	f.Add(uint8(1), []byte(`{"type":"message","content":[{"type":"tool_use","id":"t","name":"n","input":{}}],"stop_reason":"tool_use"}`), uint8(0))
	f.Add(uint8(1), []byte("event: content_block_delta\r\ndata: {\"index\":9}\r\n\r\n"), uint8(2))
	f.Add(uint8(2), []byte(`{"status":"completed","output":[{"type":"function_call","call_id":"c","name":"n","arguments":"{}"},{"type":"message","content":[{"type":"output_text","text":"hi"}]}]}`), uint8(4))
	f.Add(uint8(2), []byte("data: {\"type\":\"response.function_call_arguments.delta\",\"output_index\":1,\"delta\":\"{\"}\n\n"), uint8(5))
	f.Add(uint8(3), []byte(`{"candidates":[{"content":{"parts":[{"text":"hi"},{"functionCall":{"name":"n","args":{}},"thoughtSignature":"AA=="}]},"finishReason":"STOP"}]}`), uint8(6))
	f.Add(uint8(3), []byte("data: {\"candidates\":[{\"finishReason\":\"SAFETY\"}]}\n\n"), uint8(1))
}

// format picks one of Formats from a fuzzed byte.
func format(b uint8) Format { return Formats[int(b)%len(Formats)] }

// FuzzDecode: any body gives a response or an error, never a panic.
func FuzzDecode(f *testing.F) {
	fuzzSeeds(f)
	f.Fuzz(func(t *testing.T, which uint8, body []byte, _ uint8) {
		resp, err := Decode(format(which), body)
		if err != nil {
			return
		}
		// Whatever was decoded can be sent back in a request, in any format.
		msgs := []Message{{Role: RoleUser, Text: "q"}, {Role: RoleAssistant, Text: resp.Text, Calls: resp.Calls}}
		for _, f := range Formats {
			if _, err := Encode(f, Request{Model: "m", Messages: msgs}); err != nil {
				t.Fatalf("re-encoding a decoded response: %v", err)
			}
		}
	})
}

// FuzzStream: any body, cut into chunks of any size, gives a response or an
// error, never a panic; the chunking never changes the outcome.
func FuzzStream(f *testing.F) {
	fuzzSeeds(f)
	f.Fuzz(func(t *testing.T, which uint8, body []byte, size uint8) {
		whole, wholeErr := streamAll(format(which), body, len(body)+1)
		cut, cutErr := streamAll(format(which), body, int(size)+1)
		if (wholeErr == nil) != (cutErr == nil) {
			t.Fatalf("chunk size changed the outcome: whole %v, cut %v", wholeErr, cutErr)
		}
		if wholeErr == nil && (whole.Text != cut.Text || len(whole.Calls) != len(cut.Calls)) {
			t.Fatalf("chunk size changed the response: %+v vs %+v", whole, cut)
		}
	})
}

func streamAll(f Format, body []byte, size int) (Response, error) {
	s, _ := NewStream(f)
	for off := 0; off < len(body); off += size {
		if _, err := s.Write(body[off:min(off+size, len(body))]); err != nil {
			return Response{}, err
		}
	}
	resp, _, err := s.Close()
	return resp, err
}
