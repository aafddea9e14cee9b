// The edge worker (web/apps/worker) in workerd, the Workers runtime, from npm:
// built as for deployment (with the tests' one extra route, worker-entry.js)
// and run on loopback with a workerd config like the one the build writes,
// against a scripted model server. A conversation over two requests with
// workerd restarted between them, so the second turn's isolate has nothing
// but the Durable Objects' storage: it must restore the loaded group from
// the log. Then the conformance cases of testdata/js in the worker's QuickJS,
// and those of testdata/builtins through its HTTP API.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { buildWorker, workerdConfig } from "../build.mjs";
import { freePort, startWorkerd } from "../workerd.js";
import { startFakeModel, text, toolCall, toolNames, error, rateLimited, signature } from "../../../packages/toolroute/test/host-fakemodel.js";
import { loadCase, skipFor, FAILSAFE_MS } from "../../../packages/toolroute/test/conformance-case.js";
import { cpuPast } from "../../../packages/toolroute/test/busy.js";
import { builtinCases, checkResults, pageServer } from "../../../packages/toolroute/test/builtins-case.js";
import { missingPreludeLines } from "../../../packages/toolroute/test/prelude-lines.js";
import { startEverything, startGuard } from "../../../packages/toolroute/test/mcp-servers.js";
import { fakeServer, checkReplay } from "../../../packages/toolroute/test/conformance.js";

const here = path.dirname(fileURLToPath(import.meta.url));
const web = path.dirname(here);
const root = path.join(web, "..", "..", "..");

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "toolroute-worker-"));
let model, workerd, base, oauth, site;

// A user's JS group, exported with the built-in tools by `toolroute export`
// as a deployment would be.
const userTools = {
  "text_utils.json": JSON.stringify([
    { _meta: true, display_name: "Text Utilities", description: "Count and shout words" },
    { name: "word_count", description: "Count the words of a text", function: "wordCount", parameters: { type: "object", properties: { text: { type: "string" } }, required: ["text"] } },
    { name: "shout", description: "A text in capitals", function: "shout", parameters: { type: "object", properties: { text: { type: "string" } }, required: ["text"] } },
  ]),
  "big.json": JSON.stringify({ name: "big", description: "A long text", parameters: { type: "object", properties: { n: { type: "integer" } } } }),
  "big.js": "function execute(p) { let s = ''; for (let i = 0; s.length < p.n; i++) s += i + ','; return s.slice(0, p.n); }\n",
  "whoami.json": JSON.stringify({ name: "whoami", description: "The Google account in use", requiredPermissions: ["google"], parameters: { type: "object", properties: {} } }),
  "whoami.js": "async function execute() { return (await google.getAccountEmail()) + ' ' + (await google.getAccessToken()); }\n",
  "leak.json": JSON.stringify({ name: "leak", description: "Show my variables", env: ["OPENAI_API_KEY", "WEATHER"], parameters: { type: "object", properties: {} } }),
  "leak.js": "function execute(p) { return JSON.stringify(p._env); }\n",
  "post_note.json": JSON.stringify({ name: "post_note", description: "Post a note", requiredPermissions: ["send"], parameters: { type: "object", properties: {} } }),
  "post_note.js": "function execute() { return 'posted'; }\n",
  "post_mail.json": JSON.stringify({ name: "post_mail", description: "Post mail", requiredPermissions: ["send"], parameters: { type: "object", properties: {} } }),
  "post_mail.js": "function execute() { return 'mailed'; }\n",
  "text_utils.js": "function wordCount(p) { return String(p.text.split(/\\s+/).filter(Boolean).length) }\nfunction shout(p) { return p.text.toUpperCase() + ' (' + _time('UTC', 'iso8601').slice(0, 4) + ')' }\n",
};

before(async () => {
  const config = path.join(tmp, "config");
  fs.mkdirSync(path.join(config, "tools"), { recursive: true });
  for (const [f, t] of Object.entries(userTools)) fs.writeFileSync(path.join(config, "tools", f), t);
  const bundle = JSON.parse(execFileSync("go", ["run", "./cmd/toolroute", "export", "--config-dir", config], { cwd: root, maxBuffer: 256 << 20 }).toString());
  await buildWorker({ out: path.join(tmp, "dist"), bundle, entry: path.join(here, "worker-entry.js") });
  fs.mkdirSync(path.join(tmp, "storage"));
  model = await startFakeModel("openai");
  site = await pageServer(); // each builtins case puts its pages there
  oauth = await fakeServer([{ method: "POST", path: "/token", headers: { "content-type": "application/json" }, body: JSON.stringify({ access_token: "ya29.from-refresh", expires_in: 3599, token_type: "Bearer" }) }]);
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  fs.writeFileSync(path.join(tmp, "workerd.capnp"), workerdConfig({
    dir: "dist", port, storage: path.join(tmp, "storage"),
    bindings: {
      OPENAI_BASE_URL: model.baseURL, OPENAI_API_KEY: "sk-worker-secret", TOOLROUTE_MODEL: "fake-model", TOOLROUTE_TOKEN: TOKEN,
      GOOGLE_REFRESH_TOKEN: "1//refresh", GOOGLE_CLIENT_ID: "client.apps", GOOGLE_CLIENT_SECRET: "shh", GOOGLE_TOKEN_URL: oauth.url + "/token", GOOGLE_ACCOUNT_EMAIL: "me@example.com",
      TOOL_WEATHER: "wx-worker-weather-key", TOOLROUTE_POLICIES: "tool:post_note=allow", TOOLROUTE_KEEPALIVE_MS: "500",
      TEST_PAGES_URL: site.url,
    },
  }));
  workerd = await startWorkerd(path.join(tmp, "workerd.capnp"), { cwd: tmp, base });
});

after(async () => {
  await workerd?.stop();
  await model?.close();
  await oauth?.close();
  await site?.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});

// TOKEN is the worker's TOOLROUTE_TOKEN: every request carries it, as to a
// deployed worker; loopback names get no exemption (see the token tests).
const TOKEN = "tok-123";
const auth = { authorization: `Bearer ${TOKEN}` };

const json = (method, p, body) =>
  fetch(base + p, { method, headers: body === undefined ? auth : { ...auth, "content-type": "application/json" }, body: body === undefined ? undefined : JSON.stringify(body) });

// turn posts a message and reads the server-sent events to the end.
async function turn(id, message) {
  const r = await json("POST", `/api/sessions/${id}/messages`, { text: message });
  assert.equal(r.status, 200, await r.clone().text());
  assert.equal(r.headers.get("content-type"), "text/event-stream");
  const events = [];
  for (const block of (await r.text()).split("\n\n")) {
    if (block.trim() === "" || block.startsWith(":")) continue; // a keep-alive comment
    const [ev, data] = block.split("\n");
    const e = JSON.parse(data.slice("data: ".length));
    assert.equal(ev, "event: " + e.type);
    events.push(e);
  }
  return events;
}

// openTurn posts a message and reads its server-sent events as they come:
// next() reads one and gives it (null at the end), until(type) reads up to
// the first event of that type and gives it, rest() reads to the end and
// gives them all.
async function openTurn(id, message, signal) {
  const r = await fetch(base + `/api/sessions/${id}/messages`, { method: "POST", headers: { ...auth, "content-type": "application/json" }, body: JSON.stringify({ text: message }), signal });
  if (r.status !== 200) assert.fail(`${r.status}: ${await r.text()}`); // the body of a 200 is the turn, still running
  const reader = r.body.getReader();
  const decoder = new TextDecoder();
  const events = [];
  let buf = "";
  const next = async () => {
    for (;;) {
      const i = buf.indexOf("\n\n");
      if (i >= 0) {
        const [ev, data] = buf.slice(0, i).split("\n");
        buf = buf.slice(i + 2);
        if (ev.startsWith(":")) continue; // a keep-alive comment
        const e = JSON.parse(data.slice("data: ".length));
        assert.equal(ev, "event: " + e.type);
        events.push(e);
        return e;
      }
      const { value, done } = await reader.read();
      if (done) return null;
      buf += decoder.decode(value, { stream: true });
    }
  };
  return {
    events,
    next,
    async until(type) {
      for (;;) {
        const e = await next();
        if (!e) throw new Error(`the turn ended before a ${type} event: ${JSON.stringify(events.at(-1))}`);
        if (e.type === type) return e;
      }
    },
    async rest() {
      while (await next());
      return events;
    },
  };
}

const answerCalls = (id, approvals, headers = auth) =>
  fetch(`${base}/api/sessions/${id}/approvals`, { method: "POST", headers: { ...headers, "content-type": "application/json" }, body: JSON.stringify({ approvals }) });

test("the bundle runs assets/prelude.js as it is now, inlined", () => {
  const code = fs.readFileSync(path.join(tmp, "dist", "worker.js"), "utf8");
  assert.deepEqual(missingPreludeLines(code), [], "worker.js lacks lines of assets/prelude.js");
  assert.doesNotMatch(code, /node:fs"/, "worker.js imports node:fs statically");
});

test("the worker loads the built-in tools and the user's, and names its provider", async () => {
  const h = await (await json("GET", "/api/health")).json();
  assert.deepEqual(h.problems, []);
  assert.equal(h.provider, `openai at ${model.baseURL}, model fake-model`);
  const cat = await (await json("GET", "/api/catalogue")).json();
  const groups = cat.groups.map((g) => g.name);
  assert.ok(groups.includes("text_utils") && groups.includes("google_gmail"), groups.join(","));
});

test("a conversation over two requests: the second, in a new isolate, restores the group from the Durable Object's log", async () => {
  const created = await json("POST", "/api/sessions", {});
  assert.equal(created.status, 201);
  const { id } = await created.json();
  assert.match(id, /^\d{8}-\d{6}-[0-9a-f]{6}$/);

  model.add(toolCall("load_tool_group", '{"group_name":"text_utils"}'), toolCall("word_count", '{"text":"one two three"}'), text("It has 3 words."));
  const first = await turn(id, "How many words in 'one two three'?");
  assert.equal(first.at(-1).type, "done", JSON.stringify(first.at(-1)));
  assert.equal(first.at(-1).text, "It has 3 words.");
  assert.deepEqual(first.find((e) => e.type === "group_loaded").group.added, ["word_count", "shout"]);
  const result = first.filter((e) => e.type === "message" && e.message.type === "tool_result").at(-1).message;
  assert.equal(result.content, "3"); // word_count ran in QuickJS inside workerd
  const core = toolNames(model.requests[0]); // load_tool_group and the built-in core tools
  assert.ok(core.includes("load_tool_group") && !core.includes("word_count"), core.join(","));
  assert.deepEqual(model.requests.map(toolNames), [core, [...core, "word_count", "shout"], [...core, "word_count", "shout"]]);
  assert.equal(model.requests[0].headers.authorization, "Bearer sk-worker-secret");

  // A new workerd process: no module instance, no host, no memory of the
  // turn; only the Durable Objects' storage on disk.
  await workerd.stop();
  workerd = await startWorkerd(path.join(tmp, "workerd.capnp"), { cwd: tmp, base });

  const described = await (await json("GET", `/api/catalogue?session=${id}`)).json();
  assert.deepEqual(described.loaded_groups, ["text_utils"]);
  model.add(toolCall("shout", '{"text":"hi"}'), text("HI!"));
  const asked = model.requests.length;
  const second = await turn(id, "Shout 'hi'.");
  assert.equal(second.at(-1).type, "done", JSON.stringify(second.at(-1)));
  // Its first request already carries the group's schemas: no load again.
  const req = model.requests[asked];
  assert.deepEqual(toolNames(req), [...core, "word_count", "shout"]);
  assert.ok(req.body.includes("A text in capitals"));
  assert.ok(req.body.includes("one two three"), "the first turn's messages are in the history sent");
  const shout = second.filter((e) => e.type === "message" && e.message.type === "tool_result").at(-1).message;
  assert.match(shout.content, /^HI \(\d{4}\)$/);

  const log = await (await json("GET", `/api/sessions/${id}/messages`)).json();
  assert.deepEqual(log.map((m) => m.type), [
    "user", "assistant", "tool_call", "tool_result", "assistant", "tool_call", "tool_result", "assistant",
    "user", "assistant", "tool_call", "tool_result", "assistant",
  ]);
  const events = [...first, ...second].filter((e) => e.type === "message").map((e) => e.message);
  assert.deepEqual(log, events, "every message event was committed, in order");
  const info = await (await json("GET", `/api/sessions/${id}`)).json();
  assert.equal(info.title, "How many words in 'one two three'?");
  assert.equal(info.messages, 13);
  const list = await (await json("GET", "/api/sessions")).json();
  assert.deepEqual(list.find((s) => s.id === id), info);
});

test("bad requests get errors that say what to do", async () => {
  const cases = [
    [await fetch(base + "/api/sessions", { method: "POST", headers: auth, body: "{}" }), 415, /Content-Type: application\/json/],
    [await json("POST", "/api/sessions/x/messages", { text: " " }), 400, /give the message as/],
    [await fetch(base + "/api/sessions", { method: "POST", headers: { ...auth, "content-type": "application/json" }, body: "{nope" }), 400, /not the JSON this endpoint takes/],
    [await json("GET", "/api/sessions/no-such-session"), 404, /no session "no-such-session"/],
    [await json("GET", "/api/sessions/no-such-session/messages"), 404, /GET \/api\/sessions lists them/],
    [await json("GET", "/api/nothing"), 404, /no such endpoint: GET \/api\/nothing/],
    [await json("POST", "/api/sessions", { title: "x".repeat(2 << 20) }), 413, /over 1048576 bytes/],
  ];
  for (const [r, status, re] of cases) {
    assert.equal(r.status, status, r.url);
    assert.match((await r.json()).error, re);
  }
  const page = await fetch(base + "/", { headers: auth });
  assert.match(await page.text(), /<title>toolroute<\/title>/);
});

test("a request to a public name needs the TOOLROUTE_TOKEN secret", async () => {
  // workerd sees the Host header: a name other than a loopback one is what
  // a deployed worker sees.
  const host = "toolroute.example.workers.dev";
  const none = await get("/api/sessions", { host });
  assert.equal(none.status, 401);
  assert.match(JSON.parse(none.body).error, /Authorization: Bearer TOKEN/);
  assert.equal((await get("/api/sessions", { host, authorization: "Bearer tok-12" })).status, 401);
  assert.equal((await get("/api/sessions", { host, authorization: "Bearer tok-123" })).status, 200);
  const login = await get("/?token=tok-123", { host });
  assert.equal(login.status, 303);
  const cookie = login.headers["set-cookie"][0];
  assert.match(cookie, /^toolroute_token=tok-123; Path=\/; HttpOnly; Secure; SameSite=Strict/);
  assert.equal((await get("/api/sessions", { host, cookie: cookie.split(";")[0] })).status, 200);
});

// The attack: workerd behind a proxy that sets Host to 127.0.0.1 (nginx's
// default) was open to anyone, since a loopback name needed no token.
test("a request to a loopback name needs the token too", async () => {
  for (const host of ["127.0.0.1", `127.0.0.1:${new URL(base).port}`, "localhost", "LOCALHOST.", "app.localhost", "127.1", "2130706433", "0x7f000001", "[::1]"]) {
    const r = await get("/api/sessions", { host });
    assert.equal(r.status, 401, host);
    assert.match(JSON.parse(r.body).error, /Authorization: Bearer TOKEN.*TOOLROUTE_DEV_NO_TOKEN/, host);
    assert.equal((await get("/api/sessions", { host, authorization: "Bearer tok-123" })).status, 200, host);
  }
  const none = await fetch(base + "/api/sessions");
  assert.equal(none.status, 401);
  assert.equal((await fetch(base + "/api/sessions", { method: "POST", headers: { "content-type": "application/json" }, body: "{}" })).status, 401);
  assert.equal((await fetch(base + "/")).status, 401, "the page too");
});

test("a malformed token cookie is a 400 that says what to do", async () => {
  for (const cookie of ["toolroute_token=%E0%A4%A", "toolroute_token=%", "a=b; toolroute_token=%zz"]) {
    for (const host of ["toolroute.example.workers.dev", "127.0.0.1"]) {
      const r = await get("/api/sessions", { host, cookie });
      assert.equal(r.status, 400, `${cookie} to ${host}: ${r.body}`);
      assert.match(JSON.parse(r.body).error, /the toolroute_token cookie is not valid percent-encoding: open \/\?token=TOKEN/);
    }
  }
  // The bearer token goes first: a bad cookie beside it is not read.
  assert.equal((await get("/api/sessions", { cookie: "toolroute_token=%E0%A4%A", authorization: "Bearer tok-123" })).status, 200);
});

test("TOOLROUTE_DEV_NO_TOKEN lets requests to a loopback name through, and no others", async () => {
  const port = await freePort();
  const dev = { base: `http://127.0.0.1:${port}`, config: path.join(tmp, "workerd-dev.capnp"), storage: path.join(tmp, "storage-dev") };
  fs.mkdirSync(dev.storage, { recursive: true });
  fs.writeFileSync(dev.config, workerdConfig({ dir: "dist", port, storage: dev.storage, bindings: { TOOLROUTE_TOKEN: TOKEN, TOOLROUTE_DEV_NO_TOKEN: "1" } }));
  assert.match(fs.readFileSync(dev.config, "utf8"), /for this\n\s*# machine only/, "the config warns beside the variable");
  const w = await startWorkerd(dev.config, { cwd: tmp, base: dev.base });
  try {
    const get2 = (p, headers) => request(dev.base + p, headers);
    for (const host of ["127.0.0.1", "localhost", "[::1]", "127.1"]) {
      const r = await get2("/api/sessions", { host });
      assert.equal(r.status, 200, `${host}: ${r.body}`);
    }
    assert.equal((await fetch(dev.base + "/api/sessions")).status, 200);
    const far = await get2("/api/sessions", { host: "toolroute.example.workers.dev" });
    assert.equal(far.status, 401, "a public name still needs the token");
    assert.doesNotMatch(JSON.parse(far.body).error, /TOOLROUTE_DEV_NO_TOKEN/);
    assert.equal((await get2("/api/sessions", { host: "toolroute.example.workers.dev", authorization: "Bearer tok-123" })).status, 200);
  } finally {
    await w.stop();
  }
});

test("session ids are 1 to 128 characters of A-Z, a-z, 0-9, '.', '_' and '-'", async () => {
  const cases = [
    { name: "60 KB", id: "a".repeat(60_000) }, // workerd answers 414 itself over 64 KB
    { name: "129 characters", id: "a".repeat(129) },
    { name: "a NUL", id: "a%00b" },
    { name: "a newline", id: "a%0Ab" },
    { name: "a carriage return and a newline", id: "a%0D%0AX-Injected:%201" },
    { name: "a space", id: "a%20b" },
    { name: "a slash", id: "a%2Fb" },
    { name: "a quote", id: "a%22b" },
    { name: "not ASCII", id: "caf%C3%A9" },
    { name: "bad percent-encoding", id: "%E0%A4%A", want: /not valid percent-encoding/ },
  ];
  const rule = /a session id is 1 to 128 characters of A-Z, a-z, 0-9, '\.', '_' and '-': POST \/api\/sessions makes one/;
  for (const c of cases) {
    for (const [method, p, body] of [["GET", `/api/sessions/${c.id}`], ["GET", `/api/sessions/${c.id}/messages`], ["POST", `/api/sessions/${c.id}/messages`, { text: "hi" }], ["GET", `/api/catalogue?session=${c.id}`]]) {
      const r = await json(method, p, body);
      const text = await r.text();
      assert.equal(r.status, 400, `${c.name}: ${method} ${p.slice(0, 80)}: ${text.slice(0, 200)}`);
      // A query is decoded leniently: bad percent-encoding is an id the rule refuses.
      assert.match(JSON.parse(text).error, p.startsWith("/api/catalogue") ? rule : c.want ?? rule, c.name);
    }
  }
  // The longest id allowed, and every character allowed, are looked up.
  for (const id of ["a".repeat(128), "Az09._-"]) {
    const r = await json("GET", `/api/sessions/${id}`);
    assert.equal(r.status, 404, id);
    assert.equal((await json("GET", `/api/catalogue?session=${id}`)).status, 200, id);
  }
});

test("files JS tools write stay in the worker's sandbox, for other sessions and isolates", async () => {
  const a = (await (await json("POST", "/api/sessions", {})).json()).id;
  model.add(toolCall("write_file", '{"path":"notes/todo.md","content":"buy milk"}'), text("Saved."));
  const wrote = await turn(a, "Note: buy milk.");
  assert.equal(wrote.at(-1).type, "done", JSON.stringify(wrote.at(-1)));
  await workerd.stop();
  workerd = await startWorkerd(path.join(tmp, "workerd.capnp"), { cwd: tmp, base });
  const b = (await (await json("POST", "/api/sessions", {})).json()).id;
  model.add(toolCall("read_file", '{"path":"notes/todo.md"}'), text("You wrote: buy milk."));
  const read = await turn(b, "What is in my notes?");
  const result = read.filter((e) => e.type === "message" && e.message.type === "tool_result").at(-1).message;
  assert.equal(result.status, "success", result.content);
  assert.equal(result.content, "buy milk");
});

test("a file downloadToFile saves in the worker keeps its bytes in the sandbox's storage, across isolates, and uploadMultipart sends them", async () => {
  const png = Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAQAAAAECAYAAACp8Z5+AAAAM0lEQVR4nBXKMQEAMAjEwMipCERUzo+Iwh9Np1sOaA69V6NQvaeaq1GIIw5N/hjHODT6APpeGVmqCh9qAAAAAElFTkSuQmCC", "base64");
  site.pages = { "/files/pic.png": png, "/upload": '{"id":"f1"}' };
  site.posts = [];
  const run = async (code, says) => {
    const id = (await (await json("POST", "/api/sessions", {})).json()).id;
    model.add(toolCall("js_eval", JSON.stringify({ code })), text(says));
    const result = (await turn(id, says)).filter((e) => e.type === "message" && e.message.type === "tool_result").at(-1).message;
    assert.equal(result.status, "success", result.content);
    return result.content;
  };
  assert.equal(await run("(async () => JSON.stringify(await downloadToFile('https://pages.test/files/pic.png', 'pics/pic.png')))()", "Saved."),
    '{"success":true,"path":"pics/pic.png","size":108,"error":null,"status":200}');
  await workerd.stop();
  workerd = await startWorkerd(path.join(tmp, "workerd.capnp"), { cwd: tmp, base });
  assert.equal(await run("(async () => JSON.stringify(await uploadMultipart('https://pages.test/upload', [{contentType: 'application/json', content: '{}'}, {contentType: 'image/png', filePath: 'pics/pic.png'}])))()", "Sent."),
    '{"status":200,"body":"{\\"id\\":\\"f1\\"}","ok":true,"error":null}');
  assert.equal(site.posts.length, 1);
  assert.match(site.posts[0].headers["content-type"], /^multipart\/related; boundary=toolroute-[0-9a-f]{32}$/);
  assert.ok(site.posts[0].raw.includes(png), "the upload lacks the PNG's bytes");
});

// The pdf group runs in the worker over its SandboxFiles: pdf_info and
// pdf_extract_text, as the shared cases answer them; no pdf_render_page:
// workerd has no canvas. two-pages.pdf is ASCII, so write_file keeps it whole.
test("the pdf group in the worker: info and text of a PDF in its sandbox", async () => {
  const cat = await (await json("GET", "/api/catalogue")).json();
  assert.deepEqual(cat.groups.find((g) => g.name === "pdf")?.tools, ["pdf_info", "pdf_extract_text"]);
  const pdf = fs.readFileSync(path.join(root, "testdata/pdf/two-pages.pdf"), "latin1");
  const cases = JSON.parse(fs.readFileSync(path.join(root, "testdata/pdf/cases.json"), "utf8"));
  const id = (await (await json("POST", "/api/sessions", {})).json()).id;
  model.add(toolCall("write_file", JSON.stringify({ path: "two-pages.pdf", content: pdf })), toolCall("load_tool_group", '{"group_name":"pdf"}'),
    toolCall("pdf_info", '{"path":"two-pages.pdf"}'), toolCall("pdf_extract_text", '{"path":"two-pages.pdf"}'), toolCall("pdf_info", '{"path":"nope.pdf"}'), text("Read."));
  const events = await turn(id, "Load the PDF tools and read two-pages.pdf");
  assert.equal(events.at(-1).type, "done", JSON.stringify(events.at(-1)));
  assert.deepEqual(events.find((e) => e.type === "group_loaded").group.added, ["pdf_info", "pdf_extract_text"]);
  const results = events.filter((e) => e.type === "message" && e.message.type === "tool_result").map((e) => e.message);
  assert.equal(results[2].content, cases.find((c) => c.name === "info of a two-page text PDF").output);
  assert.equal(results[3].content, cases.find((c) => c.name === "text of every page").output);
  assert.equal(results[4].status, "error");
  assert.match(results[4].content, /no file 'nope.pdf' in the sandbox folder/);
});

test("the google bridge takes its account from the worker's secrets, refreshing the token", async () => {
  const id = (await (await json("POST", "/api/sessions", {})).json()).id;
  model.add(toolCall("whoami", "{}"), text("You are me@example.com."));
  const events = await turn(id, "Who am I on Google?");
  const result = events.filter((e) => e.type === "message" && e.message.type === "tool_result").at(-1).message;
  // The token reached the tool, and is redacted from what leaves the worker.
  assert.equal(result.content, "me@example.com [redacted Google access token]");
  assert.ok(!model.requests.some((r) => r.body.includes("ya29.from-refresh")), "a model request holds the Google token");
  const form = new URLSearchParams(oauth.seen.at(-1).body);
  assert.deepEqual(Object.fromEntries(form), { grant_type: "refresh_token", refresh_token: "1//refresh", client_id: "client.apps", client_secret: "shh" });
});

test("js_eval in the worker: the value and the console, an error with its console lines, the google bridge only as granted", async () => {
  const id = (await (await json("POST", "/api/sessions", {})).json()).id;
  model.add(
    toolCall("js_eval", JSON.stringify({ code: "console.log('hi', {a: 1}); 6 * 7" })),
    toolCall("js_eval", JSON.stringify({ code: "console.warn('before'); throw new Error('boom')" })),
    text("Ran both."));
  const results = (await turn(id, "Run some code")).filter((e) => e.type === "message" && e.message.type === "tool_result").map((e) => e.message);
  assert.deepEqual([results[0].status, results[0].content], ["success", '42\n\nConsole output:\nlog: hi {"a":1}']);
  assert.equal(results[1].status, "error");
  assert.match(results[1].content, /^Error \(execution_error\): Error: boom\n[^]*\n\nConsole output:\nwarn: before$/);

  // A call asking for the Google account asks the user, whose answer
  // grants it, or not.
  const code = "(async () => (await google.getAccountEmail()) + ' ' + (await google.getAccessToken()))()";
  for (const [grant, want] of [[["google"], /^me@example\.com \[redacted Google access token\]$/], [undefined, /google: 'js_eval' may not use the Google account/]]) {
    model.add(toolCall("js_eval", JSON.stringify({ code, secrets: ["google"] })), text("Done."));
    const t = await openTurn(id, "Who am I?");
    const asked = await t.until("approval");
    assert.deepEqual(asked.calls.map((c) => [c.tool, c.secrets]), [["js_eval", ["google"]]]);
    assert.equal((await answerCalls(id, [{ id: asked.calls[0].id, answer: "once", grant }])).status, 200);
    const result = (await t.rest()).filter((e) => e.type === "message" && e.message.type === "tool_result").at(-1).message;
    assert.equal(result.status, grant ? "success" : "error", result.content);
    assert.match(result.content, want);
  }
});

test("a tool reads only its TOOL_ variables, redacted; the worker's secrets never", async () => {
  const id = (await (await json("POST", "/api/sessions", {})).json()).id;
  model.add(toolCall("leak", "{}"), text("Nothing to see."));
  const events = await turn(id, "Show the variables");
  const result = events.filter((e) => e.type === "message" && e.message.type === "tool_result").at(-1).message;
  assert.equal(result.content, '{"WEATHER":"[redacted WEATHER]"}');
  assert.ok(!model.requests.some((r) => r.body.includes("wx-worker-weather-key") || r.body.includes("sk-worker-secret")));
});

// Routing scenario 4 in the worker: a task scheduled in a turn (the
// user allows schedule_task) runs at its time from the SessionIndex's
// alarm, through the SELF binding, as a session of its own that the API
// lists with its answer; the next turn's list_scheduled_tasks shows it.
// No one watches the run: a tool that asks is refused, with how to allow it
// in the worker (its TOOLROUTE_POLICIES variable).
test("scenario 4 in the worker: a scheduled task runs at its time from a Durable Object alarm, in a session of its own", async () => {
  const id = (await (await json("POST", "/api/sessions", {})).json()).id;
  // The time is fixed when the model asks for it: 10 s ahead, for the
  // approval to come on a busy machine (a time past is refused).
  let at;
  model.add(
    toolCall("load_tool_group", JSON.stringify({ group_name: "scheduled_tasks" })),
    () => {
      at = new Date(Math.ceil((Date.now() + 10_000) / 1000) * 1000).toISOString().replace(".000Z", "Z");
      return toolCall("schedule_task", JSON.stringify({ name: "news_worker", prompt: "Summarise the news.", at }));
    },
    text("Scheduled."),
    toolCall("post_mail", "{}"), // the run's: it asks, and no one is there
    text("The news: all quiet."),
  );
  const t = await openTurn(id, "Schedule a task for in a few seconds");
  const asked = await t.until("approval");
  assert.deepEqual(asked.calls.map((c) => c.tool), ["schedule_task"]);
  assert.equal((await answerCalls(id, [{ id: asked.calls[0].id, answer: "once" }])).status, 200);
  const events = await t.rest();
  assert.equal(events.at(-1).text, "Scheduled.", JSON.stringify(events.at(-1)));
  const scheduled = events.filter((e) => e.type === "message" && e.message.type === "tool_result").at(-1).message;
  assert.equal(scheduled.content, `Scheduled task 'news_worker': it runs once at ${at} as a new session of its own. list_scheduled_tasks shows its answer once it has run.`);

  let run = null;
  for (const end = Date.now() + FAILSAFE_MS; Date.now() < end && !run;) {
    await new Promise((r) => setTimeout(r, 100));
    run = (await (await json("GET", "/api/sessions")).json()).find((x) => x.title === "Scheduled task: news_worker" && x.messages >= 5);
  }
  assert.ok(run, "the task's run never came");
  assert.match(run.id, /^task-news_worker-\d{8}-\d{6}$/);
  const log = await (await json("GET", `/api/sessions/${run.id}/messages`)).json();
  assert.deepEqual(log.filter((m) => m.type !== "tool_call").map((m) => [m.type, m.content]), [
    ["user", "Summarise the news."],
    ["assistant", undefined],
    ["tool_result", "Error (approval_needed): 'post_mail' asks the user before it runs, and no one is here to answer (it runs unattended, as a scheduled task). " +
      "It did not run. The user can allow it by adding tool:post_mail=allow to the worker's TOOLROUTE_POLICIES variable."],
    ["assistant", "The news: all quiet."],
  ]);
  assert.ok(Date.parse(log[0].time) >= Date.parse(at), `the run started at ${log[0].time}, before ${at}`);

  model.add(toolCall("list_scheduled_tasks", "{}"), text("It ran."));
  const listed = (await turn(id, "Did it run?")).filter((e) => e.type === "message" && e.message.type === "tool_result").at(-1).message;
  assert.match(listed.content, new RegExp(`^1 scheduled task:\\n- news_worker: runs once at ${at}; will not run again; last run \\S+ in session ${run.id}, done\\.\\n  Prompt: Summarise the news\\.\\n  Answer: The news: all quiet\\.$`));
});

test("a sending tool asks first; the answer, from another request, lets it run", async () => {
  const id = (await (await json("POST", "/api/sessions", {})).json()).id;
  model.add(toolCall("post_mail", "{}"), text("Mailed."));
  const t = await openTurn(id, "Mail it");
  const asked = await t.until("approval");
  assert.deepEqual(asked.calls.map((c) => [c.tool, c.required_permissions]), [["post_mail", ["send"]]]);
  const call = asked.calls[0].id;

  const pending = await json("GET", `/api/sessions/${id}/approvals`);
  assert.equal(pending.status, 200);
  const q = await pending.json();
  assert.deepEqual({ ...q, expires: undefined }, { session: id, calls: asked.calls, answers: [], waiting: [call], expires: undefined });
  const left = Date.parse(q.expires) - Date.now();
  assert.ok(left > 9 * 60_000 && left <= 10 * 60_000, q.expires);

  const stranger = await answerCalls(id, [{ id: call, answer: "once" }], {});
  assert.equal(stranger.status, 401, "an answer needs the token");
  assert.equal((await json("GET", `/api/sessions/${id}/approvals`)).status, 200, "still pending");

  const answered = await answerCalls(id, [{ id: call, answer: "once" }]);
  assert.equal(answered.status, 200);
  assert.deepEqual(await answered.json(), { waiting: [] });
  const events = await t.rest();
  assert.equal(events.at(-1).type, "done", JSON.stringify(events.at(-1)));
  assert.equal(events.at(-1).text, "Mailed.");
  const result = events.filter((e) => e.type === "message" && e.message.type === "tool_result").at(-1).message;
  assert.deepEqual([result.tool_name, result.status, result.content], ["post_mail", "success", "mailed"]);
  assert.equal((await json("GET", `/api/sessions/${id}/approvals`)).status, 404, "answered, the question is gone");
  const log = await (await json("GET", `/api/sessions/${id}/messages`)).json();
  assert.deepEqual(log.filter((m) => m.type === "approval").map((m) => [m.tool_name, m.content]), [["post_mail", "once"]]);
});

test("TOOLROUTE_POLICIES lets a tool run unasked; a denied one does not run and the model reads why", async () => {
  const id = (await (await json("POST", "/api/sessions", {})).json()).id;
  model.add(toolCall("post_note", "{}"), toolCall("post_mail", "{}"), text("One posted."));
  const t = await openTurn(id, "Post both");
  const asked = await t.until("approval");
  assert.deepEqual(asked.calls.map((c) => c.tool), ["post_mail"], "post_note is allowed by TOOLROUTE_POLICIES");
  const call = asked.calls[0].id;

  // Bad answers are 400s that say what to fix, and change nothing.
  const bad = [
    { name: "no answers", body: {}, want: /give the answers as \{"approvals": \[\{"id": "CALL_ID", "answer": "once", "session" or "deny"\}\]\}/ },
    { name: "not an answer", body: { approvals: [call] }, want: /approvals\[0\] is not \{"id": "CALL_ID"/ },
    { name: "unknown answer", body: { approvals: [{ id: call, answer: "always" }] }, want: /the answer "always" is none of once, session or deny/ },
    { name: "unknown call", body: { approvals: [{ id: "call_nope", answer: "once" }] }, want: new RegExp(`no call "call_nope" is waiting for an answer: the ids are "${call}"`) },
  ];
  for (const c of bad) {
    const r = await json("POST", `/api/sessions/${id}/approvals`, c.body);
    assert.equal(r.status, 400, c.name);
    assert.match((await r.json()).error, c.want, c.name);
  }
  assert.deepEqual((await (await json("GET", `/api/sessions/${id}/approvals`)).json()).waiting, [call]);

  assert.equal((await answerCalls(id, [{ id: call, answer: "deny" }])).status, 200);
  const events = await t.rest();
  assert.equal(events.at(-1).text, "One posted.");
  assert.equal(events.filter((e) => e.type === "approval").length, 1);
  const results = events.filter((e) => e.type === "message" && e.message.type === "tool_result").map((e) => e.message);
  assert.deepEqual(results.map((m) => [m.tool_name, m.status, m.error_type ?? ""]), [["post_note", "success", ""], ["post_mail", "error", "denied"]]);
  assert.match(model.requests.at(-1).body, /The user denied this call of 'post_mail': it did not run/);
});

test("no question pending is a 404, answering or asking", async () => {
  const id = (await (await json("POST", "/api/sessions", {})).json()).id;
  for (const sid of [id, "never-made"]) {
    const get = await json("GET", `/api/sessions/${sid}/approvals`);
    assert.equal(get.status, 404);
    assert.match((await get.json()).error, new RegExp(`no question is pending for session "${sid}": a turn asks when a tool that acts`));
    const post = await answerCalls(sid, [{ id: "call_1", answer: "once" }]);
    assert.equal(post.status, 404);
  }
});

test("a message longer than a stored part comes back whole", async () => {
  const id = (await (await json("POST", "/api/sessions", {})).json()).id;
  const n = 700_000; // three parts of PART_CHARS
  // The model's answer: a tool's result is cut at 30,000 characters.
  model.add(text("x".repeat(n - 10) + "0123456789"), text("Fine."));
  const events = await turn(id, "A long text, please.");
  const sent = events.filter((e) => e.type === "message" && e.message.type === "assistant").at(-1).message;
  assert.equal(sent.content.length, n);
  const log = await (await json("GET", `/api/sessions/${id}/messages`)).json();
  assert.deepEqual(log[1], sent);
  await turn(id, "Thanks.");
  assert.ok(model.requests.at(-1).body.includes(sent.content.slice(-50)), "the model got it whole too");
});

test("POST /api/sessions/{id}/compact summarises the earlier messages; the next turn sends the summary, the log keeps them all", async () => {
  const id = (await (await json("POST", "/api/sessions", {})).json()).id;
  model.add(text("One."), text("Two."), text("SUMMARY: two questions."), text("Three."));
  await turn(id, "First question");
  await turn(id, "Second question");
  const r = await json("POST", `/api/sessions/${id}/compact`, {});
  assert.equal(r.status, 200, await r.clone().text());
  const body = await r.text();
  assert.match(body, /event: done\ndata: \{"type":"done","text":"Compacted 2 messages into a summary/);
  await turn(id, "Third question");
  const last = model.requests.at(-1).body;
  assert.ok(last.includes("SUMMARY: two questions.") && !last.includes("First question"), last);
  const log = await (await json("GET", `/api/sessions/${id}/messages`)).json();
  assert.deepEqual(log.map((m) => m.type), ["user", "assistant", "user", "assistant", "summary", "user", "assistant"]);
  assert.equal((await json("POST", "/api/sessions/no-such-session/compact", {})).status, 404);
});

test("POST /api/model sends a browser host's model call with the worker's key, once, a 429 answered with the retry policy", async () => {
  const body = { model: "fake-model", messages: [{ role: "user", content: "hi" }] };
  model.add(error(429, '{"error":{"message":"slow down","type":"rate_limit_error"}}', "0"), text("Hello from the proxy."));
  const asked = model.requests.length;
  const call = () => json("POST", "/api/model", { format: "openai", path: "/chat/completions", headers: { "content-type": "application/json", "x-evil": "1" }, body });
  // The page's module tries again, and its user sees it: the proxy does not.
  const limited = await call();
  assert.equal(limited.status, 429);
  assert.deepEqual(JSON.parse(limited.headers.get("toolroute-retries")), { count: 3, backoff_ms: 1000, max_backoff_ms: 60000 });
  assert.equal(model.requests.length - asked, 1, "the 429 was not tried again by the proxy");
  const r = await call();
  assert.equal(r.status, 200);
  assert.equal(r.headers.get("toolroute-retries"), null);
  assert.equal((await r.json()).choices[0].message.content, "Hello from the proxy.");
  const seen = model.requests.slice(asked);
  assert.equal(seen.length, 2);
  assert.equal(seen[1].headers.authorization, "Bearer sk-worker-secret");
  assert.equal(seen[1].headers["x-evil"], undefined);
  assert.equal(seen[1].headers["anthropic-dangerous-direct-browser-access"], undefined);
  assert.deepEqual(seen[1].json, body);

  const wrong = await json("POST", "/api/model", { format: "anthropic", path: "/v1/messages", body });
  assert.equal(wrong.status, 502);
  assert.match((await wrong.json()).error, /the proxy's provider speaks the openai format, not "anthropic"/);
  const empty = await json("POST", "/api/model", { format: "openai", path: "/chat/completions" });
  assert.equal(empty.status, 400);
  // The bodies the proxy cannot read get the module's words, as serve's.
  for (const [raw, want] of [[" ", "send the module's model request"], ['{"format":', "the body is not the JSON this endpoint takes: unexpected end of JSON input"], ["[1]", "the body is not the JSON this endpoint takes: send an object"]]) {
    const r = await fetch(base + "/api/model", { method: "POST", headers: { ...auth, "content-type": "application/json" }, body: raw });
    assert.equal(r.status, 400, raw);
    assert.ok((await r.json()).error.startsWith(want), raw);
  }
});

test("GET /api/google/token gives a browser host the worker's Google account", async () => {
  const r = await json("GET", "/api/google/token");
  assert.equal(r.status, 200);
  assert.equal(r.headers.get("cache-control"), "no-store");
  assert.deepEqual(await r.json(), { access_token: "ya29.from-refresh", email: "me@example.com" });
});

test("a second turn in a session while one runs is refused, and the session is free after", async () => {
  const id = (await (await json("POST", "/api/sessions", {})).json()).id;
  let answer;
  const asked = model.requests.length;
  model.add({ text: "First.", wait: new Promise((r) => (answer = r)) });
  const first = turn(id, "one");
  while (model.requests.length === asked) await new Promise((r) => setImmediate(r)); // the first turn is at the model
  const second = await json("POST", `/api/sessions/${id}/messages`, { text: "two" });
  assert.equal(second.status, 409);
  assert.match((await second.json()).error, /a turn is already running in this session/);
  answer();
  assert.equal((await first).at(-1).text, "First.");
  model.add(text("Third."));
  assert.equal((await turn(id, "three")).at(-1).text, "Third.");
  const log = await (await json("GET", `/api/sessions/${id}/messages`)).json();
  assert.deepEqual(log.map((m) => m.content), ["one", "First.", "three", "Third."]);
});

test("sessions: stored with their first message, renamed, deleted (not while a turn runs)", async () => {
  const created = await json("POST", "/api/sessions", {});
  assert.equal(created.status, 201);
  const s = await created.json();
  assert.equal(s.messages, 0);
  assert.equal((await json("GET", `/api/sessions/${s.id}`)).status, 404, "nothing is stored before the first message");
  assert.ok(!(await (await json("GET", "/api/sessions")).json()).some((x) => x.id === s.id));
  const titled = await json("POST", "/api/sessions", { title: "Mine" });
  assert.equal(titled.status, 400);
  assert.match((await titled.json()).error, /titled after its first message.*PATCH \/api\/sessions\/\{id\}/);

  model.add(text("Lisbon is lovely in May."));
  assert.equal((await turn(s.id, "Plan my trip to Lisbon in May, with a day in Sintra and a night of fado please")).at(-1).type, "done");
  const listed = (await (await json("GET", "/api/sessions")).json()).find((x) => x.id === s.id);
  assert.equal(listed.title, "Plan my trip to Lisbon in May, with a day in Sintra and a…");
  assert.equal(listed.messages, 2);

  const renamed = await json("PATCH", `/api/sessions/${s.id}`, { title: "  Lisbon,\n May " });
  assert.equal(renamed.status, 200);
  assert.deepEqual(await renamed.json(), { ...listed, title: "Lisbon, May" });
  assert.equal((await (await json("GET", "/api/sessions")).json()).find((x) => x.id === s.id).title, "Lisbon, May");

  const cases = [
    [await json("PATCH", `/api/sessions/${s.id}`, {}), 400, /give the new title as \{"title": "\.\.\."\}/],
    [await json("PATCH", `/api/sessions/${s.id}`, { title: " \n " }), 400, /the title is empty: give one of 1 to 200 characters/],
    [await json("PATCH", `/api/sessions/${s.id}`, { title: "a".repeat(201) }), 400, /the title has 201 characters: give one of 1 to 200/],
    [await json("PATCH", `/api/sessions/${s.id}`, { title: 7 }), 400, /^the body is not the JSON this endpoint takes: "title" is a number, not a string: give the new title as \{"title": "\.\.\."\}$/],
    [await fetch(`${base}/api/sessions/${s.id}`, { method: "PATCH", headers: auth, body: '{"title":"x"}' }), 415, /Content-Type: application\/json/],
    [await json("PATCH", "/api/sessions/no-such-session", { title: "x" }), 404, /no session "no-such-session"/],
    [await json("PATCH", "/api/sessions/a%20b", { title: "x" }), 400, /a session id is 1 to 128 characters/],
    [await json("DELETE", "/api/sessions/no-such-session"), 404, /no session "no-such-session": GET \/api\/sessions lists them/],
  ];
  for (const [r, status, re] of cases) {
    assert.equal(r.status, status, `${r.url}: ${r.status}`);
    assert.match((await r.json()).error, re);
  }

  // While a turn runs in it the session stays; once it ends, it goes.
  let answer;
  const asked = model.requests.length;
  model.add({ text: "Later.", wait: new Promise((r) => (answer = r)) });
  const running = turn(s.id, "And the hotels?");
  while (model.requests.length === asked) await new Promise((r) => setImmediate(r));
  const busy = await json("DELETE", `/api/sessions/${s.id}`);
  assert.equal(busy.status, 409);
  assert.match((await busy.json()).error, /has a turn running: wait for its done or failed event, or stop it/);
  answer();
  assert.equal((await running).at(-1).text, "Later.");
  const gone = await json("DELETE", `/api/sessions/${s.id}`);
  assert.equal(gone.status, 204);
  assert.equal(await gone.text(), "");
  assert.equal((await json("GET", `/api/sessions/${s.id}`)).status, 404);
  assert.equal((await json("GET", `/api/sessions/${s.id}/messages`)).status, 404);
  assert.ok(!(await (await json("GET", "/api/sessions")).json()).some((x) => x.id === s.id));
  // The id can be used again, from the start.
  model.add(text("Hello again."));
  assert.equal((await turn(s.id, "Start over")).at(-1).type, "done");
  const again = await (await json("GET", `/api/sessions/${s.id}`)).json();
  assert.deepEqual([again.title, again.messages], ["Start over", 2]);
});

// get makes a GET to the worker with the headers given, Host included
// (fetch sets its own).
function get(p, headers) {
  return request(base + p, headers);
}

function request(url, headers) {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { headers }, (res) => {
      let body = "";
      res.on("data", (d) => (body += d));
      res.on("end", () => resolve({ status: res.statusCode, headers: res.headers, body }));
    });
    req.on("error", reject);
  });
}

// The conformance cases, each in the worker's runner inside workerd.
const casesDir = path.join(root, "testdata/js");

// KNOWN_DIFFERENCES are the cases the worker cannot pass, with the reason;
// they run as todo tests, so a fix shows as a passing todo.
const KNOWN_DIFFERENCES = {
  moderate_recursion: "workerd's V8 stack holds about 1,650 levels of QuickJS recursion, not 2,000 (see WORKER_STACK_SIZE)",
};
for (const file of fs.readdirSync(casesDir).filter((f) => f.endsWith(".txtar")).sort()) {
  const { c, source } = loadCase(fs.readFileSync(path.join(casesDir, file), "utf8"));
  const name = file.replace(/\.txtar$/, "");
  test(`conformance ${name} in workerd`, { todo: KNOWN_DIFFERENCES[name], skip: skipFor(c, "workerd") }, async () => {
    const srv = await fakeServer(c.server);
    try {
      const r = await json("POST", "/test/jsrun", { c, source, server: srv.url });
      assert.equal(r.status, 200, await r.clone().text());
      checkReplay(c, await r.json(), srv.seen);
    } finally {
      await srv.close();
    }
  });
}

test("recursion in the worker: 1,500 levels run, deeper is a RangeError the tool can catch", async () => {
  const run = async (source, params) => {
    const r = await json("POST", "/test/jsrun", { c: { function: "execute", params }, source, server: "" });
    return (await r.json()).results[0];
  };
  // Let V8 optimise QuickJS's interpreter first: its optimised frames are
  // the larger ones.
  for (let i = 0; i < 3; i++) await run("function execute() { return String('x'.repeat(1 << 20).length); }");
  const down = "function down(n) { return n === 0 ? 0 : 1 + down(n - 1); }\nfunction execute(p) { return String(down(p.n)); }";
  assert.deepEqual(await run(down, { n: 1500 }), { status: "success", output: "1500", logs: [] });
  const deep = "let d = 0; function f(n) { d = n; return f(n + 1) + 1; }\nfunction execute() { try { f(0); } catch (e) { return e.name + ': ' + e.message + ' at ' + d; } }";
  const res = await run(deep);
  assert.equal(res.status, "success", res.message);
  assert.match(res.output, /^RangeError: Maximum call stack size exceeded at \d+$/);
});

test("a JSON.stringify loop over 200,000 objects in the worker stops within 1 s of CPU time past its 2 s timeout, and the worker still answers", async (t) => {
  const run = async (source, c = {}) => {
    const r = await fetch(base + "/test/jsrun", {
      method: "POST", headers: { ...auth, "content-type": "application/json" },
      body: JSON.stringify({ c: { function: "execute", ...c }, source, server: "" }),
      signal: AbortSignal.timeout(FAILSAFE_MS), // past it, the loop ran on: the patch is missing
    });
    return (await r.json()).results[0];
  };
  const start = Date.now();
  const past = cpuPast(2000, workerd.pid);
  const res = await run("function execute() { const a = []; for (let i = 0; i < 200000; i++) a.push({i}); let n = 0; for (;;) n += JSON.stringify(a).length; }", { timeout_seconds: 2 });
  const used = past();
  const ms = Date.now() - start;
  t.diagnostic(`the request ended after ${ms} ms, workerd using ${used} ms of CPU time past the call's timeout`);
  assert.deepEqual(res, { status: "error", error_type: "timeout", message: "JS tool 'case_tool' execution timed out after 2s", logs: [] });
  assert.ok(used < 1000, `workerd used ${used} ms of CPU time past the call's timeout`);
  assert.deepEqual(await run("function execute() { return 'ok'; }"), { status: "success", output: "ok", logs: [] });
});

test("TOOLROUTE_PROVIDER=demo: the module's demo model answers turns and the model proxy, with no key", async (t) => {
  const port = await freePort();
  const demoBase = `http://127.0.0.1:${port}`;
  fs.mkdirSync(path.join(tmp, "storage-demo"));
  fs.writeFileSync(path.join(tmp, "workerd-demo.capnp"), workerdConfig({
    dir: "dist", port, storage: path.join(tmp, "storage-demo"), bindings: { TOOLROUTE_PROVIDER: "demo", TOOLROUTE_TOKEN: TOKEN },
  }));
  const demo = await startWorkerd(path.join(tmp, "workerd-demo.capnp"), { cwd: tmp, base: demoBase });
  t.after(() => demo.stop());
  const say = async (id, text) => {
    const r = await fetch(`${demoBase}/api/sessions/${id}/messages`, { method: "POST", headers: { ...auth, "content-type": "application/json" }, body: JSON.stringify({ text }) });
    assert.equal(r.status, 200, await r.clone().text());
    const events = (await r.text()).split("\n\n").filter((b) => b.trim() && !b.startsWith(":")).map((b) => JSON.parse(b.split("\n")[1].slice("data: ".length)));
    const msgs = events.filter((e) => e.type === "message").map((e) => e.message);
    const status = new Map(msgs.filter((m) => m.type === "tool_result").map((m) => [m.tool_call_id, m.status]));
    return { calls: msgs.filter((m) => m.type === "tool_call").map((m) => `${m.tool_name}:${status.get(m.tool_call_id)}`), last: events.at(-1) };
  };
  const time = await say("demo-time", "What time is it?");
  assert.deepEqual(time.calls, ["get_current_time:success"]);
  assert.equal(time.last.type, "done", JSON.stringify(time.last));
  assert.match(time.last.text, /^\[demo model\] get_current_time answered: /);
  const mail = await say("demo-mail", "Search my mail");
  assert.deepEqual(mail.calls, ["load_tool_group:success", "gmail_search:error"]);
  assert.match(mail.last.text, /gmail_search failed: /);

  const proxied = await fetch(`${demoBase}/api/model`, {
    method: "POST", headers: { ...auth, "content-type": "application/json" },
    body: JSON.stringify({ format: "openai", path: "/chat/completions", headers: {}, body: { messages: [{ role: "user", content: "hello" }] } }),
  });
  assert.equal(proxied.status, 200, await proxied.clone().text());
  assert.match((await proxied.json()).choices[0].message.content, /^\[demo model\] I am toolroute's demo/);
});

// The Responses API and Gemini as the worker's provider: a group loaded in
// one turn is offered from the next turn's first call (Gemini's thought
// signatures come back from the Durable Object's log), a 429 is waited out
// as the provider asks (Gemini in its body), the key goes in the format's
// header, and the model proxy forwards the format's paths only.
for (const [provider, keyVar, baseVar] of [["responses", "OPENAI_API_KEY", "OPENAI_BASE_URL"], ["gemini", "GEMINI_API_KEY", "GEMINI_BASE_URL"]]) {
  test(`TOOLROUTE_PROVIDER=${provider}: turns, a retried 429 and the model proxy, with the worker's key`, async (t) => {
    const fake = await startFakeModel(provider,
      toolCall("load_tool_group", '{"group_name":"config"}'), rateLimited(provider, 1), toolCall("get_config", "{}"), text("Listed."),
      text("Still loaded."), text("Proxied."));
    t.after(() => fake.close());
    const port = await freePort();
    const wbase = `http://127.0.0.1:${port}`;
    fs.mkdirSync(path.join(tmp, "storage-" + provider));
    fs.writeFileSync(path.join(tmp, `workerd-${provider}.capnp`), workerdConfig({
      dir: "dist", port, storage: path.join(tmp, "storage-" + provider),
      bindings: { TOOLROUTE_PROVIDER: provider, [baseVar]: fake.baseURL, [keyVar]: "sk-worker-secret", TOOLROUTE_MODEL: "fake-model", TOOLROUTE_TOKEN: TOKEN },
    }));
    const w = await startWorkerd(path.join(tmp, `workerd-${provider}.capnp`), { cwd: tmp, base: wbase });
    t.after(() => w.stop());
    const health = await (await fetch(wbase + "/api/health", { headers: auth })).json();
    assert.equal(health.format, provider);
    assert.equal(health.provider, `${provider} at ${fake.baseURL}, model fake-model`);
    const say = async (text) => {
      const r = await fetch(`${wbase}/api/sessions/s1/messages`, { method: "POST", headers: { ...auth, "content-type": "application/json" }, body: JSON.stringify({ text }) });
      assert.equal(r.status, 200, await r.clone().text());
      return (await r.text()).split("\n\n").filter((b) => b.trim() && !b.startsWith(":")).map((b) => JSON.parse(b.split("\n")[1].slice("data: ".length)));
    };
    const first = await say("Which settings are there?");
    assert.equal(first.at(-1).type, "done", JSON.stringify(first.at(-1)));
    assert.deepEqual(first.filter((e) => e.type === "retry").map((e) => [e.retry.status, e.retry.wait_ms]), [[429, 1000]]);
    const second = await say("And now?");
    assert.equal(second.at(-1).text, "Still loaded.");
    assert.equal(fake.requests.length, 5);
    const restored = fake.requests[4];
    assert.ok(toolNames(restored).includes("get_config"), toolNames(restored).join(", "));
    if (provider === "gemini") {
      assert.equal(restored.path, "/v1beta/models/fake-model:streamGenerateContent?alt=sse");
      assert.equal(restored.headers["x-goog-api-key"], "sk-worker-secret");
      for (const r of ["r1", "r3"]) assert.ok(restored.body.includes(`"thoughtSignature":"${signature(r)}"`), `the signature of ${r} did not come back`);
    } else {
      assert.equal(restored.path, "/v1/responses");
      assert.equal(restored.headers.authorization, "Bearer sk-worker-secret");
      assert.equal(restored.json.store, false);
    }

    const path1 = provider === "gemini" ? "/v1beta/models/fake-model:generateContent" : "/responses";
    const body = provider === "gemini" ? { contents: [{ role: "user", parts: [{ text: "hi" }] }] } : { model: "fake-model", input: "hi", store: false };
    const proxy = (req) => fetch(`${wbase}/api/model`, { method: "POST", headers: { ...auth, "content-type": "application/json" }, body: JSON.stringify(req) });
    const ok = await proxy({ format: provider, path: path1, headers: { "content-type": "application/json" }, body });
    assert.equal(ok.status, 200, await ok.clone().text());
    assert.match(await ok.text(), /Proxied\./);
    const wrong = await proxy({ format: provider, path: provider === "gemini" ? "/v1beta/models/fake-model:countTokens" : "/chat/completions", body });
    assert.equal(wrong.status, 502);
    assert.match(await wrong.text(), /forwards only/);
    assert.equal(fake.requests.length, 6);
  });
}

test("save_memory and search_history: memories in the worker's storage reach the system prompt, and the search reads every session's log", async () => {
  const a = (await (await json("POST", "/api/sessions", {})).json()).id;
  model.add(toolCall("save_memory", '{"text":"The user keeps herons."}'), text("Noted."));
  const t = await openTurn(a, "Remember: I keep herons");
  const asked = await t.until("approval"); // save_memory writes: it asks first
  assert.deepEqual(asked.calls.map((c) => c.tool), ["save_memory"]);
  assert.equal((await answerCalls(a, [{ id: asked.calls[0].id, answer: "once", grant: ["NOPE"] }])).status, 400, "a grant of a secret not asked for");
  assert.equal((await answerCalls(a, [{ id: asked.calls[0].id, answer: "once" }])).status, 200);
  const first = await t.rest();
  assert.equal(first.at(-1).type, "done", JSON.stringify(first.at(-1)));
  const saved = first.filter((e) => e.type === "message" && e.message.type === "tool_result").at(-1).message;
  assert.equal(saved.content, "Saved memory #1.");

  const b = (await (await json("POST", "/api/sessions", {})).json()).id;
  model.add(toolCall("search_history", '{"query":"herons"}'), text("Found."));
  const asked2 = model.requests.length;
  const second = await turn(b, "What birds do I keep?");
  assert.equal(second.at(-1).type, "done", JSON.stringify(second.at(-1)));
  const found = second.filter((e) => e.type === "message" && e.message.type === "tool_result").at(-1).message;
  assert.match(found.content, new RegExp(`^\\d+ matches for "herons":\\n- session ${a}, message 0 \\(user on [-0-9: ]+\\): Remember: I keep \\*\\*herons\\*\\*`));
  assert.match(model.requests[asked2].body, /## Memories\\n\\nWhat the user asked you to remember \(save_memory adds to it\):\\n\\n- The user keeps herons\./);
});

test("the config group in the worker: get_config reads its variables, never a secret's value; the 16 tools it cannot back (stored providers, models, agents, changes) are not offered", async () => {
  const cat = await (await json("GET", "/api/catalogue")).json();
  const group = cat.groups.find((g) => g.name === "config");
  assert.deepEqual(group.tools, ["get_config"]);
  assert.equal(group.description, "See the settings, such as the model, and the names of the environment variables tools may read");
  for (const name of ["list_providers", "create_provider", "update_provider", "delete_provider", "list_models", "fetch_models", "set_default_model",
    "add_model", "delete_model", "list_agents", "update_agent", "delete_agent", "set_config", "manage_env_var", "list_tool_states", "set_tool_enabled"]) {
    assert.ok(!cat.tools.some((t) => t.name === name), name + " is in the worker's catalogue");
  }

  const id = (await (await json("POST", "/api/sessions", {})).json()).id;
  model.add(toolCall("load_tool_group", '{"group_name":"config"}'), toolCall("get_config", "{}"),
    toolCall("manage_env_var", '{"action":"set","name":"WEATHER","value":"x"}'), text("Read."));
  const events = await turn(id, "What are my settings and variables?");
  assert.equal(events.at(-1).type, "done", JSON.stringify(events.at(-1)));
  assert.deepEqual(events.find((e) => e.type === "group_loaded").group.added, ["get_config"]);
  const results = events.filter((e) => e.type === "message" && e.message.type === "tool_result").map((e) => e.message);
  assert.equal(results[1].content, "- provider = openai (default): where model calls go: openai, anthropic, responses, gemini or demo (the TOOLROUTE_PROVIDER variable)\n" +
    "- model = fake-model: the model to call (the TOOLROUTE_MODEL variable)\n" +
    "- system_prompt = none (default): the base system prompt (the TOOLROUTE_SYSTEM_PROMPT variable)\n" +
    "Variables set for tools (names only): WEATHER"); // TOOL_WEATHER, by the name tools know
  // A tool the worker does not offer is refused by the module, unrun.
  assert.equal(results[2].status, "error");
  assert.match(results[2].content, /manage_env_var/);
  assert.doesNotMatch(JSON.stringify(events) + model.requests.map((r) => r.body).join(""), /wx-worker-weather-key|sk-worker-secret/);
});

// The conformance cases of testdata/builtins through the worker's HTTP API,
// as a user's page would: a fresh session per case, each call of the case in
// its own model response, every question answered "once". The worker's
// memories are shared by the whole worker, and other tests save some.
// BUILTIN_DIFFERENCES are the cases the worker cannot pass, with the
// reason; they run as todo tests, so a fix shows as a passing todo.
const BUILTIN_DIFFERENCES = {}; // none now
for (const { name, c, pages, skip } of builtinCases(path.join(root, "testdata/builtins"), "worker")) {
  test(`builtins ${name} in workerd`, { skip, todo: BUILTIN_DIFFERENCES[name] }, async () => {
    site.pages = pages;
    const id = (await (await json("POST", "/api/sessions", {})).json()).id;
    model.add(...c.calls.map((call) => toolCall(call.tool, JSON.stringify(call.input))), text("Done."));
    const t = await openTurn(id, c.user ?? "Run the calls");
    for (let e; (e = await t.next()); ) {
      if (e.type !== "approval") continue;
      const r = await answerCalls(id, e.calls.map((x) => ({ id: x.id, answer: "once" })));
      assert.equal(r.status, 200, await r.text());
    }
    assert.equal(t.events.at(-1).type, "done", JSON.stringify(t.events.at(-1)));
    checkResults(c, t.events.filter((e) => e.type === "message" && e.message.type === "tool_result").map((e) => e.message));
  });
}

// runTurn sends a message, answers every question "once", and gives the
// turn's tool results.
async function runTurn(id, message) {
  const t = await openTurn(id, message);
  for (let e; (e = await t.next()); ) {
    if (e.type !== "approval") continue;
    const r = await answerCalls(id, e.calls.map((x) => ({ id: x.id, answer: "once" })));
    assert.equal(r.status, 200, await r.text());
  }
  assert.equal(t.events.at(-1).type, "done", JSON.stringify(t.events.at(-1)));
  return t.events.filter((e) => e.type === "message" && e.message.type === "tool_result").map((e) => e.message);
}

test("a tool created in a worker session is kept in its storage: a new isolate, after a restart, offers it to another session", async () => {
  const create = { name: "triple", description: "Triple a number", parameters: { type: "object", properties: { n: { type: "number" } }, required: ["n"] }, code: "function execute(p) { return p.n * 3 }" };
  model.add(toolCall("load_tool_group", '{"group_name":"js_tool_management"}'), toolCall("create_js_tool", JSON.stringify(create)), toolCall("triple", '{"n":3}'), text("Made it."));
  let results = await runTurn((await (await json("POST", "/api/sessions", {})).json()).id, "Make a triple tool");
  assert.deepEqual(results.map((r) => [r.tool_name, r.status, r.content]).slice(1), [
    ["create_js_tool", "success", "Created triple (triple.json, triple.js in the worker's storage). It can be called now."],
    ["triple", "success", "9"],
  ]);
  // A new isolate starts from the bundle, and loads the user's tools from
  // the SessionIndex before its first request.
  await workerd.stop();
  workerd = await startWorkerd(path.join(tmp, "workerd.capnp"), { cwd: tmp, base });
  const other = (await (await json("POST", "/api/sessions", {})).json()).id;
  const cat = await (await json("GET", `/api/catalogue?session=${other}`)).json();
  assert.ok(JSON.stringify(cat).includes('"triple"'), "the catalogue of the new isolate lacks triple");
  model.add(toolCall("triple", '{"n":4}'), toolCall("load_tool_group", '{"group_name":"js_tool_management"}'), toolCall("delete_js_tool", '{"name":"triple"}'), toolCall("triple", '{"n":5}'), text("Gone."));
  results = await runTurn(other, "Triple 4, then delete it");
  assert.deepEqual(results.map((r) => [r.tool_name, r.status]), [["triple", "success"], ["load_tool_group", "success"], ["delete_js_tool", "success"], ["triple", "error"]]);
  assert.equal(results[0].content, "12");
});

test("TOOLROUTE_MCP: an MCP server (server-everything over Streamable HTTP) is a tool group of the worker, its images reach an Anthropic model, and /api/health reports one that is down and one that needs a token", async (t) => {
  const mcpPort = await freePort();
  const everything = await startEverything(mcpPort);
  t.after(() => everything.stop());
  const guard = await startGuard(mcpPort);
  t.after(() => guard.close());
  const claude = await startFakeModel("anthropic");
  t.after(() => claude.close());
  const port = await freePort();
  const mcpBase = `http://127.0.0.1:${port}`;
  fs.mkdirSync(path.join(tmp, "storage-mcp"));
  fs.writeFileSync(path.join(tmp, "workerd-mcp.capnp"), workerdConfig({
    dir: "dist", port, storage: path.join(tmp, "storage-mcp"),
    bindings: {
      TOOLROUTE_PROVIDER: "anthropic", ANTHROPIC_BASE_URL: claude.baseURL, ANTHROPIC_API_KEY: "sk-worker-secret", TOOLROUTE_MODEL: "fake-model", TOOLROUTE_TOKEN: TOKEN,
      TOOLROUTE_MCP: JSON.stringify({ mcpServers: { everything: { url: `http://127.0.0.1:${mcpPort}/mcp` }, gone: { url: "http://127.0.0.1:9/mcp" }, notes: { url: guard.url } } }),
    },
  }));
  const w = await startWorkerd(path.join(tmp, "workerd-mcp.capnp"), { cwd: tmp, base: mcpBase });
  t.after(() => w.stop());
  const get = (p) => fetch(mcpBase + p, { headers: auth });
  const health = await (await get("/api/health")).json();
  assert.deepEqual(health.mcp.map((m) => [m.key, m.status]), [["everything", "ready"], ["gone", "down"], ["notes", "needs_authorization"]]);
  assert.ok(health.problems.some((p) => p.startsWith("MCP server 'gone' (http://127.0.0.1:9/mcp): could not connect")), JSON.stringify(health.problems));
  const advice = `MCP server 'notes' needs authorization: add "headers": {"Authorization": "Bearer TOKEN"} to its entry in the TOOLROUTE_MCP variable, with a token the server accepts`;
  assert.equal(health.mcp[2].advice, advice);
  assert.ok(health.problems.includes(`${advice} (${health.mcp[2].error})`), JSON.stringify(health.problems));
  const id = (await (await fetch(mcpBase + "/api/sessions", { method: "POST", headers: { ...auth, "content-type": "application/json" }, body: "{}" })).json()).id;
  claude.add(toolCall("load_tool_group", '{"group_name":"everything"}'), toolCall("get_sum", '{"a":20,"b":22}'), toolCall("get_tiny_image", "{}"), text("42, and a tiny picture."));
  const r = await fetch(`${mcpBase}/api/sessions/${id}/messages`, { method: "POST", headers: { ...auth, "content-type": "application/json" }, body: JSON.stringify({ text: "Add 20 and 22" }) });
  assert.equal(r.status, 200, await r.clone().text());
  const events = (await r.text()).split("\n\n").filter((b) => b.trim() && !b.startsWith(":")).map((b) => JSON.parse(b.split("\n")[1].slice("data: ".length)));
  const results = events.filter((e) => e.type === "message" && e.message.type === "tool_result").map((e) => e.message);
  assert.deepEqual(results.map((m) => [m.tool_name, m.status, m.status === "success" && m.tool_name === "get_sum" ? m.content : ""]),
    [["load_tool_group", "success", ""], ["get_sum", "success", "The sum of 20 and 22 is 42."], ["get_tiny_image", "success", ""]]);
  assert.equal(events.at(-1).type, "done", JSON.stringify(events.at(-1)));
  // The image is in the stored log, and in the tool_result of the next
  // model call, beside the text's placeholder.
  const log = await (await get(`/api/sessions/${id}/messages`)).json();
  const shot = log.find((m) => m.type === "tool_result" && m.tool_name === "get_tiny_image");
  assert.match(shot.content, /\[image image\/png, \d+ bytes\]/);
  assert.equal(shot.images?.length, 1, JSON.stringify(shot).slice(0, 300));
  const blocks = claude.requests[3].json.messages.flatMap((m) => m.content).filter((b) => b.type === "tool_result").flatMap((b) => b.content ?? []);
  assert.deepEqual(blocks.filter((b) => b.type === "image"), [{ type: "image", source: { type: "base64", media_type: "image/png", data: shot.images[0].data } }]);
});

test("a client that leaves while its turn waits for an approval ends the turn: the question goes and the call never runs", async () => {
  const id = (await (await json("POST", "/api/sessions", {})).json()).id;
  model.add(toolCall("post_mail", "{}"), text("Mailed."));
  const ctl = new AbortController();
  const t = await openTurn(id, "Mail it", ctl.signal);
  await t.until("approval");
  assert.equal((await json("GET", `/api/sessions/${id}/approvals`)).status, 200);
  ctl.abort();
  let status = 200;
  for (const end = Date.now() + FAILSAFE_MS; Date.now() < end && status === 200;) {
    await new Promise((r) => setTimeout(r, 200));
    status = (await json("GET", `/api/sessions/${id}/approvals`)).status;
  }
  assert.equal(status, 404, `the question is still open ${FAILSAFE_MS} ms after the client left`);
  const log = await (await json("GET", `/api/sessions/${id}/messages`)).json();
  assert.ok(!log.some((m) => m.type === "tool_result" && m.content === "mailed"), "the call ran");
});
