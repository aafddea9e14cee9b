// create_agent and agents in the browser host (web/packages/toolroute/host/agents.js, the
// Core of web/apps/chat): the same runs as the Go program's internal/app tests. A new
// agent is stored from create_agent's fields and runs as a turn nested in
// the call, in a page session of its own, with its system prompt and its
// allowlist (the module's allowed_groups: a group outside it is neither
// listed nor loadable); its question is asked in the parent's session;
// agents start agents only 2 levels deep; a page session started with an
// agent is that agent's.
import { test } from "node:test";
import assert from "node:assert/strict";
import path from "node:path";
import { execFileSync } from "node:child_process";
import { readFile } from "node:fs/promises";
import { MemoryUIStore } from "../src/idbstore.js";
import { Toolroute } from "toolroute";
import { createHost } from "toolroute/host";
import { agentSessionID, agentTitle, MAX_AGENT_DEPTH } from "../../../packages/toolroute/host/agents.js";
import { web, fakeServer, newCore, ask } from "./ui-harness.js";

const root = path.join(web, "..", "..", "..");
const exported = JSON.parse(execFileSync("go", ["run", "./cmd/toolroute", "export", "--builtin"], { cwd: root, maxBuffer: 256 << 20 }).toString());
const bundle = { catalogue: exported.catalogue, sources: exported.sources, libraries: exported.libraries };
const SESSION = /in session (agent-[a-z0-9_-]+-\d{8}-\d{6}-[0-9a-f]{6})/;

const system = (req) => req.body.messages[0].content;
const names = (req) => (req.body.tools ?? []).map((x) => x.function?.name ?? x.name);
const result = (msgs, tool, n = 0) => msgs.filter((m) => m.type === "tool_result" && m.tool_name === tool)[n]?.content;
// allowing answers every question of a session's turn once, as a user
// clicking Allow once would.
const allowing = (core, session) => (x) => {
  if (x.type === "event" && x.event.type === "approval") {
    setTimeout(() => core.handle({ id: 2, type: "approve", session, answers: x.event.calls.map((c) => ({ id: c.id, answer: "once" })) }, () => {}), 10);
  }
};

test("a sub-agent's session id and title are the Go program's", () => {
  assert.equal(agentSessionID("helper", new Date("2026-11-27T08:00:05.123Z"), "0a1b2c"), "agent-helper-20261127-080005-0a1b2c");
  assert.equal(agentTitle("helper", "  Name the\n stored agents. "), "Agent helper: Name the stored agents.");
  assert.equal(agentTitle("a", "x".repeat(80)), "Agent a: " + "x".repeat(59) + "…");
});

test("create_agent in the browser stores a new agent and runs it nested, with its prompt and allowlist, asking in the parent's session", async () => {
  const model = fakeServer([
    { call: ["create_agent", { name: "helper", task: "Name the stored agents.", system_prompt: "You are helper: you keep the settings.", groups: ["config"] }] },
    // The sub-agent.
    { call: ["load_tool_group", { group_name: "scheduled_tasks" }] },
    { call: ["load_tool_group", { group_name: "config" }] },
    { call: ["list_agents", {}] },
    { call: ["update_agent", { name: "helper", model: "fake-2" }] },
    { text: "The one agent is helper." },
    // The parent again.
    { text: "helper says it is the one agent." },
    // A later turn in the agent's session.
    { text: "Still helper." },
  ]);
  const store = new MemoryUIStore();
  const told = [];
  const core = newCore(store, model.fetch, { catalogue: async () => bundle, onTaskRun: (r) => told.push(r) });
  const asked = [];
  const allow = allowing(core, "p");
  const r = await ask(core, { type: "send", session: "p", text: "Ask a helper agent which agents there are." }, (x) => {
    if (x.type === "event" && x.event.type === "approval") asked.push(...x.event.calls.map((c) => c.tool));
    allow(x);
  });
  assert.equal(r.last.type, "done", JSON.stringify(r.last));
  assert.equal(r.events.findLast((e) => e.type === "done").text, "helper says it is the one agent.");
  const res = result(await store.messages("p"), "create_agent");
  assert.match(res, /^Created agent 'helper' \(list_agents shows it\)\. Agent 'helper' answered, in session agent-helper-/);
  assert.ok(res.endsWith(":\n\nThe one agent is helper."), res);
  const sub = res.match(SESSION)[1];

  assert.ok(names(model.requests[0]).includes("create_agent"), "create_agent is a core tool here");
  const prompt = system(model.requests[1]);
  assert.ok(prompt.startsWith("You are helper: you keep the settings."), prompt);
  assert.ok(prompt.includes("- config: ") && !prompt.includes("scheduled_tasks") && !prompt.includes("- pdf: "), prompt);
  const msgs = await store.messages(sub);
  assert.equal(result(msgs, "load_tool_group", 0), "Error (not_found): Tool group 'scheduled_tasks' not found. Available groups: config");
  assert.ok(names(model.requests[3]).includes("list_agents"));
  assert.match(result(msgs, "list_agents"), /helper/);
  assert.deepEqual(asked, ["create_agent", "update_agent"], "create_agent asks, as it stores the agent; the sub-agent's question came among the parent's events, answered in its session");
  assert.equal((await store.session(sub)).title, "Agent helper: Name the stored agents.");
  assert.deepEqual(told, [{ session: sub, title: "Agent helper: Name the stored agents." }]);

  // The page's view of the agent's session: its prompt, its one group.
  const d = (await ask(core, { type: "describe", session: sub, tokens: false })).result;
  assert.ok(d.system_prompt.startsWith("You are helper"), d.system_prompt);
  assert.deepEqual(d.groups.map((g) => g.name), ["config"]);

  // The user goes on in the agent's session: its prompt, model and allowlist.
  await ask(core, { type: "send", session: sub, text: "Who are you?" });
  const last = model.requests.at(-1);
  assert.ok(system(last).startsWith("You are helper") && !system(last).includes("scheduled_tasks"));
  assert.equal(last.body.model, "fake-2");
  core.close();
});

test("agents start agents only 2 levels deep in the browser, and a page session can start with an agent", async () => {
  const model = fakeServer([
    { call: ["create_agent", { name: "one", task: "Start agent two.", system_prompt: "You are one." }] },
    { call: ["create_agent", { name: "two", task: "Start agent three.", system_prompt: "You are two." }] },
    { call: ["create_agent", { name: "three", task: "Say hi.", system_prompt: "You are three." }] },
    { text: "two: could not start three." },
    { text: "one: two answered." },
    { text: "Done." },
    // A new page session started with agent two.
    { text: "I am two." },
  ]);
  const store = new MemoryUIStore();
  const core = newCore(store, model.fetch, { catalogue: async () => bundle });
  const r = await ask(core, { type: "send", session: "p", text: "Go deep." }, allowing(core, "p"));
  assert.equal(r.events.findLast((e) => e.type === "done")?.text, "Done.");
  const one = result(await store.messages("p"), "create_agent").match(SESSION)[1];
  const two = result(await store.messages(one), "create_agent").match(SESSION)[1];
  assert.equal(result(await store.messages(two), "create_agent"),
    `Error (depth_limit): create_agent refused: this turn is a sub-agent 2 levels deep, and agents may start agents only ${MAX_AGENT_DEPTH} levels deep. Do the task with your own tools, or answer with what you have.`);

  const bad = await ask(core, { type: "send", session: "q", text: "Hi", agent: "nobody" });
  assert.equal(bad.last.type, "error");
  assert.match(bad.last.error, /no such agent "nobody": create it with update_agent \(config group\) or create_agent; stored agents: one, two/);
  await ask(core, { type: "send", session: "q", text: "Who are you?", agent: "two" });
  assert.ok(system(model.requests.at(-1)).startsWith("You are two."));
  core.close();
});

test("a JS host without the agents.run operation leaves create_agent out, as the Go host does", async () => {
  const wasm = await WebAssembly.compile(await readFile(path.join(root, "wasm", "toolroute.wasm")));
  const make = (ops) => createHost({ module: () => Toolroute.instantiate(wasm), catalogue: bundle.catalogue, sources: bundle.sources, provider: { format: "openai", model: "m", baseURL: "http://127.0.0.1:9" }, ops });
  const without = await (await make({})).describe();
  assert.ok(!without.tools.some((t) => t.name === "create_agent"), "offered without agents.run");
  assert.ok(without.active.includes("get_current_time"));
  const withOp = await (await make({ "agents.run": async () => ({}) })).describe();
  assert.ok(withOp.active.includes("create_agent"), JSON.stringify(withOp.active));
});

test("an agent's tool budget is its turns': update_agent stores it, list_agents shows it, a sub-agent's load past it is told so", async () => {
  const model = fakeServer([
    { call: ["load_tool_group", { group_name: "config" }] },
    { call: ["update_agent", { name: "lean", system_prompt: "You are lean.", tool_budget: 50 }] },
    { call: ["list_agents", {}] },
    { call: ["create_agent", { name: "lean", task: "Load the scheduled tasks tools." }] },
    // The sub-agent.
    { call: ["load_tool_group", { group_name: "scheduled_tasks" }] },
    { text: "Loaded, over my budget." },
    // The parent again.
    { text: "Done." },
  ]);
  const store = new MemoryUIStore();
  const core = newCore(store, model.fetch, { catalogue: async () => bundle });
  const r = await ask(core, { type: "send", session: "p", text: "Make a lean agent and have it load the scheduled tasks tools." }, allowing(core, "p"));
  assert.equal(r.last.type, "done", JSON.stringify(r.last));
  const msgs = await store.messages("p");
  assert.match(result(msgs, "update_agent"), /tool budget 50 tokens/);
  assert.match(result(msgs, "list_agents"), /- lean: model the session's; groups all; tool budget 50 tokens; prompt: You are lean\./);
  assert.doesNotMatch(result(msgs, "load_tool_group"), /the budget of/);
  const sub = result(msgs, "create_agent").match(SESSION)[1];
  assert.match(result(await store.messages(sub), "load_tool_group"), /more than the budget of 50: unload a group you no longer need with unload_tool_group\./);
});
