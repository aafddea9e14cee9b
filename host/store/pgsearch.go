package store

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/toolroute/toolroute/registry/session"
)

// Search on PostgreSQL answers as SQLite's FTS5 does (search.go): the
// messages' words (terms.go) are kept in an array with a GIN index, which
// finds the messages holding every word of the query; the phrases are then
// checked and the hits ranked here, by FTS5's bm25 (k1 = 1.2, b = 0.75)
// then newest first, and their snippets cut as FTS5's snippet does, 16
// words at most.

const (
	bm25K1       = 1.2
	bm25B        = 0.75
	snippetWords = 16
)

func (db *pgDB) Search(ctx context.Context, query string, limit int) ([]Hit, error) {
	phrases := searchPhrases(query)
	if len(phrases) == 0 {
		return nil, nil
	}
	if limit <= 0 {
		limit = DefaultSearchLimit
	}
	hits, err := db.search(ctx, phrases, limit)
	if err != nil {
		return nil, fmt.Errorf("store: search %q: %w", query, pgError(err))
	}
	return hits, nil
}

// found is a message that matches, with its rank.
type found struct {
	id    int64
	hit   Hit
	score float64 // FTS5's bm25: lower is better
}

func (db *pgDB) search(ctx context.Context, phrases [][]string, limit int) ([]Hit, error) {
	var all []string
	for _, p := range phrases {
		for _, t := range p {
			if !slices.Contains(all, t) {
				all = append(all, t)
			}
		}
	}
	// One snapshot for the statistics and the rows.
	tx, err := db.pool.BeginTx(ctx, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly})
	if err != nil {
		return nil, err
	}
	defer tx.Rollback(context.WithoutCancel(ctx))
	var rowsN, tokensN int64
	if err := tx.QueryRow(ctx, `SELECT count(*), coalesce(sum(cardinality(terms)), 0)
		FROM messages WHERE terms IS NOT NULL`).Scan(&rowsN, &tokensN); err != nil {
		return nil, err
	}
	rows, err := tx.Query(ctx, `SELECT id, session_id, seq, type, time, content
		FROM messages WHERE terms @> $1::text[]`, all)
	if err != nil {
		return nil, err
	}
	type candidate struct {
		found
		content string
		toks    []token
		spans   [][2]int // the phrases' matches: first and last token
		freq    []int    // matches per phrase
	}
	var cands []candidate
	var (
		c   candidate
		typ string
		seq int32
		at  *int64
	)
	_, err = pgx.ForEachRow(rows, []any{&c.id, &c.hit.SessionID, &seq, &typ, &at, &c.content}, func() error {
		toks := tokenize(c.content)
		freq, spans := phraseMatches(toks, phrases)
		if slices.Contains(freq, 0) {
			return nil // the words are there, a phrase is not
		}
		k := candidate{found: c.found, content: c.content, toks: toks, spans: spans, freq: freq}
		k.hit.Seq, k.hit.Type = int(seq), session.MessageType(typ)
		if at != nil {
			k.hit.Time = fromNanos(*at)
		}
		cands = append(cands, k)
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(cands) == 0 {
		return nil, nil
	}
	// Rows holding each phrase's words, for its weight (idf).
	idf := make([]float64, len(phrases))
	for i, p := range phrases {
		var n int64
		if err := tx.QueryRow(ctx, `SELECT count(*) FROM messages WHERE terms @> $1::text[]`, p).Scan(&n); err != nil {
			return nil, err
		}
		idf[i] = math.Log((float64(rowsN) - float64(n) + 0.5) / (float64(n) + 0.5))
		if idf[i] <= 0 {
			idf[i] = 1e-6
		}
	}
	avg := float64(tokensN) / float64(max(rowsN, 1))
	for i := range cands {
		k := &cands[i]
		d := float64(len(k.toks))
		score := 0.0
		for j, f := range k.freq {
			ff := float64(f)
			score += idf[j] * ff * (bm25K1 + 1) / (ff + bm25K1*(1-bm25B+bm25B*d/avg))
		}
		k.score = -score
	}
	slices.SortFunc(cands, func(a, b candidate) int {
		if c := cmp.Compare(a.score, b.score); c != 0 {
			return c
		}
		return cmp.Compare(b.id, a.id)
	})
	cands = cands[:min(len(cands), limit)]
	hits := make([]Hit, len(cands))
	for i, k := range cands {
		hits[i] = k.hit
		hits[i].Snippet = snippet(k.content, k.toks, k.spans)
	}
	return hits, nil
}

// phraseMatches returns how many times each phrase occurs in toks, and
// where: each match's first and last token, in order.
func phraseMatches(toks []token, phrases [][]string) (freq []int, spans [][2]int) {
	freq = make([]int, len(phrases))
	for at := range toks {
		for i, p := range phrases {
			if at+len(p) > len(toks) {
				continue
			}
			match := true
			for j, t := range p {
				if toks[at+j].term != t {
					match = false
					break
				}
			}
			if match {
				freq[i]++
				spans = append(spans, [2]int{at, at + len(p) - 1})
			}
		}
	}
	return freq, spans
}

// snippet cuts the part of content, snippetWords words at most, that holds
// the most matches of distinct phrases, centred on them, with the matches
// marked **like this** and "…" where text is left out.
func snippet(content string, toks []token, spans [][2]int) string {
	first := 0
	if len(toks) > snippetWords {
		best, bestScore := 0, -1
		for _, s := range spans {
			start := s[0]
			n := 0
			lo, hi := len(toks), -1
			for _, o := range spans {
				if o[0] >= start && o[1] < start+snippetWords {
					n++
					lo, hi = min(lo, o[0]), max(hi, o[1])
				}
			}
			if n > bestScore {
				// Centre the matches in the window.
				c := lo - (snippetWords-(hi-lo+1))/2
				best, bestScore = min(max(c, 0), len(toks)-snippetWords), n
			}
		}
		first = best
	}
	last := min(first+snippetWords, len(toks)) - 1
	var b strings.Builder
	from := 0
	if first > 0 {
		b.WriteString("…")
		from = toks[first].start
	}
	to := len(content)
	if last < len(toks)-1 {
		to = toks[last].end
	}
	pos := from
	for _, s := range spans {
		if s[0] < first || s[1] > last {
			continue
		}
		a, e := toks[s[0]].start, toks[s[1]].end
		if a < pos {
			continue // overlaps a match already marked
		}
		b.WriteString(content[pos:a])
		b.WriteString("**" + content[a:e] + "**")
		pos = e
	}
	b.WriteString(content[pos:to])
	if to < len(content) {
		b.WriteString("…")
	}
	return b.String()
}
