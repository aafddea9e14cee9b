// One case of startup.test.js, run as a new Node process (what a process
// compiled and loaded is the case's alone): it counts the wasm modules the
// process compiles, by kind (toolroute.wasm by its toolroute_load export,
// QuickJS by its hard stop's), runs the case's turns through
// toolroute/ai-sdk with ai/test's scripted model, and prints one JSON line:
// {compiled: {toolroute, quickjs}, ...the case's findings}.
//
//	node test/startup-case.js CASE     (from web/packages/toolroute)
import { generateText, stepCountIs } from "ai";
import { MockLanguageModelV4 } from "ai/test";

const compiled = { toolroute: 0, quickjs: 0, other: 0 };
const compile = WebAssembly.compile;
WebAssembly.compile = async function (bytes) {
  const m = await compile.call(WebAssembly, bytes);
  const names = WebAssembly.Module.exports(m).map((e) => e.name);
  if (names.includes("toolroute_load")) compiled.toolroute++;
  else if (names.includes("toolroute_hard_deadline")) compiled.quickjs++;
  else compiled.other++;
  return m;
};

const { createRouter } = await import("toolroute/ai-sdk");
const { Runner, MemoryStore } = await import("toolroute/jsrun");
const { tool, loadToolroute, loadWordVectors } = await import("toolroute");

const usage = { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } };
// model calls each [name, input] in turn, one a step, then answers.
function model(calls) {
  const steps = calls.map(([toolName, input], i) => ({
    content: [{ type: "tool-call", toolCallId: `c${i}`, toolName, input: JSON.stringify(input) }],
    finishReason: { unified: "tool-calls", raw: undefined }, usage, warnings: [],
  }));
  steps.push({ content: [{ type: "text", text: "Done." }], finishReason: { unified: "stop", raw: undefined }, usage, warnings: [] });
  return new MockLanguageModelV4({ doGenerate: steps });
}

// turn runs one turn of a new session and gives its tool results, as
// "name: text".
async function turn(router, calls, id = "s") {
  const chat = router.session(id);
  const r = await generateText({ model: model(calls), messages: [{ role: "user", content: "Go" }], tools: chat.tools, prepareStep: chat.prepareStep, stopWhen: stepCountIs(calls.length + 2) });
  const out = [];
  for (const m of r.responseMessages) {
    if (m.role !== "tool") continue;
    for (const p of m.content) if (p.type === "tool-result") out.push(`${p.toolName}: ${typeof p.output?.value === "string" ? p.output.value : JSON.stringify(p.output)}`);
  }
  return out;
}

const getTime = tool({ name: "get_time", description: "The current time", inputSchema: { type: "object", properties: {} }, execute: async () => "12:00" });
const wordCount = {
  manifests: [{
    file: "word_count.json",
    source: "word_count.js",
    text: JSON.stringify({ name: "word_count", description: "Counts the words of a text", function: "count", parameters: { type: "object", properties: { text: { type: "string" } }, required: ["text"] } }),
  }],
};
const wordSources = { "word_count.js": "function count(a) { return String(a.text.split(/\\s+/).filter(Boolean).length); }" };
// office: host tools in a group, for search_tools to find.
const office = {
  groups: [{ name: "calendar", display_name: "Calendar", description: "Calendar events and meetings" }],
  tools: [{ name: "list_events", group: "calendar", description: "List the calendar events of one day, with their times and who attends", parameters: { type: "object", properties: { day: { type: "string" } }, required: ["day"] } }],
};

const cases = {
  // A router with host tools only, given a Runner as the README's apps
  // do: QuickJS is never compiled.
  async "no-js"() {
    const runner = new Runner({ store: new MemoryStore() });
    const router = await createRouter({ tools: [getTime], runJS: runner });
    return { results: await turn(router, [["get_time", {}]]) };
  },
  // A JS tool's first call, with the Runner as runJS (warmed) and with a
  // function calling it (not warmed).
  async "js-first-call"() {
    const runner = new Runner({ store: new MemoryStore() });
    const warmed = await createRouter({ catalogue: wordCount, sources: wordSources, tools: [getTime], runJS: runner });
    const results = await turn(warmed, [["word_count", { text: "one two three" }]]);
    return { results };
  },
  async "js-first-call-function"() {
    const runner = new Runner({ store: new MemoryStore() });
    const router = await createRouter({ catalogue: wordCount, sources: wordSources, runJS: (call) => runner.call(call) });
    return { results: await turn(router, [["word_count", { text: "one two three four" }]]) };
  },
  // Two routers, a second Runner and an instance of the package's module:
  // each wasm module compiled once.
  async "two-routers"() {
    const a = await createRouter({ catalogue: wordCount, sources: wordSources, runJS: new Runner({ store: new MemoryStore() }) });
    const b = await createRouter({ catalogue: wordCount, sources: wordSources, runJS: new Runner({ store: new MemoryStore() }) });
    await loadToolroute();
    const results = [...(await turn(a, [["word_count", { text: "a b" }]])), ...(await turn(b, [["word_count", { text: "a b c d e" }]]))];
    return { results };
  },
  // Hosts (toolroute/host) as routers: one with host tools only never
  // compiles QuickJS; one with a JS tool readies its Runner as it starts;
  // a router beside them shares their compiled module.
  async hosts() {
    const { createHost } = await import("toolroute/host");
    const provider = { format: "openai", demo: true };
    const plain = await createHost({ module: () => loadToolroute(), tools: [getTime], provider, runJS: new Runner({ store: new MemoryStore() }) });
    let text = "";
    for await (const ev of plain.send("s", "Hello")) if (ev.type === "done") text = ev.text;
    const quickjsWithout = compiled.quickjs;
    const runner = new Runner({ store: new MemoryStore() });
    await createHost({ module: () => loadToolroute(), catalogue: wordCount, sources: wordSources, provider, runJS: runner });
    await runner.warm();
    const router = await createRouter({ catalogue: wordCount, sources: wordSources, runJS: runner });
    return { answered: text !== "", quickjsWithout, results: await turn(router, [["word_count", { text: "x y z" }]]) };
  },
  // search_tools with the word vectors, read only by a router that offers
  // search_tools.
  async search() {
    let read = 0;
    const wordVectors = () => {
      read++;
      return loadWordVectors();
    };
    await createRouter({ catalogue: office, native: { list_events: async () => "none" }, wordVectors });
    const readOff = read;
    const on = await createRouter({ catalogue: office, native: { list_events: async () => "A meeting at 10" }, wordVectors, settings: { searchTools: true } });
    const results = await turn(on, [["search_tools", { query: "what meetings do I have on a day" }], ["list_events", { day: "2026-03-02" }]]);
    return { results, vectorsReadWithoutSearch: readOff, vectorsRead: read };
  },
};

const name = process.argv[2];
if (!cases[name]) throw new Error(`startup-case.js: no case ${JSON.stringify(name)}`);
const found = await cases[name]();
console.log(JSON.stringify({ compiled, ...found }));
process.exit(0);
