// The chat UI's core (web/apps/chat/core.js) against the real `toolroute serve`,
// as a user meets it: a conversation started in a terminal with `toolroute
// chat` is in the page's list beside the page's own; the page reads it and
// sends a message into it, which runs on the server (with the terminal
// turn's history, asking before a tool that writes); it is renamed; while
// a turn runs it cannot be deleted, Stop ends that turn on the server, and
// then it is deleted. The model is a scripted OpenAI-compatible server on
// loopback (host-fakemodel.js); the program is built from this tree.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { execFileSync, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { MemoryUIStore } from "../src/idbstore.js";
import { web, newCore, ask } from "./ui-harness.js";
import { startFakeModel, text, toolCall } from "../../../packages/toolroute/test/host-fakemodel.js";
import { WAIT_MS } from "../../../packages/toolroute/test/busy.js";

const root = path.join(web, "..", "..", "..");
let work, bin, model, serve, env;

before(async () => {
  work = mkdtempSync(path.join(tmpdir(), "toolroute-ui-serve-"));
  bin = path.join(work, "toolroute");
  execFileSync("go", ["build", "-o", bin, "./cmd/toolroute"], { cwd: root, stdio: "inherit" });
  model = await startFakeModel("openai");
  env = {
    PATH: process.env.PATH, HOME: work,
    XDG_CONFIG_HOME: path.join(work, "config"), XDG_DATA_HOME: path.join(work, "data"), XDG_CACHE_HOME: path.join(work, "cache"),
    OPENAI_BASE_URL: model.baseURL, OPENAI_API_KEY: "sk-test", TOOLROUTE_MODEL: "fake-1",
    TOOLROUTE_TOKEN: "ui-serve-test-token-0123456789",
  };
});

after(async () => {
  serve?.kill();
  await model?.close();
  if (work) rmSync(work, { recursive: true, force: true });
});

// chat runs `toolroute chat` with lines on its standard input, as a script
// does (the model server runs in this process: no sync spawn).
function chat(args, input) {
  return new Promise((resolve, reject) => {
    const proc = spawn(bin, ["chat", "--no-watch", ...args], { env, stdio: ["pipe", "pipe", "pipe"] });
    let out = "";
    proc.stdout.on("data", (d) => (out += d));
    proc.stderr.on("data", (d) => (out += d));
    proc.on("exit", (code) => (code === 0 ? resolve(out) : reject(new Error(`toolroute chat exited ${code}: ${out}`))));
    proc.stdin.end(input);
  });
}

// startServe starts `toolroute serve` and gives {proc, base, token} once it
// prints its address (the token is the one env gives it).
function startServe() {
  return new Promise((resolve, reject) => {
    const proc = spawn(bin, ["serve", "--port", "0", "--no-watch"], { env, stdio: ["ignore", "pipe", "pipe"] });
    let out = "", err = "";
    proc.stderr.on("data", (d) => (err += d));
    proc.stdout.on("data", (d) => {
      out += d;
      const m = /serving on (http:\/\/127\.0\.0\.1:\d+)\/\?login=\w+/.exec(out);
      if (m) resolve({ proc, base: m[1], token: env.TOOLROUTE_TOKEN });
    });
    proc.on("exit", (code) => reject(new Error(`toolroute serve exited ${code}: ${err}`)));
  });
}

// until waits for a condition the test cannot await, WAIT_MS at most.
async function until(cond, what) {
  for (const end = Date.now() + WAIT_MS; Date.now() < end;) {
    if (await cond()) return;
    await new Promise((r) => setTimeout(r, 10));
  }
  assert.fail("waited in vain for " + what);
}

test("a terminal's session in the page: listed, read, continued on the server, renamed, stopped, deleted", { timeout: 5 * WAIT_MS }, async () => {
  // A conversation in the terminal, on the data folder serve will use.
  model.add(text("Hello, terminal."));
  await chat(["--session", "terminal-1"], "Hello from the terminal\n");

  const s = await startServe();
  serve = s.proc;
  // The page's fetch: relative URLs to serve, with its token (the page's
  // cookie, here a header).
  const fetchServe = (url, init = {}) => fetch(s.base + url, { ...init, headers: { ...(init.headers ?? {}), authorization: `Bearer ${s.token}` } });
  const core = newCore(new MemoryUIStore(), fetchServe);

  // The page's own session, its turn run in the page with serve's key.
  model.add(text("Hello, page."));
  const pageTurn = await ask(core, { type: "send", session: "p1", text: "Hello from the page" });
  assert.equal(pageTurn.last.type, "done", JSON.stringify(pageTurn.last));

  let list = (await ask(core, { type: "sessions" })).result;
  assert.deepEqual([list.problems, list.server], [[], true]);
  assert.deepEqual(list.sessions.map((x) => [x.id, x.where, x.title, x.messages]), [
    ["p1", "page", "Hello from the page", 2],
    ["server:terminal-1", "server", "Hello from the terminal", 2],
  ]);
  for (const x of list.sessions) assert.match(x.updated, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  const log = (await ask(core, { type: "messages", session: "server:terminal-1" })).result;
  assert.deepEqual(log.map((m) => [m.type, m.content]), [["user", "Hello from the terminal"], ["assistant", "Hello, terminal."]]);

  // A message into it runs on the server, with the terminal turn's history,
  // and asks before save_memory writes.
  model.add(toolCall("save_memory", JSON.stringify({ text: "The user likes tea." })), text("Noted: tea."));
  const asked = model.requests.length;
  const events = [];
  const turn = await ask(core, { type: "send", session: "server:terminal-1", text: "Remember that I like tea" }, (r) => {
    if (r.type !== "event") return;
    events.push(r.event);
    if (r.event.type === "approval") {
      setTimeout(() => core.handle({ id: 2, type: "approve", session: "server:terminal-1", answers: r.event.calls.map((c) => ({ id: c.id, answer: "once" })) }, () => {}), 10);
    }
  });
  assert.equal(turn.last.type, "done", JSON.stringify(turn.last));
  const kinds = new Set(events.map((e) => e.type));
  for (const k of ["message", "model_call", "text", "approval", "tool_calls", "done"]) assert.ok(kinds.has(k), `no ${k} event among ${[...kinds]}`);
  assert.equal(events.at(-1).text, "Noted: tea.");
  const saved = events.find((e) => e.type === "message" && e.message.type === "tool_result");
  assert.equal(saved.message.content, "Saved memory #1.");
  const sent = JSON.stringify(model.requests[asked].json.messages);
  assert.ok(sent.includes("Hello from the terminal") && sent.includes("Hello, terminal."), "the server's turn carries the terminal's history");
  const after = (await ask(core, { type: "messages", session: "server:terminal-1" })).result;
  assert.deepEqual(after.map((m) => m.type), ["user", "assistant", "user", "assistant", "tool_call", "approval", "tool_result", "assistant"]);

  // Renamed; the list puts it first now, its last message the newest.
  const renamed = (await ask(core, { type: "sessions", action: "rename", session: "server:terminal-1", title: "Tea, from the terminal" })).result;
  assert.deepEqual([renamed.id, renamed.title, renamed.messages, renamed.where], ["server:terminal-1", "Tea, from the terminal", 8, "server"]);
  list = (await ask(core, { type: "sessions" })).result;
  assert.deepEqual(list.sessions.map((x) => [x.id, x.title]), [["server:terminal-1", "Tea, from the terminal"], ["p1", "Hello from the page"]]);
  const bad = await ask(core, { type: "sessions", action: "rename", session: "server:terminal-1", title: "x".repeat(300) });
  assert.equal(bad.last.error, "the title has 300 characters: give one of 1 to 200");

  // A turn that waits on the model: the session is not deleted under it;
  // Stop closes the request, serve ends the turn, and then it goes.
  let answer;
  model.add({ text: "Too late.", wait: new Promise((r) => (answer = r)) });
  const held = model.requests.length;
  const replies = [];
  const running = core.handle({ id: 7, type: "send", session: "server:terminal-1", text: "Take your time" }, (r) => replies.push(r));
  await until(() => model.requests.length > held, "the held model call");
  const busy = await ask(core, { type: "sessions", action: "delete", session: "server:terminal-1" });
  assert.match(busy.last.error, /^session "terminal-1" has a turn running: wait for its done or failed event, or stop it/);
  assert.deepEqual((await ask(core, { type: "abort", target: 7 })).result, { aborted: true });
  await running;
  assert.deepEqual(replies.at(-1), { id: 7, type: "done", result: { aborted: true } });
  const kept = (await ask(core, { type: "messages", session: "server:terminal-1" })).result;
  const mine = kept.findLastIndex((m) => m.type === "user");
  assert.deepEqual(kept[mine].content, "Take your time", "the stopped turn's message is kept");
  // Then, once serve has ended the turn, its stop (turn_end).
  assert.ok(kept.slice(mine + 1).every((m) => m.type === "turn_end" && m.error_type === "stopped"), JSON.stringify(kept.slice(mine + 1)));
  // serve ends the turn, the model never having answered, and lets the
  // session go.
  let deleted;
  await until(async () => (deleted = await ask(core, { type: "sessions", action: "delete", session: "server:terminal-1" })).last.type === "done", "the delete after Stop");
  answer();
  assert.deepEqual(deleted.result.sessions.map((x) => x.id), ["p1"]);
  assert.equal((await ask(core, { type: "sessions", action: "get", session: "server:terminal-1" })).result, null);
  assert.deepEqual((await ask(core, { type: "messages", session: "server:terminal-1" })).result, []);

  // A new chat on the server is stored by its first message.
  const made = (await ask(core, { type: "sessions", action: "create", where: "server" })).result;
  assert.equal((await ask(core, { type: "sessions" })).result.sessions.length, 1);
  model.add(text("Hi."));
  assert.equal((await ask(core, { type: "send", session: made.id, text: "A new one" })).last.type, "done");
  list = (await ask(core, { type: "sessions" })).result;
  assert.deepEqual(list.sessions.map((x) => [x.id, x.title, x.where]), [[made.id, "A new one", "server"], ["p1", "Hello from the page", "page"]]);

  // serve gone: the page's sessions stay, and the list says why the
  // server's are missing.
  serve.kill();
  await new Promise((r) => serve.once("exit", r));
  serve = null;
  list = (await ask(core, { type: "sessions" })).result;
  assert.deepEqual(list.sessions.map((x) => x.id), ["p1"]);
  assert.equal(list.server, false);
  assert.match(list.problems[0], /^the server's sessions are not listed: it could not be reached \(fetch failed\); is toolroute serve, or the worker, still running\?$/);
});

// serve keeps the page's chats (its health's page_chats): a new chat of
// the page is a session of serve's, listed by GET /api/sessions and
// continued by `toolroute chat` with its history; one made through the API
// is in the page's list; a search of the chats is serve's. A page whose
// provider is its own (here the demo) keeps its new chats in the browser,
// and its list says why.
test("served by serve, the page's chats are serve's sessions, seen by the API and by toolroute chat; searched there", { timeout: 5 * WAIT_MS }, async () => {
  const s = await startServe();
  serve = s.proc;
  const api = (url, init = {}) => fetch(s.base + url, { ...init, headers: { ...(init.headers ?? {}), authorization: `Bearer ${s.token}` } });
  const store = new MemoryUIStore();
  const core = newCore(store, api);

  let list = (await ask(core, { type: "sessions" })).result;
  assert.equal(list.keep, "server");
  const made = (await ask(core, { type: "sessions", action: "create" })).result;
  assert.equal(made.where, "server");
  assert.match(made.id, /^server:/);
  model.add(text("Kyoto in April has the cherry blossoms."));
  assert.equal((await ask(core, { type: "send", session: made.id, text: "Plan a trip to Kyoto" })).last.type, "done");
  const id = made.id.slice("server:".length);
  const listed = await (await api("/api/sessions")).json();
  assert.ok(listed.some((x) => x.id === id && x.title === "Plan a trip to Kyoto" && x.messages === 2), JSON.stringify(listed));
  assert.deepEqual(await store.sessions(), [], "nothing is kept in the browser");

  // toolroute chat continues it, with the page's turn as its history.
  model.add(text("Stay in Gion."));
  const asked = model.requests.length;
  await chat(["--session", id], "Where should I stay?\n");
  assert.ok(JSON.stringify(model.requests[asked].json.messages).includes("cherry blossoms"), "the terminal's turn carries the page's history");
  assert.deepEqual((await ask(core, { type: "messages", session: made.id })).result.map((m) => m.content), ["Plan a trip to Kyoto", "Kyoto in April has the cherry blossoms.", "Where should I stay?", "Stay in Gion."]);

  // A chat made through the API is in the page's list.
  const other = await (await api("/api/sessions", { method: "POST", headers: { "content-type": "application/json" }, body: "{}" })).json();
  model.add(text("Milk and eggs."));
  const events = await (await api(`/api/sessions/${other.id}/messages`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ text: "A shopping list" }) })).text();
  assert.match(events, /event: done/);
  list = (await ask(core, { type: "sessions" })).result;
  assert.deepEqual(list.sessions.slice(0, 2).map((x) => [x.id, x.title, x.where]), [["server:" + other.id, "A shopping list", "server"], [made.id, "Plan a trip to Kyoto", "server"]]);

  // A search of the chats: serve matches titles and messages.
  const found = (await ask(core, { type: "sessions", q: "gion" })).result;
  assert.deepEqual(found.sessions.map((x) => [x.id, x.snippet]), [[made.id, "Stay in **Gion**."]]);
  const byTitle = (await ask(core, { type: "sessions", q: "shopping" })).result;
  assert.deepEqual(byTitle.sessions.map((x) => x.id), ["server:" + other.id]);

  // The page's own provider keeps new chats in the browser.
  await ask(core, { type: "settings", set: { provider: "demo" } });
  list = (await ask(core, { type: "sessions" })).result;
  assert.deepEqual([list.keep, list.provider], ["page", "demo"]);
  assert.equal((await ask(core, { type: "sessions", action: "create" })).result.where, "page");
});
