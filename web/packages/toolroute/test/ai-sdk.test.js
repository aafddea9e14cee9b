// toolroute/ai-sdk against the ai package's own loop (generateText,
// streamText) and its scripted model (ai/test's MockLanguageModelV4): the
// tools offered on each step, the system prompt, a JS tool run in QuickJS,
// and the groups a saved conversation loaded restored on a later turn
// (restored from the log) without loading them again.
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

// The catalogue: a weather group of one JS tool, and a core JS tool.
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

let router;
before(async () => {
  const wasm = await WebAssembly.compile(await readFile(WASM));
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

// scripted gives a generate result per step: a tool call ([name, input]) or
// a text; seen records, per model call, the tools offered and the system prompt.
function scripted(steps, seen) {
  let i = 0;
  const record = (opts) => {
    const system = opts.prompt.filter((m) => m.role === "system").map((m) => m.content).join("\n");
    seen.push({ tools: (opts.tools ?? []).map((t) => t.name).sort(), system });
    const s = steps[i++];
    if (s === undefined) throw new Error(`the model was called ${i} times; the script has ${steps.length} steps`);
    return s;
  };
  return new MockLanguageModelV4({
    doGenerate: async (opts) => {
      const s = record(opts);
      if (typeof s === "string") return { content: [{ type: "text", text: s }], finishReason: finish("stop"), usage, warnings: [] };
      return { content: [{ type: "tool-call", toolCallId: `call_${i}`, toolName: s[0], input: JSON.stringify(s[1]) }], finishReason: finish("tool-calls"), usage, warnings: [] };
    },
    doStream: async (opts) => {
      const s = record(opts);
      const parts = typeof s === "string"
        ? [{ type: "text-start", id: "t" }, { type: "text-delta", id: "t", delta: s }, { type: "text-end", id: "t" }]
        : [{ type: "tool-call", toolCallId: `call_s${i}`, toolName: s[0], input: JSON.stringify(s[1]) }];
      return { stream: convertArrayToReadableStream([{ type: "stream-start", warnings: [] }, ...parts, { type: "finish", finishReason: finish(typeof s === "string" ? "stop" : "tool-calls"), usage }]) };
    },
  });
}

// toolResults gives a turn's tool results as "name: output" or "name: error: text".
function toolResults(messages) {
  const out = [];
  for (const m of messages) {
    if (m.role !== "tool") continue;
    for (const p of m.content) if (p.type === "tool-result") out.push(`${p.toolName}: ${p.output.type.startsWith("error") ? "error: " : ""}${p.output.value}`);
  }
  return out;
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

test("loading a group that does not exist is an error the model reads, and loads nothing", async () => {
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

test("a tool that sends asks first, through the AI SDK's approval request, and does not run", async () => {
  assert.equal(router.tools.send_note.needsApproval, true);
  assert.equal(router.tools.get_answer.needsApproval, false);
  const r = await generateText({
    model: scripted([["send_note", {}], "unreached"], []),
    messages: [{ role: "user", content: "Send it" }],
    tools: router.tools,
    prepareStep: router.prepareStep,
    stopWhen: stepCountIs(5),
  });
  const parts = r.responseMessages.flatMap((m) => (Array.isArray(m.content) ? m.content : []));
  assert.deepEqual(parts.map((p) => `${p.type}:${p.toolCallId}`), ["tool-call:call_1", "tool-approval-request:call_1"]);
  assert.deepEqual(toolResults(r.responseMessages), [], "it did not run");
});
