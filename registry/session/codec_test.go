package session

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"

	"github.com/toolroute/toolroute/registry"
	"github.com/toolroute/toolroute/registry/wire"
)

// gen makes values from fuzzed bytes: each choice takes the next byte.
type gen struct {
	data    []byte
	strings []string
	raws    []json.RawMessage
}

func (g *gen) byte() byte {
	if len(g.data) == 0 {
		return 0
	}
	c := g.data[0]
	g.data = g.data[1:]
	return c
}

func (g *gen) str() string { return g.strings[int(g.byte())%len(g.strings)] }

func (g *gen) n(max int) int { return int(g.byte()) % (max + 1) }

// strs is nil, empty, or some strings.
func (g *gen) strs() []string {
	switch g.byte() % 4 {
	case 0:
		return nil
	case 1:
		return []string{}
	}
	var l []string
	for range g.n(3) + 1 {
		l = append(l, g.str())
	}
	return l
}

func (g *gen) raw() json.RawMessage {
	if c := g.byte(); c < 16 {
		return nil
	} else {
		return g.raws[int(c)%len(g.raws)]
	}
}

var codecTimes = []time.Time{{}, time.Date(2026, 11, 27, 1, 2, 3, 0, time.UTC), time.Date(2026, 1, 2, 3, 4, 5, 123456789, time.FixedZone("x", -5*3600-1800)),
	time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(-1, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(2026, 1, 2, 3, 4, 5, 1000, time.FixedZone("y", 24*3600))}

func (g *gen) usage() *wire.Usage {
	if g.byte()%2 == 0 {
		return nil
	}
	return &wire.Usage{InputTokens: g.n(5) - 1, OutputTokens: g.n(300), CachedTokens: g.n(2)}
}

func (g *gen) message() Message {
	m := Message{Type: MessageType(g.str()), Content: g.str(), ToolCallID: g.str(), ToolName: g.str(), ToolInput: g.str(),
		Signature: g.str(), Status: registry.Status(g.str()), ErrorType: g.str(), Index: g.n(3) - 1, Grant: g.strs(),
		Loaded: g.strs(), Unloaded: g.strs(), Asked: g.strs(), Keep: g.n(2), Usage: g.usage(), Time: codecTimes[g.n(len(codecTimes)-1)]}
	switch g.byte() % 3 {
	case 1:
		m.Images = []registry.Image{}
	case 2:
		m.Images = []registry.Image{{MIMEType: g.str(), Data: g.str()}, {}}
	}
	if g.byte()%3 == 0 {
		m.Attachments = []Attachment{{Name: g.str(), MIMEType: g.str(), Data: g.str(), Text: g.str()}, {}}
	}
	return m
}

func (g *gen) messages() []Message {
	if g.byte()%4 == 0 {
		return nil
	}
	msgs := []Message{}
	for range g.n(3) {
		msgs = append(msgs, g.message())
	}
	return msgs
}

func (g *gen) call() Call {
	c := Call{ID: g.str(), Tool: g.str(), Input: g.raw(), Origin: registry.Origin{Kind: registry.OriginKind(g.str()), File: g.str(),
		Source: g.str(), Function: g.str()}, TimeoutSeconds: g.n(40), Env: g.strs(), RequiredPermissions: g.strs(), Secrets: g.strs(), Granted: g.strs()}
	if g.byte()%2 == 0 {
		c.Search = &SearchCall{Query: g.str(), Limit: g.n(10), Candidates: g.strs()}
	}
	return c
}

func (g *gen) request() *ModelRequest {
	if g.byte()%3 == 0 {
		return nil
	}
	r := &ModelRequest{Format: wire.Format(g.str()), Path: g.str(), Body: g.raw(), Stream: g.byte()%2 == 0, Tools: g.strs(),
		Routing: Routing(g.str()), Deferred: g.strs(), Call: g.n(3), Compaction: g.byte()%2 == 0}
	if c := g.byte(); c%3 != 0 {
		r.Headers = map[string]string{}
		for range c % 4 {
			r.Headers[g.str()] = g.str()
		}
	}
	if g.byte()%2 == 0 {
		r.Schema = &Schema{CoreTools: g.n(9), GroupListing: g.n(9), CoreToolsText: g.str(), GroupListingText: g.str()}
		for range g.n(2) {
			r.Schema.LoadedGroups = append(r.Schema.LoadedGroups, GroupSchema{Group: g.str(), Tools: g.strs(), Bytes: g.n(200), Text: g.str()})
		}
	}
	return r
}

func (g *gen) action() Action {
	a := Action{Type: ActionType(g.str()), Request: g.request(), Messages: g.messages(), Text: g.str(), Usage: g.usage()}
	for range g.n(2) {
		a.Calls = append(a.Calls, g.call())
	}
	if g.byte()%2 == 0 {
		a.Group = &GroupLoad{Name: g.str(), DisplayName: g.str(), Added: g.strs(), Query: g.str(), Unloaded: g.strs(), Active: g.strs()}
	}
	if g.byte()%2 == 0 {
		a.Error = &Failure{Code: g.str(), Message: g.str()}
	}
	if g.byte()%2 == 0 {
		a.Cache = &Cache{Fingerprint: g.str(), Messages: g.n(9)}
	}
	if g.byte()%2 == 0 {
		a.Retry = &Retry{Status: g.n(600), Attempt: g.n(4), WaitMS: int64(g.n(60000)), Message: g.str()}
	}
	return a
}

var codecStrings = []string{"", "user", "a <b> & c", "line\u2028sep\u2029", "bad \xff\xfe", "ctl \x00\x1f\t\n", `q"\`, "é 日本 🙂"}

var codecRaws = []json.RawMessage{json.RawMessage(`{"path":"a.pdf"}`), json.RawMessage(` { "a" : [1, "<&>", "\u2028"] } `),
	json.RawMessage(`{"a":"` + "\xe2\x80\xa8" + `"}`), json.RawMessage(`{"a":}`), json.RawMessage{}, json.RawMessage(`"text"`)}

// sameBytes fails unless the hand encoder and encoding/json agree: the
// same bytes, or the same error.
func sameBytes(t *testing.T, what any, got, want []byte, err, wantErr error) {
	t.Helper()
	if (err != nil) != (wantErr != nil) || (err != nil && err.Error() != wantErr.Error()) {
		t.Fatalf("%#v: error %v, encoding/json %v", what, err, wantErr)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("%#v:\nhand          %s\nencoding/json %s", what, got, want)
	}
}

// FuzzActionsCodec: actions (MarshalActions) and a log's messages
// (Log.Commit, which escapes HTML as json.Marshal does) written by hand come
// out as encoding/json writes them, byte for byte, errors included.
func FuzzActionsCodec(f *testing.F) {
	for _, s := range codecStrings {
		f.Add([]byte{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25}, s)
	}
	f.Add(bytes.Repeat([]byte{1, 7, 200, 3}, 60), "x")
	f.Add(bytes.Repeat([]byte{255, 18, 2, 9, 1}, 60), "\u2028<")
	f.Add(bytes.Repeat([]byte{17, 5}, 90), "{}")
	f.Fuzz(func(t *testing.T, data []byte, s string) {
		g := &gen{data: data, strings: append(codecStrings, s), raws: append(codecRaws, json.RawMessage(s))}
		var acts []Action
		for range g.n(3) {
			acts = append(acts, g.action())
		}
		got, err := MarshalActions(acts)
		want, wantErr := marshalActionsReflect(acts)
		sameBytes(t, acts, got, want, err, wantErr)
		msgs := g.messages()
		got, err = marshalMessages(msgs)
		want, wantErr = json.Marshal(msgs)
		sameBytes(t, msgs, got, want, err, wantErr)
	})
}
