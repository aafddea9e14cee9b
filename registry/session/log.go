package session

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"strconv"
	"unsafe"

	"github.com/toolroute/toolroute/registry"
	"github.com/toolroute/toolroute/registry/internal/jsondec"
	"github.com/toolroute/toolroute/registry/wire"
)

// Log is what a turn needs of a session's message log, kept up to date as
// messages are added: the groups it loaded, the user's answers of
// "session", how many responses it holds, and its conversation encoded for
// the model (wire.Conv), so that a model call encodes only the messages
// added since the last.
//
// A module instance keeps a turn's Log when the turn ends and hands it to
// the session's next turn (Turn.Resume), which then needs no history: the
// log stays the only truth, the Log a cache of it. It holds its messages as
// JSON bytes, not as []Message, so a long session costs the garbage
// collector little: a start event's history in the very bytes it came in
// (ReadEvent), the messages added since as Commit encodes them. It
// decodes them one at a time, never all at once: as a history is added,
// to encode the conversation in another format or routing (or after a
// catalogue change in native routing), and for a compaction's transcript.
// A long session thus costs about its text and its conversation: for a
// start of 100,000 messages (9.3 MB of JSON) a module instance grew to
// 54 MiB, where decoding the history whole (twice, with a copy of the
// event) took it to 291.5 MiB.
type Log struct {
	n         int
	loads     []load    // what the log's calls did to the active tools (ActiveTools)
	summary   *Message  // the last compaction's summary, nil before any
	approvals []Message // the approval answers of "session" (Decide)
	responses int       // assistant messages (Turn.uniqueIDs)
	// open is the log from its last user or assistant message on: the
	// response that may still change. What comes before is in conv.
	open []Message

	conv       *wire.Conv
	convNative *render // the routing conv was encoded in; nil for classic
	convErr    error
	// closed are the responses closed since conv was last brought up to
	// date, each with its results: encoded at the next model call rather
	// than when closed, so that the response ending a turn costs nothing
	// more when no later turn resumes the Log.
	closed [][]Message
	// sent is the open response as the last model call sent it, which
	// conv keeps encoded (wire.Conv.AppendTail) until it closes.
	sent []Message
	// spare is the memory of a response encoded since, for the next.
	spare []Message

	// raw is the log as JSON, oldest first; fresh the messages after it,
	// as Go values, until Commit encodes them.
	raw   []rawChunk
	fresh []Message
	hash  uint64
	// first is the log's first message: a start event that resumes the
	// Log with a history opening with it sent the whole history again
	// (Logs.Start).
	first *Message
	// summaryAt is the index of the last summary in the log, while
	// summary is not nil.
	summaryAt int
}

// rawChunk is JSON holding messages of the log: an array of messages.
// A start event's history (given) stays in the memory it came in, which
// nothing appends to.
type rawChunk struct {
	data  []byte
	given bool
}

// NewLog returns the Log of an empty session.
func NewLog() *Log { return &Log{hash: fnvOffset} }

// Len is how many messages the log holds.
func (l *Log) Len() int { return l.n }

// Size is about how many bytes the Log holds.
func (l *Log) Size() int {
	size := 0
	for _, c := range l.raw {
		size += len(c.data)
	}
	if l.conv != nil {
		l.flush()
		size += l.conv.Size()
	}
	return size
}

// add adds messages at the end of the log.
func (l *Log) add(msgs ...Message) {
	if l.fresh == nil {
		// A turn adds a few: room for them at once, not by doubling.
		l.fresh = make([]Message, 0, max(len(msgs), 8))
	}
	l.fresh = append(l.fresh, msgs...)
	for i := range msgs {
		l.note(&msgs[i])
	}
}

// addHistory adds a start event's history, left as JSON (ReadEvent), at
// the end of the log. The Log keeps that JSON as its own and decodes the
// messages one at a time: each response joins the encoded conversation,
// when there is one, as it closes, so that the history is never held
// as messages, nor as responses waiting to be encoded.
func (l *Log) addHistory(h *rawHistory) error {
	if len(l.fresh) > 0 {
		// Not reached: a turn adds its history at its start, to a Log
		// committed or new. The chunks must stay in the log's order.
		if _, err := l.Commit(); err != nil {
			return err
		}
	}
	l.raw = append(l.raw, rawChunk{data: h.data, given: true})
	l.hash = fnv(l.hash, h.data)
	if l.conv != nil {
		// The conversation is about as long as the log's JSON: up to a
		// tenth longer in the formats that wrap each text in a block.
		l.conv.Grow(len(h.data) + len(h.data)/8)
	}
	_, err := eachMessage(h.data, 0, func(m *Message) {
		if m.Type == User || m.Type == Assistant {
			// The open response closes: encoded now, before the next
			// opens in its memory.
			l.close()
			l.flush()
		}
		l.note(m)
	})
	return err
}

// note counts m, the log's next message, in what the Log keeps of the
// log.
func (l *Log) note(m *Message) {
	if l.n == 0 {
		first := *m
		l.first = &first
	}
	l.n++
	switch m.Type {
	case User, Assistant:
		l.close()
		if l.open = l.spare; l.open == nil {
			l.open = make([]Message, 0, 4) // a response, its calls and their results
		}
		l.spare = nil
		l.open = append(l.open, *m)
		if m.Type == Assistant {
			l.responses++
		}
		return
	case ToolCall:
		l.loads = appendLoad(l.loads, *m)
	case Summary:
		// Calls after a summary send it and what it keeps: the
		// conversation is encoded again from the log at the next use.
		l.close()
		sm := *m
		l.summary, l.summaryAt, l.conv, l.open, l.closed, l.sent = &sm, l.n-1, nil, nil, nil, nil
		return
	case ApprovalAnswer:
		if Answer(m.Content) == AnswerSession {
			l.approvals = append(l.approvals, *m)
		}
	}
	l.open = append(l.open, *m)
}

// close moves the open response into the encoded conversation.
func (l *Log) close() {
	if len(l.open) == 0 {
		return
	}
	switch {
	case l.conv != nil && l.convErr == nil:
		l.closed = append(l.closed, l.open)
	case l.conv == nil:
		// Nothing holds it (sent goes with conv): it holds the next.
		clear(l.open)
		l.spare = l.open[:0]
	}
	l.open = nil
}

// flush brings the encoded conversation up to date with the responses
// closed since.
func (l *Log) flush() {
	for i, msgs := range l.closed {
		// A response that closed as the last model call sent it is
		// encoded already.
		if l.convErr == nil && !(i == 0 && sameMessages(msgs, l.sent) && l.conv.AppendTail()) {
			l.convErr = l.conv.Append(conversation(msgs, l.convNative))
		}
		l.closed[i] = nil
		// Encoded: the response's memory holds the next one opened.
		clear(msgs)
		l.spare = msgs[:0]
	}
	l.closed = l.closed[:0]
	l.sent = nil
}

// sameMessages reports whether a and b are the very same messages: one
// slice of the log's, unchanged, as the log only appends.
func sameMessages(a, b []Message) bool {
	return len(a) > 0 && len(a) == len(b) && unsafe.SliceData(a) == unsafe.SliceData(b)
}

// use makes the conversation encoded in format f with the routing native
// (nil for classic), re-encoding it from the log's messages if it was
// encoded otherwise.
func (l *Log) use(f wire.Format, native *render) error {
	if l.conv != nil {
		l.flush()
	}
	if l.conv != nil && l.conv.Format() == f && l.convNative.same(native) && l.convErr == nil {
		return nil
	}
	conv, err := wire.NewConv(f)
	if err != nil {
		return err
	}
	if err := l.encodeClosed(conv, native); err != nil {
		return err
	}
	l.conv, l.convNative, l.convErr, l.closed, l.sent = conv, native, nil, nil, nil
	return nil
}

// dropConv lets go of the encoded conversation: a turn that builds no
// request (Settings.NoBody) keeps none, nor the responses waiting to
// join it. A later turn that builds one encodes it again from the log
// (use).
func (l *Log) dropConv() {
	for _, msgs := range l.closed {
		clear(msgs)
	}
	l.conv, l.convNative, l.convErr, l.closed, l.sent = nil, nil, nil, nil, nil
}

// encodeClosed appends to conv what model calls send of the log before
// its open response: the conversation of the messages from sentFrom on,
// one response at a time, decoded one message at a time.
func (l *Log) encodeClosed(conv *wire.Conv, native *render) error {
	end := l.n - len(l.open)
	var resp []Message
	var err error
	put := func() {
		if len(resp) > 0 && err == nil {
			err = conv.Append(conversation(resp, native))
		}
		clear(resp)
		resp = resp[:0]
	}
	if e := l.each(l.sentFrom(), func(i int, m *Message) {
		if i >= end {
			return
		}
		// A response ends where the next user or assistant message
		// starts: the conversation of the whole is that of each.
		if m.Type == User || m.Type == Assistant {
			put()
		}
		resp = append(resp, *m)
	}); e != nil {
		return e
	}
	put()
	return err
}

// sentFrom is the index of the first message model calls send: after
// the last summary, the first of those it keeps (sent); 0 without one.
// The summary itself is among the messages after it, and the
// conversation leaves summaries out.
func (l *Log) sentFrom() int {
	if l.summary == nil {
		return 0
	}
	s := l.summaryAt
	return s - min(max(l.summary.Keep, 0), s)
}

// cut is where a compaction cuts the log (cutFor).
func (l *Log) cut(forced bool) (int, bool) {
	from := l.sentFrom()
	types := make([]MessageType, 0, l.n-from)
	if l.each(from, func(_ int, m *Message) { types = append(types, m.Type) }) != nil {
		return 0, false
	}
	cut, ok := cutFor(types, forced)
	return from + cut, ok
}

// each calls fn with each message of the log from index from on, in
// order, decoding them one at a time: a message is valid only during
// its call, its texts as long as the Log. The messages before from are
// skipped, not decoded.
func (l *Log) each(from int, fn func(i int, m *Message)) error {
	i := 0
	for _, c := range l.raw {
		base, skip := i, max(from-i, 0)
		i += skip
		n, err := eachMessage(c.data, skip, func(m *Message) {
			fn(i, m)
			i++
		})
		if err != nil {
			return fmt.Errorf("session: the cached log: %w", err)
		}
		i = base + n
	}
	for k := range l.fresh {
		if i >= from {
			fn(i, &l.fresh[k])
		}
		i++
	}
	if i != l.n {
		return fmt.Errorf("session: the cached log holds %d messages, not %d", i, l.n)
	}
	return nil
}

// eachMessage calls fn with each message of data, a JSON array of
// messages, after the first skip, which are skipped unread, and answers
// how many the array holds. fn's message is valid only during the call,
// its texts as long as data. It reads by hand, in one message's memory;
// JSON that is not the plain case is decoded whole with encoding/json,
// for the messages not yet given.
func eachMessage(data []byte, skip int, fn func(m *Message)) (int, error) {
	// The log's JSON never changes (Commit appends past a chunk's
	// messages): its texts are read where they stand.
	r := jsondec.NewSharedReader(data)
	var m Message
	i, next := 0, skip // next is the index of the next message to give
	r.Array(func() {
		if i < skip {
			r.Skip()
		} else {
			m = Message{}
			readMessage(r, &m)
			if !r.Failed() {
				fn(&m)
				next++
			}
		}
		i++
	})
	if r.Done() {
		return i, nil
	}
	// Not reached for what a Log holds: JSON its messages were read from
	// by hand already, or that Commit wrote.
	var all []Message
	if err := json.Unmarshal(data, &all); err != nil {
		return 0, err
	}
	for k := next; k < len(all); k++ {
		fn(&all[k])
	}
	return len(all), nil
}

// encode builds a model call's request: wr without its messages, which
// are the log's. cache is what the calls with the turn's catalogue share.
func (l *Log) encode(f wire.Format, wr wire.Request, cache *wire.Cache) (wire.HTTPRequest, error) {
	l.flush()
	if l.convErr != nil {
		return wire.HTTPRequest{}, l.convErr
	}
	l.conv.Share(cache)
	wr.Messages = conversation(l.open, l.convNative)
	l.sent = l.open
	return l.conv.Encode(wr)
}

// active is the tools a model call starts with (ActiveTools).
func (l *Log) active(reg *registry.Registry) *registry.Active { return replay(reg, l.loads) }

// Commit encodes the messages added since the last Commit into the Log's
// JSON and answers the Log's fingerprint: its length and a hash of that
// JSON, which names this state of the log and no other.
func (l *Log) Commit() (string, error) {
	if len(l.fresh) > 0 {
		b, err := marshalMessages(l.fresh)
		if err != nil {
			return "", fmt.Errorf("session: encoding the log: %w", err)
		}
		l.hash = fnv(l.hash, b)
		if n := len(l.raw); n > 0 && !l.raw[n-1].given {
			// One array: "[a,b]" and "[c]" make "[a,b,c]".
			last := l.raw[n-1].data
			l.raw[n-1].data = append(append(last[:len(last)-1], ','), b[1:]...)
		} else {
			l.raw = append(l.raw, rawChunk{data: b})
		}
		l.fresh = nil
	}
	return l.Fingerprint(), nil
}

// Fingerprint names the state of the log at the last Commit: how many
// messages it holds, and a hash of them.
func (l *Log) Fingerprint() string {
	return strconv.Itoa(l.n-len(l.fresh)) + "-" + strconv.FormatUint(l.hash, 16)
}

// marshalMessages is json.Marshal(msgs), written by hand.
func marshalMessages(msgs []Message) ([]byte, error) {
	if b, err := appendMessages(nil, msgs, true); err == nil {
		return b, nil
	}
	return json.Marshal(msgs) // encoding/json's error
}

// loadedGroup is the group a successful load_tool_group call loaded.
func loadedGroup(m Message) (string, bool) {
	if m.Type != ToolCall || m.ToolName != registry.LoadToolGroupName || m.Status != registry.StatusSuccess {
		return "", false
	}
	return groupName(m.ToolInput)
}

var groupNameKeys = []string{"group_name"}

// groupName is a call's group_name argument, as json.Unmarshal into a
// struct with a *string field reads it: read by hand in the plain case.
func groupName(input string) (string, bool) {
	r := jsondec.NewReader([]byte(input))
	var name string
	found := false
	r.Object(groupNameKeys, func(string) {
		name, found = "", false
		if !r.Null() {
			name, found = r.String(), true
		}
	})
	if !r.Done() {
		return groupNameReflect(input)
	}
	return name, found
}

// groupNameReflect is groupName by encoding/json alone.
func groupNameReflect(input string) (string, bool) {
	var in struct {
		GroupName *string `json:"group_name"`
	}
	if json.Unmarshal([]byte(input), &in) != nil || in.GroupName == nil {
		return "", false
	}
	return *in.GroupName, true
}

const (
	fnvOffset = 14695981039346656037
	fnvPrime  = 1099511628211
)

// fnv hashes b from h: FNV-1a over 8-byte words, then the bytes left, so
// the megabytes of a long log's JSON cost little. It names a state of a
// log; it is no defence against anyone.
func fnv(h uint64, b []byte) uint64 {
	for ; len(b) >= 8; b = b[8:] {
		h ^= binary.LittleEndian.Uint64(b)
		h *= fnvPrime
	}
	for _, c := range b {
		h ^= uint64(c)
		h *= fnvPrime
	}
	return h
}
