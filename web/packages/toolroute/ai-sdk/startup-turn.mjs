// The first turn of startup-bench.mjs's apps (startup-plain.mjs,
// startup-router.mjs), each run as a new Node process: streamText against
// an OpenAI-compatible server (startup-bench.mjs's fake one, at
// OPENAI_BASE_URL) with the app's tools. It prints one JSON line: {app,
// first_turn_ms (from the process's start, performance.now()), text,
// results}; the bench checks the results, so that an app that did not run
// its tools is not timed.
import { streamText, stepCountIs } from "ai";
import { createOpenAI } from "@ai-sdk/openai";

export const QUESTION = "What time is it, and how many words are in 'one two three'?";

// now is the native tool's answer.
export const now = async () => "It is 12:00.";

export async function firstTurn(app, tools, prepareStep) {
  const openai = createOpenAI({ baseURL: process.env.OPENAI_BASE_URL, apiKey: "local" });
  const result = streamText({ model: openai.chat("fake-model"), messages: [{ role: "user", content: QUESTION }], tools, prepareStep, stopWhen: stepCountIs(4) });
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
}
