package store

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/toolroute/toolroute/registry/session"
)

// historyOf returns db's cache of logs.
func historyOf(db *DB) *historyCache {
	switch b := db.backend.(type) {
	case *liteDB:
		return &b.history
	case *pgDB:
		return &b.history
	}
	panic("unknown backend")
}

func appendN(t *testing.T, db *DB, id string, from, n int) {
	t.Helper()
	for i := from; i < from+n; i++ {
		if err := db.Append(t.Context(), id, session.Message{Type: session.User, Content: fmt.Sprintf("%s message %d", id, i), Time: clockStart}); err != nil {
			t.Fatal(err)
		}
	}
}

// readBoth reads a session through db, which caches, and through fresh, a
// DB on the same file that has read nothing yet, and wants them equal.
func readBoth(t *testing.T, db *DB, path, id string, want int) []session.Message {
	t.Helper()
	got, err := db.Messages(t.Context(), id)
	if err != nil {
		t.Fatal(err)
	}
	fresh, err := Open(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer fresh.Close()
	truth, err := fresh.Messages(t.Context(), id)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(truth, got); diff != "" {
		t.Fatalf("the cached read differs from the file (-file +cached):\n%s", diff)
	}
	if len(got) != want {
		t.Fatalf("%d messages, want %d", len(got), want)
	}
	return got
}

// A read after appends, by this DB or another on the file, gives what the
// file holds, decoding only what is new.
func TestHistoryCacheFollowsTheFile(t *testing.T) { forBackends(t, testHistoryCacheFollowsTheFile) }

func testHistoryCacheFollowsTheFile(t *testing.T, be testBackend) {
	dbs := be.openShared(t, 2)
	db, other := dbs[0], dbs[1]
	path := db.Path()
	appendN(t, db, "s", 0, 3)
	readBoth(t, db, path, "s", 3)
	if historyOf(db).get("s") == nil {
		t.Fatal("the log read is not cached")
	}
	appendN(t, db, "s", 3, 2)
	readBoth(t, db, path, "s", 5)
	appendN(t, other, "s", 5, 2)
	got := readBoth(t, db, path, "s", 7)

	// The caller's copy is its own.
	got[0].Content = "changed by the caller"
	readBoth(t, db, path, "s", 7)

	// Another process deletes the session and makes one of the same id with
	// as many messages, which get the same rowids again: a new session, not
	// the cached one.
	if err := other.DeleteSession(t.Context(), "s"); err != nil {
		t.Fatal(err)
	}
	appendN(t, other, "s", 100, 7)
	readBoth(t, db, path, "s", 7)
	appendN(t, db, "s", 107, 1)
	readBoth(t, db, path, "s", 8)
	if err := other.DeleteSession(t.Context(), "s"); err != nil {
		t.Fatal(err)
	}
	readBoth(t, db, path, "s", 0)
}

// Two reads extending the same cached log at once each get the whole log.
func TestHistoryCacheConcurrentReads(t *testing.T) { forBackends(t, testHistoryCacheConcurrentReads) }

func testHistoryCacheConcurrentReads(t *testing.T, be testBackend) {
	db := be.open(t)
	appendN(t, db, "s", 0, 10)
	if _, err := db.Messages(t.Context(), "s"); err != nil {
		t.Fatal(err)
	}
	appendN(t, db, "s", 10, 5)
	results := make(chan []session.Message, 8)
	for range 8 {
		go func() {
			msgs, err := db.Messages(t.Context(), "s")
			if err != nil {
				t.Error(err)
			}
			results <- msgs
		}()
	}
	for range 8 {
		msgs := <-results
		if len(msgs) != 15 {
			t.Fatalf("%d messages, want 15", len(msgs))
		}
		for i, m := range msgs {
			if want := fmt.Sprintf("s message %d", i); m.Content != want {
				t.Fatalf("message %d = %q, want %q", i, m.Content, want)
			}
		}
	}
}

// The cache keeps within its budget, dropping the least recently read.
func TestHistoryCacheBudget(t *testing.T) {
	var c historyCache
	quarter := historyCacheBytes / 4
	for _, id := range []string{"a", "b", "c", "d"} {
		c.put(&cachedLog{id: id, bytes: quarter})
	}
	c.get("a") // read last: b is now the oldest
	c.put(&cachedLog{id: "e", bytes: 1})
	for id, want := range map[string]bool{"a": true, "b": false, "c": true, "d": true, "e": true} {
		if got := c.get(id) != nil; got != want {
			t.Errorf("%s kept: %v, want %v", id, got, want)
		}
	}
	if c.bytes > historyCacheBytes {
		t.Errorf("%d bytes kept, over the budget of %d", c.bytes, historyCacheBytes)
	}
	c.put(&cachedLog{id: "huge", bytes: quarter + 1})
	if c.get("huge") != nil {
		t.Error("a log over a quarter of the budget was kept")
	}
}

// ReleaseCaches forgets every decoded log, a turn's too, and the reads
// after it, and the turn's last append, give what the file holds.
func TestReleaseCaches(t *testing.T) { forBackends(t, testReleaseCaches) }

func testReleaseCaches(t *testing.T, be testBackend) {
	db := be.open(t)
	path := db.Path()
	for _, id := range []string{"a", "b"} {
		appendN(t, db, id, 0, 3)
		readBoth(t, db, path, id, 3)
	}
	unlock, ok, err := db.LockTurn(t.Context(), "a")
	if err != nil || !ok {
		t.Fatalf("LockTurn: %v, %v", ok, err)
	}
	defer unlock()
	if _, err := db.Messages(t.Context(), "a"); err != nil {
		t.Fatal(err)
	}
	if historyOf(db).bytes == 0 {
		t.Fatal("nothing is cached")
	}
	db.ReleaseCaches()
	if c := historyOf(db); c.bytes != 0 || c.get("a") != nil || c.get("b") != nil || c.order.Len() != 0 {
		t.Fatalf("after ReleaseCaches, %d bytes and %d logs are kept", c.bytes, c.order.Len())
	}
	if err := db.AppendUnlock(t.Context(), "a", session.Message{Type: session.Assistant, Content: "the turn's reply", Time: clockStart}); err != nil {
		t.Fatal(err)
	}
	if got := readBoth(t, db, path, "a", 4); got[3].Content != "the turn's reply" {
		t.Errorf("the last message is %q", got[3].Content)
	}
	readBoth(t, db, path, "b", 3)
	appendN(t, db, "b", 3, 1)
	readBoth(t, db, path, "b", 4)
}
