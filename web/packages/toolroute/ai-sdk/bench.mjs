// Measures what toolroute/ai-sdk's prepareStep costs a step of an app's AI
// SDK loop as the conversation grows: 4, 400 and 4,000 messages before the
// turn. Each turn is a generateText of two steps (a tool call, then the
// answer) on a session whose state the module keeps, the conversation
// growing by its messages, after a first turn (untimed) that sends the
// whole history, as a router's first turn of a saved conversation does:
//
//   - session: a session's prepareStep (the module given the messages new
//     since the last step: the last turn's answer, the user's message, a
//     step's response and results);
//   - whole-history: what a step cost when the adapter described the whole
//     conversation every step (router.describe of the conversation: the
//     conversion and toolroute_describe of every message).
//
// module-messages/step is how many of the conversation's messages the
// module is given per step (a start event's history and user message, a
// response, each result): flat, whatever the conversation's length.
//
// AISDKTurn is all the router does in a turn of two steps: both
// prepareSteps and the tool call's execute (the module given the step's
// response and the result; the tool itself answers at once).
//
// It prints Go benchmark lines, which `make bench` (internal/benchreport)
// reads: ns/op is a median over a run's turns (of a turn's mean
// prepareStep, of a turn) or over 5 descriptions of the whole history,
// which a busy machine's preemptions, landing on a few, leave be.
//
//	node packages/toolroute/ai-sdk/bench.mjs [-count 5]      (from web/)
import { readFile } from "node:fs/promises";
import { generateText, stepCountIs } from "ai";
import { MockLanguageModelV4 } from "ai/test";
import { Toolroute } from "../driver/toolroute.js";
import { createRouter } from "./ai-sdk.js";

const count = Number(process.argv[process.argv.indexOf("-count") + 1]) || 5;
const SIZES = [4, 400, 4000];
const TURNS = 20; // timed turns per run, each of two steps

const wasm = await WebAssembly.compile(await readFile(new URL("../../../../wasm/toolroute.wasm", import.meta.url)));

// The catalogue: three groups of host tools and a core one.
const catalogue = { groups: [], tools: [] };
for (const g of ["mail", "calendar", "files"]) {
  catalogue.groups.push({ name: g, display_name: g, description: `Tools for ${g}` });
  for (let i = 0; i < 5; i++) {
    catalogue.tools.push({ name: `${g}_tool_${i}`, group: g, description: `Tool ${i} of ${g}: reads or lists what the user has in ${g}`, parameters: { type: "object", properties: { query: { type: "string", description: "What to look for" } } } });
  }
}
catalogue.tools.push({ name: "get_time", description: "The current time", parameters: { type: "object", properties: {} } });
const native = Object.fromEntries(catalogue.tools.map((t) => [t.name, async () => `${t.name}: nothing new`]));

// conversation is a saved conversation of n messages: the mail group
// loaded, then exchanges of a few sentences each.
function conversation(n) {
  const out = [
    { role: "user", content: "Read my mail" },
    { role: "assistant", content: [{ type: "tool-call", toolCallId: "load", toolName: "load_tool_group", input: { group_name: "mail" } }] },
    { role: "tool", content: [{ type: "tool-result", toolCallId: "load", toolName: "load_tool_group", output: { type: "text", value: "Loaded 5 tools from group 'mail'." } }] },
    { role: "assistant", content: "The mail tools are loaded." },
  ];
  const words = "the meeting moved to Thursday afternoon, and the report is due before it, with the figures from last quarter ";
  for (let i = 0; out.length < n; i++) out.push({ role: "user", content: `Question ${i}: ${words}` }, { role: "assistant", content: `Answer ${i}: ${words}${words}` });
  return out.slice(0, n);
}

const usage = { inputTokens: { total: 10, noCache: 10, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 5, text: 5, reasoning: 0 } };
let ids = 0;
// model calls a mail tool, then answers.
function model() {
  let step = 0;
  return new MockLanguageModelV4({
    doGenerate: async () => (step++ === 0
      ? { content: [{ type: "tool-call", toolCallId: `c${++ids}`, toolName: "mail_tool_0", input: "{}" }], finishReason: { unified: "tool-calls", raw: undefined }, usage, warnings: [] }
      : { content: [{ type: "text", text: "Nothing new." }], finishReason: { unified: "stop", raw: undefined }, usage, warnings: [] }),
  });
}

// given counts the conversation's messages an event gives the module.
function given(ev) {
  if (ev.type === "start") return (ev.history?.length ?? 0) + 1;
  if (ev.type === "response") return 1;
  if (ev.type === "tool_results") return ev.results.length;
  return 0;
}

// median is the middle of the values: a busy machine's preemptions, which
// land on a few calls, leave it be.
function median(v) {
  const s = [...v].sort((a, b) => a - b);
  return s.length % 2 ? s[s.length >> 1] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
}

// measure runs one size: a primed session, then TURNS timed turns.
async function measure(n) {
  let fed = 0;
  const real = await Toolroute.instantiate(wasm);
  const inst = new Proxy(real, {
    get(target, prop) {
      if (prop === "turnEvent") return (h, ev) => ((fed += given(ev)), target.turnEvent(h, ev));
      const v = Reflect.get(target, prop, target);
      return typeof v === "function" ? v.bind(target) : v;
    },
  });
  const router = await createRouter({ module: inst, catalogue, native });
  const session = router.session("bench");
  const now = () => Number(process.hrtime.bigint());
  // Per turn: its prepareSteps' time and count, and all the router's.
  let prepNs = 0, prepN = 0, turnNs = 0, stepCount = 0;
  const steps = [], turns = [];
  const prepareStep = async (opts) => {
    const start = now();
    const r = await session.prepareStep(opts);
    const ns = now() - start;
    prepNs += ns;
    prepN++;
    turnNs += ns;
    return r;
  };
  // The tools, each execute timed: the module given the step's response
  // and the result (the tool itself answers at once).
  const tools = Object.fromEntries(Object.entries(session.tools).map(([name, t]) => [name, { ...t, execute: async (input, o) => {
    const start = now();
    try {
      return await t.execute(input, o);
    } finally {
      turnNs += now() - start;
    }
  } }]));
  let messages = [...conversation(n), { role: "user", content: "Anything new?" }];
  const turn = async () => {
    prepNs = prepN = turnNs = 0;
    const r = await generateText({ model: model(), messages, tools, prepareStep, stopWhen: stepCountIs(4) });
    if (r.text !== "Nothing new.") throw new Error(`the turn answered ${JSON.stringify(r.text)}`);
    messages = [...messages, ...r.responseMessages, { role: "user", content: "And now?" }];
    steps.push(prepNs / prepN);
    turns.push(turnNs);
    stepCount += prepN;
  };
  await turn(); // the whole history, once
  steps.length = turns.length = stepCount = fed = 0;
  for (let i = 0; i < TURNS; i++) await turn();
  // What describing the whole conversation cost each step before.
  const whole = [];
  for (let i = 0; i < 5; i++) {
    const start = now();
    router.describe(messages);
    whole.push(now() - start);
  }
  return { step: median(steps), turn: median(turns), whole: median(whole), fed: fed / stepCount, steps: stepCount };
}

for (const n of SIZES) await measure(n); // warm up
for (let i = 0; i < count; i++) {
  for (const n of SIZES) {
    const m = await measure(n);
    console.log(`BenchmarkAISDKPrepareStep/messages=${n}/session\t${m.steps}\t${Math.round(m.step)} ns/op\t${m.fed.toFixed(1)} module-messages/step`);
    console.log(`BenchmarkAISDKPrepareStep/messages=${n}/whole-history\t5\t${Math.round(m.whole)} ns/op`);
    console.log(`BenchmarkAISDKTurn/messages=${n}\t${TURNS}\t${Math.round(m.turn)} ns/op`);
  }
}
