package module

import (
	"context"
	"encoding/json"
	"errors"
)

// Checker asks the module whether an operation's arguments pass
// (toolroute_check); a Pool and an Instance are Checkers.
type Checker interface {
	Check(ctx context.Context, op string, args any) (CheckAnswer, error)
}

// Refused is CheckArgs's error for arguments the module refuses: the tool
// result's error type and the sentence the model or the user reads.
type Refused struct {
	Type    string
	Message string
}

// Error is the refusal's message, which the operation throws as its tool
// error.
func (r *Refused) Error() string { return r.Message }

// ErrNoChecker is CheckArgs's error when ctx carries no Checker: the
// host's mistake, for it checks every operation through the module.
var ErrNoChecker = errors.New("module: no checker in the context: give the operation's context one with module.WithChecker")

type checkerKey struct{}

// WithChecker gives ctx the Checker that CheckArgs asks: the host's pool,
// for the operations a call runs (host.Host does it for every bridge
// operation and built-in tool).
func WithChecker(ctx context.Context, c Checker) context.Context {
	return context.WithValue(ctx, checkerKey{}, c)
}

// CheckerFrom returns ctx's Checker, nil when it has none: for work that
// outlives the context it came with (an MCP server's request that comes
// while none of its calls runs).
func CheckerFrom(ctx context.Context) Checker {
	c, _ := ctx.Value(checkerKey{}).(Checker)
	return c
}

// CheckArgs asks ctx's Checker whether op's arguments pass: nil, with the
// arguments as the operation is to use them decoded into into (when into
// is not nil and the module changed them), or a *Refused. Any other error
// is the host's: no checker, a broken instance, an op the module lacks.
func CheckArgs(ctx context.Context, op string, args, into any) error {
	c, _ := ctx.Value(checkerKey{}).(Checker)
	if c == nil {
		return ErrNoChecker
	}
	a, err := c.Check(ctx, op, args)
	if err != nil {
		return err
	}
	if a.Error != nil {
		return &Refused{Type: a.Error.Type, Message: a.Error.Message}
	}
	if into != nil && len(a.Args) > 0 {
		return json.Unmarshal(a.Args, into)
	}
	return nil
}
