package session

import (
	"fmt"
	"slices"
	"strings"

	"github.com/toolroute/toolroute/registry"
	"github.com/toolroute/toolroute/registry/wire"
)

// Compaction: when a model call would pass 80 % of the model's context
// window, a model call first summarises the log before the current turn
// into a Summary message. Later calls send the system prompt with the
// summary, then the messages the summary keeps and those after it; the log
// keeps every message, so what is loaded (ActiveTools) and the usage are
// the same as without it.

// compactAt is the share of the context window a request may take before
// the log is compacted, in percent.
const compactAt = 80

// contextLimits are the context windows of model families, by name prefix,
// longest prefix first where prefixes overlap.
var contextLimits = []struct {
	prefix string
	tokens int
}{
	{"gpt-4.1", 1047576},
	{"gpt-4o", 128000},
	{"gpt-5", 400000},
	{"o3", 200000},
	{"o4", 200000},
	{"claude", 200000},
	{"gemini", 1048576},
}

// KnownContextLimit is the context window of a model toolroute knows by
// its name's prefix, or 0.
func KnownContextLimit(model string) int {
	for _, l := range contextLimits {
		if strings.HasPrefix(model, l.prefix) {
			return l.tokens
		}
	}
	return 0
}

// contextLimit is the turn's context window, 0 for unknown.
func (t *Turn) contextLimit() int {
	if t.set.ContextLimit > 0 {
		return t.set.ContextLimit
	}
	return KnownContextLimit(t.set.Model)
}

func isSummary(m Message) bool { return m.Type == Summary }

// lastSummary is the index of the log's last summary, or -1.
func lastSummary(log []Message) int {
	for i := len(log) - 1; i >= 0; i-- {
		if log[i].Type == Summary {
			return i
		}
	}
	return -1
}

// sent is the part of the log the model calls send: after the last
// summary, the messages it keeps and those that follow it.
func sent(log []Message) []Message {
	s := lastSummary(log)
	if s < 0 {
		return log
	}
	keep := min(max(log[s].Keep, 0), s)
	return slices.Concat(log[s-keep:s], log[s+1:])
}

// withSummary is the system prompt with the log's last summary after it.
func withSummary(system string, summary *Message) string {
	if summary == nil {
		return system
	}
	return system + "\n\n## Summary of the earlier conversation\n\n" + summary.Content
}

// compaction is a summary being made: where the log is cut, and whether
// the turn goes on with its model call afterwards (or ends: /compact).
type compaction struct {
	cut      int // messages before it are summarised
	goesOn   bool
	messages int // how many messages the summary covers
}

// cutFor is where a compaction cuts the messages model calls send, given
// by their types (the log from Log.sentFrom on; the index answered is
// into types): before the last user message, so the current exchange
// stays as it is, or, for /compact with one exchange only, at the end.
// It reports false when there is nothing before the cut to summarise
// that an earlier summary does not cover.
func cutFor(types []MessageType, forced bool) (int, bool) {
	cut := -1
	for i := len(types) - 1; i >= 0; i-- {
		if types[i] == User {
			cut = i
			break
		}
	}
	if forced && (cut <= 0 || !slices.Contains(types[:cut], User)) {
		cut = len(types)
	}
	if cut <= 0 {
		return 0, false
	}
	return cut, slices.ContainsFunc(types[:cut], func(t MessageType) bool { return t != Summary && t != ApprovalAnswer })
}

// compact starts a compaction: the model call that summarises the log
// before the cut. goesOn says the turn's own model call follows.
func (t *Turn) compact(cut int, goesOn bool) []Action {
	from, previous := t.log.sentFrom(), ""
	if t.log.summary != nil {
		previous = t.log.summary.Content
	}
	var b strings.Builder
	if previous != "" {
		b.WriteString("Summary of what came before:\n" + previous + "\n\n")
	}
	b.WriteString("The conversation:\n")
	err := t.log.each(from, func(i int, m *Message) {
		if i < cut {
			writeTranscript(&b, m)
		}
	})
	if err != nil {
		return t.fail(Failure{Code: "bad_response", Message: "the summary's request could not be built: " + err.Error()})
	}
	wr := wire.Request{Model: t.set.Model, System: compactPrompt, MaxTokens: t.set.MaxTokens,
		Messages: []wire.Message{{Role: wire.RoleUser, Text: b.String() + "\n\nWrite the summary of the conversation above now."}}}
	req, err := wire.Encode(t.set.Format, wr)
	if err != nil {
		return t.fail(Failure{Code: "bad_response", Message: "the summary's request could not be built: " + err.Error()})
	}
	t.modelCalls++
	t.state = awaitingModel
	t.compacting = &compaction{cut: cut, goesOn: goesOn, messages: cut - from}
	return []Action{{Type: ActionCallModel, Request: &ModelRequest{Format: t.set.Format, Path: req.Path, Headers: req.Headers, Body: req.Body,
		Tools: []string{}, Call: t.modelCalls, Compaction: true}}}
}

// compactPrompt is the summarising call's system prompt.
const compactPrompt = "You summarise a conversation between a user and an assistant that uses tools, so that the assistant can continue it from your summary alone. " +
	"Keep what the user asked for and decided, facts, names, numbers, file paths and identifiers the tools returned that may matter later, what was done and what is still open. " +
	"Leave out pleasantries and anything no longer useful. Write plain prose or short lists, in the conversation's language, at most about 600 words."

// summarised ends a compaction with the summarising call's reply: the
// summary is logged, and the turn goes on or ends.
func (t *Turn) summarised(resp wire.Response) []Action {
	c := t.compacting
	t.compacting = nil
	t.usage.InputTokens += resp.Usage.InputTokens
	t.usage.OutputTokens += resp.Usage.OutputTokens
	t.usage.CachedTokens += resp.Usage.CachedTokens
	text := strings.TrimSpace(resp.Text)
	if text == "" {
		if c.goesOn {
			// The turn goes on uncompacted; the provider says if it is
			// too long.
			t.noCompaction = true
			return t.callModel()
		}
		return t.fail(Failure{Code: "bad_response", Message: "the model answered the request for a summary with no text: nothing was compacted; try again, or another model"})
	}
	if loads := loadedNote(t.reg, t.log.active(t.reg)); loads != "" {
		text += "\n\n" + loads
	}
	m := Message{Type: Summary, Content: text, Keep: t.log.Len() - c.cut, Time: t.now}
	if resp.Usage != (wire.Usage{}) {
		u := resp.Usage
		m.Usage = &u
	}
	t.log.add(m)
	t.route(true)
	if err := t.log.use(t.set.Format, t.native); err != nil {
		return t.fail(Failure{Code: "bad_response", Message: "the request could not be built: " + err.Error()})
	}
	acts := []Action{{Type: ActionAppend, Messages: []Message{m}}}
	if c.goesOn {
		return append(acts, t.callModel()...)
	}
	t.state = finished
	acts = append(acts, t.commit()...)
	return append(acts, Action{Type: ActionDone, Text: fmt.Sprintf("Compacted %d messages into a summary; the %d after them are sent as they are. The log keeps them all.", c.messages, m.Keep), Usage: t.usageCopy()})
}

// loadedNote says which tools the conversation has loaded, for the summary:
// they stay loaded after it.
func loadedNote(reg *registry.Registry, active *registry.Active) string {
	var parts []string
	for _, g := range active.GroupsActive() {
		var names []string
		for _, tool := range active.Tools() {
			if tool.Group == g {
				names = append(names, tool.Name)
			}
		}
		parts = append(parts, fmt.Sprintf("%s (%s)", g, strings.Join(names, ", ")))
	}
	if len(parts) == 0 {
		return ""
	}
	return "Tool groups loaded so far, still loaded: " + strings.Join(parts, "; ") + "."
}

// writeTranscript writes a log message as plain text for the summarising
// call: long inputs and results are shortened.
func writeTranscript(b *strings.Builder, m *Message) {
	switch m.Type {
	case User:
		b.WriteString("\nUser: " + m.Content + "\n")
		// The summary outlives the files' text, but not their mention.
		for _, a := range m.Attachments {
			if a.MIMEType == TextType {
				b.WriteString("Attached text file " + a.Name + ": " + clip(a.Text, 1500) + "\n")
			} else {
				b.WriteString("Attached image " + a.Name + " (" + a.MIMEType + ")\n")
			}
		}
	case Assistant:
		if m.Content != "" {
			b.WriteString("\nAssistant: " + m.Content + "\n")
		}
	case ToolCall:
		b.WriteString("\nAssistant called " + m.ToolName + " " + clip(m.ToolInput, 500) + "\n")
	case ToolResult:
		b.WriteString("Result of " + m.ToolName + ": " + clip(m.Content, 1500) + "\n")
	}
}

// clip keeps the start of a long text, saying how much was left out.
func clip(s string, max int) string {
	if r := []rune(s); len(r) > max {
		return string(r[:max]) + fmt.Sprintf(" […%d more characters]", len(r)-max)
	}
	return s
}
