package session

import "github.com/toolroute/toolroute/registry/wire"

// Conversation is what a classic model call sends of a log, in the
// provider-neutral form wire.Encode takes: the system prompt (with the
// log's last summary after it, when compaction made one) and the messages
// after that summary. For programs that send the model calls themselves
// and want toolroute's history in their SDK's types.
func Conversation(system string, log []Message) (string, []wire.Message) {
	var summary *Message
	if s := lastSummary(log); s >= 0 {
		summary = &log[s]
	}
	return withSummary(system, summary), conversation(sent(log), nil)
}
