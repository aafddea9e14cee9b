package host_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"runtime/metrics"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/toolroute/toolroute/host"
	"github.com/toolroute/toolroute/host/store"
	"github.com/toolroute/toolroute/internal/module"
	"github.com/toolroute/toolroute/internal/pgtest"
	"github.com/toolroute/toolroute/internal/proccpu"
	"github.com/toolroute/toolroute/internal/testcache"
	"github.com/toolroute/toolroute/registry/wire"
)

// textModel answers every request with the same OpenAI text reply. Unlike
// fakemodel it keeps no script and records nothing, so a long benchmark
// neither runs out of replies nor grows the heap it measures.
func textModel(tb testing.TB) *httptest.Server {
	tb.Helper()
	reply := []byte(`{"id":"chatcmpl-bench","object":"chat.completion","model":"fake",` +
		`"choices":[{"index":0,"message":{"role":"assistant","content":"Done."},"finish_reason":"stop"}],` +
		`"usage":{"prompt_tokens":10,"completion_tokens":5,"total_tokens":15}}`)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		w.Write(reply)
	}))
	tb.Cleanup(srv.Close)
	return srv
}

// heapPeak samples the Go heap's live and unswept objects until stopped.
type heapPeak struct {
	peak atomic.Uint64
	stop chan struct{}
	done chan struct{}
}

const heapMetric = "/memory/classes/heap/objects:bytes"

func sampleHeap(every time.Duration) *heapPeak {
	p := &heapPeak{stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(p.done)
		s := []metrics.Sample{{Name: heapMetric}}
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			metrics.Read(s)
			if v := s[0].Value.Uint64(); v > p.peak.Load() {
				p.peak.Store(v)
			}
			select {
			case <-p.stop:
				return
			case <-t.C:
			}
		}
	}()
	return p
}

func (p *heapPeak) Stop() uint64 {
	close(p.stop)
	<-p.done
	return p.peak.Load()
}

// BenchmarkThroughput runs b.N text-only turns through one Host, spread over
// K sessions that send at once, each on its own goroutine, against a local
// model that answers at once: what is measured is the host (store, module
// pool, wire encoding, HTTP on loopback), not a model. A session's history
// grows by its turns, so fewer sessions mean longer histories per turn. The
// store is a MemoryStore. What is timed is the steady state: each
// session's first turn, which makes the pool's instances and the store's
// sessions, runs before, all sessions at once, and is reported apart as
// cold-first-turns-ns.
func BenchmarkThroughput(b *testing.B) {
	for _, k := range []int{1, 8, 64} {
		b.Run(fmt.Sprintf("sessions=%d", k), func(b *testing.B) {
			throughput(b, k, host.NewMemoryStore())
		})
	}
}

// BenchmarkThroughputSQLite is BenchmarkThroughput with the SQLite store
// the program uses (host/store), a new database file per run: every turn
// takes the session's turn lock, reads its history and commits its
// messages to disk.
func BenchmarkThroughputSQLite(b *testing.B) {
	for _, k := range []int{1, 8, 64} {
		b.Run(fmt.Sprintf("sessions=%d", k), func(b *testing.B) {
			db, err := store.Open(context.Background(), filepath.Join(b.TempDir(), "toolroute.db"))
			if err != nil {
				b.Fatal(err)
			}
			defer db.Close()
			throughput(b, k, db)
		})
	}
}

// BenchmarkThroughputPostgres is BenchmarkThroughputSQLite with the
// PostgreSQL store: a server of its own on a unix socket of this machine,
// with its default durability (fsync on, synchronous_commit on: every
// commit flushed to the disk), and a new database per run.
func BenchmarkThroughputPostgres(b *testing.B) {
	srv := pgtest.Durable(b)
	for _, k := range []int{1, 8} {
		b.Run(fmt.Sprintf("sessions=%d", k), func(b *testing.B) {
			url, err := srv.NewDatabase(context.Background())
			if err != nil {
				b.Fatal(err)
			}
			db, err := store.Open(context.Background(), url)
			if err != nil {
				b.Fatal(err)
			}
			defer db.Close()
			throughput(b, k, db)
		})
	}
}

func throughput(b *testing.B, k int, st host.Store) {
	ctx := context.Background()
	model := textModel(b)
	var mu sync.Mutex
	var calls []string
	groups, tools := pdfTools(&calls, &mu)
	h, err := host.New(ctx, host.Options{
		Provider:   &host.HTTPProvider{Wire: wire.OpenAI, BaseURL: model.URL + "/v1", APIKey: "test-key", ModelName: "fake-model"},
		NoBuiltins: true,
		Groups:     groups,
		Tools:      tools,
		Store:      st,
		Module:     module.Config{CacheDir: testcache.Module(cacheDir)},
	})
	if err != nil {
		b.Fatal(err)
	}
	defer h.Close(ctx)

	sessions := make([]*host.Session, k)
	for i := range sessions {
		sessions[i] = h.Session(fmt.Sprintf("bench-%d", i))
	}
	// Each session's first turn, all at once, is the cold part, timed on
	// its own: it makes the pool's instances and the store's sessions. The
	// turns measured after it are the steady state.
	start := time.Now()
	sent := make([]bool, k) // each goroutine touches its own
	if err := runTurns(ctx, sessions, func(i int) (int, bool) {
		first := !sent[i]
		sent[i] = true
		return 0, first
	}); err != nil {
		b.Fatal(err)
	}
	cold := time.Since(start)

	var next atomic.Int64
	peak := sampleHeap(time.Millisecond)
	b.ResetTimer()
	cpu := proccpu.Used()
	err = runTurns(ctx, sessions, func(int) (int, bool) {
		n := next.Add(1)
		return int(n), n <= int64(b.N)
	})
	b.StopTimer()
	cpu = proccpu.Used() - cpu
	heap := peak.Stop()
	if err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "turns/s")
	b.ReportMetric(float64(cold.Nanoseconds()), "cold-first-turns-ns")
	b.ReportMetric(float64(heap), "peak-heap-bytes")
	if cpu > 0 {
		b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N), "cpu-ns/op")
	}
}

// runTurns runs turns on sessions, one goroutine each, until take says no
// more: take(i) gives the number of the next turn of session i (its text
// says it) and whether to send it. It returns the first error, or a turn
// that ended on anything but done.
func runTurns(ctx context.Context, sessions []*host.Session, take func(i int) (int, bool)) error {
	errs := make(chan error, len(sessions))
	var wg sync.WaitGroup
	for i, s := range sessions {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for n, ok := take(i); ok; n, ok = take(i) {
				var last host.Event
				for ev, err := range s.Send(ctx, fmt.Sprintf("Turn %d.", n)) {
					if err != nil {
						errs <- err
						return
					}
					last = ev
				}
				if last.Type != host.EventDone {
					errs <- fmt.Errorf("turn %d ended with %+v", n, last)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	return <-errs
}
