// The demo model in the JS host, as the browser UI's "Demo" provider and the
// worker's TOOLROUTE_PROVIDER=demo run it: the module's toolroute_demo over
// the real built-in catalogue (from `toolroute export`), with the JS tools
// run in QuickJS. It answers what is typed, and says a failure is one.
import { test, before } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import path from "node:path";
import { Toolroute } from "../driver/toolroute.js";
import { createHost, MemoryStore } from "../host/host.js";
import { Runner, MemoryStore as MemoryFS } from "../jsrun/runner.js";
import { moduleCheck } from "./module-check.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../..");
let host;

before(async () => {
  const bundle = JSON.parse(execFileSync("go", ["run", "./cmd/toolroute", "export"], { cwd: root, maxBuffer: 256 << 20 }).toString());
  const wasm = await WebAssembly.compile(await readFile(path.join(root, "wasm/toolroute.wasm")));
  const runner = new Runner({ check: moduleCheck, store: new MemoryFS(), libraries: [bundle.libraries ?? {}] });
  host = await createHost({
    module: () => Toolroute.instantiate(wasm),
    catalogue: bundle.catalogue,
    sources: bundle.sources,
    provider: { format: "openai", demo: true, model: "toolroute-demo" },
    settings: { stream: true },
    store: new MemoryStore(),
    runJS: (c) => runner.call(c),
  });
});

// turn sends text in a new session and gives its tool calls ("name:status"),
// group loads and last reply.
async function turn(text) {
  const calls = [], loads = [], results = new Map();
  let done;
  const events = [];
  for await (const ev of host.send("s-" + text, text)) events.push(ev);
  for (const ev of events) {
    if (ev.type === "message" && ev.message.type === "tool_result") results.set(ev.message.tool_call_id, ev.message.status);
  }
  for (const ev of events) {
    if (ev.type === "message" && ev.message.type === "tool_call") calls.push(`${ev.message.tool_name}:${results.get(ev.message.tool_call_id)}`);
    if (ev.type === "group_loaded") loads.push(ev.group.name);
    if (ev.type === "done") done = ev.text;
    if (ev.type === "failed") assert.fail(`the turn failed: ${JSON.stringify(ev)}`);
  }
  assert.match(done, /^\[demo model\] /);
  return { calls, loads, reply: done };
}

test("the time is get_current_time, a core tool", async () => {
  const t = await turn("What time is it?");
  assert.deepEqual(t.calls, ["get_current_time:success"]);
  assert.match(t.reply, /get_current_time answered: /);
});

test("a note is written to the sandbox and read back", async () => {
  const t = await turn("Write a note: water the plants");
  assert.deepEqual(t.calls, ["write_file:success", "read_file:success"]);
  assert.match(t.reply, /read_file answered: .*water the plants/);
});

test("'load the calendar tools' loads google_calendar", async () => {
  const t = await turn("Load the calendar tools");
  assert.deepEqual(t.calls, ["load_tool_group:success"]);
  assert.deepEqual(t.loads, ["google_calendar"]);
  assert.match(t.reply, /Loaded 8 tools from group 'Google Calendar'/);
});

test("mail loads google_gmail and calls gmail_search, whose failure it reports as one", async () => {
  const t = await turn("Search my mail");
  assert.deepEqual(t.calls, ["load_tool_group:success", "gmail_search:error"]);
  assert.match(t.reply, /gmail_search failed: .*Google account/);
  assert.doesNotMatch(t.reply, /answered/);
});

test("anything else says what it is and how to set a real provider", async () => {
  const t = await turn("Tell me a joke");
  assert.deepEqual(t.calls, []);
  assert.match(t.reply, /not a real model.*OPENAI_API_KEY/s);
});

test("a body that is not JSON is refused with bad_json, and the instance goes on", async () => {
  await assert.rejects(host.demo("{nope"), /bad_json|not a Chat Completions request/);
  const again = await host.demo({ messages: [{ role: "user", content: "hello" }] });
  assert.match(again.choices[0].message.content, /^\[demo model\] /);
});

test("a demo provider that names no model calls the demo model by its name", async () => {
  const wasm = await WebAssembly.compile(await readFile(path.join(root, "wasm/toolroute.wasm")));
  const h = await createHost({ module: () => Toolroute.instantiate(wasm), provider: { format: "openai", demo: true } });
  let done;
  // Without the default the module refuses the turn: settings.model is empty.
  for await (const ev of h.send("s", "Tell me a joke")) if (ev.type === "done") done = ev.text;
  assert.match(done, /^\[demo model\] /);
});
