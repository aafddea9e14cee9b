// create_agent: a sub-agent's turn, run by the host (toolroute.agents.run)
// in a session of its own with the agent's prompt, model and allowed
// groups; the host refuses it past the agents' depth and stops it at its
// limits of model calls and tokens.
async function execute(params) {
  const r = await toolroute.agents.run({
    name: params.name,
    task: params.task,
    ...(params.system_prompt !== undefined ? { system_prompt: params.system_prompt } : {}),
    ...(params.model !== undefined ? { model: params.model } : {}),
    ...(params.groups !== undefined ? { groups: params.groups } : {}),
  });
  const created = r.created ? "Created agent '" + r.agent + "' (list_agents shows it). " : "";
  if (r.failure) {
    const e = new Error(created + "Agent '" + r.agent + "' stopped without an answer, in session " + r.session + ": " + r.failure);
    e.type = "agent_failed";
    throw e;
  }
  return created + "Agent '" + r.agent + "' answered, in session " + r.session + ":\n\n" + r.answer;
}
