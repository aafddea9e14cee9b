package app

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/toolroute/toolroute/host"
	"github.com/toolroute/toolroute/internal/builtin"
	"github.com/toolroute/toolroute/internal/module"
)

// ErrNoAgent is a session started with an agent that is not stored.
var ErrNoAgent = errors.New("app: no such agent")

// runAgent is create_agent's run (agents.run): the agent's turn on task
// in a new session of its own, nested in the turn whose tool call ctx
// belongs to, with the sub-agents' limits. The session remembers its
// agent, so the user can go on with it.
func (a *App) runAgent(ctx context.Context, ag builtin.AgentRecord, task string) (builtin.AgentRun, error) {
	now := time.Now
	if a.Config.Now != nil {
		now = a.Config.Now
	}
	b := make([]byte, 3)
	rand.Read(b)
	run := builtin.AgentRun{Agent: ag.Name, Session: builtin.AgentSessionID(ag.Name, now(), hex.EncodeToString(b)), Title: builtin.AgentTitle(ag.Name, task)}
	if err := a.Store.SetSetting(ctx, builtin.SessionAgentPrefix+run.Session, ag.Name); err != nil {
		return run, err
	}
	agent := hostAgent(ag)
	agent.MaxModelCalls, agent.MaxTurnTokens = builtin.AgentMaxModelCalls, builtin.AgentMaxTurnTokens
	for ev, err := range a.Host.Session(run.Session).Agent(agent).Nested(ctx).Send(ctx, task) {
		if err != nil {
			return run, err
		}
		switch ev.Type {
		case host.EventDone:
			run.Answer = ev.Text
		case host.EventFailed:
			run.Failure = a.Hint(ev.Failure.Message)
		}
	}
	// The session exists once its first message is stored.
	if _, ok, err := a.Store.Session(context.WithoutCancel(ctx), run.Session); err == nil && ok {
		_ = a.Store.Rename(context.WithoutCancel(ctx), run.Session, run.Title)
	}
	a.notify()
	return run, nil
}

// hostAgent is a stored agent as the host runs it.
func hostAgent(ag builtin.AgentRecord) host.Agent {
	return host.Agent{Name: ag.Name, SystemPrompt: ag.SystemPrompt, Model: ag.Model, Groups: ag.Groups, ToolBudget: ag.ToolBudget}
}

// agentOf is the stored agent a session's turns are (host.Options.Agents):
// the one it was started with, or none. An agent deleted since leaves the
// session to the defaults.
func (a *App) agentOf(ctx context.Context, id string) (*host.Agent, error) {
	name, ok, err := a.Store.Setting(ctx, builtin.SessionAgentPrefix+id)
	if err != nil || !ok || name == "" {
		return nil, err
	}
	ag, ok, err := a.agent(ctx, name)
	if err != nil || !ok {
		return nil, err
	}
	h := hostAgent(ag)
	return &h, nil
}

func (a *App) agent(ctx context.Context, name string) (builtin.AgentRecord, bool, error) {
	var ag builtin.AgentRecord
	v, ok, err := a.Store.Setting(ctx, builtin.AgentPrefix+name)
	if err != nil || !ok {
		return ag, false, err
	}
	if err := json.Unmarshal([]byte(v), &ag); err != nil {
		return ag, false, fmt.Errorf("agent %q's record: %w", name, err)
	}
	return ag, true, nil
}

// SetSessionAgent makes session id's turns the stored agent name's, from
// its next turn on (chat --agent, serve's POST /api/sessions with agent).
// An agent that is not stored is an error wrapping ErrNoAgent.
func (a *App) SetSessionAgent(ctx context.Context, id, name string) error {
	if _, ok, err := a.agent(ctx, name); err != nil {
		return err
	} else if !ok {
		names, err := a.AgentNames(ctx)
		if err != nil {
			return err
		}
		err = a.Host.CheckArgs(ctx, "session_agent", struct {
			Name  string   `json:"name"`
			Names []string `json:"names"`
		}{name, names}, nil)
		var r *module.Refused
		if errors.As(err, &r) {
			// ErrNoAgent's text is the module's first words.
			return fmt.Errorf("%w %s", ErrNoAgent, strings.TrimPrefix(r.Message, "no such agent "))
		}
		return fmt.Errorf("app: agent %q is not stored, yet the module found it among %v (%v)", name, names, err)
	}
	return a.Store.SetSetting(ctx, builtin.SessionAgentPrefix+id, name)
}

// ForgetSessionAgent drops session id's agent, for a deleted session.
func (a *App) ForgetSessionAgent(ctx context.Context, id string) error {
	return a.Store.DeleteSetting(ctx, builtin.SessionAgentPrefix+id)
}

// SessionAgent is the name of the stored agent session id's turns are, or "".
func (a *App) SessionAgent(ctx context.Context, id string) (string, error) {
	name, _, err := a.Store.Setting(ctx, builtin.SessionAgentPrefix+id)
	return name, err
}

// AgentNames are the stored agents' names, in the store's order.
func (a *App) AgentNames(ctx context.Context) ([]string, error) {
	rows, err := a.Store.Settings(ctx, builtin.AgentPrefix)
	if err != nil {
		return nil, err
	}
	names := make([]string, 0, len(rows))
	for _, r := range rows {
		names = append(names, r.Key[len(builtin.AgentPrefix):])
	}
	return names, nil
}
