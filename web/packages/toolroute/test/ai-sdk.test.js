// toolroute/ai-sdk against the ai package's own loop (generateText,
// streamText) and its scripted model (ai/test's MockLanguageModelV4), as an
// app uses it: the tools offered on each step and the system prompt, a JS
// tool run in QuickJS, the groups a saved conversation loaded restored on a
// later turn, and the module's decisions routed through the AI SDK: a bad
// call refused with the module's text before it reaches the tool,
// search_tools, the tool budget, approvals through the AI SDK's approval
// requests (asked, denied, approved, answered in another process), the
// user's policies, and a step giving the module its new messages only.
import { test, before } from "node:test";
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { generateText, streamText, stepCountIs } from "ai";
import { MockLanguageModelV4, convertArrayToReadableStream } from "ai/test";
import { Toolroute } from "../driver/toolroute.js";
import { Runner, MemoryStore } from "../jsrun/runner.js";
import { createRouter, toHistory } from "../ai-sdk/ai-sdk.js";
import { moduleCheck } from "./module-check.js";

const WASM = new URL("../../../../wasm/toolroute.wasm", import.meta.url);
let wasm;

// The catalogue: a weather group of one JS tool, and two core JS tools.
const catalogue = {
  manifests: [
    {
      file: "weather.json",
      source: "weather.js",
      text: JSON.stringify([
        { _meta: true, display_name: "Weather", description: "Weather forecasts for a city" },
        { name: "get_forecast", description: "The forecast for a city", function: "forecast", parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] } },
      ]),
    },
    { file: "get_answer.json", source: "get_answer.js", text: JSON.stringify({ name: "get_answer", description: "The answer" }) },
    { file: "send_note.json", source: "send_note.js", text: JSON.stringify({ name: "send_note", description: "Send a note", requiredPermissions: ["send"] }) },
  ],
};
const sources = {
  "weather.js": `function forecast(p) { return "Sunny in " + p.city + ", " + (20 + p.city.length) + " °C"; }`,
  "get_answer.js": `function execute() { return "42"; }`,
  "send_note.js": `function execute() { return "sent"; }`,
};

// The office catalogue: host tools in two groups, whose runs the tests
// count, and two core tools, one that sends.
const office = {
  groups: [
    { name: "mail", display_name: "Mail", description: "Read and send email" },
    { name: "calendar", display_name: "Calendar", description: "Calendar events and meetings" },
  ],
  tools: [
    { name: "read_inbox", group: "mail", description: "Read the newest emails of the inbox, sender, subject and first lines of each", parameters: { type: "object", properties: { count: { type: "integer", description: "How many emails to read, newest first" } } } },
    { name: "send_email", group: "mail", description: "Send an email to one recipient, with a subject and a body", required_permissions: ["send"], parameters: { type: "object", properties: { to: { type: "string", description: "The recipient's address" }, subject: { type: "string" }, body: { type: "string" } }, required: ["to", "body"] } },
    { name: "list_events", group: "calendar", description: "List the calendar events of one day, with their times and who attends", parameters: { type: "object", properties: { day: { type: "string", description: "The day, as 2026-03-01" } }, required: ["day"] } },
    { name: "create_event", group: "calendar", description: "Create a calendar event on a day at a time, inviting people", required_permissions: ["write"], parameters: { type: "object", properties: { day: { type: "string" }, time: { type: "string" }, title: { type: "string" } }, required: ["day", "time", "title"] } },
    { name: "post_note", description: "Post a note to the team's board", required_permissions: ["send"], parameters: { type: "object", properties: { text: { type: "string" } }, required: ["text"] } },
    { name: "get_time", description: "The current time", parameters: { type: "object", properties: {} } },
  ],
};

// officeRouter makes a router of the office catalogue whose native tools
// record each run in ran, and whose module events go to events.
async function officeRouter(options = {}) {
  const ran = [];
  const events = [];
  const native = {};
  for (const t of office.tools) native[t.name] = async (input) => (ran.push(`${t.name} ${JSON.stringify(input)}`), `${t.name} done`);
  const router = await createRouter({
    module: () => Toolroute.instantiate(wasm),
    catalogue: office,
    native,
    instructions: "You run an office.",
    onEvent: (e) => events.push(e),
    ...options,
  });
  return { router, ran, events };
}

let router;
before(async () => {
  wasm = await WebAssembly.compile(await readFile(WASM));
  const runner = new Runner({ check: moduleCheck, store: new MemoryStore() });
  router = await createRouter({
    module: () => Toolroute.instantiate(wasm),
    catalogue,
    sources,
    runJS: (c) => runner.call(c),
    instructions: "You are a weather assistant.",
  });
});

const usage = { inputTokens: { total: 10, noCache: 10, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 5, text: 5, reasoning: 0 } };
const finish = (unified) => ({ unified, raw: unified });
let callIds = 0;

// scripted gives the model's answer per step: a text, a tool call ([name,
// input]) or several ([[name, input], ...]); seen records, per model call,
// the tools offered and the system prompt.
function scripted(steps, seen = []) {
  let i = 0;
  const record = (opts) => {
    const system = opts.prompt.filter((m) => m.role === "system").map((m) => m.content).join("\n");
    seen.push({ tools: (opts.tools ?? []).map((t) => t.name).sort(), system });
    const s = steps[i++];
    if (s === undefined) throw new Error(`the model was called ${i} times; the script has ${steps.length} steps`);
    if (typeof s === "string") return { text: s };
    const calls = (Array.isArray(s[0]) ? s : [s]).map(([name, input]) => ({ type: "tool-call", toolCallId: `call_${++callIds}`, toolName: name, input: JSON.stringify(input) }));
    return { calls };
  };
  return new MockLanguageModelV4({
    doGenerate: async (opts) => {
      const s = record(opts);
      if (s.text !== undefined) return { content: [{ type: "text", text: s.text }], finishReason: finish("stop"), usage, warnings: [] };
      return { content: s.calls, finishReason: finish("tool-calls"), usage, warnings: [] };
    },
    doStream: async (opts) => {
      const s = record(opts);
      const parts = s.text !== undefined ? [{ type: "text-start", id: "t" }, { type: "text-delta", id: "t", delta: s.text }, { type: "text-end", id: "t" }] : s.calls;
      return { stream: convertArrayToReadableStream([{ type: "stream-start", warnings: [] }, ...parts, { type: "finish", finishReason: finish(s.text !== undefined ? "stop" : "tool-calls"), usage }]) };
    },
  });
}

// toolResults gives a turn's tool results as "name: output" or "name: error: text".
function toolResults(messages) {
  const out = [];
  for (const m of messages) {
    if (m.role !== "tool") continue;
    for (const p of m.content) if (p.type === "tool-result") out.push(`${p.toolName}: ${p.output.type.startsWith("error") ? "error: " : ""}${p.output.value ?? p.output.type}`);
  }
  return out;
}

// stream runs one streamText turn of a session and gives its response
// messages and the tools each step offered.
async function stream(session, messages, steps) {
  const seen = [];
  const r = streamText({ model: scripted(steps, seen), messages, tools: session.tools, prepareStep: session.prepareStep, stopWhen: stepCountIs(6) });
  const text = await r.text;
  return { text, responseMessages: await r.responseMessages, seen };
}

test("a turn loads the weather group, then calls its JS tool; the next turn, from the saved messages, calls it without loading again", async () => {
  const seen1 = [];
  const first = [{ role: "user", content: "Weather in Lisbon?" }];
  const r1 = await generateText({
    model: scripted([["load_tool_group", { group_name: "weather" }], ["get_forecast", { city: "Lisbon" }], "Sunny."], seen1),
    messages: first,
    tools: router.tools,
    prepareStep: router.prepareStep,
    stopWhen: stepCountIs(5),
  });
  assert.equal(r1.text, "Sunny.");
  assert.deepEqual(seen1.map((s) => s.tools), [
    ["get_answer", "load_tool_group", "send_note"],
    ["get_answer", "get_forecast", "load_tool_group", "send_note"],
    ["get_answer", "get_forecast", "load_tool_group", "send_note"],
  ]);
  assert.match(seen1[0].system, /^You are a weather assistant\.\n[\s\S]*## Available Tool Groups[\s\S]*\n- weather: Weather forecasts for a city/);
  assert.deepEqual(toolResults(r1.responseMessages), [
    "load_tool_group: Loaded 1 tools from group 'Weather':\n- get_forecast: The forecast for a city",
    "get_forecast: Sunny in Lisbon, 26 °C",
  ]);

  // The app saved its messages; the next turn starts from them alone.
  const saved = [...first, ...r1.responseMessages, { role: "user", content: "And in Porto?" }];
  assert.deepEqual(router.loadedGroups(saved), ["weather"]);
  const seen2 = [];
  const r2 = streamText({
    model: scripted([["get_forecast", { city: "Porto" }], "Sunny too."], seen2),
    messages: saved,
    tools: router.tools,
    prepareStep: router.prepareStep,
    stopWhen: stepCountIs(5),
  });
  assert.equal(await r2.text, "Sunny too.");
  assert.deepEqual(seen2[0].tools, ["get_answer", "get_forecast", "load_tool_group", "send_note"], "the group is active from the turn's first step");
  assert.deepEqual(toolResults(await r2.responseMessages), ["get_forecast: Sunny in Porto, 25 °C"]);

  // Another router (another process) finds the group loaded in the same messages.
  const other = await createRouter({ module: () => Toolroute.instantiate(wasm), catalogue, sources, runJS: (c) => new Runner({ check: moduleCheck, store: new MemoryStore() }).call(c) });
  const r3 = await stream(other.session("lisbon"), [...saved, ...(await r2.responseMessages), { role: "user", content: "And Faro?" }], [["get_forecast", { city: "Faro" }], "Sunny."]);
  assert.deepEqual(r3.seen[0].tools, ["get_answer", "get_forecast", "load_tool_group", "send_note"]);
  assert.deepEqual(toolResults(r3.responseMessages), ["get_forecast: Sunny in Faro, 24 °C"]);
});

test("a group's tool called before its group is loaded is refused, runs nothing, and a core tool runs", async () => {
  const seen = [];
  const r = await generateText({
    model: scripted([["get_forecast", { city: "Oslo" }], ["get_answer", {}], "Done."], seen),
    messages: [{ role: "user", content: "Oslo?" }],
    tools: router.tools,
    prepareStep: router.prepareStep,
    stopWhen: stepCountIs(5),
  });
  assert.equal(r.text, "Done.");
  const results = toolResults(r.responseMessages);
  // The AI SDK refuses a tool activeTools leaves out; the tool never runs.
  assert.match(results[0], /^get_forecast: error: .*unavailable tool 'get_forecast'/);
  assert.doesNotMatch(results[0], /Sunny/);
  assert.equal(results[1], "get_answer: 42");
  assert.deepEqual(seen[1].tools, ["get_answer", "load_tool_group", "send_note"], "a refused call loads nothing");
});

test("loading a group that does not exist is the module's error, which the model reads, and loads nothing", async () => {
  const seen = [];
  const r = await generateText({
    model: scripted([["load_tool_group", { group_name: "stocks" }], "No such tools."], seen),
    messages: [{ role: "user", content: "Stocks?" }],
    tools: router.tools,
    prepareStep: router.prepareStep,
    stopWhen: stepCountIs(5),
  });
  assert.deepEqual(toolResults(r.responseMessages), ["load_tool_group: error: Error (not_found): Tool group 'stocks' not found. Available groups: weather"]);
  assert.deepEqual(seen[1].tools, ["get_answer", "load_tool_group", "send_note"]);
});

test("a call with bad arguments is refused with the module's text and never reaches the tool", async () => {
  const { router, ran } = await officeRouter();
  const r = await stream(router.session("bad-args"), [{ role: "user", content: "What is on Monday?" }], [
    ["load_tool_group", { group_name: "calendar" }],
    ["list_events", { date: "monday" }],
    ["list_events", { day: "2026-03-02" }],
    "Nothing much.",
  ]);
  assert.equal(r.text, "Nothing much.");
  assert.deepEqual(toolResults(r.responseMessages).slice(1), [
    "list_events: error: Error (invalid_arguments): The arguments for 'list_events' miss the required parameter(s): day. Call it again with them.",
    "list_events: list_events done",
  ]);
  assert.deepEqual(ran, ['list_events {"day":"2026-03-02"}'], "only the good call ran");
});

test("search_tools finds a tool, which the next step offers without its group loaded", async () => {
  const { router, ran, events } = await officeRouter({ settings: { searchTools: true } });
  const r = await stream(router.session("search"), [{ role: "user", content: "What is on Monday?" }], [
    ["search_tools", { query: "calendar events of a day" }],
    ["list_events", { day: "2026-03-02" }],
    "A meeting.",
  ]);
  assert.ok(r.seen[0].tools.includes("search_tools"), r.seen[0].tools.join(" "));
  assert.ok(!r.seen[0].tools.includes("list_events"));
  assert.match(toolResults(r.responseMessages)[0], /^search_tools: Found \d+ tools? for 'calendar events of a day', loaded for the rest of this conversation:[\s\S]*list_events/);
  assert.ok(r.seen[1].tools.includes("list_events"), r.seen[1].tools.join(" "));
  assert.deepEqual(ran, ['list_events {"day":"2026-03-02"}']);
  const load = events.find((e) => e.type === "group_loaded");
  assert.equal(load?.group.query, "calendar events of a day");
  assert.ok(load.group.added.includes("list_events"), JSON.stringify(load));
});

test("the tool budget unloads the least recently used group when a load would pass it", async () => {
  // The budget fits the core tools and one group, not both: the module's
  // own count of a step's tools (describe's tools_json, bytes / 4.4).
  const inst = await Toolroute.instantiate(wasm);
  inst.load(office);
  const tokens = (groups) => {
    const history = groups.flatMap((g, i) => [
      { type: "tool_call", tool_call_id: `l${i}`, tool_name: "load_tool_group", tool_input: JSON.stringify({ group_name: g }), status: "success" },
      { type: "tool_result", tool_call_id: `l${i}`, tool_name: "load_tool_group", content: "loaded", status: "success" },
    ]);
    const d = inst.describe({ history, format: "openai", tool_budget: 1, tools_json: true });
    const bytes = new TextEncoder().encode(typeof d.tools_json.active === "string" ? d.tools_json.active : JSON.stringify(d.tools_json.active)).length;
    return Math.ceil((bytes * 5) / 22);
  };
  const budget = Math.max(tokens(["mail"]), tokens(["calendar"])) + 5;
  assert.ok(tokens(["mail", "calendar"]) > budget);

  const { router, events } = await officeRouter({ settings: { toolBudget: budget } });
  const r = await stream(router.session("budget"), [{ role: "user", content: "Mail, then my calendar" }], [
    ["load_tool_group", { group_name: "mail" }],
    ["load_tool_group", { group_name: "calendar" }],
    "Done.",
  ]);
  assert.ok(r.seen[0].tools.includes("unload_tool_group"), r.seen[0].tools.join(" "));
  assert.ok(r.seen[1].tools.includes("send_email"));
  assert.ok(r.seen[2].tools.includes("list_events"));
  assert.ok(!r.seen[2].tools.includes("send_email"), `mail was unloaded: ${r.seen[2].tools.join(" ")}`);
  assert.match(toolResults(r.responseMessages)[1], /the least recently used groups were unloaded: mail \(2 tools\)\./);
  assert.deepEqual(events.filter((e) => e.type === "group_loaded").map((e) => [e.group.name, e.group.unloaded ?? []]), [["mail", []], ["calendar", ["read_inbox", "send_email"]]]);
});

// approvalParts gives the approval requests of response messages.
function approvalRequests(messages) {
  return messages.flatMap((m) => (Array.isArray(m.content) ? m.content : [])).filter((p) => p.type === "tool-approval-request");
}

test("a call that sends asks the user through the AI SDK's approval request; a denial is honoured", async () => {
  const { router, ran, events } = await officeRouter();
  const session = router.session("deny");
  const first = [{ role: "user", content: "Post 'hi' to the board" }];
  const r1 = await stream(session, first, [["post_note", { text: "hi" }], "unreached"]);
  const [asked] = approvalRequests(r1.responseMessages);
  assert.equal(asked?.toolCallId, r1.responseMessages[0].content.find((p) => p.type === "tool-call").toolCallId);
  assert.deepEqual(ran, [], "it waits for the user");
  assert.equal(r1.seen.length, 1, "the loop stops for the answer");

  const answered = [...first, ...r1.responseMessages, { role: "tool", content: [{ type: "tool-approval-response", approvalId: asked.approvalId, approved: false, reason: "not now" }] }];
  const r2 = await stream(session, answered, ["I did not post it."]);
  assert.equal(r2.text, "I did not post it.");
  assert.deepEqual(ran, [], "denied: it never ran");
  const logged = events.filter((e) => e.type === "message").map((e) => e.message);
  assert.deepEqual(logged.filter((m) => m.type === "approval").map((m) => m.content), ["deny"]);
  assert.match(logged.find((m) => m.type === "tool_result")?.content ?? "", /^Error \(denied\): The user denied this call of 'post_note'/);
  assert.deepEqual(r2.seen[0].tools, ["get_time", "load_tool_group", "post_note"]);
});

test("an approved call runs once, also when another process (a new router) takes the answer", async () => {
  for (const where of ["the same router", "a new router"]) {
    const { router, ran } = await officeRouter();
    const first = [{ role: "user", content: "Post 'hi' to the board, read my mail, and the time?" }];
    // The step calls a tool that asks and two that do not: the AI SDK
    // runs those at once, while the module holds them until the user
    // answers; they run once.
    const r1 = await stream(router.session("approve"), first, [[["post_note", { text: "hi" }], ["load_tool_group", { group_name: "mail" }], ["get_time", {}]], "unreached"]);
    const [asked] = approvalRequests(r1.responseMessages);
    assert.deepEqual(toolResults(r1.responseMessages), [
      "load_tool_group: Loaded 2 tools from group 'Mail':\n- read_inbox: Read the newest emails of the inbox, sender, subject and first lines of each\n- send_email: Send an email to one recipient, with a subject and a body",
      "get_time: get_time done",
    ]);
    assert.deepEqual(ran, ["get_time {}"]);
    const answered = [...first, ...r1.responseMessages, { role: "tool", content: [{ type: "tool-approval-response", approvalId: asked.approvalId, approved: true }] }];
    const next = where === "a new router" ? (await officeRouter()) : { router, ran };
    const r2 = await stream(next.router.session("approve"), answered, [["read_inbox", {}], "Posted; no new mail."]);
    assert.equal(r2.text, "Posted; no new mail.", where);
    assert.deepEqual(next.ran, [...(next.ran === ran ? ["get_time {}"] : []), 'post_note {"text":"hi"}', "read_inbox {}"], where);
    assert.ok(r2.seen[0].tools.includes("read_inbox"), where);
  }
});

test("the user's policies apply: a denied tool is refused with the module's text, an allowed one runs unasked", async () => {
  const denied = await officeRouter({ policies: [{ tool: "post_note", decision: "deny" }] });
  const r1 = await stream(denied.router.session("policy"), [{ role: "user", content: "Post hi" }], [["post_note", { text: "hi" }], "I may not."]);
  assert.equal(r1.text, "I may not.");
  assert.deepEqual(approvalRequests(r1.responseMessages), []);
  assert.deepEqual(toolResults(r1.responseMessages), ["post_note: error: Error (denied): The user does not allow 'post_note' to run (their policy denies it). Do not call it again; tell the user, who can change the policy."]);
  assert.deepEqual(denied.ran, []);

  const allowed = await officeRouter({ policies: async () => [{ group: "mail", decision: "allow" }] });
  const r2 = await stream(allowed.router.session("policy"), [{ role: "user", content: "Mail Ann" }], [["load_tool_group", { group_name: "mail" }], ["send_email", { to: "ann@example.com", body: "hi" }], "Sent."]);
  assert.deepEqual(approvalRequests(r2.responseMessages), []);
  assert.deepEqual(allowed.ran, ['send_email {"to":"ann@example.com","body":"hi"}']);

  // With approvals off no one is asked: the module refuses with how to allow it.
  const unattended = await officeRouter({ approvals: false, settings: { allow_hint: "Allow it in settings." } });
  const r3 = await stream(unattended.router.session("policy"), [{ role: "user", content: "Post hi" }], [["post_note", { text: "hi" }], "I could not."]);
  assert.match(toolResults(r3.responseMessages)[0], /^post_note: error: Error \(approval_needed\): 'post_note' asks the user before it runs, and no one is here to answer .*Allow it in settings\.$/);
  assert.deepEqual(unattended.ran, []);
});

// spy wraps a module instance, recording the events the router feeds its
// turns and whether it asks describe about a history.
function spy(inst, log) {
  return new Proxy(inst, {
    get(target, prop) {
      if (prop === "turnEvent") return (h, ev) => (log.push(typeof ev === "string" ? JSON.parse(ev) : ev), target.turnEvent(h, ev));
      if (prop === "describe") return (req = {}) => (req.history && log.push({ type: "describe", history: req.history }), target.describe(req));
      const v = Reflect.get(target, prop, target);
      return typeof v === "function" ? v.bind(target) : v;
    },
  });
}

// given sums up what each event gave the module: its type and how many of
// the conversation's messages it carried.
function given(events) {
  return events.map((e) => {
    switch (e.type) {
      case "start": return `start ${e.fingerprint ? "kept" : "whole"} history=${e.history?.length ?? 0} +user`;
      case "response": {
        const msg = JSON.parse(e.body).choices[0].message;
        return `response ${msg.tool_calls?.length ?? 0} calls`;
      }
      case "tool_results": return `tool_results ${e.results.length}`;
      case "describe": return `describe history=${e.history.length}`;
      default: return e.type;
    }
  });
}

// conversation is a saved conversation of n messages: the mail group
// loaded first, then exchanges of text.
function conversation(n) {
  const out = [
    { role: "user", content: "Read my mail" },
    { role: "assistant", content: [{ type: "tool-call", toolCallId: "old_load", toolName: "load_tool_group", input: { group_name: "mail" } }] },
    { role: "tool", content: [{ type: "tool-result", toolCallId: "old_load", toolName: "load_tool_group", output: { type: "text", value: "Loaded." } }] },
    { role: "assistant", content: "Loaded." },
  ];
  for (let i = 0; out.length < n; i++) out.push({ role: "user", content: `Question ${i}` }, { role: "assistant", content: `Answer ${i}` });
  return out.slice(0, n);
}

test("a step gives the module the new messages only, however long the conversation", async () => {
  const runs = {};
  for (const n of [4, 400]) {
    const log = [];
    const inst = spy(await Toolroute.instantiate(wasm), log);
    const { router, ran } = await officeRouter({ module: inst });
    const session = router.session("long");
    let messages = [...conversation(n), { role: "user", content: "Anything new?" }];
    const turns = [];
    for (let turn = 0; turn < 3; turn++) {
      log.length = 0;
      const r = await stream(session, messages, [["read_inbox", {}], "Nothing new."]);
      assert.equal(r.text, "Nothing new.");
      assert.ok(r.seen[0].tools.includes("read_inbox"), "the saved conversation's group is loaded");
      turns.push(given(log));
      // The app's loop calls its model: the module builds no request.
      assert.ok(log.filter((e) => e.type === "start").every((e) => e.settings.no_body === true));
      messages = [...messages, ...r.responseMessages, { role: "user", content: `And now (${turn})?` }];
    }
    assert.equal(ran.length, 3);
    runs[n] = turns;
  }
  // The first turn of a router sends the conversation once, as the hosts'
  // first turn of a session sends its log.
  assert.deepEqual(runs[400][0], ["start whole history=400 +user", "response 1 calls", "tool_results 1"]);
  assert.deepEqual(runs[4][0], ["start whole history=4 +user", "response 1 calls", "tool_results 1"]);
  // The next turns: the last turn's answer, the user's message on the
  // state the module kept, each step's response and result. No step reads
  // the history again, at 4 messages or 400.
  const later = ["response 0 calls", "start kept history=0 +user", "response 1 calls", "tool_results 1"];
  for (const n of [4, 400]) assert.deepEqual(runs[n].slice(1), [later, later], `n=${n}`);
});

test("two conversations at once on one router keep their own groups", async () => {
  const { router, ran } = await officeRouter();
  const [mail, calendar] = await Promise.all([
    stream(router.session("a"), [{ role: "user", content: "Mail?" }], [["load_tool_group", { group_name: "mail" }], ["read_inbox", {}], "No mail."]),
    stream(router.session("b"), [{ role: "user", content: "Monday?" }], [["load_tool_group", { group_name: "calendar" }], ["list_events", { day: "2026-03-02" }], "Free."]),
  ]);
  assert.deepEqual([mail.text, calendar.text], ["No mail.", "Free."]);
  assert.ok(mail.seen[2].tools.includes("read_inbox") && !mail.seen[2].tools.includes("list_events"), mail.seen[2].tools.join(" "));
  assert.ok(calendar.seen[2].tools.includes("list_events") && !calendar.seen[2].tools.includes("read_inbox"), calendar.seen[2].tools.join(" "));
  assert.deepEqual(ran.sort(), ['list_events {"day":"2026-03-02"}', "read_inbox {}"]);
});

test("an instance replaced between steps (its memory past recycleMemory) loses nothing: the session starts again from its messages", async () => {
  let made = 0;
  const { router, ran } = await officeRouter({ module: () => (made++, Toolroute.instantiate(wasm)), recycleMemory: 1 });
  const r = await stream(router.session("recycled"), [{ role: "user", content: "Mail?" }], [["load_tool_group", { group_name: "mail" }], ["read_inbox", {}], "No mail."]);
  assert.equal(r.text, "No mail.");
  assert.ok(r.seen[2].tools.includes("read_inbox"), r.seen[2].tools.join(" "));
  assert.deepEqual(ran, ["read_inbox {}"]);
  assert.ok(made >= 3, `an instance a step: ${made}`);
});

test("toHistory converts AI SDK messages to toolroute's log", () => {
  const cases = [
    { name: "text", input: [{ role: "system", content: "s" }, { role: "user", content: "hi" }, { role: "assistant", content: "hello" }], want: [{ type: "user", content: "hi" }, { type: "assistant", content: "hello" }] },
    {
      name: "a call and its error result",
      input: [
        { role: "assistant", content: [{ type: "text", text: "Let me look." }, { type: "tool-call", toolCallId: "c1", toolName: "load_tool_group", input: { group_name: "x" } }] },
        { role: "tool", content: [{ type: "tool-result", toolCallId: "c1", toolName: "load_tool_group", output: { type: "error-text", value: "no" } }] },
      ],
      want: [
        { type: "assistant", content: "Let me look." },
        { type: "tool_call", tool_call_id: "c1", tool_name: "load_tool_group", tool_input: '{"group_name":"x"}', status: "error", index: 0 },
        { type: "tool_result", tool_call_id: "c1", tool_name: "load_tool_group", content: "no", status: "error" },
      ],
    },
    {
      name: "a call with no result yet is pending",
      input: [{ role: "assistant", content: [{ type: "tool-call", toolCallId: "c2", toolName: "get_answer", input: {} }] }],
      want: [{ type: "tool_call", tool_call_id: "c2", tool_name: "get_answer", tool_input: "{}", status: "pending", index: 0 }],
    },
  ];
  for (const c of cases) assert.deepEqual(toHistory(c.input), c.want, c.name);
  assert.throws(() => toHistory("hi"), /messages must be an array/);
});

test("createRouter refuses a module that is not a Toolroute instance", async () => {
  await assert.rejects(createRouter({ module: {} }), /options\.module must be a Toolroute instance/);
});

test("a session's messages with no user message are refused with what to give", async () => {
  const s = router.session("no-user");
  await assert.rejects(s.prepareStep({ messages: [{ role: "assistant", content: "hi" }], stepNumber: 0 }), /the messages have no user message/);
});
