package builtin

import (
	"context"
	"encoding/json"
	"strings"
	"time"

	"github.com/toolroute/toolroute/host"
	"github.com/toolroute/toolroute/registry/check"
)

// Limits of a sub-agent (create_agent), the same in every host
// (web/packages/toolroute/host/agents.js): how deep agents may start agents, and how many
// model calls and tokens one sub-agent's turn may use.
const (
	MaxAgentDepth      = check.MaxAgentDepth
	AgentMaxModelCalls = 15
	AgentMaxTurnTokens = 200000
	// MaxAgentTask bounds a task's text.
	MaxAgentTask = check.MaxAgentTask
)

// SessionAgentPrefix is the settings' prefix of a session's agent:
// session_agent.ID holds the name of the stored agent its turns are.
const SessionAgentPrefix = "session_agent."

// AgentRun is a sub-agent's run as agents.run answers it: the agent, the
// session it ran in, and its answer, or why it has none (Failure).
type AgentRun struct {
	Agent   string `json:"agent"`
	Created bool   `json:"created"`
	Session string `json:"session"`
	Title   string `json:"title"`
	Answer  string `json:"answer,omitempty"`
	Failure string `json:"failure,omitempty"`
}

// AgentSessionID is a new sub-agent session's id: agent-NAME-TIME-RANDOM.
func AgentSessionID(name string, now time.Time, random string) string {
	return "agent-" + name + "-" + now.UTC().Format("20060102-150405") + "-" + random
}

// AgentTitle is a sub-agent session's title: the agent and the start of
// its task.
func AgentTitle(name, task string) string {
	task = strings.Join(strings.Fields(task), " ")
	if r := []rune(task); len(r) > 60 {
		task = string(r[:59]) + "…"
	}
	return "Agent " + name + ": " + task
}

// agentOps is create_agent's operation: agents.run runs a stored agent, or
// one it stores first from the fields given (with update, agents.update),
// as a sub-agent with d.RunAgent.
func agentOps(d Deps, update func(context.Context, json.RawMessage) (any, error)) host.HostOps {
	if d.RunAgent == nil || update == nil {
		return nil
	}
	return host.HostOps{
		"agents.run": func(ctx context.Context, in json.RawMessage) (any, error) {
			a, err := args[struct {
				Name         string    `json:"name"`
				Task         string    `json:"task"`
				SystemPrompt *string   `json:"system_prompt"`
				Model        *string   `json:"model"`
				Groups       *[]string `json:"groups"`
			}](in)
			if err != nil {
				return nil, err
			}
			if err := checkName(ctx, "agent_name", a.Name); err != nil {
				return nil, err
			}
			ag, found, err := record[AgentRecord](ctx, d.Store, AgentPrefix+a.Name)
			if err != nil {
				return nil, err
			}
			var checkedRun struct {
				Task string `json:"task"`
			}
			if err := checked(ctx, "agent_run", struct {
				Name   string `json:"name"`
				Task   string `json:"task"`
				Depth  int    `json:"depth"`
				Found  bool   `json:"found"`
				Given  bool   `json:"given"`
				Prompt bool   `json:"prompt"`
			}{a.Name, a.Task, host.AgentDepth(ctx), found, a.SystemPrompt != nil || a.Model != nil || a.Groups != nil, a.SystemPrompt != nil && strings.TrimSpace(*a.SystemPrompt) != ""}, &checkedRun); err != nil {
				return nil, err
			}
			task := checkedRun.Task
			if !found {
				in, _ := json.Marshal(struct {
					Name         string    `json:"name"`
					SystemPrompt *string   `json:"system_prompt"`
					Model        *string   `json:"model"`
					Groups       *[]string `json:"groups"`
				}{a.Name, a.SystemPrompt, a.Model, a.Groups})
				if _, err := update(ctx, in); err != nil {
					return nil, err
				}
				if ag, _, err = record[AgentRecord](ctx, d.Store, AgentPrefix+a.Name); err != nil {
					return nil, err
				}
			}
			run, err := d.RunAgent(ctx, ag, task)
			if err != nil {
				return nil, err
			}
			run.Created = !found
			return run, nil
		},
	}
}
