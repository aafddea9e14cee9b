// The browser chat UI in Node: the build (web/apps/chat/build.mjs) and the worker's
// request handling (web/apps/chat/core.js) over the real toolroute.wasm, the real
// QuickJS runner and an in-memory store standing in for IndexedDB, with a
// mocked `toolroute serve` (/api/health, /api/ui/catalogue, /api/model) and
// a scripted model behind it.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFile, readdir, mkdtemp, rm } from "node:fs/promises";
import { createHash } from "node:crypto";
import { tmpdir } from "node:os";
import path from "node:path";
import { MemoryUIStore } from "../src/idbstore.js";
import { buildUI } from "../build.mjs";
import { missingPreludeLines } from "../../../packages/toolroute/test/prelude-lines.js";
import { web, fakeServer as serve, newCore, ask } from "./ui-harness.js";
import { WAIT_MS } from "../../../packages/toolroute/test/busy.js";

// builtin reads built-in tools of manifests/ as `toolroute export` gives
// them: {manifests: [...], sources: {...}}.
async function builtin(...names) {
  const read = (f) => readFile(path.join(web, "..", "..", "..", "manifests", f), "utf8");
  const manifests = await Promise.all(names.map(async (n) => ({ file: "builtin/" + n + ".json", source: "builtin/" + n + ".js", text: await read(n + ".json") })));
  const sources = Object.fromEntries(await Promise.all(names.map(async (n) => ["builtin/" + n + ".js", await read(n + ".js")])));
  return { manifests, sources };
}

// CATALOGUE is the real config group and a user's notes group.
const config = await builtin("config");
const CATALOGUE = {
  catalogue: {
    manifests: [...config.manifests, {
      file: "notes.json", source: "user/notes.js",
      text: JSON.stringify([
        { _meta: true, display_name: "Notes", description: "Keep notes" },
        { name: "write_note", description: "Write a note", function: "writeNote", parameters: { properties: { text: { type: "string" } }, required: ["text"] } },
      ]),
    }],
  },
  sources: { ...config.sources, "user/notes.js": "function writeNote(params) { fs.appendFile('notes.txt', params.text + '\\n'); return 'notes: ' + fs.readFile('notes.txt').trim(); }" },
  libraries: {},
};

// fakeServer serves CATALOGUE as the page's catalogue.
const fakeServer = (script, opts) => serve(script, { catalogue: CATALOGUE, ...opts });

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
    // The runner's prelude is assets/prelude.js as it is now, inlined.
    let code = "";
    for (const f of (await readdir(out)).filter((f) => f.endsWith(".js")).sort()) code += await readFile(path.join(out, f), "utf8");
    assert.deepEqual(missingPreludeLines(code), [], "the bundles lack lines of assets/prelude.js");
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
    { call: ["get_config", {}] },
    { text: "The model is fake-1." },
    { call: ["list_providers", {}] },
    { text: "No providers are stored." },
  ]);
  const core = newCore(store, server.fetch);
  const s = (await ask(core, { type: "sessions", action: "create" })).result;
  assert.ok(s.id);

  const before = (await ask(core, { type: "describe", session: s.id })).result;
  assert.deepEqual(before.active, ["load_tool_group"]);
  assert.equal(before.meter.unit, "bytes");
  assert.ok(before.meter.active > 0 && before.meter.active < before.meter.all);
  assert.deepEqual(before.files.map((f) => f.file), ["builtin/config.json", "notes.json"]);
  assert.equal(before.model, "fake-1");

  const turn = await ask(core, { type: "send", session: s.id, text: "Which model is set?" });
  assert.equal(turn.last.type, "done", JSON.stringify(turn.last));
  const loaded = turn.events.find((e) => e.type === "group_loaded");
  assert.equal(loaded.group.name, "config");
  assert.deepEqual(loaded.group.added, ["list_providers", "create_provider", "update_provider", "delete_provider", "list_models", "fetch_models", "set_default_model", "add_model", "delete_model", "list_agents", "update_agent", "delete_agent", "get_config", "set_config", "manage_env_var", "list_tool_states", "set_tool_enabled"]);
  const result = turn.events.find((e) => e.type === "message" && e.message.type === "tool_result" && e.message.tool_name === "get_config");
  assert.equal(result?.message.content, "- provider = server (default): where model calls go: server, openai, anthropic, responses, gemini, demo, or a stored provider (list_providers), which then calls its default model\n- model = fake-1 (default): the model to call\n" +
    "- routing = classic (default): how a tool group reaches the model: classic (load_tool_group adds its tools) or native (Anthropic's and the Responses API's own deferral, which keeps the prompt cache; the others use classic)\n" +
    "- tool_budget = 0 (default): the most tokens of tool schemas one model call may send (0 for no limit): a load past it unloads the least recently used groups\n" +
    "- search_tools = off (default): on or off: offer search_tools, which finds the tools of every group by what they do and loads just those\n" +
    "No environment variables are set for tools.");
  assert.ok(turn.events.some((e) => e.type === "text" && e.text.includes("fake-1")));
  assert.equal(turn.events.at(-1).type, "done");
  assert.equal(server.requests[0].format, "openai");

  const { sessions } = (await ask(core, { type: "sessions" })).result;
  assert.equal(sessions[0].title, "Which model is set?");
  const log = (await ask(core, { type: "messages", session: s.id })).result;
  assert.deepEqual(log.map((m) => m.type), ["user", "assistant", "tool_call", "tool_result", "assistant", "tool_call", "tool_result", "assistant"]);

  // A reload: a new worker, the same store.
  const again = newCore(store, server.fetch);
  const d = (await ask(again, { type: "describe", session: s.id })).result;
  assert.deepEqual(d.loaded_groups, ["config"]);
  assert.ok(d.active.includes("list_providers"));
  assert.ok(d.meter.active > before.meter.active);
  const second = await ask(again, { type: "send", session: s.id, text: "Any providers?" });
  assert.equal(second.last.type, "done", JSON.stringify(second.last));
  assert.ok(toolNames(server.requests[3]).includes("list_providers"), "the loaded group's schemas are sent without loading it again");
  assert.ok(second.events.some((e) => e.type === "message" && e.message.content === "No providers are stored: model calls go to the host's own provider. create_provider adds one."));
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
  // Routing: classic by default; native kept, and said to fall back on a
  // format without native deferral.
  assert.equal(s.routing, "classic");
  s = (await ask(core, { type: "settings", set: { routing: "native" } })).result;
  assert.equal(s.routing, "native");
  assert.equal(s.effective.routing, undefined);
  s = (await ask(core, { type: "settings", set: { provider: "openai" } })).result;
  assert.equal(s.effective.routing, "classic");
  assert.match(s.effective.routing_note, /the openai format has no native deferral/);
  assert.match((await ask(core, { type: "settings", set: { routing: "sideways" } })).last.error, /use classic or native/);
  // Tool search: off by default, on kept, anything else refused.
  assert.equal(s.search_tools, "off");
  s = (await ask(core, { type: "settings", set: { search_tools: "on" } })).result;
  assert.equal(s.search_tools, "on");
  assert.match((await ask(core, { type: "settings", set: { search_tools: "yes" } })).last.error, /use on or off/);
});

test("search_tools set on: the page's turns offer it and a search loads the tool it finds", async () => {
  const store = new MemoryUIStore();
  const server = fakeServer([
    { call: ["search_tools", { query: "list every tool and whether it is enabled", limit: 1 }] },
    { call: ["list_tool_states", {}] },
    { text: "All are enabled." },
  ]);
  const core = newCore(store, server.fetch);
  await ask(core, { type: "settings", set: { search_tools: "on" } });
  const s = (await ask(core, { type: "sessions", action: "create" })).result;
  assert.deepEqual((await ask(core, { type: "describe", session: s.id })).result.active, ["load_tool_group", "search_tools"]);
  const turn = await ask(core, { type: "send", session: s.id, text: "Which tools are enabled?" });
  assert.equal(turn.last.type, "done", JSON.stringify(turn.last));
  assert.deepEqual(turn.events.find((e) => e.type === "group_loaded")?.group.added, ["list_tool_states"]);
  assert.deepEqual(toolNames(server.requests[1]), ["load_tool_group", "search_tools", "list_tool_states"]);
  const states = turn.events.find((e) => e.type === "message" && e.message.type === "tool_result" && e.message.tool_name === "list_tool_states");
  assert.equal(states?.message.status, "success", JSON.stringify(states?.message));
});

// The page hands the module the word vectors (as ui/worker.js fetches
// wordvec.bin beside the module): a search in other words than the tools'
// finds one. Word vectors that cannot be had leave search to shared
// words, and the page works on.
test("search_tools in the page ranks with the word vectors it is given", async () => {
  const vectors = await readFile(path.join(web, "..", "..", "..", "assets", "wordvec", "vectors.bin"));
  const weather = {
    catalogue: {
      manifests: [{
        file: "weather.json", source: "weather.js",
        text: JSON.stringify([{ _meta: true, display_name: "Weather", description: "Weather forecasts" }, { name: "get_forecast", description: "Today's forecast here", function: "forecast" }]),
      }],
    },
    sources: { "weather.js": "function forecast() { return 'Sunny'; }\n" },
    libraries: {},
  };
  const query = "will it rain tomorrow"; // no word of the tool's texts
  for (const [name, wordVectors, want] of [
    ["given", async () => vectors, "Found 1 tool for 'will it rain tomorrow', loaded for the rest of this conversation:\n- get_forecast (Weather): Today's forecast here"],
    ["not to be had", async () => { throw new Error("wordvec.bin answered HTTP 404"); }, "Error (not_found): No tool matches 'will it rain tomorrow'."],
  ]) {
    const store = new MemoryUIStore();
    const server = fakeServer([{ call: ["search_tools", { query, limit: 1 }] }, { text: "Done." }], { catalogue: weather });
    const warnings = [];
    const warn = console.warn;
    console.warn = (...a) => warnings.push(a.join(" "));
    try {
      const core = newCore(store, server.fetch, { wordVectors });
      await ask(core, { type: "settings", set: { search_tools: "on" } });
      const s = (await ask(core, { type: "sessions", action: "create" })).result;
      const turn = await ask(core, { type: "send", session: s.id, text: "Do I need an umbrella?" });
      assert.equal(turn.last.type, "done", `${name}: ${JSON.stringify(turn.last)}`);
      const result = turn.events.find((e) => e.type === "message" && e.message.type === "tool_result" && e.message.tool_name === "search_tools");
      assert.ok(result?.message.content.startsWith(want), `${name}: ${result?.message.content}`);
    } finally {
      console.warn = warn;
    }
    if (name === "not to be had") assert.ok(warnings.some((w) => w.includes("search_tools ranks by shared words alone") && w.includes("HTTP 404")), warnings.join("\n"));
  }
});

test("settings: the Responses API and Gemini with the user's key, and a server speaking Gemini", async () => {
  const server = fakeServer([]);
  let format = "gemini";
  const fetch = async (url, init) =>
    String(url) === "/api/health" ? Response.json({ ok: true, provider: `${format} at x, model g-1`, format, model: "g-1", problems: [] }) : server.fetch(url, init);
  const store = new MemoryUIStore();
  const core = newCore(store, fetch);
  let s = (await ask(core, { type: "settings" })).result;
  assert.deepEqual(s.effective, { format: "gemini", model: "g-1", label: "server (gemini at x, model g-1)" });
  format = "mistral"; // a format the page does not know: it asks in OpenAI's
  s = (await ask(core, { type: "settings", set: { model: "m" } })).result;
  assert.equal(s.effective.format, "openai");
  for (const [provider, model] of [["responses", "gpt-5.4-mini"], ["gemini", "gemini-3.5-flash"]]) {
    s = (await ask(core, { type: "settings", set: { provider, model: "", apiKey: "" } })).result;
    assert.match(s.effective.error, new RegExp(`the ${provider} provider needs an API key`));
    s = (await ask(core, { type: "settings", set: { apiKey: "k-" + provider } })).result;
    assert.deepEqual(s.effective, { format: provider, model, label: provider });
  }
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
  const root = path.join(web, "..", "..", "..");
  const dir = await mkdtemp(path.join(tmpdir(), "toolroute-meter-"));
  try {
    const file = path.join(dir, "export.json");
    const exported = execFileSync("go", ["run", "./cmd/toolroute", "export", "--builtin"], { cwd: root, maxBuffer: 256 << 20 }).toString();
    // The page adds its own pdf group to what the server exports.
    const { pdfGroup, withPdf } = await import("../../../packages/toolroute/host/pdf.js");
    const page = JSON.parse(exported);
    page.catalogue = withPdf(page.catalogue, pdfGroup({}));
    await import("node:fs/promises").then((f) => f.writeFile(file, JSON.stringify(page)));
    const report = JSON.parse(execFileSync("go", ["run", "./cmd/toolroute", "tokens", "--json", "--catalogue", file], { cwd: root }).toString());
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
  for (const end = Date.now() + WAIT_MS; Date.now() < end && !replies.some((r) => r.type === "event" && r.event.type === "model_call");) await new Promise((r) => setTimeout(r, 5));
  const ab = await ask(core, { type: "abort", target: 7 });
  assert.deepEqual(ab.result, { aborted: true });
  await running;
  assert.deepEqual(replies.at(-1), { id: 7, type: "done", result: { aborted: true } });
  assert.deepEqual((await ask(core, { type: "messages", session: "s" })).result.map((m) => m.type), ["user", "turn_end"], "the stop is logged");

  assert.equal((await ask(core, { type: "bogus" })).last.type, "error");
  const broken = newCore(new MemoryUIStore(), async () => new Response("nope", { status: 500 }));
  const e = await ask(broken, { type: "describe" });
  assert.equal(e.last.type, "error");
  assert.match(e.last.error, /api\/ui\/catalogue answered 500|api\/health/);
});

test("save_memory and search_history, the built-in JS tools, over the browser's store", async () => {
  const { manifests, sources } = await builtin("save_memory", "search_history");
  const catalogue = { catalogue: { manifests }, sources, libraries: {} };
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

test("the config group, the built-in JS tools, over the browser's store: write tools ask, and what they change reaches the next turn and a new worker", async () => {
  const store = new MemoryUIStore();
  const server = fakeServer([
    { call: ["load_tool_group", { group_name: "config" }] },
    { call: ["set_config", { key: "model", value: "fake-2" }] },
    { call: ["set_config", { key: "provider", value: "openai" }] },
    { call: ["set_config", { key: "colour", value: "red" }] },
    { call: ["manage_env_var", { action: "set", name: "WEATHER_KEY", value: "wx-secret-1" }] },
    { call: ["manage_env_var", { action: "set", name: "1BAD", value: "x" }] },
    { call: ["manage_env_var", { action: "list" }] },
    { call: ["set_tool_enabled", { name: "write_note", enabled: false }] },
    { call: ["list_tool_states", {}] },
    { call: ["set_tool_enabled", { name: "load_tool_group", enabled: false }] },
    { call: ["get_config", {}] },
    { text: "Done." },
    { text: "Hello from fake-2." },
  ]);
  const core = newCore(store, server.fetch);
  const asked = [];
  const first = await ask(core, { type: "send", session: "a", text: "Tidy my settings" }, (r) => {
    if (r.type === "event" && r.event.type === "approval") {
      asked.push(...r.event.calls.map((c) => c.tool));
      setTimeout(() => core.handle({ id: 2, type: "approve", session: "a", answers: r.event.calls.map((c) => ({ id: c.id, answer: "once" })) }, () => {}), 10);
    }
  });
  assert.equal(first.last.type, "done", JSON.stringify(first.last));
  const results = first.events.filter((e) => e.type === "message" && e.message.type === "tool_result" && e.message.tool_name !== "load_tool_group")
    .map((e) => `${e.message.tool_name} ${e.message.status}: ${e.message.content}`);
  const want = [
    "set_config success: model is now fake-2.",
    "set_config error: Error (invalid_arguments): the openai provider needs an API key, which only the user enters, in the settings panel",
    'set_config error: Error (not_found): no setting "colour": use one of provider, model',
    "manage_env_var success: WEATHER_KEY set.",
    'manage_env_var error: Error (invalid_arguments): "1BAD" is not a variable name: use letters, digits and _, not starting with a digit',
    "manage_env_var success: Set: WEATHER_KEY",
    "set_tool_enabled success: write_note is disabled.",
    "list_tool_states success: ",
    "set_tool_enabled error: Error (invalid_arguments): load_tool_group cannot be disabled",
    "get_config success: - provider = server (default): where model calls go: server, openai, anthropic, responses, gemini, demo, or a stored provider (list_providers), which then calls its default model\n- model = fake-2: the model to call",
  ];
  assert.equal(results.length, want.length, results.join("\n"));
  want.forEach((w, i) => assert.ok(results[i].startsWith(w), `result ${i}: ${JSON.stringify(results[i])}, want ${JSON.stringify(w)}`));
  for (const line of ["- load_tool_group (core): enabled", "- get_config (config): enabled", "- write_note (notes): disabled"]) {
    assert.ok(results[7].includes(line), results[7]);
  }
  // Only the tools that change something asked (manage_env_var sets, so
  // it asks even to list).
  assert.deepEqual(asked, ["set_config", "set_config", "set_config", "manage_env_var", "manage_env_var", "manage_env_var", "set_tool_enabled", "set_tool_enabled"]);
  const s = await store.settings();
  assert.deepEqual([s.model, s.provider, s["env.WEATHER_KEY"], s["tool.disabled.write_note"]], ["fake-2", undefined, "wx-secret-1", "true"]);
  // The variable is a secret from the moment it is set; the disabled tool
  // leaves the turn's next call at once.
  const after = server.requests.at(-1);
  assert.doesNotMatch(JSON.stringify(after), /wx-secret-1/);
  assert.match(JSON.stringify(after), /\[redacted WEATHER_KEY\]/);
  assert.ok(!toolNames(after).includes("write_note") && toolNames(after).includes("set_tool_enabled"), toolNames(after).join(", "));

  // The next message goes to the model set; a new worker over the same
  // store keeps the tool disabled.
  const second = await ask(core, { type: "send", session: "a", text: "Hello?" });
  assert.equal(second.last.type, "done", JSON.stringify(second.last));
  assert.equal(server.requests.at(-1).body.model, "fake-2");
  const d = (await ask(newCore(store, server.fetch), { type: "describe", session: "a" })).result;
  assert.equal(d.tools.find((t) => t.name === "write_note").enabled, false);
  assert.equal(d.model, "fake-2");
});

test("/compact: the page's session summarised in one call, the summary in the log and sent after", async () => {
  const store = new MemoryUIStore();
  const server = fakeServer([{ text: "One." }, { text: "Two." }, { text: "SUMMARY: two questions." }, { text: "Three." }]);
  const core = newCore(store, server.fetch);
  const s = (await ask(core, { type: "sessions", action: "create" })).result;
  await ask(core, { type: "send", session: s.id, text: "First question" });
  await ask(core, { type: "send", session: s.id, text: "Second question" });
  const c = await ask(core, { type: "compact", session: s.id });
  assert.equal(c.last.type, "done", JSON.stringify(c.last));
  assert.ok(c.events.some((e) => e.type === "message" && e.message.type === "summary" && e.message.content === "SUMMARY: two questions."));
  await ask(core, { type: "send", session: s.id, text: "Third question" });
  const body = JSON.stringify(server.requests[3].body);
  assert.ok(body.includes("SUMMARY: two questions.") && !body.includes("First question"), body);
  const log = (await ask(core, { type: "messages", session: s.id })).result;
  assert.deepEqual(log.map((m) => m.type), ["user", "assistant", "user", "assistant", "summary", "user", "assistant"]);
});
