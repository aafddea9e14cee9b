package check

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// MaxAgentDepth is how deep agents may start agents: a turn this many
// sub-agents deep runs no create_agent.
const MaxAgentDepth = 2

// MaxAgentTask bounds the task create_agent gives an agent, in code
// points.
const MaxAgentTask = 20000

// AgentRun is create_agent's call as the host read it (op agent_run),
// after agent_name: the task, how many sub-agents deep the calling turn
// is (Depth), whether the agent is stored (Found), whether the call gives
// any of system_prompt, model and groups (Given), and whether it gives a
// system prompt that is not blank (Prompt).
type AgentRun struct {
	Task   string `json:"task"`
	Depth  int    `json:"depth"`
	Found  bool   `json:"found"`
	Given  bool   `json:"given"`
	Prompt bool   `json:"prompt"`
	Name   string `json:"name"`
}

// check refuses a run no agent may make, or answers the task trimmed.
func (a AgentRun) check() Answer {
	task := strings.TrimSpace(a.Task)
	switch {
	case task == "":
		return refuse("the task is empty: say what the agent should do, as a complete request (it does not see this conversation)")
	case utf8.RuneCountInString(task) > MaxAgentTask:
		return refuse(fmt.Sprintf("the task is over %d characters: shorten it", MaxAgentTask))
	case a.Depth >= MaxAgentDepth:
		return refuseAs("depth_limit", fmt.Sprintf("create_agent refused: this turn is a sub-agent %d levels deep, and agents may start agents only %d levels deep. Do the task with your own tools, or answer with what you have.", a.Depth, MaxAgentDepth))
	case a.Found && a.Given:
		return refuse(fmt.Sprintf("agent %q exists already: call create_agent with only its name and the task to run it as it is, or change it with update_agent (config group) first", a.Name))
	case !a.Found && !a.Prompt:
		return refuseAs("not_found", fmt.Sprintf("no agent %q: give a system_prompt (and model, groups if you like) to create it, or use one list_agents lists", a.Name))
	}
	return Answer{Args: struct {
		Task string `json:"task"`
	}{task}}
}

// SessionAgent is an agent a session is to run as (op session_agent):
// its name and the names of the agents stored.
type SessionAgent struct {
	Name  string   `json:"name"`
	Names []string `json:"names"`
}

func (s SessionAgent) check() Answer {
	for _, n := range s.Names {
		if n == s.Name {
			return Answer{}
		}
	}
	list := "none"
	if len(s.Names) > 0 {
		list = strings.Join(s.Names, ", ")
	}
	return refuseAs("not_found", fmt.Sprintf("no such agent %q: create it with update_agent (config group) or create_agent; stored agents: %s", s.Name, list))
}
