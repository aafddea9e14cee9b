package store

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/toolroute/toolroute/internal/testwait"
	"github.com/toolroute/toolroute/registry/session"
)

// searchLogs are the sessions TestSearch searches.
var searchLogs = []struct {
	id   string
	msgs []session.Message
}{
	{"animals", []session.Message{
		/* 0 */ {Type: session.User, Content: "The quick brown fox jumps over the lazy dog"},
		/* 1 */ {Type: session.Assistant, Content: "Foxes are quick and clever."},
		/* 2 */ {Type: session.ToolCall, ToolName: "find", ToolInput: `{"q": "fox"}`, Content: "fox in a tool call"},
		/* 3 */ {Type: session.ToolResult, Content: "search results: fox den located", ToolName: "find"},
	}},
	{"languages", []session.Message{
		/* 0 */ {Type: session.User, Content: "Café au lait, s'il vous plaît", Time: time.Date(2025, 5, 6, 7, 8, 9, 0, time.UTC)},
		/* 1 */ {Type: session.Assistant, Content: "Grüße aus München"},
		/* 2 */ {Type: session.User, Content: "Привет мир"},
		/* 3 */ {Type: session.User, Content: "日本語 テキスト"},
	}},
	{"syntax", []session.Message{
		/* 0 */ {Type: session.User, Content: `C++ and node.js: what is -flag? (a AND b) OR c NEAR d* "quoted" col:x ^start`},
	}},
	{"ranking", []session.Message{
		/* 0 */ {Type: session.User, Content: "bm25 is mentioned once in this longer message about several other things"},
		/* 1 */ {Type: session.Assistant, Content: "bm25 bm25 bm25"},
		/* 2 */ {Type: session.User, Content: "bm25 twice: bm25 here"},
	}},
}

func TestSearch(t *testing.T) { forBackends(t, testSearch) }

func testSearch(t *testing.T, be testBackend) {
	db := be.open(t)
	ctx := t.Context()
	for _, s := range searchLogs {
		must(t, db.Append(ctx, s.id, s.msgs...))
	}
	tests := []struct {
		query string
		want  []string // "session/seq", best first
	}{
		// Words, across sessions and message types; tool calls are not
		// searched. The shorter message ranks first.
		{"fox", []string{"animals/3", "animals/0"}},
		{"FOX", []string{"animals/3", "animals/0"}},
		{"quick", []string{"animals/1", "animals/0"}},
		{"quick fox", []string{"animals/0"}},
		{"fox mir", nil},
		{"foxes", []string{"animals/1"}},
		{"a", []string{"syntax/0"}},
		// Ranking: more occurrences in shorter messages first.
		{"bm25", []string{"ranking/1", "ranking/2", "ranking/0"}},
		// Unicode.
		{"cafe", []string{"languages/0"}},
		{"CAFÉ", []string{"languages/0"}},
		{"plait", []string{"languages/0"}},
		{"grüße münchen", []string{"languages/1"}},
		{"gruße", []string{"languages/1"}},
		{"ПРИВЕТ", []string{"languages/2"}},
		{"日本語", []string{"languages/3"}},
		{"テキスト", []string{"languages/3"}},
		{"日本", nil}, // no word segmentation without spaces
		// Punctuation and FTS5 syntax are plain text.
		{"c++", []string{"syntax/0"}},
		{"node.js", []string{"syntax/0"}},
		{"js.node", nil},
		{"-flag", []string{"syntax/0"}},
		{"(a AND b)", []string{"syntax/0"}},
		{"a OR zebra", nil},
		{"NOT", nil},
		{"AND OR NEAR", []string{"syntax/0"}},
		{"NEAR(d b)", []string{"syntax/0"}}, // "near d", then "b"
		{"NEAR(a b)", nil},                  // "near a" is not in it
		{`"quoted"`, []string{"syntax/0"}},
		{`"quoted`, []string{"syntax/0"}},
		{`qu"oted`, nil},
		{"d*", []string{"syntax/0"}},
		{"col:x", []string{"syntax/0"}},
		{"content:fox", nil},
		{"^start", []string{"syntax/0"}},
		{"{fox}", []string{"animals/3", "animals/0"}},
		{"fox; DROP TABLE messages; --", nil},
		// Nothing to search for.
		{"", nil},
		{"   \t\n", nil},
		{"!!! ... --- *** ( ) : ^ \" ' +", nil},
		{`"`, nil},
		{`""""`, nil},
		{"🦊", nil},
		{"\x00", nil},
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			hits, err := db.Search(ctx, tt.query, 0)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, h := range hits {
				got = append(got, fmt.Sprintf("%s/%d", h.SessionID, h.Seq))
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Search(%q) (-want +got):\n%s", tt.query, diff)
			}
		})
	}

	must(t, db.DeleteSession(ctx, "animals"))
	hits, err := db.Search(ctx, "fox", 0)
	if err != nil || len(hits) != 0 {
		t.Errorf("Search(fox) after deleting its session = %v, %v; want nothing", hits, err)
	}
}

func TestSearchHit(t *testing.T) { forBackends(t, testSearchHit) }

func testSearchHit(t *testing.T, be testBackend) {
	db := be.open(t)
	ctx := t.Context()
	for _, s := range searchLogs {
		must(t, db.Append(ctx, s.id, s.msgs...))
	}
	tests := []struct {
		query string
		want  []Hit
	}{
		{"cafe", []Hit{{
			SessionID: "languages", Seq: 0, Type: session.User,
			Snippet: "**Café** au lait, s'il vous plaît",
			Time:    time.Date(2025, 5, 6, 7, 8, 9, 0, time.UTC),
		}}},
		{"fox den", []Hit{{
			SessionID: "animals", Seq: 3, Type: session.ToolResult,
			Snippet: "search results: **fox** **den** located",
		}}},
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			got, err := db.Search(ctx, tt.query, 0)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Search(%q) (-want +got):\n%s", tt.query, diff)
			}
		})
	}
}

func TestSearchSnippet(t *testing.T) { forBackends(t, testSearchSnippet) }

func testSearchSnippet(t *testing.T, be testBackend) {
	db := be.open(t)
	filler := strings.Repeat("lorem ipsum dolor sit amet ", 40)
	must(t, db.Append(t.Context(), "s", session.Message{
		Type:    session.Assistant,
		Content: filler + "the needle is here " + filler,
	}))
	hits, err := db.Search(t.Context(), "needle", 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) != 1 {
		t.Fatalf("Search(needle) = %+v, want one hit", hits)
	}
	s := hits[0].Snippet
	if !strings.Contains(s, "**needle**") || !strings.HasPrefix(s, "…") || !strings.HasSuffix(s, "…") {
		t.Errorf("snippet %q: want an excerpt with **needle**, cut at both ends", s)
	}
	if words := len(strings.Fields(s)); words > 16 {
		t.Errorf("snippet %q has %d words, want at most 16", s, words)
	}
}

func TestSearchLimit(t *testing.T) { forBackends(t, testSearchLimit) }

func testSearchLimit(t *testing.T, be testBackend) {
	db := be.open(t)
	ctx := t.Context()
	for i := range 30 {
		// The same length, so the same bm25: newest first.
		must(t, db.Append(ctx, fmt.Sprintf("s%02d", i), session.Message{Type: session.User, Content: "common word"}))
	}
	tests := []struct {
		limit, want int
	}{
		{limit: 1, want: 1},
		{limit: 5, want: 5},
		{limit: 0, want: DefaultSearchLimit},
		{limit: -1, want: DefaultSearchLimit},
		{limit: 100, want: 30},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprint(tt.limit), func(t *testing.T) {
			hits, err := db.Search(ctx, "common", tt.limit)
			if err != nil {
				t.Fatal(err)
			}
			if len(hits) != tt.want {
				t.Fatalf("Search(common, %d) = %d hits, want %d", tt.limit, len(hits), tt.want)
			}
			for i, h := range hits {
				if want := fmt.Sprintf("s%02d", 29-i); h.SessionID != want {
					t.Errorf("hit %d is in %s, want %s", i, h.SessionID, want)
				}
			}
		})
	}
}

func TestFTSQuery(t *testing.T) {
	tests := []struct{ query, want string }{
		{"", ""},
		{"fox", `"fox"`},
		{"  quick   brown\tfox ", `"quick" "brown" "fox"`},
		{`say "hi"`, `"say" """hi"""`},
		{"a-b *c* AND", `"a-b" "*c*" "AND"`},
		{"-- ** ::", ""},
		{"é 1 日本", `"é" "1" "日本"`},
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			if got := ftsQuery(tt.query); got != tt.want {
				t.Errorf("ftsQuery(%q) = %s, want %s", tt.query, got, tt.want)
			}
		})
	}
}

func pendingCount(t *testing.T, db *DB) int {
	t.Helper()
	var n int
	must(t, lite(db).sql.QueryRowContext(t.Context(), `SELECT count(*) FROM fts_pending`).Scan(&n))
	return n
}

// Appended messages wait in fts_pending and reach the index before a
// search; a deleted message that waited is forgotten, never "deleted" from
// an index it is not in, even when a new message takes its rowid.
func TestIndexInBatches(t *testing.T) {
	db := openTest(t)
	ctx := t.Context()
	must(t, db.Append(ctx, "s1", userMessage("alpha one"), userMessage("alpha two")))
	if n := pendingCount(t, db); n != 2 {
		t.Fatalf("%d messages pending after an append, want 2", n)
	}
	hits, err := db.Search(ctx, "alpha", 0)
	must(t, err)
	if len(hits) != 2 || pendingCount(t, db) != 0 {
		t.Fatalf("search found %+v with %d pending, want both messages and none pending", hits, pendingCount(t, db))
	}

	must(t, db.Append(ctx, "s2", userMessage("beta")))
	must(t, db.DeleteSession(ctx, "s2")) // pending when deleted
	checkIntegrity(t, db)

	must(t, db.DeleteSession(ctx, "s1")) // indexed when deleted
	// The new messages take the deleted ones' rowids again.
	must(t, db.Append(ctx, "s3", userMessage("gamma one"), userMessage("gamma two")))
	hits, err = db.Search(ctx, "gamma", 0)
	must(t, err)
	if len(hits) != 2 || hits[0].SessionID != "s3" {
		t.Fatalf("search for gamma = %+v, want s3's two messages", hits)
	}
	if hits, err := db.Search(ctx, "alpha", 0); err != nil || len(hits) != 0 {
		t.Fatalf("search for the deleted alpha = %+v, %v; want none", hits, err)
	}
	checkIntegrity(t, db)
}

// With no search, the indexer indexes what was appended at its next round
// (indexEvery; the failsafe allows a busy machine), and Close indexes what
// is left.
func TestIndexWithoutSearch(t *testing.T) {
	db := openTest(t)
	ctx := t.Context()
	must(t, db.Append(ctx, "s", userMessage("delta")))
	for deadline := time.Now().Add(testwait.Failsafe); pendingCount(t, db) > 0; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%d messages still pending after %v", pendingCount(t, db), testwait.Failsafe)
		}
	}

	path := filepath.Join(t.TempDir(), "toolroute.db")
	other, err := Open(ctx, path)
	must(t, err)
	must(t, other.Append(ctx, "s", userMessage("epsilon")))
	must(t, other.Close())
	again, err := Open(ctx, path)
	must(t, err)
	defer again.Close()
	if n := pendingCount(t, again); n != 0 {
		t.Errorf("%d messages pending after Close, want 0", n)
	}
}
