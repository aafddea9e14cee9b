package builtin

import (
	"context"
	"encoding/json"
	"strings"
	"time"

	"github.com/toolroute/toolroute/host"
)

// MaxMemoryChars bounds one memory: it goes into every system prompt.
const MaxMemoryChars = 2000

// MaxSearchHits bounds what one history.search answers.
const MaxSearchHits = 50

// Memory is a saved memory as the toolroute bridge answers it, in every
// host.
type Memory struct {
	ID   int64  `json:"id"`
	Text string `json:"text"`
	Time string `json:"time,omitempty"`
}

// SearchHit is one message history.search found, in every host.
type SearchHit struct {
	Session string `json:"session"`
	Seq     int    `json:"seq"`
	Type    string `json:"type"`
	Time    string `json:"time,omitempty"`
	Snippet string `json:"snippet"`
}

// Ops are the toolroute bridge's operations over the Go program's store
// (see DESIGN.md, "One tool layer"): the built-in JS tools' memories and
// history.
func Ops(d Deps) host.HostOps {
	return host.HostOps{
		"memories.save": func(ctx context.Context, in json.RawMessage) (any, error) {
			a, err := args[struct {
				Text string `json:"text"`
			}](in)
			if err != nil {
				return nil, err
			}
			text, err := memoryText(a.Text)
			if err != nil {
				return nil, err
			}
			m, err := d.Store.SaveMemory(ctx, text)
			if err != nil {
				return nil, err
			}
			return Memory{ID: m.ID, Text: m.Text, Time: stamp(m.Created)}, nil
		},
		"memories.list": func(ctx context.Context, _ json.RawMessage) (any, error) {
			mems, err := d.Store.Memories(ctx)
			if err != nil {
				return nil, err
			}
			out := make([]Memory, len(mems))
			for i, m := range mems {
				out[i] = Memory{ID: m.ID, Text: m.Text, Time: stamp(m.Created)}
			}
			return out, nil
		},
		"history.search": func(ctx context.Context, in json.RawMessage) (any, error) {
			a, err := args[struct {
				Query string `json:"query"`
				Limit int    `json:"limit"`
			}](in)
			if err != nil {
				return nil, err
			}
			hits, err := d.Store.Search(ctx, a.Query, searchLimit(a.Limit))
			if err != nil {
				return nil, err
			}
			out := make([]SearchHit, len(hits))
			for i, h := range hits {
				out[i] = SearchHit{Session: h.SessionID, Seq: h.Seq, Type: string(h.Type), Time: stamp(h.Time), Snippet: h.Snippet}
			}
			return out, nil
		},
	}
}

// memoryText checks a memory's text: the same rule in every host.
func memoryText(s string) (string, error) {
	s = strings.TrimSpace(s)
	switch {
	case s == "":
		return "", &host.ToolError{Type: "invalid_arguments", Message: "memories.save: the text is empty: give what to remember"}
	case len([]rune(s)) > MaxMemoryChars:
		return "", &host.ToolError{Type: "invalid_arguments", Message: "memories.save: the text is over 2000 characters: save one or two sentences"}
	}
	return s, nil
}

func searchLimit(n int) int {
	switch {
	case n <= 0:
		return 10
	case n > MaxSearchHits:
		return MaxSearchHits
	}
	return n
}

// stamp is a time as the bridge answers it, UTC to the second; "" for none.
func stamp(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339)
}
