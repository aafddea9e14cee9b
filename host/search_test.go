package host

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/toolroute/toolroute/registry"
	"github.com/toolroute/toolroute/registry/session"
)

// The searcher ranks only once its ranker is the current catalogue's:
// before the first is built, and while a changed catalogue is embedded,
// turns leave the ranking to the module (fresh is false), and a search
// already handed to the host ranks with the ranker it has.
func TestSearcherFreshness(t *testing.T) {
	s := newSearcher(Options{SearchTools: true, SearchCacheDir: "-"})
	call := session.Call{ID: "c", Search: &session.SearchCall{Query: "play a number puzzle", Limit: 2, Candidates: []string{"sudoku", "figlet", "weather"}}}
	if s.fresh() {
		t.Error("fresh before any catalogue")
	}
	if r := s.answer(call); r.Status != registry.StatusError || r.ErrorType != "execution_error" {
		t.Errorf("answered %+v with no ranker, want a failure", r)
	}
	games := []registry.SearchDoc{
		{Name: "sudoku", Description: "A sudoku game", Group: "fun"},
		{Name: "figlet", Description: "Text as ASCII art fonts", Group: "fun"},
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	s.update(s.pending(), games, nil)
	if err := s.wait(ctx); err != nil {
		t.Fatal(err)
	}
	if !s.fresh() {
		t.Fatal("not fresh once built")
	}
	if r := s.answer(call); r.Status != registry.StatusSuccess || !slices.Equal(r.Tools, []string{"sudoku", "figlet"}) {
		t.Errorf("answered %+v, want sudoku then figlet", r)
	}
	gen := s.pending()
	if s.fresh() {
		t.Error("fresh while a new catalogue's documents are asked for")
	}
	s.update(gen, games, nil) // the same documents: nothing to build
	if !s.fresh() {
		t.Error("not fresh after an update that changed nothing")
	}

	more := append(slices.Clone(games), registry.SearchDoc{Name: "weather", Description: "The weather forecast", Group: "fun"})
	stale := s.pending()
	s.update(s.pending(), more, nil)
	s.update(stale, games, nil) // an older catalogue's documents, late
	if s.fresh() {
		t.Error("fresh at once after the catalogue changed")
	}
	if r := s.answer(call); r.Status != registry.StatusSuccess || len(r.Tools) == 0 {
		t.Errorf("while building, answered %+v: want the last ranker's answer", r)
	}
	if err := s.wait(ctx); err != nil {
		t.Fatal(err)
	}
	if !s.fresh() || !slices.Contains(s.answer(session.Call{Search: &session.SearchCall{Query: "will it rain", Limit: 1, Candidates: []string{"weather"}}}).Tools, "weather") {
		t.Error("the new catalogue's ranker does not find its new tool")
	}
	s.builds.Wait()
}

// A host leaves ranking to the module without search_tools, or when told.
func TestNewSearcher(t *testing.T) {
	for _, o := range []Options{{}, {SearchTools: true, NoEncoderSearch: true}} {
		if s := newSearcher(o); s != nil || s.fresh() {
			t.Errorf("%+v: a searcher", o)
		}
	}
	if s := newSearcher(Options{SearchTools: true}); s == nil {
		t.Error("no searcher with search_tools")
	}
}
