package host

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"github.com/toolroute/toolroute/internal/toolsearch"
	"github.com/toolroute/toolroute/registry"
	"github.com/toolroute/toolroute/registry/session"
)

// searcher ranks the module's search_tools calls as `toolroute search`
// does (package toolsearch), over the catalogue's search documents. Its
// ranker is built in the background after each change of the catalogue,
// one build at a time, since embedding a large catalogue takes seconds:
// a turn lets the host rank (session.Settings.HostSearch) only when the
// ranker is the current catalogue's, and the module ranks until then.
type searcher struct {
	cacheDir string

	mu sync.Mutex
	// ranker was built from the documents of key have; want is the key of
	// the current catalogue's, wantDocs them, "" while the module is asked
	// for them (pending). ready is closed (settled) when have becomes want,
	// or a build failed (err).
	ranker *toolsearch.Ranker
	have   string
	want   string
	// gen counts the catalogues: a catalogue's documents are taken only
	// while it is the last one pending.
	gen      int
	wantDocs []registry.SearchDoc
	ready    chan struct{}
	settled  bool
	building bool
	err      error
	builds   sync.WaitGroup
}

// newSearcher returns the searcher of a host's options, or nil when the
// host leaves ranking to the module.
func newSearcher(opts Options) *searcher {
	if !opts.SearchTools || opts.NoEncoderSearch {
		return nil
	}
	dir := opts.SearchCacheDir
	switch dir {
	case "-":
		dir = ""
	case "":
		if base, err := os.UserCacheDir(); err == nil {
			dir = filepath.Join(base, "toolroute")
		}
	}
	return &searcher{cacheDir: dir, ready: make(chan struct{})}
}

// pending marks the ranker stale until update gives the documents of a
// new catalogue, and returns the number update takes.
func (s *searcher) pending() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.gen++
	s.want, s.wantDocs = "", nil
	if s.settled {
		s.ready, s.settled = make(chan struct{}), false
	}
	return s.gen
}

// update makes docs the catalogue to rank, the documents of catalogue gen
// (pending), building its ranker unless it is built or being built; err
// is why there are no documents. A newer catalogue's pending drops them.
func (s *searcher) update(gen int, docs []registry.SearchDoc, err error) {
	key := docsKey(docs)
	s.mu.Lock()
	defer s.mu.Unlock()
	if gen != s.gen {
		return
	}
	if err != nil {
		s.err = fmt.Errorf("the module's description of the catalogue: %w", err)
		s.settle()
		return
	}
	s.want, s.wantDocs = key, docs
	if key == s.have {
		s.err = nil
		s.settle()
		return
	}
	if !s.building {
		s.building = true
		s.builds.Add(1)
		go s.build(key, docs)
	}
}

// settle closes ready once the ranker is the current catalogue's, or its
// build failed.
func (s *searcher) settle() {
	if !s.settled && (s.have == s.want || s.err != nil) {
		close(s.ready)
		s.settled = true
	}
}

// build builds rankers until one is the current catalogue's.
func (s *searcher) build(key string, docs []registry.SearchDoc) {
	defer s.builds.Done()
	for {
		r, err := toolsearch.New(docs, toolsearch.Options{Weights: toolsearch.DefaultWeights(), CacheDir: s.cacheDir})
		s.mu.Lock()
		s.err = err
		if err == nil {
			// Kept even when the catalogue changed since: a turn that
			// began before the change ranks with it.
			s.ranker, s.have = r, key
		}
		if key == s.want {
			s.settle()
			s.building = false
			s.mu.Unlock()
			return
		}
		if s.want == "" {
			// A new catalogue's documents are being asked for: update
			// starts the next build.
			s.building = false
			s.mu.Unlock()
			return
		}
		key, docs = s.want, s.wantDocs
		s.mu.Unlock()
	}
}

// fresh reports whether the ranker is the current catalogue's.
func (s *searcher) fresh() bool {
	if s == nil {
		return false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.ranker != nil && s.have == s.want
}

// wait blocks until the ranker is the current catalogue's, or ctx ends.
func (s *searcher) wait(ctx context.Context) error {
	if s == nil {
		return nil
	}
	s.mu.Lock()
	ready := s.ready
	s.mu.Unlock()
	select {
	case <-ready:
	case <-ctx.Done():
		return ctx.Err()
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err != nil {
		return fmt.Errorf("host: ranking search_tools: %w", s.err)
	}
	return nil
}

// answer ranks a search call: the best of its candidates, best first.
func (s *searcher) answer(c session.Call) session.Result {
	res := session.Result{ID: c.ID}
	if s == nil || c.Search == nil {
		res.Result = registry.Failure("execution_error", "this host does not rank tool searches: call load_tool_group with a group listed in the system prompt instead")
		return res
	}
	s.mu.Lock()
	r := s.ranker
	s.mu.Unlock()
	if r == nil {
		res.Result = registry.Failure("execution_error", "the tool search is not ready yet: call load_tool_group with a group listed in the system prompt, or search again in a moment")
		return res
	}
	res.Result = registry.Success("")
	res.Tools = []string{}
	for _, h := range r.SearchAmong(c.Search.Query, c.Search.Limit, c.Search.Candidates) {
		res.Tools = append(res.Tools, h.Name)
	}
	return res
}

// docsKey tells catalogues apart by what their ranking reads.
func docsKey(docs []registry.SearchDoc) string {
	h := sha256.New()
	var n [8]byte
	for _, d := range docs {
		for _, f := range []string{d.Name, d.Title, d.Description, d.Detail, d.Params, d.Group} {
			binary.LittleEndian.PutUint64(n[:], uint64(len(f)))
			h.Write(n[:])
			h.Write([]byte(f))
		}
	}
	return fmt.Sprintf("%d:%x", len(docs), h.Sum(nil))
}

// WaitSearch blocks until the host ranks search_tools itself for the
// current catalogue (Options.NoEncoderSearch), or ctx ends: until then
// turns leave the ranking to the module. It returns at once for a host
// that never ranks, and an error when the ranker cannot be built.
func (h *Host) WaitSearch(ctx context.Context) error { return h.search.wait(ctx) }
