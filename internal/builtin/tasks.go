package builtin

import (
	"context"
	"encoding/json"

	"github.com/toolroute/toolroute/host"
	"github.com/toolroute/toolroute/internal/schedule"
)

// taskOps are the scheduled_tasks group's operations over d.Schedule; none
// without one (the group's tools then say the host keeps no tasks).
func taskOps(d Deps) host.HostOps {
	if d.Schedule == nil {
		return nil
	}
	s := d.Schedule
	change := func(in json.RawMessage) (schedule.Change, error) {
		return args[schedule.Change](in)
	}
	name := func(in json.RawMessage) (string, error) {
		a, err := args[struct {
			Name string `json:"name"`
		}](in)
		return a.Name, err
	}
	return host.HostOps{
		"schedules.list": func(ctx context.Context, _ json.RawMessage) (any, error) {
			return s.List(ctx)
		},
		"schedules.create": func(ctx context.Context, in json.RawMessage) (any, error) {
			c, err := change(in)
			if err != nil {
				return nil, err
			}
			return toolErr(s.Create(ctx, c))
		},
		"schedules.update": func(ctx context.Context, in json.RawMessage) (any, error) {
			c, err := change(in)
			if err != nil {
				return nil, err
			}
			return toolErr(s.Update(ctx, c))
		},
		"schedules.run": func(ctx context.Context, in json.RawMessage) (any, error) {
			n, err := name(in)
			if err != nil {
				return nil, err
			}
			return toolErr(s.RunNow(ctx, n))
		},
		"schedules.remove": func(ctx context.Context, in json.RawMessage) (any, error) {
			n, err := name(in)
			if err != nil {
				return nil, err
			}
			return toolErr(s.Delete(ctx, n))
		},
	}
}

// toolErr makes schedule's refusals results the model reads.
func toolErr(t schedule.Task, err error) (any, error) {
	if e, ok := schedule.IsError(err); ok {
		return nil, &host.ToolError{Type: e.Type, Message: e.Message}
	}
	if err != nil {
		return nil, err
	}
	return t, nil
}
