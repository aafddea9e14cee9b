package server_test

import (
	"io"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/toolroute/toolroute/host"
	"github.com/toolroute/toolroute/host/internal/fakemodel"
	"github.com/toolroute/toolroute/host/internal/gzipbomb"
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

