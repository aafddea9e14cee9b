// The browser chat UI in Node: the build (web/build.mjs) and the worker's
// request handling (web/ui/core.js) over the real toolroute.wasm, the real
// QuickJS runner and an in-memory store standing in for IndexedDB, with a
// mocked `toolroute serve` (/api/health, /api/ui/catalogue, /api/model) and
// a scripted model behind it.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFile, readdir, mkdtemp, rm } from "node:fs/promises";
import { createHash } from "node:crypto";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Toolroute } from "../driver/toolroute.js";
import { Runner } from "../jsrun/runner.js";
import { Core } from "../ui/core.js";
import { MemoryUIStore } from "../ui/idbstore.js";
import { buildUI } from "../build.mjs";
import { missingPreludeLines } from "./prelude-lines.js";

const web = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const wasm = await WebAssembly.compile(await readFile(path.join(web, "..", "wasm", "toolroute.wasm")));

const obj = { type: "object", properties: {} };
const CATALOGUE = {
  catalogue: {
    groups: [{ name: "config", display_name: "Configuration", description: "Settings and environment variables" }],
    tools: [
      { name: "list_settings", description: "List the settings", group: "config", parameters: obj },
      { name: "set_setting", description: "Change a setting", group: "config", parameters: { type: "object", properties: { key: { type: "string" }, value: { type: "string" } }, required: ["key", "value"] } },
      { name: "list_env_vars", description: "List the variables", group: "config", parameters: obj },
    ],
    manifests: [{
      file: "notes.json", source: "user/notes.js",
      text: JSON.stringify([
        { _meta: true, display_name: "Notes", description: "Keep notes" },
        { name: "write_note", description: "Write a note", function: "writeNote", parameters: { properties: { text: { type: "string" } }, required: ["text"] } },
      ]),
    }],
  },
  sources: { "user/notes.js": "function writeNote(params) { fs.appendFile('notes.txt', params.text + '\\n'); return 'notes: ' + fs.readFile('notes.txt').trim(); }" },
  libraries: {},
};

function sse(chunks) {
  const body = chunks.map((c) => "data: " + JSON.stringify(c) + "\n\n").join("") + "data: [DONE]\n\n";
  return new Response(body, { status: 200, headers: { "content-type": "text/event-stream" } });
}

const chunk = (delta, finish = null) => ({ id: "c", object: "chat.completion.chunk", model: "fake-1", choices: [{ index: 0, delta, finish_reason: finish }] });

// fakeServer is fetch for a mocked `toolroute serve` whose /api/model answers
// with the script's replies: {text} or {call: [name, args]}; requests keeps
// what the module asked for.
function fakeServer(script, { hold } = {}) {
  const requests = [];
  const fetch = async (url, init = {}) => {
    const u = String(url);
    if (u === "/api/health") return Response.json({ ok: true, provider: "openai (fake)", format: "openai", model: "fake-1", problems: [] });
    if (u === "/api/ui/catalogue") return Response.json(CATALOGUE);
    if (u === "/api/model") {
      const req = JSON.parse(init.body);
      requests.push(req);
      if (hold) await hold(init.signal);
      const reply = script[requests.length - 1];
      if (!reply) return Response.json({ error: { message: "no more replies" } }, { status: 500 });
      if (reply.text) return sse([chunk({ role: "assistant", content: reply.text }), chunk({}, "stop")]);
      const [name, args] = reply.call;
      return sse([
        chunk({ role: "assistant", tool_calls: [{ index: 0, id: "call_" + requests.length, type: "function", function: { name, arguments: JSON.stringify(args) } }] }),
        chunk({}, "tool_calls"),
      ]);
    }
    return new Response("not found", { status: 404 });
  };
  return { fetch, requests };
}

function newCore(store, fetch, extra = {}) {
  return new Core({
    store,
    fetch,
    module: () => Toolroute.instantiate(wasm),
    runner: async ({ libraries, fs }) => new Runner({ store: fs, libraries: [libraries] }),
    ...extra,
  });
}

// ask sends one request and collects its replies until done or error.
async function ask(core, msg, onReply) {
  const replies = [];
  await core.handle({ id: 1, ...msg }, (r) => {
    replies.push(r);
    onReply?.(r);
  });
  const last = replies.at(-1);
  return { replies, events: replies.filter((r) => r.type === "event").map((r) => r.event), last, result: last?.result };
}

const toolNames = (req) => (req.body.tools ?? []).map((t) => t.function?.name ?? t.name);

test("the build writes the page, the bundles and both wasm files, the same each time", async () => {
  const out = await mkdtemp(path.join(tmpdir(), "toolroute-ui-"));
  try {
    const sizes = await buildUI({ out });
    for (const f of ["index.html", "app.css", "app.js", "worker.js", "toolroute.wasm", "quickjs.wasm"]) {
      assert.ok(sizes[f] > 0, f + " is missing or empty");
    }
    const html = await readFile(path.join(out, "index.html"), "utf8");
    assert.match(html, /src="app.js"/);
    assert.match(html, /<label for="message"[^>]*>Message<\/label>/);
    assert.match(html, /id="log"/);
    const worker = await readFile(path.join(out, "worker.js"), "utf8");
    assert.doesNotMatch(worker, /node:fs"/, "the worker bundle imports node:fs statically");
    // The runner's prelude is host/jsrun/prelude.js as it is now, inlined.
    let code = "";
    for (const f of (await readdir(out)).filter((f) => f.endsWith(".js")).sort()) code += await readFile(path.join(out, f), "utf8");
    assert.deepEqual(missingPreludeLines(code), [], "the bundles lack lines of host/jsrun/prelude.js");
    const hashes = async () => {
      const h = {};
      for (const f of (await readdir(out)).sort()) h[f] = createHash("sha256").update(await readFile(path.join(out, f))).digest("hex");
      return h;
    };
    const first = await hashes();
    await buildUI({ out });
    assert.deepEqual(await hashes(), first);
  } finally {
    await rm(out, { recursive: true, force: true });
  }
});

test("a turn loads a group, runs its tool, and the group is still loaded for a new worker over the same store", async () => {
  const store = new MemoryUIStore();
  const server = fakeServer([
    { call: ["load_tool_group", { group_name: "config" }] },
    { call: ["list_settings", {}] },
    { text: "The model is fake-1." },
    { call: ["list_env_vars", {}] },
    { text: "No variables are set." },
  ]);
  const core = newCore(store, server.fetch);
  const s = (await ask(core, { type: "sessions", action: "create" })).result;
  assert.ok(s.id);

  const before = (await ask(core, { type: "describe", session: s.id })).result;
  assert.deepEqual(before.active, ["load_tool_group"]);
  assert.equal(before.meter.unit, "bytes");
  assert.ok(before.meter.active > 0 && before.meter.active < before.meter.all);
  assert.deepEqual(before.files.map((f) => f.file), ["notes.json"]);
  assert.equal(before.model, "fake-1");

  const turn = await ask(core, { type: "send", session: s.id, text: "Which model is set?" });
  assert.equal(turn.last.type, "done", JSON.stringify(turn.last));
  const loaded = turn.events.find((e) => e.type === "group_loaded");
  assert.equal(loaded.group.name, "config");
  assert.deepEqual(loaded.group.added, ["list_settings", "set_setting", "list_env_vars"]);
  const result = turn.events.find((e) => e.type === "message" && e.message.type === "tool_result" && e.message.content.startsWith("- model"));
  assert.match(result.message.content, /^- model = fake-1 \(default\): /);
  assert.ok(turn.events.some((e) => e.type === "text" && e.text.includes("fake-1")));
  assert.equal(turn.events.at(-1).type, "done");
  assert.equal(server.requests[0].format, "openai");

  const sessions = (await ask(core, { type: "sessions" })).result;
  assert.equal(sessions[0].title, "Which model is set?");
  const log = (await ask(core, { type: "messages", session: s.id })).result;
  assert.deepEqual(log.map((m) => m.type), ["user", "assistant", "tool_call", "tool_result", "assistant", "tool_call", "tool_result", "assistant"]);

  // A reload: a new worker, the same store.
  const again = newCore(store, server.fetch);
  const d = (await ask(again, { type: "describe", session: s.id })).result;
  assert.deepEqual(d.loaded_groups, ["config"]);
  assert.ok(d.active.includes("list_env_vars"));
  assert.ok(d.meter.active > before.meter.active);
  const second = await ask(again, { type: "send", session: s.id, text: "Any variables?" });
  assert.equal(second.last.type, "done", JSON.stringify(second.last));
  assert.ok(toolNames(server.requests[3]).includes("list_env_vars"), "the loaded group's schemas are sent without loading it again");
  assert.ok(second.events.some((e) => e.type === "message" && e.message.content === "No environment variables are set for tools."));
});

test("a JS tool runs in QuickJS with the fs sandbox saved to the store", async () => {
  const store = new MemoryUIStore();
  const server = fakeServer([
    { call: ["load_tool_group", { group_name: "notes" }] },
    { call: ["write_note", { text: "buy milk" }] },
    { text: "Saved." },
  ]);
  const core = newCore(store, server.fetch);
  const turn = await ask(core, { type: "send", session: "s1", text: "Note: buy milk" });
  assert.equal(turn.last.type, "done", JSON.stringify(turn.last));
  const r = turn.events.find((e) => e.type === "message" && e.message.type === "tool_result" && e.message.content.startsWith("notes:"));
  assert.equal(r?.message.content, "notes: buy milk");
  await new Promise((res) => setTimeout(res, 10));
  assert.deepEqual(await store.files(), { "notes.txt": "buy milk\n" });
});

test("settings: the server provider by default; a direct provider needs a key, which is not echoed", async () => {
  const store = new MemoryUIStore();
  const core = newCore(store, fakeServer([]).fetch);
  let s = (await ask(core, { type: "settings" })).result;
  assert.equal(s.provider, "server");
  assert.deepEqual(s.effective, { format: "openai", model: "fake-1", label: "server (openai (fake))" });
  s = (await ask(core, { type: "settings", set: { provider: "anthropic" } })).result;
  assert.match(s.effective.error, /needs an API key/);
  s = (await ask(core, { type: "settings", set: { apiKey: "sk-ant-x", model: "claude-x" } })).result;
  assert.equal(s.hasKey, true);
  assert.equal(s.apiKey, undefined);
  assert.deepEqual(s.effective, { format: "anthropic", model: "claude-x", label: "anthropic" });
  assert.equal((await ask(core, { type: "settings", withKey: true })).result.apiKey, "sk-ant-x");
});

test("the token meter counts o200k_base tokens when a counter is given", async () => {
  const { countTokens } = await import("gpt-tokenizer/encoding/o200k_base");
  const core = newCore(new MemoryUIStore(), fakeServer([]).fetch, { countTokens: async (t) => countTokens(t) });
  const d = (await ask(core, { type: "describe" })).result;
  assert.equal(d.meter.unit, "tokens");
  assert.equal(d.meter.encoding, "o200k_base");
  assert.ok(d.meter.active > 0 && d.meter.active < d.meter.all);
});

test("the token meter equals `toolroute tokens --catalogue` for the catalogue the page gets", async () => {
  const { countTokens } = await import("gpt-tokenizer/encoding/o200k_base");
  const { execFileSync } = await import("node:child_process");
  const root = path.join(web, "..");
  const dir = await mkdtemp(path.join(tmpdir(), "toolroute-meter-"));
  try {
    const file = path.join(dir, "export.json");
    const exported = execFileSync("go", ["run", "./host/cmd/toolroute", "export", "--builtin"], { cwd: root, maxBuffer: 256 << 20 }).toString();
    await import("node:fs/promises").then((f) => f.writeFile(file, exported));
    const report = JSON.parse(execFileSync("go", ["run", "./host/cmd/toolroute", "tokens", "--json", "--catalogue", file], { cwd: root }).toString());
    const o200k = (name) => report.scenarios.find((x) => x.name === name).tokens.find((c) => c.encoding === "o200k_base").tokens;
    const bundle = JSON.parse(exported);
    const core = newCore(new MemoryUIStore(), fakeServer([]).fetch, {
      countTokens: async (t) => countTokens(t),
      catalogue: async () => ({ catalogue: bundle.catalogue, sources: bundle.sources, libraries: bundle.libraries }),
    });
    const d = (await ask(core, { type: "describe" })).result;
    assert.deepEqual([d.meter.active, d.meter.all], [o200k("core only"), o200k("all tools")]);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test("abort stops a running turn; unknown requests and a failed catalogue are errors", async () => {
  const hold = (signal) => new Promise((_, reject) => signal.addEventListener("abort", () => reject(signal.reason), { once: true }));
  const core = newCore(new MemoryUIStore(), fakeServer([{ text: "never" }], { hold }).fetch);
  const replies = [];
  const running = core.handle({ id: 7, type: "send", session: "s", text: "hi" }, (r) => replies.push(r));
  for (let i = 0; i < 100 && !replies.some((r) => r.type === "event" && r.event.type === "model_call"); i++) await new Promise((r) => setTimeout(r, 5));
  const ab = await ask(core, { type: "abort", target: 7 });
  assert.deepEqual(ab.result, { aborted: true });
  await running;
  assert.deepEqual(replies.at(-1), { id: 7, type: "done", result: { aborted: true } });
  assert.deepEqual((await ask(core, { type: "messages", session: "s" })).result.map((m) => m.type), ["user"]);

  assert.equal((await ask(core, { type: "bogus" })).last.type, "error");
  const broken = newCore(new MemoryUIStore(), async () => new Response("nope", { status: 500 }));
  const e = await ask(broken, { type: "describe" });
  assert.equal(e.last.type, "error");
  assert.match(e.last.error, /api\/ui\/catalogue answered 500|api\/health/);
});

test("save_memory and search_history, the built-in JS tools, over the browser's store", async () => {
  const manifests = path.join(web, "..", "manifests");
  const read = (f) => readFile(path.join(manifests, f), "utf8");
  const catalogue = {
    catalogue: { manifests: await Promise.all(["save_memory", "search_history"].map(async (n) => ({ file: n + ".json", source: "builtin/" + n + ".js", text: await read(n + ".json") }))) },
    sources: Object.fromEntries(await Promise.all(["save_memory", "search_history"].map(async (n) => ["builtin/" + n + ".js", await read(n + ".js")]))),
    libraries: {},
  };
  const store = new MemoryUIStore();
  const server = fakeServer([
    { call: ["save_memory", { text: "The user keeps pelicans." }] },
    { text: "Noted." },
    { call: ["search_history", { query: "pelicans" }] },
    { text: "Found it." },
  ]);
  const core = newCore(store, server.fetch, { catalogue: async () => catalogue });
  // save_memory writes: it asks first, and the page says yes.
  const first = await ask(core, { type: "send", session: "a", text: "Remember: I keep pelicans" }, (r) => {
    // The question is put to the page after the event, as a click comes.
    if (r.type === "event" && r.event.type === "approval") {
      setTimeout(() => core.handle({ id: 2, type: "approve", session: "a", answers: r.event.calls.map((c) => ({ id: c.id, answer: "once" })) }, () => {}), 10);
    }
  });
  assert.equal(first.last.type, "done", JSON.stringify(first.last));
  const saved = first.events.find((e) => e.type === "message" && e.message.type === "tool_result");
  assert.equal(saved?.message.content, "Saved memory #1.", JSON.stringify(first.events.filter((e) => e.type === "message").map((e) => e.message)));

  const second = await ask(core, { type: "send", session: "b", text: "What did I say about birds?" });
  assert.equal(second.last.type, "done", JSON.stringify(second.last));
  const found = second.events.find((e) => e.type === "message" && e.message.type === "tool_result");
  assert.match(found.message.content, /^\d+ matches for "pelicans":\n- session a, message 0 \(user on \d{4}-\d\d-\d\d \d\d:\d\d\): Remember: I keep \*\*pelicans\*\*/);
  const system = server.requests[2].body.messages[0].content;
  assert.match(system, /## Memories\n\nWhat the user asked you to remember \(save_memory adds to it\):\n\n- The user keeps pelicans\./);
});
