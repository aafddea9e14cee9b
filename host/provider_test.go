package host

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/toolroute/toolroute/host/internal/fakemodel"
	"github.com/toolroute/toolroute/registry/session"
	"github.com/toolroute/toolroute/registry/wire"
)

func TestHTTPProviderRetries(t *testing.T) {
	tests := []struct {
		name       string
		replies    []fakemodel.Reply
		wantStatus int
		wantCalls  int
		wantRetry  []int
	}{
		{
			name: "429 with Retry-After, then success",
			replies: []fakemodel.Reply{
				{Status: 429, ErrorBody: `{"error":{"message":"Rate limit reached","type":"requests"}}`, RetryAfter: "0"},
				fakemodel.Text("ok"),
			},
			wantStatus: 200, wantCalls: 2, wantRetry: []int{429},
		},
		{
			name:       "5xx twice, then success",
			replies:    []fakemodel.Reply{fakemodel.Error(503, "busy"), fakemodel.Error(529, `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`), fakemodel.Text("ok")},
			wantStatus: 200, wantCalls: 3, wantRetry: []int{503, 529},
		},
		{
			name:       "401 is not retried",
			replies:    []fakemodel.Reply{fakemodel.Error(401, `{"error":{"message":"bad key"}}`), fakemodel.Text("never")},
			wantStatus: 401, wantCalls: 1,
		},
		{
			name:       "retries run out",
			replies:    []fakemodel.Reply{fakemodel.Error(500, "x"), fakemodel.Error(500, "x"), fakemodel.Error(500, "x"), fakemodel.Error(500, "x")},
			wantStatus: 500, wantCalls: 3, wantRetry: []int{500, 500},
		},
		{
			name:       "a Retry-After longer than we wait ends the retries",
			replies:    []fakemodel.Reply{{Status: 429, ErrorBody: "{}", RetryAfter: "3600"}, fakemodel.Text("never")},
			wantStatus: 429, wantCalls: 1,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			model := fakemodel.New(fakemodel.OpenAI, tt.replies...)
			defer model.Close()
			p := &HTTPProvider{Wire: wire.OpenAI, BaseURL: model.BaseURL(), ModelName: "m", Retries: 2, Backoff: time.Millisecond, MaxBackoff: time.Second}
			var retried []int
			ctx := withRetryNotice(context.Background(), func(r Retry) { retried = append(retried, r.Status) })
			resp, err := p.Call(ctx, &session.ModelRequest{Path: "/chat/completions", Body: []byte(`{"model":"m","messages":[]}`)})
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != tt.wantStatus || len(model.Requests()) != tt.wantCalls {
				t.Errorf("status %d after %d calls, want %d after %d", resp.StatusCode, len(model.Requests()), tt.wantStatus, tt.wantCalls)
			}
			if len(retried) != len(tt.wantRetry) {
				t.Errorf("retries %v, want %v", retried, tt.wantRetry)
			}
		})
	}
}

func TestRetryAfter(t *testing.T) {
	now := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	tests := []struct {
		value  string
		want   time.Duration
		wantOK bool
	}{
		{"2", 2 * time.Second, true},
		{"0.5", 500 * time.Millisecond, true},
		{"Sun, 01 Mar 2026 09:00:30 GMT", 30 * time.Second, true},
		{"Sun, 01 Mar 2026 08:00:00 GMT", 0, true},
		{"soon", 0, false},
		{"-3", 0, false},
		{"", 0, false},
	}
	for _, tt := range tests {
		h := http.Header{}
		if tt.value != "" {
			h.Set("Retry-After", tt.value)
		}
		got, ok := retryAfter(h, now)
		if got != tt.want || ok != tt.wantOK {
			t.Errorf("retryAfter(%q) = %v, %v; want %v, %v", tt.value, got, ok, tt.want, tt.wantOK)
		}
	}
}
