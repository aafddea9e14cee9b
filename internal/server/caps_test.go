package server_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/toolroute/toolroute/host"
	"github.com/toolroute/toolroute/internal/fakemodel"
	"github.com/toolroute/toolroute/internal/gzipbomb"
)

// The model proxy passes a provider's answer of 400 MB, gzipped into half
// a megabyte, to the page up to host.MaxResponseBody, then breaks the
// answer off: the page reads a broken stream, not 400 MB.
func TestModelProxyCap(t *testing.T) {
	event := `data: {"id":"c1","object":"chat.completion.chunk","model":"m","choices":[{"index":0,"delta":{"content":"` + strings.Repeat("a", 16<<10) + `"}}]}` + "\n\n"
	bomb := httptest.NewServer(gzipbomb.Handler("text/event-stream", gzipbomb.Make("", event, "data: [DONE]\n\n", 400<<20)))
	defer bomb.Close()
	model := fakemodel.New(fakemodel.OpenAI)
	defer model.Close()
	srv := start(t, model, "OPENAI_BASE_URL", bomb.URL)
	resp := post(t, srv, "/api/model", `{"format":"openai","path":"/chat/completions","stream":true,"body":{"model":"fake-model","stream":true,"messages":[]}}`)
	defer resp.Body.Close()
	n, err := io.Copy(io.Discard, io.LimitReader(resp.Body, host.MaxResponseBody+4<<20))
	if resp.StatusCode != 200 || err == nil || n > host.MaxResponseBody {
		t.Errorf("the page read HTTP %d, %d bytes, ending with %v; want at most %d, then an error", resp.StatusCode, n, err, host.MaxResponseBody)
	}
}

// A provider whose 401 echoes the key it was sent (the key given in the
// environment, as users give it): the key is redacted in serve's failed
// event and in the error the model proxy passes to the page.
func TestProviderErrorEchoingTheKey(t *testing.T) {
	const key = "sk-proj-Echo1234567890abcdef"
	echo := `{"error":{"message":"Incorrect API key provided: ` + key + `. You can find your API key at https://platform.openai.com/account/api-keys.","type":"invalid_request_error","code":"invalid_api_key"}}`
	model := fakemodel.New(fakemodel.OpenAI, fakemodel.Error(401, echo), fakemodel.Error(401, echo))
	defer model.Close()
	srv := start(t, model, "OPENAI_API_KEY", key)
	evs := turn(t, srv, "s", "hi")
	last := evs[len(evs)-1]
	failure, _ := last.Data["failure"].(map[string]any)
	msg, _ := failure["message"].(string)
	if last.Name != "failed" || strings.Contains(msg, key) || !strings.Contains(msg, "Incorrect API key provided: [redacted OPENAI_API_KEY].") {
		t.Errorf("serve's failed event = %+v, want the key redacted", last)
	}
	resp := post(t, srv, "/api/model", `{"format":"openai","path":"/chat/completions","body":{"model":"fake-model","messages":[]}}`)
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized || strings.Contains(string(body), key) || !strings.Contains(string(body), "[redacted OPENAI_API_KEY]") {
		t.Errorf("the proxy passed HTTP %d %s, want the 401 with the key redacted", resp.StatusCode, body)
	}
}
