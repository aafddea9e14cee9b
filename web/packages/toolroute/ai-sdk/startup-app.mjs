// One app of startup-bench.mjs, run as a new Node process: the first turn
// of an AI SDK app, streamText against an OpenAI-compatible server
// (startup-bench.mjs's fake one, at OPENAI_BASE_URL), with
//
//   - plain: one native tool, as a plain AI SDK app has it;
//   - router: the same native tool and a JS tool, through createRouter
//     (toolroute/ai-sdk), the JS tool run by jsrun's Runner.
//
// It prints one JSON line: {app, first_turn_ms (from the process's start,
// performance.now()), text, results}; the bench checks the text and the
// results, so that an app that did not run its tools is not timed.
//
//	node packages/toolroute/ai-sdk/startup-app.mjs plain|router   (from web/, OPENAI_BASE_URL set)
import { streamText, stepCountIs, tool, jsonSchema } from "ai";
import { createOpenAI } from "@ai-sdk/openai";

const app = process.argv[2];
const openai = createOpenAI({ baseURL: process.env.OPENAI_BASE_URL, apiKey: "local" });
const model = openai.chat("fake-model");
const messages = [{ role: "user", content: "What time is it, and how many words are in 'one two three'?" }];
const nowText = () => "It is 12:00.";

let tools, prepareStep;
if (app === "plain") {
  tools = {
    get_time: tool({ description: "The current time", inputSchema: jsonSchema({ type: "object", properties: {} }), execute: async () => nowText() }),
  };
} else if (app === "router") {
  const [{ createRouter }, { Runner, MemoryStore }, { tool: typedTool }] = await Promise.all([
    import("toolroute/ai-sdk"),
    import("toolroute/jsrun"),
    import("toolroute"),
  ]);
  const runner = new Runner({ store: new MemoryStore() });
  const router = await createRouter({
    catalogue: {
      manifests: [{
        file: "word_count.json",
        source: "word_count.js",
        text: JSON.stringify({ name: "word_count", description: "Counts the words of a text", function: "count", parameters: { type: "object", properties: { text: { type: "string" } }, required: ["text"] } }),
      }],
    },
    sources: { "word_count.js": "function count(args) { return String(args.text.split(/\\s+/).filter(Boolean).length); }" },
    tools: [typedTool({ name: "get_time", description: "The current time", inputSchema: { type: "object", properties: {} }, execute: async () => nowText() })],
    runJS: runner,
  });
  const chat = router.session("startup");
  tools = chat.tools;
  prepareStep = chat.prepareStep;
} else {
  console.error("usage: startup-app.mjs plain|router");
  process.exit(2);
}

const result = streamText({ model, messages, tools, prepareStep, stopWhen: stepCountIs(4) });
const text = await result.text;
const results = [];
for (const step of await result.steps) {
  for (const r of step.toolResults) results.push(`${r.toolName}: ${typeof r.output === "string" ? r.output : JSON.stringify(r.output)}`);
}
const firstTurnMs = performance.now();
console.log(JSON.stringify({ app, first_turn_ms: Math.round(firstTurnMs), text, results }));
// The runner's worker thread and the model's connections do not keep the
// process: it has measured what it came for.
process.exit(0);
