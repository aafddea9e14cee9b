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
// collector little; it decodes them only to encode the conversation in
// another format or routing, or after a catalogue change in native routing.
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

	// raw is the log as JSON, oldest first; fresh the messages after it,
	// as Go values, until Commit encodes them.
	raw   []rawChunk
	fresh []Message
	hash  uint64
	// first is the log's first message: a start event that resumes the
	// Log with a history opening with it sent the whole history again
	// (Logs.Start).
	first *Message
}

// rawChunk is JSON holding messages of the log: an array of messages, or
// a start event (its history).
type rawChunk struct {
	event bool
	data  []byte
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

// add adds messages at the end of the log. source, when not nil, is JSON
// that holds them (a start event's history): the Log keeps it rather than
// encoding them again.
func (l *Log) add(source []byte, msgs ...Message) {
	if source != nil && len(msgs) > 0 {
		l.raw = append(l.raw, rawChunk{event: true, data: source})
		l.hash = fnv(l.hash, source)
	} else {
		if l.fresh == nil {
			// A turn adds a few: room for them at once, not by doubling.
			l.fresh = make([]Message, 0, max(len(msgs), 8))
		}
		l.fresh = append(l.fresh, msgs...)
	}
	if l.n == 0 && len(msgs) > 0 {
		first := msgs[0]
		l.first = &first
	}
	for _, m := range msgs {
		l.n++
		switch m.Type {
		case User, Assistant:
			l.close()
			l.open = append(make([]Message, 0, 4), m) // a response, its calls and their results
			if m.Type == Assistant {
				l.responses++
			}
			continue
		case ToolCall:
			l.loads = appendLoad(l.loads, m)
		case Summary:
			// Calls after a summary send it and what it keeps: the
			// conversation is encoded again from the log at the next use.
			l.close()
			sm := m
			l.summary, l.conv, l.open, l.closed, l.sent = &sm, nil, nil, nil, nil
			continue
		case ApprovalAnswer:
			if Answer(m.Content) == AnswerSession {
				l.approvals = append(l.approvals, m)
			}
		}
		l.open = append(l.open, m)
	}
}

// close moves the open response into the encoded conversation.
func (l *Log) close() {
	if len(l.open) == 0 {
		return
	}
	if l.conv != nil && l.convErr == nil {
		l.closed = append(l.closed, l.open)
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
	all, err := l.messages()
	if err != nil {
		return err
	}
	conv, err := wire.NewConv(f)
	if err != nil {
		return err
	}
	closed := all[:len(all)-len(l.open)]
	if err := conv.Append(conversation(sent(closed), native)); err != nil {
		return err
	}
	l.conv, l.convNative, l.convErr, l.closed, l.sent = conv, native, nil, nil, nil
	return nil
}

// cut is where a compaction cuts the log (cutFor).
func (l *Log) cut(forced bool) (int, bool) {
	all, err := l.messages()
	if err != nil {
		return 0, false
	}
	return cutFor(all, forced)
}

// messages decodes the whole log.
func (l *Log) messages() ([]Message, error) {
	all := make([]Message, 0, l.n)
	for _, c := range l.raw {
		var msgs []Message
		if c.event {
			e, err := UnmarshalEvent(c.data)
			if err != nil {
				return nil, fmt.Errorf("session: the cached log: %w", err)
			}
			msgs = e.History
		} else if err := unmarshalMessages(c.data, &msgs); err != nil {
			return nil, fmt.Errorf("session: the cached log: %w", err)
		}
		all = append(all, msgs...)
	}
	all = append(all, l.fresh...)
	if len(all) != l.n {
		return nil, fmt.Errorf("session: the cached log holds %d messages, not %d", len(all), l.n)
	}
	return all, nil
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
		if n := len(l.raw); n > 0 && !l.raw[n-1].event {
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
