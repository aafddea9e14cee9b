package host

import (
	"testing"

	"github.com/toolroute/toolroute/registry"
)

func TestRedactor(t *testing.T) {
	r := newRedactor([]Secret{
		{Name: "KEY", Value: "sk-abcdefgh"},
		{Name: "LONG", Value: "sk-abcdefgh-and-more"},
		{Name: "SHORT", Value: "abc"},
		{Name: "QUOTED", Value: `pa"ss\word<1>`},
	})
	for _, tt := range []struct{ name, in, want string }{
		{"plain", "key sk-abcdefgh here", "key [redacted KEY] here"},
		{"the longer secret first", "sk-abcdefgh-and-more", "[redacted LONG]"},
		{"short values are not secrets", "abc abc", "abc abc"},
		{"as written", `pa"ss\word<1>`, "[redacted QUOTED]"},
		{"escaped in JSON", `{"v":"pa\"ss\\word<1>"}`, `{"v":"[redacted QUOTED]"}`},
		{"escaped in JSON with HTML escapes", `{"v":"pa\"ss\\word\u003c1\u003e"}`, `{"v":"[redacted QUOTED]"}`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := r.text(tt.in); got != tt.want {
				t.Errorf("text(%q) = %q, want %q", tt.in, got, tt.want)
			}
			if got := string(r.bytes([]byte(tt.in))); got != tt.want {
				t.Errorf("bytes(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
	res := r.result(registry.Failure("x", "failed with sk-abcdefgh"))
	if res.Message != "failed with [redacted KEY]" {
		t.Errorf("result = %+v", res)
	}
}
