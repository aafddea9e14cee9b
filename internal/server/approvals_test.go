package server

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/toolroute/toolroute/internal/testwait"
	"github.com/toolroute/toolroute/registry/session"
)

// pass is a check that lets every answer through: these tests are of the
// question's life; the module's checks are testdata/checks and
// TestServeApprovals's.
func pass(any) error { return nil }

// The approval event reaches the client before the host calls Approve: an
// answer sent at once is kept for it, not lost.
func TestServeAnswerBeforeApprove(t *testing.T) {
	p := NewApprovals(time.Minute)
	calls := []session.Call{{ID: "a", Tool: "send_note"}, {ID: "b", Tool: "send_note"}}
	p.ask("s", calls) // as send does, before writing the event
	if waiting, err := p.answer("s", []session.Approval{{ID: "b", Answer: session.AnswerDeny}, {ID: "a", Answer: session.AnswerOnce}}, pass); err != nil || len(waiting) != 0 {
		t.Fatalf("answer: %v, %v", waiting, err)
	}
	if _, ok := p.question("s"); ok {
		t.Error("an answered question is still shown as pending")
	}
	ctx, cancel := context.WithTimeout(context.Background(), testwait.Failsafe)
	defer cancel()
	got, err := p.Approve(ctx, "s", calls)
	want := []session.Approval{{ID: "a", Answer: session.AnswerOnce}, {ID: "b", Answer: session.AnswerDeny}}
	if diff := cmp.Diff(want, got); err != nil || diff != "" {
		t.Errorf("Approve: %v (-want +got):\n%s", err, diff)
	}
	if _, err := p.answer("s", []session.Approval{{ID: "a", Answer: session.AnswerOnce}}, pass); err != errNoQuestion {
		t.Errorf("after Approve: %v, want errNoQuestion", err)
	}
}
