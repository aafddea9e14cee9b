package session

import (
	"encoding/json"
	"strconv"
	"strings"
	"time"

	"github.com/toolroute/toolroute/registry"
	"github.com/toolroute/toolroute/registry/internal/jsondec"
)

// Retries is how a turn tries again a model call the provider answered
// with 429 (rate limited) or a 5xx (Settings.Retries): Count times at
// most, waiting Backoff doubled each time and never over MaxBackoff, or
// what the provider asks if that is longer.
type Retries struct {
	// Count is the most times one model call is tried again; 0 is never.
	Count int `json:"count"`
	// BackoffMS is the first wait in milliseconds; 0 means 1000.
	BackoffMS int `json:"backoff_ms,omitempty"`
	// MaxBackoffMS bounds one wait, in milliseconds; 0 means 60000. A
	// provider asking for longer is not tried again.
	MaxBackoffMS int `json:"max_backoff_ms,omitempty"`
}

// Retry is a model call to try again (ActionRetry): the status it was
// answered, which retry this is (1 for the first), how long to wait
// before sending the same request again, and the sentence a host shows.
type Retry struct {
	Status  int    `json:"status"`
	Attempt int    `json:"attempt"`
	WaitMS  int64  `json:"wait_ms"`
	Message string `json:"message"`
}

// Retryable reports whether a model call answered status may be tried
// again: rate limited, or the provider failed (Anthropic's 529 is
// "overloaded").
func Retryable(status int) bool {
	return status == 429 || status >= 500 && status <= 599
}

// Decide says whether to try again a model call whose attempt-th try
// (1 for the first) was answered status, with the Retry-After header
// retryAfter ("" for none) and body, at now: the Retry to act on, or
// false to give up. The wait is the backoff, or the provider's if longer:
// Retry-After in seconds or as an HTTP date, or when it gives none the
// retryDelay of a Gemini error body (google.rpc.RetryInfo; Gemini sends no header). A
// provider asking for more than MaxBackoffMS is not tried again.
func (r Retries) Decide(status int, retryAfter string, body []byte, attempt int, now time.Time) (Retry, bool) {
	if !Retryable(status) || attempt < 1 || attempt > r.Count {
		return Retry{}, false
	}
	backoff := time.Duration(r.BackoffMS) * time.Millisecond
	if backoff <= 0 {
		backoff = time.Second
	}
	maxBackoff := time.Duration(r.MaxBackoffMS) * time.Millisecond
	if maxBackoff <= 0 {
		maxBackoff = time.Minute
	}
	wait := maxBackoff
	if attempt <= 32 {
		wait = min(backoff<<(attempt-1), maxBackoff)
	}
	after, asked := RetryAfter(retryAfter, now)
	if !asked {
		after, asked = RetryDelay(body)
	}
	if asked {
		if after > maxBackoff {
			return Retry{}, false // the provider asks for longer than we wait
		}
		wait = max(wait, after)
	}
	ms := int64((wait + time.Millisecond - 1) / time.Millisecond)
	return Retry{Status: status, Attempt: attempt, WaitMS: ms,
		Message: "The provider answered " + strconv.Itoa(status) + ": trying again in " + waitText(ms) +
			" (retry " + strconv.Itoa(attempt) + " of " + strconv.Itoa(r.Count) + ")."}, true
}

// waitText says ms in seconds, to a tenth, or in milliseconds under one.
func waitText(ms int64) string {
	switch {
	case ms < 1000:
		return strconv.FormatInt(ms, 10) + " ms"
	case ms%1000 < 50 || ms >= 10000:
		return strconv.FormatInt((ms+500)/1000, 10) + " s"
	}
	return strconv.FormatFloat(float64(ms)/1000, 'f', 1, 64) + " s"
}

// httpDates are the forms of an HTTP date (RFC 9110 5.6.7), as Go's
// net/http reads them: the module does not link net/http.
var httpDates = []string{"Mon, 02 Jan 2006 15:04:05 GMT", time.RFC850, time.ANSIC}

// RetryAfter reads a Retry-After header: seconds (digits, with an
// optional fraction), or an HTTP date, as the wait from now (none for a
// date past). False when absent or unreadable, or a date with now unknown
// (zero).
func RetryAfter(v string, now time.Time) (time.Duration, bool) {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0, false
	}
	if d, ok := seconds(v); ok {
		return d, true
	}
	if now.IsZero() {
		return 0, false
	}
	for _, layout := range httpDates {
		if t, err := time.Parse(layout, v); err == nil {
			return max(t.Sub(now), 0), true
		}
	}
	return 0, false
}

// RetryDelay finds the retryDelay of the first google.rpc.RetryInfo
// detail of an error body, a protobuf duration such as "27s" or
// "45.837906927s"; false for none.
func RetryDelay(body []byte) (time.Duration, bool) {
	if len(body) == 0 || jsondec.TooDeep(body, registry.MaxDepth) >= 0 {
		return 0, false
	}
	var e struct {
		Error struct {
			Details []struct {
				Type       string `json:"@type"`
				RetryDelay string `json:"retryDelay"`
			} `json:"details"`
		} `json:"error"`
	}
	if json.Unmarshal(body, &e) != nil {
		return 0, false
	}
	for _, d := range e.Error.Details {
		if !strings.HasSuffix(d.Type, "google.rpc.RetryInfo") {
			continue
		}
		v, ok := strings.CutSuffix(d.RetryDelay, "s")
		if !ok {
			return 0, false
		}
		return seconds(v)
	}
	return 0, false
}

// seconds reads digits with an optional fraction as a number of seconds,
// up to a day (more is a day: past any wait).
func seconds(v string) (time.Duration, bool) {
	whole, frac, dotted := strings.Cut(v, ".")
	if whole == "" || !digits(whole) || dotted && (frac == "" || !digits(frac)) {
		return 0, false
	}
	f, err := strconv.ParseFloat(v, 64)
	if err != nil {
		return 0, false
	}
	return time.Duration(min(f, 86400) * float64(time.Second)), true
}

func digits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}
