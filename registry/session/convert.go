package session

import (
	"cmp"
	"slices"

	"github.com/toolroute/toolroute/registry"
	"github.com/toolroute/toolroute/registry/wire"
)

// conversation turns a message log into the conversation sent to the model.
// An assistant message and the tool calls after it are one model response;
// its calls are sent in the model's order (their Index), each with its
// result. A call logged pending with no result was cut off while it ran (the
// program stopped, the turn was canceled): it is sent with the result
// Interrupted, so the model knows it may have acted and does not run it
// again unseen. Any other call with no result, or a result with no call, is
// left out, as is a response with neither text nor calls: the providers
// refuse them.
// With native routing, loads and the calls of groups' tools are sent in
// the request's native form (render).
func conversation(log []Message, native *render) []wire.Message {
	if len(log) == 0 {
		return nil
	}
	// A message of the log gives at most one of the conversation; the
	// response being gathered is kept here, not allocated for each.
	out := make([]wire.Message, 0, len(log))
	var cur response
	open := false
	start := func(text string) {
		if open {
			out = cur.appendTo(out, native)
		}
		cur = response{text: text}
		open = true
	}
	for i := range log {
		m := &log[i]
		switch m.Type {
		case User:
			if open {
				out = cur.appendTo(out, native)
				open = false
			}
			out = append(out, wire.Message{Role: wire.RoleUser, Text: UserText(m), Images: userImages(m)})
		case Assistant:
			start(m.Content)
		case ToolCall:
			if !open {
				start("")
			}
			cur.addCall(m)
		case ToolResult:
			if open {
				cur.addResult(m)
			}
		case ApprovalAnswer:
			if open && Answer(m.Content) != AnswerDeny {
				cur.approved = append(cur.approved, m.ToolCallID)
			}
		}
	}
	if open {
		out = cur.appendTo(out, native)
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

type loggedCall struct {
	index  int
	call   wire.Call
	status registry.Status // as logged: pending, awaiting approval, or the outcome
	loaded []string        // the tools a search_tools call loaded
}

// Interrupted is the result the model reads for a call cut off while it ran.
var Interrupted = registry.Failure("interrupted",
	"This call was cut off while it ran (the program stopped or the turn was canceled), so its outcome is unknown: it may or may not have taken effect. Check its effect before calling it again.")

// Unanswered is the result the model reads for a call the user was asked
// about when the turn ended, before any answer.
var Unanswered = registry.Failure("not_run",
	"This call did not run: the user was asked to approve it and the turn ended before they answered.")

// response gathers one model response from the log.
type response struct {
	text     string
	calls    []loggedCall
	results  []wire.Result // the first result for each call id; a response has few
	approved []string      // ids of the calls the user let run
}

func (r *response) addCall(m *Message) {
	for _, c := range r.calls {
		if c.call.ID == m.ToolCallID {
			return
		}
	}
	r.calls = append(r.calls, loggedCall{index: m.Index, call: wire.Call{ID: m.ToolCallID, Name: m.ToolName, Input: m.ToolInput, Signature: m.Signature}, status: m.Status, loaded: m.Loaded})
}

func (r *response) addResult(m *Message) {
	if _, ok := r.result(m.ToolCallID); !ok {
		r.results = append(r.results, wire.Result{CallID: m.ToolCallID, Name: m.ToolName, Content: m.Content, Images: wireImages(m.Images), Documents: wireDocuments(m.Documents), IsError: m.Status == registry.StatusError})
	}
}

// result is the result for the call with id.
func (r *response) result(id string) (wire.Result, bool) {
	for _, res := range r.results {
		if res.CallID == id {
			return res, true
		}
	}
	return wire.Result{}, false
}

func (r *response) appendTo(out []wire.Message, native *render) []wire.Message {
	if !slices.IsSortedFunc(r.calls, byIndex) {
		slices.SortStableFunc(r.calls, byIndex)
	}
	msg := wire.Message{Role: wire.RoleAssistant, Text: r.text}
	var results []wire.Result
	for _, c := range r.calls {
		res, ok := r.result(c.call.ID)
		if !ok {
			var cut registry.Result
			switch {
			case c.status == registry.StatusPending, c.status == registry.StatusAwaitingApproval && slices.Contains(r.approved, c.call.ID):
				cut = Interrupted
			case c.status == registry.StatusAwaitingApproval:
				cut = Unanswered
			}
			if cut.Status != "" {
				res, ok = wire.Result{CallID: c.call.ID, Name: c.call.Name, Content: cut.Content(), IsError: true}, true
			}
		}
		if ok {
			msg.Calls = append(msg.Calls, native.call(c.call))
			results = append(results, native.result(c, res))
		}
	}
	if msg.Text == "" && len(msg.Calls) == 0 {
		return out
	}
	out = append(out, msg)
	if len(results) > 0 {
		out = append(out, wire.Message{Role: wire.RoleTool, Results: results})
	}
	return out
}

// byIndex orders calls as the model made them.
func byIndex(a, b loggedCall) int { return cmp.Compare(a.index, b.index) }

// wireImages are a result's images as the codecs take them.
func wireImages(images []registry.Image) []wire.Image {
	var out []wire.Image
	for _, img := range images {
		out = append(out, wire.Image(img))
	}
	return out
}

// wireDocuments are a result's documents as the codecs take them.
func wireDocuments(docs []registry.Document) []wire.Document {
	var out []wire.Document
	for _, d := range docs {
		out = append(out, wire.Document(d))
	}
	return out
}
