package session_test

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/toolroute/toolroute/registry"
	"github.com/toolroute/toolroute/registry/session"
)

// TestRetriesDecide is the retry policy every host follows: which answers
// are tried again, how long to wait, and when to give up.
func TestRetriesDecide(t *testing.T) {
	now := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	std := session.Retries{Count: 3}
	gemini := func(delay string) []byte {
		return []byte(`{"error":{"code":429,"details":[{"@type":"type.googleapis.com/google.rpc.ErrorInfo"},` +
			`{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"` + delay + `"}]}}`)
	}
	tests := []struct {
		name       string
		r          session.Retries
		status     int
		retryAfter string
		body       []byte
		attempt    int
		now        time.Time
		wantMS     int64 // -1: give up
	}{
		{name: "429, the first backoff", r: std, status: 429, attempt: 1, wantMS: 1000},
		{name: "503, doubled", r: std, status: 503, attempt: 2, wantMS: 2000},
		{name: "529, doubled again", r: std, status: 529, attempt: 3, wantMS: 4000},
		{name: "past the count", r: std, status: 500, attempt: 4, wantMS: -1},
		{name: "400 is not tried again", r: std, status: 400, attempt: 1, wantMS: -1},
		{name: "408 is not tried again", r: std, status: 408, attempt: 1, wantMS: -1},
		{name: "no retries", r: session.Retries{}, status: 429, attempt: 1, wantMS: -1},
		{name: "backoff bounded", r: session.Retries{Count: 10, BackoffMS: 1000, MaxBackoffMS: 5000}, status: 500, attempt: 8, wantMS: 5000},
		{name: "huge attempt bounded", r: session.Retries{Count: 100}, status: 500, attempt: 99, wantMS: 60000},
		{name: "Retry-After longer than the backoff", r: std, status: 429, retryAfter: "7", attempt: 1, wantMS: 7000},
		{name: "Retry-After shorter than the backoff", r: std, status: 429, retryAfter: "1", attempt: 3, wantMS: 4000},
		{name: "Retry-After with a fraction, rounded up to a ms", r: std, status: 429, retryAfter: " 2.0005 ", attempt: 1, wantMS: 2001},
		{name: "Retry-After over the bound gives up", r: std, status: 429, retryAfter: "61", attempt: 1, wantMS: -1},
		{name: "Retry-After as a date", r: std, status: 503, retryAfter: "Sun, 01 Mar 2026 09:00:09 GMT", attempt: 1, now: now, wantMS: 9000},
		{name: "Retry-After as an RFC 850 date", r: std, status: 503, retryAfter: "Sunday, 01-Mar-26 09:00:09 GMT", attempt: 1, now: now, wantMS: 9000},
		{name: "Retry-After as an asctime date", r: std, status: 503, retryAfter: "Sun Mar  1 09:00:09 2026", attempt: 1, now: now, wantMS: 9000},
		{name: "Retry-After a date past", r: std, status: 503, retryAfter: "Sun, 01 Mar 2026 08:00:00 GMT", attempt: 2, now: now, wantMS: 2000},
		{name: "Retry-After a date far off", r: std, status: 503, retryAfter: "Sun, 01 Mar 2026 10:00:00 GMT", attempt: 1, now: now, wantMS: -1},
		{name: "Retry-After a date, no time known", r: std, status: 503, retryAfter: "Sun, 01 Mar 2026 09:00:09 GMT", attempt: 1, wantMS: 1000},
		{name: "Retry-After unreadable", r: std, status: 429, retryAfter: "soon", attempt: 1, wantMS: 1000},
		{name: "Retry-After negative", r: std, status: 429, retryAfter: "-5", attempt: 1, wantMS: 1000},
		{name: "Gemini's retryDelay", r: std, status: 429, body: gemini("45.837906927s"), attempt: 1, wantMS: 45838},
		{name: "Gemini's retryDelay over the bound", r: std, status: 429, body: gemini("90s"), attempt: 1, wantMS: -1},
		{name: "Gemini's retryDelay unreadable", r: std, status: 429, body: gemini("45"), attempt: 1, wantMS: 1000},
		{name: "the header wins over the body", r: std, status: 429, retryAfter: "3", body: gemini("30s"), attempt: 1, wantMS: 3000},
		{name: "an unreadable header leaves the body's", r: std, status: 429, retryAfter: "soon", body: gemini("30s"), attempt: 1, wantMS: 30000},
		{name: "a body that is not JSON", r: std, status: 500, body: []byte("<html>"), attempt: 1, wantMS: 1000},
		{name: "a body nesting too deep", r: std, status: 500, body: []byte(strings.Repeat("[", 100000)), attempt: 1, wantMS: 1000},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := tt.r.Decide(tt.status, tt.retryAfter, tt.body, tt.attempt, tt.now)
			if tt.wantMS < 0 {
				if ok {
					t.Fatalf("retry %+v, want to give up", got)
				}
				return
			}
			if !ok {
				t.Fatalf("gave up, want a retry after %d ms", tt.wantMS)
			}
			if got.WaitMS != tt.wantMS || got.Status != tt.status || got.Attempt != tt.attempt {
				t.Errorf("retry %+v, want status %d, attempt %d, wait_ms %d", got, tt.status, tt.attempt, tt.wantMS)
			}
		})
	}
}

// TestRetryMessage is the sentence every host shows for a retry.
func TestRetryMessage(t *testing.T) {
	tests := []struct {
		retryAfter string
		want       string
	}{
		{"0.25", "The provider answered 429: trying again in 1 s (retry 1 of 3)."},
		{"1.5", "The provider answered 429: trying again in 1.5 s (retry 1 of 3)."},
		{"12.4", "The provider answered 429: trying again in 12 s (retry 1 of 3)."},
	}
	for _, tt := range tests {
		got, _ := session.Retries{Count: 3}.Decide(429, tt.retryAfter, nil, 1, time.Time{})
		if got.Message != tt.want {
			t.Errorf("Retry-After %q: %q, want %q", tt.retryAfter, got.Message, tt.want)
		}
	}
	got, _ := session.Retries{Count: 2, BackoffMS: 250}.Decide(500, "", nil, 2, time.Time{})
	if want := "The provider answered 500: trying again in 500 ms (retry 2 of 2)."; got.Message != want {
		t.Errorf("%q, want %q", got.Message, want)
	}
}

// TestFinishResult is what the model reads of a result: the console note,
// then the cut, counted in characters.
func TestFinishResult(t *testing.T) {
	note := func(n int) string {
		return "\n\n[The result was cut at 30000 of its " + strconv.Itoa(n) + " characters. Ask for less: a narrower query, a smaller range or one page.]"
	}
	ok := func(out string) registry.Result { return registry.Success(out) }
	tests := []struct {
		name    string
		in      registry.Result
		console []string
		show    bool
		want    registry.Result
	}{
		{name: "short", in: ok("hi"), want: ok("hi")},
		{name: "exactly the cap, in two-byte characters", in: ok(strings.Repeat("é", 30000)), want: ok(strings.Repeat("é", 30000))},
		{name: "past it, in characters", in: ok(strings.Repeat("é", 35000)), want: ok(strings.Repeat("é", 30000) + note(35000))},
		{name: "four-byte characters", in: ok(strings.Repeat("😀", 30001)), want: ok(strings.Repeat("😀", 30000) + note(30001))},
		{name: "a failure's message", in: registry.Failure("execution_error", strings.Repeat("m", 30002)),
			want: registry.Failure("execution_error", strings.Repeat("m", 30000)+note(30002))},
		{name: "console hidden on a success", in: ok("out"), console: []string{"log: a"}, want: ok("out")},
		{name: "console shown on a success", in: ok("out"), console: []string{"log: a", "warn: b"}, show: true,
			want: ok("out\n\nConsole output:\nlog: a\nwarn: b")},
		{name: "console always on a failure", in: registry.Failure("timeout", "slow"), console: []string{"log: a"},
			want: registry.Failure("timeout", "slow\n\nConsole output:\nlog: a")},
		{name: "the console note counts in the cut", in: ok(strings.Repeat("y", 29990)), console: []string{"log: the end"}, show: true,
			want: ok(strings.Repeat("y", 29990) + "\n\nConsole " + note(30020))},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := session.FinishResult(tt.in, tt.console, tt.show)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// TestRetryDelay reads Gemini's wait from an error body.
func TestRetryDelay(t *testing.T) {
	tests := []struct {
		body   string
		want   time.Duration
		wantOK bool
	}{
		{`{"error":{"code":429,"details":[{"@type":"type.googleapis.com/google.rpc.QuotaFailure"},{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"27s"}]}}`, 27 * time.Second, true},
		{`{"error":{"details":[{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"45.837906927s"}]}}`, 45837906927 * time.Nanosecond, true},
		{`{"error":{"details":[{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"soon"}]}}`, 0, false},
		{`{"error":{"message":"Rate limit reached","type":"requests"}}`, 0, false},
		{`busy`, 0, false},
	}
	for _, tt := range tests {
		got, ok := session.RetryDelay([]byte(tt.body))
		if got != tt.want || ok != tt.wantOK {
			t.Errorf("retryDelay(%s) = %v, %v; want %v, %v", tt.body, got, ok, tt.want, tt.wantOK)
		}
	}
}

// TestRetryAfter reads a Retry-After header.
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
		got, ok := session.RetryAfter(tt.value, now)
		if got != tt.want || ok != tt.wantOK {
			t.Errorf("retryAfter(%q) = %v, %v; want %v, %v", tt.value, got, ok, tt.want, tt.wantOK)
		}
	}
}
