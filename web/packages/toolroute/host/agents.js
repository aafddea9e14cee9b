// create_agent's operation in a JS host, the twin of the Go program's
// internal/builtin/agents.go, with the same limits, shapes and refusals:
//   agents.run {name, task, system_prompt?, model?, groups?}
//     -> {agent, created, session, title, answer?, failure?}
// A stored agent runs as it is; a new one is stored first (agents.update).
// The host runs the agent's turn (run) as a sub-agent nested in the turn
// whose call asked, in a session of its own that remembers its agent
// (session_agent.ID in the settings).

import { AGENT_PREFIX, agentShape } from "./records.js";
import { checked, checkName } from "./checks.js";

export const MAX_AGENT_DEPTH = 2;
export const AGENT_MAX_MODEL_CALLS = 15;
export const AGENT_MAX_TURN_TOKENS = 200000;
export const SESSION_AGENT_PREFIX = "session_agent.";

const q = (s) => JSON.stringify(String(s));

// agentSessionID is a new sub-agent session's id: agent-NAME-TIME-RANDOM.
export function agentSessionID(name, now, random) {
  const iso = now.toISOString();
  const stamp = iso.slice(0, 10).replaceAll("-", "") + "-" + iso.slice(11, 19).replaceAll(":", "");
  return `agent-${name}-${stamp}-${random}`;
}

// agentTitle is a sub-agent session's title: the agent and its task's start.
export function agentTitle(name, task) {
  let t = String(task).split(/\s+/).filter(Boolean).join(" ");
  const r = [...t];
  if (r.length > 60) t = r.slice(0, 59).join("") + "…";
  return `Agent ${name}: ${t}`;
}

function parse(text) {
  try {
    const v = JSON.parse(text);
    return v && typeof v === "object" ? v : null;
  } catch {
    return null;
  }
}

// storedAgent is the agent record name in settings, or null.
export function storedAgent(settings, name) {
  const a = parse(settings?.[AGENT_PREFIX + name] ?? "");
  if (!a) return null;
  return agentShape({ ...a, name: a.name ?? name });
}

// sessionAgent is the stored agent session id's turns are, or null: what a
// host's agentOf option answers.
export async function sessionAgent(store, id) {
  const s = await store.settings();
  const name = s[SESSION_AGENT_PREFIX + id];
  return name ? storedAgent(s, name) : null;
}

// setSessionAgent makes session id's turns the stored agent name's; an
// agent that is not stored is refused, naming those that are, in the
// module's words (check, the host's: session_agent).
export async function setSessionAgent(store, id, name, check) {
  const s = await store.settings();
  if (!storedAgent(s, name)) {
    const names = Object.keys(s).filter((k) => k.startsWith(AGENT_PREFIX)).sort().map((k) => k.slice(AGENT_PREFIX.length));
    const a = await check("session_agent", { name, names });
    throw new Error(a?.error?.message ?? `toolroute: the module found agent ${q(name)} among ${names.join(", ")}, which the store lacks`);
  }
  await store.setSettings({ [SESSION_AGENT_PREFIX + id]: name });
}

// agentOps gives agents.run over store (the settings), update (the
// agents.update operation, given the call's {check}) and run: async ({session, title, agent, task,
// turn, signal}) => {answer} or {failure}, the host's nested turn.
export function agentOps({ store, update, run, now = () => new Date(), random = () => Math.random().toString(16).slice(2, 8).padEnd(6, "0") }) {
  return {
    "agents.run": async (args, { signal, turn, check } = {}) => {
      const name = String(args?.name ?? "");
      await checkName({ check }, "agent_name", name);
      let agent = storedAgent(await store.settings(), name);
      const given = ["system_prompt", "model", "groups"].some((k) => args?.[k] !== undefined && args?.[k] !== null);
      const prompt = typeof args?.system_prompt === "string" && args.system_prompt.trim() !== "";
      const { task } = await checked({ check }, "agent_run", { name, task: String(args?.task ?? ""), depth: turn?.depth ?? 0, found: !!agent, given, prompt });
      const created = !agent;
      if (!agent) {
        const { created: _, ...rec } = await update({ name, system_prompt: args.system_prompt, model: args.model ?? undefined, groups: args.groups ?? undefined }, { check });
        agent = rec;
      }
      const session = agentSessionID(name, now(), random());
      const title = agentTitle(name, task);
      await store.setSettings({ [SESSION_AGENT_PREFIX + session]: name });
      const out = await run({
        session, title, task, turn, signal,
        agent: { ...agent, max_model_calls: AGENT_MAX_MODEL_CALLS, max_turn_tokens: AGENT_MAX_TURN_TOKENS },
      });
      return { agent: name, created, session, title, ...(out.failure !== undefined ? { failure: out.failure } : { answer: out.answer ?? "" }) };
    },
  };
}

// runNested runs a sub-agent's turn on host, for agentOps' run: its answer,
// or the failure's message; rename titles the session once it exists.
export async function runNested(host, { session, title, task, turn, signal, agent }, rename) {
  let answer = "";
  let failure;
  for await (const ev of host.send(session, task, { agent, parent: turn, signal })) {
    if (ev.type === "done") answer = ev.text ?? "";
    if (ev.type === "failed") failure = ev.failure?.message ?? "the turn failed";
  }
  await rename?.(session, title);
  return failure !== undefined ? { failure } : { answer };
}
