// Agents in the edge worker (web/apps/worker), in workerd: its agents are the
// TOOLROUTE_AGENTS variable, as its other settings are bindings. A session
// starts with one (POST /api/sessions {"agent"}), and create_agent runs one
// as a turn nested in the call, in a session of its own, with the agent's
// prompt and allowlist; a sub-agent's question comes on the parent's
// stream and is answered at the parent session's approvals.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { startTestWorker } from "./worker-harness.js";
import { text, toolCall, toolNames } from "../../../packages/toolroute/test/host-fakemodel.js";

const AGENTS = [
  { name: "reader", system_prompt: "You are reader: you read PDF files.", groups: ["pdf"] },
  { name: "poster", system_prompt: "You are poster: you post notes." },
  { name: "Bad Name", system_prompt: "x" },
  { name: "spender", system_prompt: "x", tool_budget: -1 },
];
let w, model, json;

before(async () => {
  w = await startTestWorker({
    name: "worker-agents",
    token: "tok-agents",
    tools: {
      "post_note.json": JSON.stringify({ name: "post_note", description: "Post a note", requiredPermissions: ["send"], parameters: { type: "object", properties: {} } }),
      "post_note.js": "function execute() { return 'posted'; }\n",
    },
    bindings: { TOOLROUTE_AGENTS: JSON.stringify(AGENTS) },
  });
  ({ model, json } = w);
});

after(async () => {
  await w?.stop();
});

// openTurn posts a message and reads its events as they come.
async function openTurn(id, body) {
  const r = await json("POST", `/api/sessions/${id}/messages`, body);
  if (r.status !== 200) assert.fail(`${r.status}: ${await r.text()}`);
  const reader = r.body.getReader();
  const decoder = new TextDecoder();
  const events = [];
  let buf = "";
  const next = async () => {
    for (;;) {
      const i = buf.indexOf("\n\n");
      if (i >= 0) {
        const [ev, data] = buf.slice(0, i).split("\n");
        buf = buf.slice(i + 2);
        if (ev.startsWith(":")) continue;
        const e = JSON.parse(data.slice("data: ".length));
        events.push(e);
        return e;
      }
      const { value, done } = await reader.read();
      if (done) return null;
      buf += decoder.decode(value, { stream: true });
    }
  };
  return {
    async until(type) {
      for (;;) {
        const e = await next();
        if (!e) throw new Error(`the turn ended before a ${type} event: ${JSON.stringify(events.at(-1))}`);
        if (e.type === type) return e;
      }
    },
    async rest() {
      while (await next());
      return events;
    },
    // allowing reads to the end, answering each question once, as a
    // client clicking Allow once would.
    async allowing() {
      for (let e; (e = await next());) {
        if (e.type !== "approval") continue;
        const r = await json("POST", `/api/sessions/${id}/approvals`, { approvals: e.calls.map((c) => ({ id: c.id, answer: "once" })) });
        assert.equal(r.status, 200, await r.clone().text());
      }
      return events;
    },
  };
}

const newSession = async (body = {}) => (await json("POST", "/api/sessions", body)).json();
const system = (req) => req.json.messages[0].content;
const resultOf = async (id, tool) => (await (await json("GET", `/api/sessions/${id}/messages`)).json()).filter((m) => m.type === "tool_result" && m.tool_name === tool).map((m) => m.content);

test("the worker's agents are TOOLROUTE_AGENTS: a bad entry is a problem at /api/health, and create_agent is a core tool", async () => {
  const h = await (await json("GET", "/api/health")).json();
  assert.ok(h.problems.includes('TOOLROUTE_AGENTS[2] is left out: an agent is {"name": lower-case letters, digits, _ and -, "system_prompt": not empty, "model", "groups": [names], "tool_budget": tokens}, each name once'), JSON.stringify(h.problems));
  assert.ok(h.problems.some((p) => p.startsWith("TOOLROUTE_AGENTS[3] is left out")), "a tool budget below 0: " + JSON.stringify(h.problems));
  const cat = await (await json("GET", "/api/catalogue")).json();
  assert.ok(cat.active.includes("create_agent"), JSON.stringify(cat.active));
});

test("create_agent in the worker runs reader nested, with its prompt and allowlist, in a session of its own", async () => {
  const parent = (await newSession()).id;
  const from = model.requests.length;
  model.add(
    toolCall("create_agent", JSON.stringify({ name: "reader", task: "Say what you read." })),
    toolCall("load_tool_group", JSON.stringify({ group_name: "config" })), // the sub-agent's
    text("I read PDF files."),
    text("reader reads PDF files."),
  );
  // create_agent asks, as it may store an agent where a host keeps them.
  const events = await (await openTurn(parent, { text: "Ask reader what it reads." })).allowing();
  assert.deepEqual(events.filter((e) => e.type === "approval").map((e) => e.calls[0].tool), ["create_agent"]);
  assert.equal(events.at(-1).type, "done", JSON.stringify(events.at(-1)));
  assert.equal(events.at(-1).text, "reader reads PDF files.");
  const [res] = await resultOf(parent, "create_agent");
  const m = /^Agent 'reader' answered, in session (agent-reader-\d{8}-\d{6}-[0-9a-f]{6}):\n\nI read PDF files\.$/.exec(res);
  assert.ok(m, res);
  assert.ok(toolNames(model.requests[from]).includes("create_agent"));
  const sub = model.requests[from + 1];
  assert.ok(system(sub).startsWith("You are reader: you read PDF files.") && system(sub).includes("- pdf: ") && !system(sub).includes("- config: "), system(sub));
  assert.deepEqual(await resultOf(m[1], "load_tool_group"), ["Error (not_found): Tool group 'config' not found. Available groups: pdf"]);
  const info = await (await json("GET", `/api/sessions/${m[1]}`)).json();
  assert.equal(info.title, "Agent reader: Say what you read.");
  assert.equal(info.agent, "reader");

  // A new agent cannot be made here: the deployment's are the ones.
  model.add(toolCall("create_agent", JSON.stringify({ name: "writer", task: "x", system_prompt: "You write." })), text("No."));
  await (await openTurn(parent, { text: "Make a writer." })).allowing();
  assert.equal((await resultOf(parent, "create_agent")).at(-1),
    "Error (invalid_arguments): the worker's agents are its TOOLROUTE_AGENTS variable, which only a deployment changes: run one of reader, poster with its name and the task");
});

test("a sub-agent's question in the worker comes on the parent's stream and is answered at the parent session", async () => {
  const parent = (await newSession()).id;
  model.add(
    toolCall("create_agent", JSON.stringify({ name: "poster", task: "Post a note." })),
    toolCall("post_note", "{}"), // the sub-agent's, which asks
    text("Posted."),
    text("poster posted it."),
  );
  const t = await openTurn(parent, { text: "Have poster post a note." });
  const ran = await t.until("approval");
  assert.deepEqual(ran.calls.map((c) => c.tool), ["create_agent"]);
  await json("POST", `/api/sessions/${parent}/approvals`, { approvals: [{ id: ran.calls[0].id, answer: "once" }] });
  const asked = await t.until("approval");
  assert.deepEqual(asked.calls.map((c) => c.tool), ["post_note"]);
  const r = await json("POST", `/api/sessions/${parent}/approvals`, { approvals: [{ id: asked.calls[0].id, answer: "once" }] });
  assert.equal(r.status, 200, await r.clone().text());
  const events = await t.rest();
  assert.equal(events.at(-1).text, "poster posted it.", JSON.stringify(events.at(-1)));
  const sub = /in session (agent-poster-\S+):/.exec((await resultOf(parent, "create_agent"))[0])[1];
  assert.deepEqual(await resultOf(sub, "post_note"), ["posted"]);
});

test("a session started with an agent in the worker is that agent's; /clear keeps it; an unknown one is a 404", async () => {
  const bad = await json("POST", "/api/sessions", { agent: "nobody" });
  assert.equal(bad.status, 404);
  assert.match((await bad.json()).error, /no such agent "nobody": the worker's agents are its TOOLROUTE_AGENTS variable; they are: reader, poster/);
  const s = await newSession({ agent: "reader" });
  assert.equal(s.agent, "reader");
  model.add(text("I am reader."));
  await (await openTurn(s.id, { text: "Who are you?" })).rest();
  assert.ok(system(model.requests.at(-1)).startsWith("You are reader"));
  assert.equal((await (await json("GET", `/api/sessions/${s.id}`)).json()).agent, "reader");
  const cleared = await (await json("POST", `/api/sessions/${s.id}/clear`, {})).json();
  assert.equal(cleared.agent, "reader");
  // A deleted session forgets its agent: the id, used again, starts without one.
  assert.equal((await json("DELETE", `/api/sessions/${s.id}`)).status, 204);
  model.add(text("Plain again."));
  await (await openTurn(s.id, { text: "Who are you now?" })).rest();
  assert.ok(!system(model.requests.at(-1)).startsWith("You are reader"), system(model.requests.at(-1)));
  // A message may name the agent too.
  const plain = (await newSession()).id;
  model.add(text("I am poster."));
  await (await openTurn(plain, { text: "Who are you?", agent: "poster" })).rest();
  assert.ok(system(model.requests.at(-1)).startsWith("You are poster"));
});
