package host_test

import (
	"context"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"testing/fstest"
	"time"

	"github.com/toolroute/toolroute/host"
	"github.com/toolroute/toolroute/host/jsrun"
	"github.com/toolroute/toolroute/internal/fakemodel"
	"github.com/toolroute/toolroute/internal/module"
	"github.com/toolroute/toolroute/internal/testcache"
	"github.com/toolroute/toolroute/registry/wire"
)

// BenchmarkMemoryBombs is one model response of 32 calls of a JS tool that
// allocates until its 64 MB limit stops it, through a Host with the
// default MaxParallelTools (4, of which one session runs 3 at once): the
// peak resident memory of the process is the bound issue 14 asks for (16
// such calls once took chat to 2.5 GB).
func BenchmarkMemoryBombs(b *testing.B) {
	runner, err := jsrun.New(jsrun.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer runner.Close()
	tools := fstest.MapFS{
		"bomb.json": {Data: []byte(`{"name":"bomb","description":"Takes all the memory it may","timeoutSeconds":60}`)},
		"bomb.js":   {Data: []byte(`function execute() { const a = []; for (;;) a.push({a: 1, b: [1, 2, 3], s: "x" + a.length}); }`)},
	}
	var calls []fakemodel.Call
	for range 32 {
		calls = append(calls, fakemodel.Call{Name: "bomb", Args: `{}`})
	}
	var peak atomic.Int64
	stop := make(chan struct{})
	go func() {
		for {
			if v := rss(); v > peak.Load() {
				peak.Store(v)
			}
			select {
			case <-stop:
				return
			case <-time.After(10 * time.Millisecond):
			}
		}
	}()
	for b.Loop() {
		model := fakemodel.New(fakemodel.OpenAI, fakemodel.ToolCalls(calls...), fakemodel.Text("Done."))
		h, err := host.New(context.Background(), host.Options{
			Provider:    &host.HTTPProvider{Wire: wire.OpenAI, BaseURL: model.BaseURL(), APIKey: "k", ModelName: "m"},
			NoBuiltins:  true,
			ToolFolders: []host.ToolFolder{{FS: tools, Label: "bench"}},
			JS:          runner,
			Module:      module.Config{CacheDir: testcache.Module(cacheDir)},
		})
		if err != nil {
			b.Fatal(err)
		}
		for ev, err := range h.Session("bombs").Send(context.Background(), "Go") {
			if err != nil {
				b.Fatal(err)
			}
			if ev.Type == host.EventFailed {
				b.Fatalf("the turn failed: %+v", ev.Failure)
			}
		}
		h.Close(context.Background())
		model.Close()
	}
	close(stop)
	b.ReportMetric(float64(peak.Load()), "peak-rss-bytes")
}

// rss is the process's resident memory, from /proc (0 elsewhere).
func rss() int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return kb << 10
		}
	}
	return 0
}
