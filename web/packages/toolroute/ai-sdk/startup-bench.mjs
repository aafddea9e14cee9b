// Measures what toolroute costs an AI SDK app's start: the first turn of a
// new Node process, from the process's start to the turn's answer, of
//
//   - plain: an AI SDK app, streamText with one native tool;
//   - router: the same app through createRouter (toolroute/ai-sdk), with the
//     native tool and a JS tool (run in QuickJS by jsrun's Runner);
//   - native: createRouter with the native tool alone (QuickJS never
//     loaded), to show what the module's start costs by itself,
//
// both against a fake OpenAI-compatible server this script serves on the
// loopback (the model calls every tool it is offered, then answers), each
// app run as a new process (startup-plain.mjs, startup-router.mjs,
// startup-native.mjs) -n times, alternated. It
// prints the medians, the ratio router/plain and whether it meets the
// target (issue 38: at most 1.5x). With -write FILE it puts its section
// into BENCHMARKS.md (make bench), after benchreport's numbered sections,
// in place of the one a previous run wrote.
//
// The package's dist/ (scripts/pack-assets.mjs) is written first, as npm
// pack does, so the apps load the files a developer's install has.
//
//	node packages/toolroute/ai-sdk/startup-bench.mjs [-n 5] [-write ../BENCHMARKS.md]   (from web/)
import { createServer } from "node:http";
import { spawn } from "node:child_process";
import { readFile, writeFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import path from "node:path";
import { writeAssets } from "../scripts/pack-assets.mjs";

const TARGET = 1.5;
const SECTION = "14. Start-up in Node";
const arg = (name, def) => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : def;
};
const runs = Number(arg("-n", arg("-count", "5"))) || 5;
const out = arg("-write", "");
const here = path.dirname(fileURLToPath(import.meta.url));
const web = path.resolve(here, "..", "..", "..");

await writeAssets();

// The fake model: a first step calls every tool the request offers (of
// those the apps have), a step after tool results answers with them.
const server = createServer(async (req, res) => {
  let body = "";
  for await (const c of req) body += c;
  if (req.method !== "POST" || !req.url.endsWith("/chat/completions")) {
    res.writeHead(404).end();
    return;
  }
  const r = JSON.parse(body);
  const results = (r.messages ?? []).filter((m) => m.role === "tool").map((m) => (typeof m.content === "string" ? m.content : JSON.stringify(m.content)));
  const offered = (r.tools ?? []).map((t) => t.function?.name).filter((n) => n === "get_time" || n === "word_count");
  const args = { get_time: "{}", word_count: JSON.stringify({ text: "one two three" }) };
  const message = results.length || !offered.length
    ? { role: "assistant", content: `Done: ${results.join("; ")}` }
    : { role: "assistant", content: null, tool_calls: offered.map((name, i) => ({ id: `call_${i}`, type: "function", function: { name, arguments: args[name] } })) };
  const finish = message.tool_calls ? "tool_calls" : "stop";
  const usage = { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 };
  if (!r.stream) {
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify({ id: "x", object: "chat.completion", created: 0, model: r.model, choices: [{ index: 0, message, finish_reason: finish }], usage }));
    return;
  }
  res.writeHead(200, { "content-type": "text/event-stream" });
  const chunk = (delta, finishReason = null, extra = {}) => res.write(`data: ${JSON.stringify({ id: "x", object: "chat.completion.chunk", created: 0, model: r.model, choices: [{ index: 0, delta, finish_reason: finishReason }], ...extra })}\n\n`);
  if (message.tool_calls) {
    message.tool_calls.forEach((c, index) => chunk({ role: "assistant", tool_calls: [{ index, ...c }] }));
  } else {
    chunk({ role: "assistant", content: message.content });
  }
  chunk({}, finish, { usage });
  res.end("data: [DONE]\n\n");
});
await new Promise((ok) => server.listen(0, "127.0.0.1", ok));
const baseURL = `http://127.0.0.1:${server.address().port}/v1`;

// once runs one app as a new process and gives its first turn's time, after
// checking that it ran its tools.
async function once(name) {
  const child = spawn(process.execPath, [path.join(here, `startup-${name}.mjs`)], { cwd: web, env: { ...process.env, OPENAI_BASE_URL: baseURL }, stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (d) => (stdout += d));
  child.stderr.on("data", (d) => (stderr += d));
  const code = await new Promise((ok) => child.on("close", ok));
  if (code !== 0) throw new Error(`${name} app exited with ${code}:\n${stderr}${stdout}`);
  const got = JSON.parse(stdout.trim().split("\n").pop());
  const want = name === "router" ? ["get_time: It is 12:00.", "word_count: 3"] : ["get_time: It is 12:00."];
  for (const w of want) {
    if (!got.results.includes(w)) throw new Error(`${name} app: no tool result ${JSON.stringify(w)} in ${JSON.stringify(got)}\n${stderr}`);
  }
  return got.first_turn_ms;
}

const times = { plain: [], router: [], native: [] };
try {
  for (let i = 0; i < runs; i++) {
    for (const name of ["plain", "router", "native"]) times[name].push(await once(name));
  }
} finally {
  server.close();
}

const median = (v) => {
  const s = [...v].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const plain = median(times.plain);
const router = median(times.router);
const native = median(times.native);
const ratio = router / plain;
const verdict = ratio <= TARGET ? "pass" : "miss";
console.log(`plain AI SDK app   first turn from process start: median ${plain} ms  (runs: ${times.plain.join(", ")})`);
console.log(`with createRouter  first turn from process start: median ${router} ms  (runs: ${times.router.join(", ")})`);
console.log(`createRouter, no JS tool first turn from process start: median ${native} ms  (runs: ${times.native.join(", ")})`);
console.log(`ratio ${ratio.toFixed(2)}x, target at most ${TARGET}x: ${verdict}`);

if (out) {
  const how = `\`cd web && node packages/toolroute/ai-sdk/startup-bench.mjs -n ${runs}\``;
  const table = `\n## ${SECTION}\n\n| figure | median | how |\n| --- | --- | --- |\n` +
    `| first turn of a new process, plain AI SDK app (streamText, a native tool) | ${plain} ms | ${how}: from the process's start to the turn's answer, a fake OpenAI-compatible server on the loopback, ${runs} runs alternated |\n` +
    `| first turn of a new process, with createRouter (a native tool, a JS tool) | ${router} ms | the same, the JS tool's first QuickJS call included |\n` +
    `| first turn of a new process, with createRouter (the native tool alone: QuickJS never loaded) | ${native} ms | the same, ${(native / plain).toFixed(2)}x the plain app's |\n` +
    `| ratio, createRouter app / plain app | ${ratio.toFixed(2)}x (target at most ${TARGET}x: ${verdict}) | the two medians |\n`;
  await writeFile(out, withSection(await readFile(out, "utf8").catch(() => "# Benchmarks\n"), table));
  console.log(`wrote section "${SECTION}" of ${out}`);
}

// withSection puts table (a "## " section) into doc: in place of the section
// of the same heading, else after the last numbered section (before the
// report's notes), else at the end.
function withSection(doc, table) {
  const heading = `\n## ${SECTION}\n`;
  const at = doc.indexOf(heading);
  if (at >= 0) {
    const next = doc.indexOf("\n## ", at + 1);
    return doc.slice(0, at) + table + (next >= 0 ? doc.slice(next) : "");
  }
  const numbered = [...doc.matchAll(/\n## \d+\. /g)].at(-1);
  const next = numbered ? doc.indexOf("\n## ", numbered.index + 1) : -1;
  if (next >= 0) return doc.slice(0, next) + table + doc.slice(next);
  return doc.replace(/\n*$/, "\n") + table;
}
