// Typed tool definitions (tools.js): host tools given as code, with a JSON
// Schema or a zod schema, in groups or alone, to createHost and
// createRouter. The module checks them as any host tool: the definitions
// when they load (a refused one makes createHost throw) and each call's
// arguments before execute runs (a bad call never reaches it).
import { test, before } from "node:test";
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import path from "node:path";
import { z } from "zod";
import { generateText, stepCountIs } from "ai";
import { MockLanguageModelV4 } from "ai/test";
import { Toolroute, tool, group } from "../index.js";
import { createHost, MemoryStore } from "../host/host.js";
import { createRouter } from "../ai-sdk/ai-sdk.js";
import { typedCatalogue } from "../tools.js";
import { startFakeModel, text, toolCall, toolNames } from "./host-fakemodel.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../..");
let wasm;
before(async () => {
  wasm = await WebAssembly.compile(await readFile(path.join(root, "wasm/toolroute.wasm")));
});
const factory = () => Toolroute.instantiate(wasm);

async function collect(gen) {
  const events = [];
  for await (const ev of gen) events.push(ev);
  return events;
}

// weatherTools are a group of one tool taking a city, with inputSchema
// given as schema (JSON Schema or zod), and a core tool without
// parameters; calls records what execute got.
function weatherTools(schema, calls) {
  return [
    group({
      name: "weather",
      displayName: "Weather",
      description: "Weather forecasts",
      tools: [
        tool({
          name: "get_forecast",
          description: "The forecast for a city",
          inputSchema: schema,
          execute: async (args, { signal }) => {
            calls.push(args);
            assert.ok(signal instanceof AbortSignal);
            return `Sunny in ${args.city} for ${args.days ?? 1} day(s)`;
          },
        }),
      ],
    }),
    tool({ name: "get_time", description: "The time now", execute: () => "09:00" }),
  ];
}

const JSON_SCHEMA = {
  type: "object",
  properties: { city: { type: "string", description: "The city" }, days: { type: "integer" } },
  required: ["city"],
};
const ZOD_SCHEMA = z.object({ city: z.string().describe("The city"), days: z.number().int().optional() });

// requestTool is the schema a model request offered a tool with (OpenAI's format).
const requestTool = (req, name) => req.json.tools.find((t) => t.function.name === name)?.function;

for (const [kind, schema] of [["a JSON Schema", JSON_SCHEMA], ["a zod schema", ZOD_SCHEMA]]) {
  test(`a typed tool with ${kind}, in its group: loaded by the model, called with the arguments the module checked`, async () => {
    const model = await startFakeModel("openai",
      toolCall("load_tool_group", '{"group_name":"weather"}'),
      toolCall("get_forecast", '{"city":"Paris","days":2}'),
      text("Sunny in Paris."));
    const calls = [];
    try {
      const host = await createHost({
        module: factory,
        tools: weatherTools(schema, calls),
        provider: { format: "openai", baseURL: model.baseURL, apiKey: "sk-test", model: "fake-model" },
        settings: { systemPrompt: "Be brief." },
      });
      assert.deepEqual(host.report.errors, []);
      const events = await collect(host.send("s", "Weather in Paris for two days?"));
      assert.equal(events.at(-1).type, "done", JSON.stringify(events.at(-1)));
      assert.deepEqual(calls, [{ city: "Paris", days: 2 }]);
      const result = events.find((e) => e.type === "message" && e.message.type === "tool_result" && e.message.tool_name === "get_forecast");
      assert.equal(result.message.content, "Sunny in Paris for 2 day(s)");

      // The core tool on every call; the group's tool once loaded, with
      // its schema as given (zod's as its JSON Schema).
      assert.deepEqual(model.requests.map(toolNames), [
        ["load_tool_group", "get_time"],
        ["load_tool_group", "get_time", "get_forecast"],
        ["load_tool_group", "get_time", "get_forecast"],
      ]);
      const offered = requestTool(model.requests[1], "get_forecast");
      assert.equal(offered.description, "The forecast for a city");
      assert.deepEqual(offered.parameters.properties.city, { type: "string", description: "The city" });
      assert.equal(offered.parameters.properties.days.type, "integer");
      assert.deepEqual(offered.parameters.required, ["city"]);
      assert.match(model.requests[0].json.messages[0].content, /^Be brief\./);
    } finally {
      await model.close();
    }
  });
}

test("a call with bad arguments is refused by the module: execute never runs, the model reads why", async () => {
  const model = await startFakeModel("openai",
    toolCall("load_tool_group", '{"group_name":"weather"}'),
    toolCall("get_forecast", '{"days":"two"}'),
    text("Sorry."));
  const calls = [];
  try {
    const host = await createHost({
      module: factory,
      tools: weatherTools(ZOD_SCHEMA, calls),
      provider: { format: "openai", baseURL: model.baseURL, apiKey: "sk-test", model: "fake-model" },
    });
    const events = await collect(host.send("s", "Weather?"));
    assert.equal(events.at(-1).type, "done");
    assert.deepEqual(calls, []);
    const result = events.find((e) => e.type === "message" && e.message.type === "tool_result" && e.message.tool_name === "get_forecast").message;
    assert.equal(result.status, "error");
    assert.equal(result.error_type, "invalid_arguments");
    assert.match(result.content, /get_forecast/);
    assert.match(result.content, /city/);
    // What the model read on its next call.
    const told = model.requests[2].json.messages.find((m) => m.role === "tool" && /invalid_arguments|city/.test(m.content));
    assert.ok(told, JSON.stringify(model.requests[2].json.messages));
  } finally {
    await model.close();
  }
});

test("a definition the module refuses makes createHost throw with the module's reason", async () => {
  const provider = { format: "openai", demo: true };
  await assert.rejects(
    createHost({ module: factory, provider, tools: [tool({ name: "Get Forecast", description: "x", execute: () => "" })] }),
    /did not load tool 'Get Forecast'.*snake_case/);
  await assert.rejects(
    createHost({ module: factory, provider, tools: [tool({ name: "get_forecast", description: "x", inputSchema: { type: "string" }, execute: () => "" })] }),
    /did not load tool 'get_forecast'.*parameters\.type/);
  await assert.rejects(
    createHost({ module: factory, provider, tools: [group({ name: "Weather", description: "x", tools: [] })] }),
    /did not load group 'Weather'/);
  await assert.rejects(
    createHost({ module: factory, provider, tools: [tool({ name: "get_time", description: "", execute: () => "" })] }),
    /did not load tool 'get_time'.*no description/);
});

test("definitions the host cannot use are refused before the module sees them", () => {
  const run = () => "";
  assert.throws(() => typedCatalogue([{ name: "t", description: "d", parameters: {}, execute: run }]), /tools\[0\] has a field 'parameters' a tool does not have: its fields are name, description, inputSchema, execute/);
  assert.throws(() => typedCatalogue([{ name: "t", description: "d" }]), /tools\[0\] has no execute function/);
  assert.throws(() => typedCatalogue({ t: { name: "u", description: "d", execute: run } }), /tools\.t is named 'u'/);
  assert.throws(() => typedCatalogue([group({ name: "g", description: "d", tools: [group({ name: "h", description: "d", tools: [] })] })]), /groups do not nest/);
  assert.throws(() => typedCatalogue([{ name: "t", description: "d", inputSchema: "{}", execute: run }]), /inputSchema must be a JSON Schema object/);
  // A Standard Schema without its JSON Schema (zod 3, zod mini...).
  const noJSON = { "~standard": { version: 1, vendor: "zod", validate: () => ({ value: {} }) } };
  assert.throws(() => typedCatalogue([{ name: "t", description: "d", inputSchema: noJSON, execute: run }]), /a zod schema that gives no JSON Schema.*z\.toJSONSchema/);
  assert.throws(() => typedCatalogue("get_time"), /must be an array of tools and groups, or an object of them by name/);
});

test("tools given by name, and beside a catalogue and native functions", async () => {
  const host = await createHost({
    module: factory,
    provider: { format: "openai", demo: true },
    catalogue: { groups: [{ name: "pdf", display_name: "PDF", description: "Read PDF files" }], tools: [{ name: "pdf_info", description: "Pages of a PDF", group: "pdf" }] },
    native: { pdf_info: () => "3 pages" },
    tools: {
      weather: group({ description: "Weather forecasts", tools: { get_forecast: tool({ description: "The forecast", inputSchema: ZOD_SCHEMA, execute: () => "Sunny" }) } }),
      get_time: tool({ description: "The time now", execute: () => "09:00" }),
    },
  });
  const d = await host.describe();
  assert.deepEqual(d.groups.map((g) => [g.name, g.tools]), [["pdf", ["pdf_info"]], ["weather", ["get_forecast"]]]);
  assert.deepEqual(d.active, ["load_tool_group", "get_time"]);
  assert.deepEqual(d.tools.find((t) => t.name === "get_forecast").parameters.required, ["city"]);

  await assert.rejects(
    createHost({ module: factory, provider: { format: "openai", demo: true }, native: { get_time: () => "" }, tools: [tool({ name: "get_time", description: "d", execute: () => "" })] }),
    /tool 'get_time' is defined in options\.tools with its execute and given again in options\.native/);
});

test("settings and agents in camelCase, and in the module's snake_case names still", async () => {
  for (const settings of [{ systemPrompt: "Answer in French." }, { system_prompt: "Answer in French." }]) {
    const host = await createHost({ module: factory, provider: { format: "openai", demo: true }, settings, tools: weatherTools(JSON_SCHEMA, []) });
    assert.match((await host.describe()).system_prompt, /^Answer in French\./, JSON.stringify(settings));
  }
  for (const agent of [{ systemPrompt: "You are Ada.", groups: ["weather"] }, { system_prompt: "You are Ada.", groups: ["weather"] }]) {
    const host = await createHost({
      module: factory, provider: { format: "openai", demo: true }, tools: weatherTools(JSON_SCHEMA, []),
      agentOf: () => agent, store: new MemoryStore(),
    });
    assert.match((await host.describe("s")).system_prompt, /^You are Ada\./, JSON.stringify(agent));
  }
});

test("createRouter takes typed tools: the AI SDK's loop loads the group and runs execute", async () => {
  const calls = [];
  const router = await createRouter({ module: factory, tools: weatherTools(ZOD_SCHEMA, calls) });
  const usage = { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } };
  const call = (toolName, input) => ({
    content: [{ type: "tool-call", toolCallId: toolName, toolName, input: JSON.stringify(input) }],
    finishReason: { unified: "tool-calls", raw: undefined }, usage, warnings: [],
  });
  const model = new MockLanguageModelV4({
    doGenerate: [
      call("load_tool_group", { group_name: "weather" }),
      call("get_forecast", { city: "Oslo" }),
      { content: [{ type: "text", text: "Sunny." }], finishReason: { unified: "stop", raw: undefined }, usage, warnings: [] },
    ],
  });
  const result = await generateText({
    model, messages: [{ role: "user", content: "Weather in Oslo?" }],
    tools: router.tools, prepareStep: router.prepareStep, stopWhen: stepCountIs(5),
  });
  assert.equal(result.text, "Sunny.");
  assert.deepEqual(calls, [{ city: "Oslo" }]);
  assert.deepEqual(router.loadedGroups(result.responseMessages), ["weather"]);
  await assert.rejects(createRouter({ module: factory, tools: [tool({ name: "Bad Name", description: "d", execute: () => "" })] }), /did not load tool 'Bad Name'/);
});

// The router loads the catalogue again into each instance it makes: typed
// tools are in it, and their execute functions still run, in a session of
// the app's.
test("createRouter's typed tools survive a replaced instance, in a session by id", async () => {
  const calls = [];
  let made = 0;
  const router = await createRouter({ module: () => (made++, factory()), recycleMemory: 1, tools: weatherTools(ZOD_SCHEMA, calls) });
  const usage = { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } };
  const call = (toolName, input) => ({
    content: [{ type: "tool-call", toolCallId: toolName, toolName, input: JSON.stringify(input) }],
    finishReason: { unified: "tool-calls", raw: undefined }, usage, warnings: [],
  });
  const model = new MockLanguageModelV4({
    doGenerate: [
      call("load_tool_group", { group_name: "weather" }),
      call("get_forecast", { city: "Bergen", days: 2 }),
      call("get_time", {}),
      { content: [{ type: "text", text: "Sunny at nine." }], finishReason: { unified: "stop", raw: undefined }, usage, warnings: [] },
    ],
  });
  const session = router.session("bergen");
  const result = await generateText({
    model, messages: [{ role: "user", content: "Weather in Bergen, and the time?" }],
    tools: session.tools, prepareStep: session.prepareStep, stopWhen: stepCountIs(6),
  });
  assert.equal(result.text, "Sunny at nine.");
  assert.deepEqual(calls, [{ city: "Bergen", days: 2 }]);
  assert.ok(made > 1, `the router made ${made} instance(s): recycleMemory 1 replaces each`);
  const results = result.steps.flatMap((s) => s.toolResults).map((r) => [r.toolName, r.output]);
  assert.deepEqual(results.filter(([n]) => n !== "load_tool_group"), [["get_forecast", "Sunny in Bergen for 2 day(s)"], ["get_time", "09:00"]]);
});

// A typed tool's timeoutSeconds holds in the router as in createHost: its
// execute sees the signal aborted, and the model reads that it timed out.
test("createRouter aborts a typed tool's execute at its timeoutSeconds and fails the call", async () => {
  let aborted = null;
  const slow = tool({
    name: "slow", description: "Waits until stopped", timeoutSeconds: 1,
    execute: (_args, { signal }) => new Promise((resolve) => {
      if (!signal) return resolve("no signal");
      signal.addEventListener("abort", () => resolve((aborted = String(signal.reason?.message))));
    }),
  });
  const router = await createRouter({ module: factory, tools: [slow] });
  const usage = { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } };
  const model = new MockLanguageModelV4({
    doGenerate: [
      { content: [{ type: "tool-call", toolCallId: "s1", toolName: "slow", input: "{}" }], finishReason: { unified: "tool-calls", raw: undefined }, usage, warnings: [] },
      { content: [{ type: "text", text: "It timed out." }], finishReason: { unified: "stop", raw: undefined }, usage, warnings: [] },
    ],
  });
  const result = await generateText({ model, messages: [{ role: "user", content: "Wait" }], tools: router.tools, prepareStep: router.prepareStep, stopWhen: stepCountIs(3) });
  assert.equal(aborted, "timeout");
  const err = result.steps[0].content.find((p) => p.type === "tool-error");
  assert.equal(err?.error?.type, "timeout");
  assert.match(String(err?.error?.message), /tool 'slow' timed out after 1s/);
});
