package host

import "context"

// Progress is how far a tool's call has got, as MCP's
// notifications/progress says it: Progress grows with each report; Total,
// when not 0, is what it grows to.
type Progress struct {
	Progress float64
	Total    float64
	Message  string
	// CallID is the model's id of the call, which the host sets for the
	// calls of a turn: a page shows the progress on that call's card.
	CallID string
}

type progressKey struct{}

// WithProgress returns a context whose tool calls report their progress to
// report: toolroute mcp passes its client's progressToken on this way to
// the MCP server upstream, and the server's notifications back. report is
// called while the call runs, by whatever reads the progress (an MCP
// connection's reader): it sends it on and returns.
func WithProgress(ctx context.Context, report func(Progress)) context.Context {
	return context.WithValue(ctx, progressKey{}, report)
}

// ProgressFrom returns the reporter of the call ctx belongs to, nil when
// no one asked for its progress: a tool asks the server it calls for
// progress only then. The host asks it of every native tool's call, whose
// time each report starts again.
func ProgressFrom(ctx context.Context) func(Progress) {
	report, _ := ctx.Value(progressKey{}).(func(Progress))
	return report
}

// ReportProgress reports a call's progress to whoever asked for it, if
// anyone did.
func ReportProgress(ctx context.Context, p Progress) {
	if report := ProgressFrom(ctx); report != nil {
		report(p)
	}
}
