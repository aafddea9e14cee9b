// The config group's stored providers, models and agents in the JS hosts
// (web/packages/toolroute/host/records.js): fetch_models against local fakes of the three
// providers' model lists, in their real shapes; and routing scenario 6,
// "Add a new OpenAI provider", in the browser host, ending with the next
// turn's model call made to the new provider with the key of its secret.
// The store-only tools are the shared cases of testdata/builtins
// (config_providers, config_agents), which builtins.test.js replays here.
import { test } from "node:test";
import assert from "node:assert/strict";
import http from "node:http";
import path from "node:path";
import { execFileSync } from "node:child_process";
import { readFile } from "node:fs/promises";
import { fetchModels } from "../../../packages/toolroute/host/records.js";
import { Toolroute } from "../../../packages/toolroute/driver/toolroute.js";
import { MemoryUIStore } from "../src/idbstore.js";
import { web, fakeServer, newCore, ask } from "./ui-harness.js";

// listServer answers OpenAI's GET /openai/v1/models, Anthropic's GET
// /anthropic/v1/models (two pages by after_id) and Gemini's GET
// /gemini/v1beta/models (two pages by pageToken), each checking its key
// header (401 without it).
async function listServer() {
  const seen = [];
  const srv = http.createServer((req, res) => {
    seen.push(req.url);
    const u = new URL(req.url, "http://x");
    const send = (status, body) => {
      res.writeHead(status, { "content-type": "application/json" });
      res.end(JSON.stringify(body));
    };
    const keyed = (header, want) => req.headers[header] === want || (send(401, { error: { message: "invalid x-api-key" } }), false);
    if (u.pathname === "/openai/v1/models") {
      if (keyed("authorization", "Bearer sk-openai-test")) send(200, { object: "list", data: [{ id: "gpt-4.1", object: "model", owned_by: "system" }, { id: "gpt-4.1-mini", object: "model", owned_by: "system" }] });
    } else if (u.pathname === "/anthropic/v1/models") {
      if (!keyed("x-api-key", "sk-ant-test")) return;
      if (!u.searchParams.get("after_id")) send(200, { data: [{ type: "model", id: "claude-sonnet-4-5", display_name: "Claude Sonnet 4.5" }], has_more: true, first_id: "claude-sonnet-4-5", last_id: "claude-sonnet-4-5" });
      else send(200, { data: [{ type: "model", id: "claude-haiku-4-5", display_name: "Claude Haiku 4.5" }], has_more: false, first_id: "claude-haiku-4-5", last_id: "claude-haiku-4-5" });
    } else if (u.pathname === "/gemini/v1beta/models") {
      if (!keyed("x-goog-api-key", "gm-test")) return;
      if (!u.searchParams.get("pageToken")) {
        send(200, { models: [{ name: "models/gemini-2.5-flash", supportedGenerationMethods: ["generateContent", "countTokens"] }, { name: "models/text-embedding-004", supportedGenerationMethods: ["embedContent"] }], nextPageToken: "p2" });
      } else send(200, { models: [{ name: "models/gemini-2.5-pro", supportedGenerationMethods: ["generateContent"] }] });
    } else send(404, { error: { message: "not found" } });
  });
  await new Promise((r) => srv.listen(0, "127.0.0.1", r));
  return { url: `http://127.0.0.1:${srv.address().port}`, seen, close: () => new Promise((r) => srv.close(r)) };
}

test("fetchModels reads OpenAI's, Anthropic's and Gemini's model lists with their key headers, page by page", async (t) => {
  const srv = await listServer();
  t.after(srv.close);
  const f = (...a) => fetch(...a);
  // The module reads each page (model_list), as a Host's operation asks it.
  const checker = await Toolroute.instantiate(await readFile(path.join(web, "..", "..", "..", "wasm", "toolroute.wasm")));
  const ctx = { check: async (op, args) => checker.check({ op, args }) };
  assert.deepEqual(await fetchModels(f, "openai", srv.url + "/openai/v1/", "sk-openai-test", ctx), ["gpt-4.1", "gpt-4.1-mini"]);
  assert.deepEqual(await fetchModels(f, "responses", srv.url + "/openai/v1", "sk-openai-test", ctx), ["gpt-4.1", "gpt-4.1-mini"]);
  assert.deepEqual(await fetchModels(f, "anthropic", srv.url + "/anthropic", "sk-ant-test", ctx), ["claude-sonnet-4-5", "claude-haiku-4-5"]);
  assert.deepEqual(await fetchModels(f, "gemini", srv.url + "/gemini", "gm-test", ctx), ["gemini-2.5-flash", "gemini-2.5-pro"]);
  assert.ok(srv.seen.includes("/anthropic/v1/models?limit=1000&after_id=claude-sonnet-4-5"), srv.seen.join(" "));
  assert.ok(srv.seen.includes("/gemini/v1beta/models?pageSize=1000&pageToken=p2"), srv.seen.join(" "));
  await assert.rejects(fetchModels(f, "openai", srv.url + "/openai/v1", "sk-wrong-key-1", ctx), (e) => {
    assert.equal(e.type, "execution_error");
    assert.match(e.message, /answered HTTP 401: check the key's secret: /);
    assert.doesNotMatch(e.message, /sk-wrong-key-1/);
    return true;
  });
  await assert.rejects(fetchModels(f, "anthropic", srv.url + "/elsewhere", "sk-ant-test", ctx), /answered HTTP 404: check base_url/);
  await assert.rejects(fetchModels(f, "openai", "http://127.0.0.1:1/v1", "", ctx), /could not be reached/);
});

const root = path.join(web, "..", "..", "..");
const exported = JSON.parse(execFileSync("go", ["run", "./cmd/toolroute", "export", "--builtin"], { cwd: root, maxBuffer: 256 << 20 }).toString());
const bundle = { catalogue: exported.catalogue, sources: exported.sources, libraries: exported.libraries };

test("scenario 6 in the browser: a new OpenAI provider is stored, its models fetched with its key, and the next turn's model calls go to it", async () => {
  const KEY = "sk-work-secret-value-0042";
  const own = fakeServer([
    { call: ["load_tool_group", { group_name: "config" }] },
    { call: ["create_provider", { name: "openai_work", format: "openai", base_url: "https://work.test/v1", key_secret: "OPENAI_WORK_KEY" }] },
    { call: ["manage_env_var", { action: "set", name: "OPENAI_WORK_KEY", value: KEY }] },
    { call: ["fetch_models", { provider: "openai_work" }] },
    { call: ["set_default_model", { provider: "openai_work", model: "gpt-work-1" }] },
    { call: ["set_config", { key: "provider", value: "openai_work" }] },
    { text: "Added and switched." },
  ]);
  // The new provider: its model list and its chat completions.
  const work = [];
  const fetch = async (url, init = {}) => {
    const u = String(url);
    if (!u.startsWith("https://work.test/")) return own.fetch(url, init);
    const auth = new Headers(init.headers).get("authorization");
    work.push({ url: u, auth, body: init.body ? JSON.parse(init.body) : null });
    if (auth !== "Bearer " + KEY) return Response.json({ error: { message: "bad key" } }, { status: 401 });
    if (u === "https://work.test/v1/models") return Response.json({ object: "list", data: [{ id: "gpt-work-1" }, { id: "gpt-work-mini" }] });
    const chunk = (delta, finish = null) => "data: " + JSON.stringify({ id: "w", object: "chat.completion.chunk", model: "gpt-work-1", choices: [{ index: 0, delta, finish_reason: finish }] }) + "\n\n";
    return new Response(chunk({ role: "assistant", content: "Hello from the work provider." }) + chunk({}, "stop") + "data: [DONE]\n\n", { headers: { "content-type": "text/event-stream" } });
  };
  const store = new MemoryUIStore();
  const core = newCore(store, fetch, { catalogue: async () => bundle });
  const asked = [];
  const first = await ask(core, { type: "send", session: "a", text: "Add a new OpenAI provider" }, (r) => {
    if (r.type === "event" && r.event.type === "approval") {
      asked.push(...r.event.calls.map((c) => c.tool));
      setTimeout(() => core.handle({ id: 2, type: "approve", session: "a", answers: r.event.calls.map((c) => ({ id: c.id, answer: "once" })) }, () => {}), 10);
    }
  });
  assert.equal(first.last.type, "done", JSON.stringify(first.last));
  const results = first.events.filter((e) => e.type === "message" && e.message.type === "tool_result").map((e) => `${e.message.tool_name} ${e.message.status}: ${e.message.content}`);
  assert.deepEqual(results.slice(1), [
    "create_provider success: Provider 'openai_work' created: openai at https://work.test/v1, its key from the secret OPENAI_WORK_KEY (not set yet: the user sets it, or manage_env_var does, asking first). set_config provider openai_work sends model calls to it; fetch_models reads its models.",
    "manage_env_var success: OPENAI_WORK_KEY set.",
    "fetch_models success: Fetched 2 models from openai_work's model list (2 new): gpt-work-1, gpt-work-mini.",
    "set_default_model success: openai_work's default model is now gpt-work-1.",
    "set_config success: provider is now openai_work.",
  ]);
  assert.deepEqual(asked, ["create_provider", "manage_env_var", "set_default_model", "set_config"]);
  // TEST-040-09 here: the browser's core tools, then the 17 config tools.
  const names = (req) => (req.body?.tools ?? req.tools ?? []).map((x) => x.function?.name ?? x.name);
  const core0 = names(own.requests[0]);
  assert.equal(names(own.requests[1]).length, core0.length + 17, names(own.requests[1]).join(", "));
  assert.equal(work.length, 1, "only the model list was read during the turn that switched");

  const second = await ask(core, { type: "send", session: "a", text: "Hello?" });
  assert.equal(second.last.type, "done", JSON.stringify(second.last));
  assert.equal(second.last.result?.text ?? second.events.findLast((e) => e.type === "done")?.text, "Hello from the work provider.");
  const call = work.at(-1);
  assert.equal(call.url, "https://work.test/v1/chat/completions");
  assert.equal(call.body.model, "gpt-work-1");
  // The key reached the provider in its header, and no request body to
  // either provider (the model's own manage_env_var call goes back
  // redacted); in the stored log it is only in that call, as the model
  // wrote it, and in no result.
  for (const r of [...own.requests, ...work.map((w) => w.body)]) assert.doesNotMatch(JSON.stringify(r ?? {}), /sk-work-secret-value-0042/);
  assert.match(JSON.stringify(own.requests.at(-1)), /\[redacted OPENAI_WORK_KEY\]/);
  const log = (await ask(core, { type: "messages", session: "a" })).result;
  const showing = log.filter((m) => JSON.stringify(m).includes(KEY));
  assert.deepEqual(showing.map((m) => `${m.type} ${m.tool_name}`), ["tool_call manage_env_var"]);
});

test("the settings panel's answer names the stored providers, and says which one a stored provider setting makes effective", async () => {
  const store = new MemoryUIStore();
  await store.setSettings({
    "provider.local_llm": JSON.stringify({ name: "local_llm", format: "openai", base_url: "http://127.0.0.1:11434/v1", key_secret: "", models: ["llama3.2"], default_model: "llama3.2" }),
    provider: "local_llm",
  });
  const core = newCore(store, fakeServer([]).fetch, { catalogue: async () => bundle });
  const s = (await ask(core, { type: "settings" })).result;
  assert.deepEqual(s.stored_providers, ["local_llm"]);
  assert.equal(s.provider, "local_llm");
  assert.deepEqual(s.effective, { format: "openai", model: "llama3.2", label: "local_llm" });
});
