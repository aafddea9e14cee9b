package builtin

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/toolroute/toolroute/host"
)

// Limits of a sub-agent (create_agent), the same in every host
// (web/packages/toolroute/host/agents.js): how deep agents may start agents, and how many
// model calls and tokens one sub-agent's turn may use.
const (
	MaxAgentDepth      = 2
	AgentMaxModelCalls = 15
	AgentMaxTurnTokens = 200000
	// MaxAgentTask bounds a task's text.
	MaxAgentTask = 20000
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
			task := strings.TrimSpace(a.Task)
			if task == "" {
				return nil, invalid("the task is empty: say what the agent should do, as a complete request (it does not see this conversation)")
			}
			if len([]rune(task)) > MaxAgentTask {
				return nil, invalid("the task is over %d characters: shorten it", MaxAgentTask)
			}
			if depth := host.AgentDepth(ctx); depth >= MaxAgentDepth {
				return nil, &host.ToolError{Type: "depth_limit", Message: fmt.Sprintf(
					"create_agent refused: this turn is a sub-agent %d levels deep, and agents may start agents only %d levels deep. Do the task with your own tools, or answer with what you have.",
					depth, MaxAgentDepth)}
			}
			ag, found, err := record[AgentRecord](ctx, d.Store, AgentPrefix+a.Name)
			if err != nil {
				return nil, err
			}
			given := a.SystemPrompt != nil || a.Model != nil || a.Groups != nil
			if found && given {
				return nil, invalid("agent %q exists already: call create_agent with only its name and the task to run it as it is, or change it with update_agent (config group) first", a.Name)
			}
			if !found {
				if a.SystemPrompt == nil || strings.TrimSpace(*a.SystemPrompt) == "" {
					return nil, notFound("no agent %q: give a system_prompt (and model, groups if you like) to create it, or use one list_agents lists", a.Name)
				}
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
