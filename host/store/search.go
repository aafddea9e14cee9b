package store

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"
	"unicode"

	"github.com/toolroute/toolroute/registry/session"
)

// DefaultSearchLimit is the number of hits Search returns when asked for
// none or fewer.
const DefaultSearchLimit = 20

// Hit is one message found by Search.
type Hit struct {
	SessionID string
	// Seq is the message's position in its session's log: the index into
	// what Messages returns.
	Seq  int
	Type session.MessageType
	// Snippet is a short excerpt of the message's content around the
	// matched words, which are marked **like this**; "…" marks text left
	// out.
	Snippet string
	// Time is the message's own time, zero if it has none.
	Time time.Time
}

// Search finds the user, assistant and tool_result messages of all sessions
// whose content has every word of query, best matches first (FTS5's bm25),
// then newest first. At most limit hits are returned, DefaultSearchLimit if
// limit is 0 or less.
//
// The query is plain words as a person or a model types them: FTS5 syntax
// has no meaning in it, and punctuation separates words as it does in the
// content. Matching ignores case and diacritics (cafe finds café). A query
// with no letters or digits finds nothing. Words are split at spaces and
// punctuation, so a word within text written without spaces (Chinese,
// Japanese) is found only as a whole run.
func (db *liteDB) Search(ctx context.Context, query string, limit int) ([]Hit, error) {
	match := ftsQuery(query)
	if match == "" {
		return nil, nil
	}
	if limit <= 0 {
		limit = DefaultSearchLimit
	}
	if err := db.indexPending(ctx); err != nil {
		return nil, fmt.Errorf("store: search %q: indexing the latest messages: %w", query, err)
	}
	rows, err := db.sql.QueryContext(ctx, `
		SELECT m.session_id, m.seq, m.type, m.time,
			snippet(messages_fts, 0, '**', '**', '…', 16)
		FROM messages_fts JOIN messages AS m ON m.id = messages_fts.rowid
		WHERE messages_fts MATCH ?
		ORDER BY messages_fts.rank, m.id DESC
		LIMIT ?`, match, limit)
	if err != nil {
		return nil, fmt.Errorf("store: search %q: %w", query, err)
	}
	defer rows.Close()
	var hits []Hit
	for rows.Next() {
		var (
			h  Hit
			at sql.NullInt64
		)
		if err := rows.Scan(&h.SessionID, &h.Seq, &h.Type, &at, &h.Snippet); err != nil {
			return nil, fmt.Errorf("store: search %q: %w", query, err)
		}
		if at.Valid {
			h.Time = fromNanos(at.Int64)
		}
		hits = append(hits, h)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: search %q: %w", query, err)
	}
	return hits, nil
}

// ftsQuery turns plain words into an FTS5 query that matches them all: each
// word becomes a quoted string, in which FTS5 gives no character a meaning
// but the doubled quote. Words with no letter or digit, which would be empty
// strings once tokenized, are dropped; "" means nothing can match.
func ftsQuery(query string) string {
	var words []string
	for _, w := range strings.Fields(query) {
		if !strings.ContainsFunc(w, isWordRune) {
			continue
		}
		words = append(words, `"`+strings.ReplaceAll(w, `"`, `""`)+`"`)
	}
	return strings.Join(words, " ")
}

func isWordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsNumber(r) }

// The search index is filled in batches: an append notes its messages in
// fts_pending (schema version 4), and indexPending puts every noted message
// into messages_fts in one transaction: before each search, at most
// indexEvery after an append, and when the DB closes. Indexing a message
// in the append's own transaction was 60 % of its cost, most of it
// per transaction (FTS5 writes a segment per commit).

// indexEvery is how long appended messages may wait for the index when
// nothing searches.
const indexEvery = time.Second

// indexPending indexes the messages appended and not yet indexed, by any
// process sharing the file.
func (db *liteDB) indexPending(ctx context.Context) error {
	var pending bool
	if err := db.sql.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM fts_pending)`).Scan(&pending); err != nil {
		return err
	}
	if !pending {
		return nil
	}
	return db.write(ctx, func(ctx context.Context, tx *sql.Conn) error {
		if _, err := db.exec(ctx, tx, `
			INSERT INTO messages_fts (rowid, content)
			SELECT m.id, m.content FROM fts_pending AS p JOIN messages AS m ON m.id = p.id ORDER BY p.id`); err != nil {
			return err
		}
		_, err := db.exec(ctx, tx, `DELETE FROM fts_pending`)
		return err
	})
}

// indexer indexes what this DB appended, indexEvery after it, until the DB
// closes.
func (db *liteDB) indexer() {
	defer close(db.indexerDone)
	tick := time.NewTicker(indexEvery)
	defer tick.Stop()
	for {
		select {
		case <-db.closing:
			return
		case <-tick.C:
		}
		if db.unindexed.Swap(false) {
			if err := db.indexPending(context.Background()); err != nil {
				db.unindexed.Store(true) // tried again at the next tick
			}
		}
	}
}
