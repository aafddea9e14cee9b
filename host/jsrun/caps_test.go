package jsrun

import (
	"net/http/httptest"
	goruntime "runtime"
	"strings"
	"testing"

	"github.com/toolroute/toolroute/internal/gzipbomb"
)

// A body of 400 MB gzipped into half a megabyte, fetched, downloaded or
// answering an upload: each reads no more than its cap (5 MB at most) of
// the inflated body and says so, and the call allocates tens of times that at
// most (the copies a body goes through to reach the tool), not the 800
// MB reading the inflated body takes.
func TestBodyCapsHoldInflated(t *testing.T) {
	bomb := httptest.NewServer(gzipbomb.Handler("text/plain", gzipbomb.Make("", "a", "", 400<<20)))
	defer bomb.Close()
	r := newRunner(t, Options{SandboxRoot: t.TempDir(), Fetch: FetchOptions{AllowPrivate: true}})
	for _, tc := range []struct {
		name, code, want string
	}{
		{"fetch", `async function execute(p) { const r = await fetch(p.url); return r.text(); }`,
			"[toolroute: the body was cut at 100 KB: kept 102400 of more bytes]"},
		{"fetch with maxBytes", `async function execute(p) { const r = await fetch(p.url, {maxBytes: 1e9}); return (await r.text()).slice(-200); }`,
			"[toolroute: the body was cut at 5120 KB: kept 5242880 of more bytes]"},
		{"download", `async function execute(p) { return downloadToFile(p.url, "f.bin"); }`,
			"is over 5242880 bytes (5 MB), the most a download saves: nothing was written"},
		{"upload's answer", `async function execute(p) { return uploadMultipart(p.url, [{content: "x"}], {"Content-Type": "multipart/related"}); }`,
			"[toolroute: the body was cut at 100 KB]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var before, after goruntime.MemStats
			goruntime.ReadMemStats(&before)
			res := callParams(r, tc.code, map[string]string{"url": bomb.URL}, failsafe)
			goruntime.ReadMemStats(&after)
			if out := res.Output + res.Message; !strings.Contains(out, tc.want) {
				t.Errorf("the call = %.300s…, want %q", out, tc.want)
			}
			if n := after.TotalAlloc - before.TotalAlloc; n > 300<<20 {
				t.Errorf("the call allocated %d MB, want at most tens of times its 5 MB cap", n>>20)
			}
		})
	}
}
