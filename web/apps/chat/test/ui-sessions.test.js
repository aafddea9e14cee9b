// Sessions in the chat UI's core (web/apps/chat/core.js), as the page asks for
// them: made by their first message, renamed, deleted, and one list of the
// page's sessions and the server's when the page talks to one, a server
// session's turns running on the server. Against the mocked `toolroute
// serve` of ui-harness.js, whose sessions API (FakeSessions) answers as
// serve's and the worker's do; ui-serve.test.js does the same against the
// real program.
import { test } from "node:test";
import assert from "node:assert/strict";
import { MemoryUIStore } from "../src/idbstore.js";
import { fakeServer, newCore, ask } from "./ui-harness.js";
import { WAIT_MS } from "../../../packages/toolroute/test/busy.js";

const CATALOGUE = { catalogue: { manifests: [] }, sources: {}, libraries: {} };
const serve = (script, opts) => fakeServer(script, { catalogue: CATALOGUE, ...opts });

// until waits for a condition the test cannot await, WAIT_MS at most.
async function until(cond, what) {
  for (const end = Date.now() + WAIT_MS; Date.now() < end;) {
    if (cond()) return;
    await new Promise((r) => setTimeout(r, 5));
  }
  assert.fail("waited in vain for " + what);
}

const pageOnly = (list) => list.sessions.filter((s) => s.where === "page");

test("a page session is stored with its first message, titled after it; create stores nothing", async () => {
  const server = serve([{ text: "Lisbon is lovely." }]);
  const core = newCore(new MemoryUIStore(), server.fetch);
  const s = (await ask(core, { type: "sessions", action: "create" })).result;
  assert.match(s.id, /^[0-9a-f]{16}$/);
  assert.deepEqual({ ...s, id: "", created: "", updated: "" }, { id: "", title: "", created: "", updated: "", messages: 0, where: "page" });
  assert.deepEqual((await ask(core, { type: "sessions" })).result, { sessions: [], problems: [], server: true, keep: "page" });
  assert.equal((await ask(core, { type: "sessions", action: "get", session: s.id })).result, null);
  assert.deepEqual((await ask(core, { type: "messages", session: s.id })).result, []);

  const turn = await ask(core, { type: "send", session: s.id, text: "Plan my trip to Lisbon in May, with a day in Sintra and a night of fado please" });
  assert.equal(turn.last.type, "done", JSON.stringify(turn.last));
  const list = (await ask(core, { type: "sessions" })).result;
  assert.equal(list.sessions.length, 1);
  const [got] = list.sessions;
  assert.deepEqual([got.id, got.title, got.messages, got.where], [s.id, "Plan my trip to Lisbon in May, with a day in Sintra and a…", 2, "page"]);
  assert.deepEqual((await ask(core, { type: "sessions", action: "get", session: s.id })).result, got);
  const titled = await ask(core, { type: "sessions", action: "create", title: "Mine" });
  assert.match(titled.last.error, /titled after its first message/);
  const where = await ask(core, { type: "sessions", action: "create", where: "moon" });
  assert.match(where.last.error, /where is "page" or "server", not "moon"/);
});

test("a page session is renamed and deleted, with errors that say what to do", async () => {
  let release;
  const held = new Promise((r) => (release = r));
  const server = serve([{ text: "One." }, { text: "Two." }], { hold: () => (server.requests.length === 2 ? held : null) });
  const core = newCore(new MemoryUIStore(), server.fetch);
  await ask(core, { type: "send", session: "p1", text: "First chat" });

  const renamed = await ask(core, { type: "sessions", action: "rename", session: "p1", title: "  My\n first  chat " });
  assert.equal(renamed.result.title, "My first chat");
  assert.equal(renamed.result.where, "page");
  assert.equal(pageOnly((await ask(core, { type: "sessions" })).result)[0].title, "My first chat");
  for (const [msg, want] of [
    [{ session: "p1", title: " " }, /^the title is empty: give one of 1 to 200 characters$/],
    [{ session: "p1", title: "x".repeat(201) }, /^the title has 201 characters: give one of 1 to 200$/],
    [{ session: "p1" }, /give the new title as/],
    [{ session: "nope", title: "x" }, /^no session "nope" in this page: a session is stored with its first message$/],
  ]) {
    const r = await ask(core, { type: "sessions", action: "rename", ...msg });
    assert.equal(r.last.type, "error");
    assert.match(r.last.error, want);
  }

  // Not while a turn runs in it: the turn would store into it again.
  const replies = [];
  const running = core.handle({ id: 9, type: "send", session: "p1", text: "And then?" }, (r) => replies.push(r));
  await until(() => server.requests.length === 2, "the turn's model call");
  const busy = await ask(core, { type: "sessions", action: "delete", session: "p1" });
  assert.match(busy.last.error, /^a turn is running in session "p1": wait for it to end, or stop it \(abort\), then delete it$/);
  release();
  await running;
  assert.equal(replies.at(-1).type, "done");
  const deleted = await ask(core, { type: "sessions", action: "delete", session: "p1" });
  assert.deepEqual(pageOnly(deleted.result), []);
  assert.deepEqual((await ask(core, { type: "messages", session: "p1" })).result, []);
  const again = await ask(core, { type: "sessions", action: "delete", session: "p1" });
  assert.match(again.last.error, /^no session "p1" in this page/);
});

test("one list: the page's sessions and the server's, most recent first, each saying where it is", async () => {
  const store = new MemoryUIStore();
  const server = serve([{ text: "Page reply." }]);
  // A session another client made on the server (toolroute chat, say),
  // before the page's; serve writes its times in its own zone.
  server.sessions.add({ id: "20260102-120000-aaaaaa", messages: [{ type: "user", content: "From the terminal" }, { type: "assistant", content: "Hello, terminal." }] });
  const core = newCore(store, server.fetch);
  await ask(core, { type: "send", session: "p1", text: "From the page" });
  const list = (await ask(core, { type: "sessions" })).result;
  assert.deepEqual(list.problems, []);
  assert.equal(list.server, true);
  assert.deepEqual(list.sessions.map((s) => [s.id, s.where, s.title, s.messages]), [
    ["p1", "page", "From the page", 2],
    ["server:20260102-120000-aaaaaa", "server", "From the terminal", 2],
  ]);
  const remote = list.sessions[1];
  const kept = server.sessions.sessions.get("20260102-120000-aaaaaa").updated;
  assert.match(kept, /\+02:00$/);
  assert.equal(remote.updated, new Date(Date.parse(kept)).toISOString(), "the server's time, in UTC");

  // A rename is not an update: the server's session stays where it was.
  // A message to it puts it first.
  await ask(core, { type: "sessions", action: "rename", session: remote.id, title: "Terminal chat" });
  assert.deepEqual((await ask(core, { type: "sessions" })).result.sessions.map((s) => s.where), ["page", "server"]);
  await new Promise((r) => setTimeout(r, 5));
  await ask(core, { type: "send", session: remote.id, text: "Still there?" });
  const after = (await ask(core, { type: "sessions" })).result;
  assert.deepEqual(after.sessions.map((s) => [s.id, s.title, s.messages]), [
    ["server:20260102-120000-aaaaaa", "Terminal chat", 4],
    ["p1", "From the page", 2],
  ]);
});

test("a server session: read from the server, its turns run there with the page's event shapes, approvals answered there, renamed and deleted there", async () => {
  const server = serve([], {
    sessionOptions: {
      keepAlive: true,
      // A turn that asks before a tool that sends, then runs it.
      turn: async function* ({ text, append, ask: question }) {
        yield append({ type: "user", content: text });
        yield { type: "model_call", tools: ["load_tool_group", "send_note"] };
        yield { type: "retry", retry: { status: 429, attempt: 1, wait: 1500000000, message: "The provider answered 429: trying again in 1.5 s (retry 1 of 3)." } };
        const calls = [{ id: "call_1", tool: "send_note", input: { to: "ada" }, required_permissions: ["send"] }];
        yield append({ type: "tool_call", tool_name: "send_note", tool_call_id: "call_1", tool_input: '{"to":"ada"}', status: "awaiting_approval" });
        const answers = question(calls);
        yield { type: "approval", calls };
        const [a] = await answers;
        yield { type: "tool_calls", calls };
        yield append({ type: "tool_result", tool_name: "send_note", tool_call_id: "call_1", status: "success", content: `sent (${a.answer})` });
        yield { type: "text", text: "Sent." };
        yield append({ type: "assistant", content: "Sent." });
        yield { type: "done", text: "Sent." };
      },
    },
  });
  const core = newCore(new MemoryUIStore(), server.fetch);
  const made = (await ask(core, { type: "sessions", action: "create", where: "server" })).result;
  assert.match(made.id, /^server:\d{8}-\d{6}-[0-9a-f]{6}$/);
  assert.equal(made.where, "server");
  assert.equal((await ask(core, { type: "sessions", action: "get", session: made.id })).result, null, "nothing is stored before the first message");
  assert.deepEqual((await ask(core, { type: "messages", session: made.id })).result, []);

  const events = [];
  const turn = await ask(core, { type: "send", session: made.id, text: "Send Ada a note" }, (r) => {
    if (r.type !== "event") return;
    events.push(r.event);
    if (r.event.type === "approval") {
      setTimeout(() => core.handle({ id: 2, type: "approve", session: made.id, answers: r.event.calls.map((c) => ({ id: c.id, answer: "once" })) }, () => {}), 5);
    }
  });
  assert.equal(turn.last.type, "done", JSON.stringify(turn.last));
  assert.deepEqual(turn.last.result, null);
  assert.deepEqual(events.map((e) => e.type), ["message", "model_call", "retry", "message", "approval", "tool_calls", "message", "text", "message", "done"]);
  assert.deepEqual(events[2].retry, { status: 429, attempt: 1, wait: 1500000000, wait_ms: 1500, message: "The provider answered 429: trying again in 1.5 s (retry 1 of 3)." },
    "the Go host's retry gets the page host's wait_ms");
  assert.equal(events[6].message.content, "sent (once)");
  assert.equal(server.requests.length, 0, "the page called no model: the turn ran on the server");
  const approvals = server.sessions.requests.find((r) => r.path.endsWith("/approvals"));
  assert.deepEqual(approvals.body, { approvals: [{ id: "call_1", answer: "once" }] });

  const got = (await ask(core, { type: "sessions", action: "get", session: made.id })).result;
  assert.deepEqual([got.id, got.title, got.messages, got.where], [made.id, "Send Ada a note", 4, "server"]);
  const log = (await ask(core, { type: "messages", session: made.id })).result;
  assert.deepEqual(log.map((m) => m.type), ["user", "tool_call", "tool_result", "assistant"]);
  const d = (await ask(core, { type: "describe", session: made.id })).result;
  assert.deepEqual([d.where, d.loaded_groups, d.meter, d.model], ["server", ["config"], null, "fake-1"]);

  const renamed = (await ask(core, { type: "sessions", action: "rename", session: made.id, title: "Notes to Ada" })).result;
  assert.deepEqual([renamed.id, renamed.title, renamed.where], [made.id, "Notes to Ada", "server"]);
  const bad = await ask(core, { type: "sessions", action: "rename", session: made.id, title: "" });
  assert.match(bad.last.error, /^the title is empty/);
  const missing = await ask(core, { type: "sessions", action: "rename", session: "server:nope", title: "x" });
  assert.match(missing.last.error, /^no session "nope": GET \/api\/sessions lists them/);
  const noQuestion = await ask(core, { type: "approve", session: made.id, answers: [] });
  assert.match(noQuestion.last.error, /no question is pending/);

  const list = (await ask(core, { type: "sessions", action: "delete", session: made.id })).result;
  assert.deepEqual(list.sessions, []);
  assert.equal(server.sessions.sessions.size, 0);
  const gone = await ask(core, { type: "sessions", action: "delete", session: made.id });
  assert.match(gone.last.error, /^no session "\d{8}-\d{6}-[0-9a-f]{6}"/);
});

test("a server session's turn: stopped by abort, which closes its stream; while it runs, no other turn and no delete", async () => {
  let release;
  const server = serve([], {
    sessionOptions: {
      turn: async function* ({ text, append }) {
        yield append({ type: "user", content: text });
        yield { type: "model_call", tools: [] };
        await new Promise((r) => (release = r));
        yield { type: "done", text: "Too late." };
      },
    },
  });
  const core = newCore(new MemoryUIStore(), server.fetch);
  const replies = [];
  const running = core.handle({ id: 7, type: "send", session: "server:s1", text: "Take your time" }, (r) => replies.push(r));
  await until(() => replies.some((r) => r.event?.type === "model_call"), "the model_call event");
  const busy = await ask(core, { type: "sessions", action: "delete", session: "server:s1" });
  assert.match(busy.last.error, /^session "s1" has a turn running: wait for its done or failed event, or stop it/);
  const second = await ask(core, { type: "send", session: "server:s1", text: "Hello?" });
  assert.match(second.last.error, /^a turn is already running in this session/);

  assert.deepEqual((await ask(core, { type: "abort", target: 7 })).result, { aborted: true });
  await running;
  assert.deepEqual(replies.at(-1), { id: 7, type: "done", result: { aborted: true } });
  assert.equal(server.sessions.aborted, 1, "the server saw its client leave");
  release();
  assert.deepEqual((await ask(core, { type: "messages", session: "server:s1" })).result.map((m) => m.content), ["Take your time"], "what the turn stored is kept");
  assert.equal((await ask(core, { type: "sessions", action: "delete", session: "server:s1" })).last.type, "done");
});

test("a server's turn that the server ends is a failed turn; one whose stream breaks is an error", async () => {
  const server = serve([], {
    sessionOptions: {
      turn: async function* ({ text, append }) {
        yield append({ type: "user", content: text });
        if (text === "break") return; // the stream ends with no done or failed
        yield { type: "failed", failure: { code: "host_error", message: "storing messages of session \"s\": the disk is full" } };
      },
    },
  });
  const core = newCore(new MemoryUIStore(), server.fetch);
  const failed = await ask(core, { type: "send", session: "server:s", text: "hi" });
  assert.deepEqual(failed.events.map((e) => e.type), ["message", "failed"]);
  assert.deepEqual(failed.events.at(-1).failure, { code: "host_error", message: "storing messages of session \"s\": the disk is full" });
  const broken = await ask(core, { type: "send", session: "server:s", text: "break" });
  assert.match(broken.last.error, /the server's stream ended before the turn did/);
  const empty = await ask(core, { type: "send", session: "server:", text: "hi" });
  assert.match(empty.last.error, /a server session's id is server:ID/);
});

test("a server that does not answer: the list has the page's sessions and says why the server's are missing", async () => {
  const store = new MemoryUIStore();
  const up = serve([{ text: "Hi." }]);
  await ask(newCore(store, up.fetch), { type: "send", session: "p1", text: "Hello" });
  const cases = [
    {
      name: "gone",
      fetch: async (url, init) => (String(url).startsWith("/api/") ? Promise.reject(new TypeError("fetch failed")) : up.fetch(url, init)),
      problems: ["the server's sessions are not listed: it could not be reached (fetch failed); is toolroute serve, or the worker, still running?"],
    },
    {
      name: "no token",
      fetch: async (url) => Response.json({ error: "toolroute serve needs its token: open the URL it printed" }, { status: 401 }),
      problems: ["the server's sessions are not listed: it refused the page (401: toolroute serve needs its token: open the URL it printed)"],
    },
    {
      name: "its list fails",
      fetch: async (url, init) => (url === "/api/sessions" ? Response.json({ error: "store: list sessions: disk I/O error" }, { status: 500 }) : up.fetch(url, init)),
      problems: ["the server's sessions are not listed: store: list sessions: disk I/O error"],
      server: true,
    },
    // A page on a static host: there is no server, which is no problem.
    { name: "no server", fetch: async () => new Response("not found", { status: 404 }), problems: [] },
  ];
  for (const c of cases) {
    const list = (await ask(newCore(store, c.fetch), { type: "sessions" })).result;
    assert.deepEqual(list, { sessions: list.sessions, problems: c.problems, server: !!c.server, keep: "page" }, c.name);
    assert.deepEqual(list.sessions.map((s) => [s.id, s.where]), [["p1", "page"]], c.name);
  }
  const gone = newCore(store, cases[0].fetch);
  const send = await ask(gone, { type: "send", session: "server:x", text: "hi" });
  assert.match(send.last.error, /^the server could not be reached \(fetch failed\)/);
  const get = await ask(gone, { type: "sessions", action: "get", session: "server:x" });
  assert.match(get.last.error, /^the server could not be reached/);
  // The page's own sessions work as before.
  const page = await ask(gone, { type: "messages", session: "p1" });
  assert.deepEqual(page.result.map((m) => m.content), ["Hello", "Hi."]);
});
