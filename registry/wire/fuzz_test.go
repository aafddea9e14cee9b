package wire

import (
	"os"
	"testing"
)

func fuzzSeeds(f *testing.F) {
	for _, file := range []string{"testdata/openai_stream_tools.sse", "testdata/anthropic_stream_tools.sse"} {
		b, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(false, b, uint8(7))
		f.Add(true, b, uint8(1))
	}
	f.Add(false, []byte(`{"choices":[{"message":{"content":"hi","tool_calls":[{"id":"a","function":{"name":"x","arguments":"{}"}}]},"finish_reason":"stop"}]}`), uint8(3))
	f.Add(true, []byte(`{"type":"message","content":[{"type":"tool_use","id":"t","name":"n","input":{}}],"stop_reason":"tool_use"}`), uint8(0))
	f.Add(true, []byte("event: content_block_delta\r\ndata: {\"index\":9}\r\n\r\n"), uint8(2))
}

func format(anthropic bool) Format {
	if anthropic {
		return Anthropic
	}
	return OpenAI
}

// FuzzDecode: any body gives a response or an error, never a panic.
func FuzzDecode(f *testing.F) {
	fuzzSeeds(f)
	f.Fuzz(func(t *testing.T, anthropic bool, body []byte, _ uint8) {
		resp, err := Decode(format(anthropic), body)
		if err != nil {
			return
		}
		// Whatever was decoded can be sent back in a request.
		msgs := []Message{{Role: RoleUser, Text: "q"}, {Role: RoleAssistant, Text: resp.Text, Calls: resp.Calls}}
		for _, f := range []Format{OpenAI, Anthropic} {
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
	f.Fuzz(func(t *testing.T, anthropic bool, body []byte, size uint8) {
		whole, wholeErr := streamAll(format(anthropic), body, len(body)+1)
		cut, cutErr := streamAll(format(anthropic), body, int(size)+1)
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
