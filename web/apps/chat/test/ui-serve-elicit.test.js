// An MCP server's question for the user through the real `toolroute serve`,
// as the chat UI's core (web/apps/chat/core.js) meets it: server-everything,
// configured in serve, asks during a call of its elicitation tool, in a
// turn serve runs (its stream's elicitation event) and in a turn the page
// runs (the server tool's NDJSON answer). The page answers with a value
// that will not do, then one that will; the server gets it, and both logs
// keep what was answered. The model is a scripted OpenAI-compatible server
// on loopback (host-fakemodel.js); the program is built from this tree.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { execFileSync, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { MemoryUIStore } from "../src/idbstore.js";
import { web, newCore, ask } from "./ui-harness.js";
import { freePort } from "../../worker/workerd.js";
import { startEverything } from "../../../packages/toolroute/test/mcp-servers.js";
import { startFakeModel, text, toolCall } from "../../../packages/toolroute/test/host-fakemodel.js";

const root = path.join(web, "..", "..", "..");
const TOOL = "trigger_elicitation_request";
let work, bin, model, serve, everything, env;

before(async () => {
  work = mkdtempSync(path.join(tmpdir(), "toolroute-ui-serve-elicit-"));
  bin = path.join(work, "toolroute");
  execFileSync("go", ["build", "-o", bin, "./cmd/toolroute"], { cwd: root, stdio: "inherit" });
  model = await startFakeModel("openai");
  const port = await freePort();
  everything = await startEverything(port);
  env = {
    PATH: process.env.PATH, HOME: work,
    XDG_CONFIG_HOME: path.join(work, "config"), XDG_DATA_HOME: path.join(work, "data"), XDG_CACHE_HOME: path.join(work, "cache"),
    OPENAI_BASE_URL: model.baseURL, OPENAI_API_KEY: "sk-test", TOOLROUTE_MODEL: "fake-1",
    TOOLROUTE_TOKEN: "ui-serve-elicit-token-0123456789",
  };
  mkdirSync(path.join(work, "config", "toolroute"), { recursive: true });
  writeFileSync(path.join(work, "config", "toolroute", "mcp.json"), JSON.stringify({ mcpServers: { everything: { url: `http://127.0.0.1:${port}/mcp` } } }));
});

after(async () => {
  serve?.kill();
  await everything?.stop();
  await model?.close();
  if (work) rmSync(work, { recursive: true, force: true });
});

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

test("serve's MCP server asks the page's user, in serve's turn and in the page's", { timeout: 600_000 }, async () => {
  const s = await startServe();
  serve = s.proc;
  const fetchServe = (url, init = {}) => fetch(s.base + url, { ...init, headers: { ...(init.headers ?? {}), authorization: `Bearer ${s.token}` } });
  const questions = [];
  const answers = [];
  let core;
  // The page: it answers each question with an address that is not one,
  // then with one.
  const answer = async (q) => {
    questions.push(q);
    for (const content of [{ name: "Ada", email: "nope" }, { name: "Ada", email: "ada@example.com" }]) {
      answers.push(await ask(core, { type: "elicit_answer", ask: q.ask, action: "accept", content }));
    }
  };
  core = newCore(new MemoryUIStore(), fetchServe, { onElicit: answer });
  const onReply = (session) => (r) => {
    if (r.type !== "event") return;
    if (r.event.type === "elicitation") answer(r.event);
    if (r.event.type === "approval") {
      setTimeout(() => core.handle({ id: 2, type: "approve", session, answers: r.event.calls.map((c) => ({ id: c.id, answer: "once" })) }, () => {}), 10);
    }
  };
  const check = async (session) => {
    const q = questions.at(-1);
    assert.match(q.ask, /^server:[0-9a-f]+$/);
    assert.equal(q.server, "everything");
    assert.equal(q.message, "Please provide inputs for the following fields:");
    const [bad, good] = answers.slice(-2);
    assert.equal(bad.last.type, "error");
    assert.match(bad.last.error, /an email address \("nope" is not\)/);
    assert.equal(good.last.type, "done", JSON.stringify(good.last));
    assert.equal(good.result.content.email, "ada@example.com");
    const log = (await ask(core, { type: "messages", session })).result;
    const r = log.find((m) => m.type === "tool_result" && m.tool_name === TOOL);
    assert.equal(r?.status, "success", JSON.stringify(log));
    assert.match(r.content, /ada@example\.com/);
    assert.equal(r.asked?.length, 1, JSON.stringify(r));
    assert.match(r.asked[0], /^MCP server 'everything' asked “Please provide inputs for the following fields:”\. You sent .*\bString: Ada;/);
  };

  // serve's turn: the question comes in its stream.
  const created = (await ask(core, { type: "sessions", action: "create", where: "server" })).result;
  model.add(toolCall("load_tool_group", JSON.stringify({ group_name: "everything" })), toolCall(TOOL, "{}"), text("Thanks, Ada."));
  const served = await ask(core, { type: "send", session: created.id, text: "Ask me something" }, onReply(created.id));
  assert.equal(served.last.type, "done", JSON.stringify(served.last));
  assert.ok(served.events.some((e) => e.type === "elicitation"), "no elicitation event in serve's stream");
  await check(created.id);

  // The page's turn: the server tool's answer carries the question.
  model.add(toolCall("load_tool_group", JSON.stringify({ group_name: "everything" })), toolCall(TOOL, "{}"), text("Thanks again."));
  const paged = await ask(core, { type: "send", session: "p1", text: "Ask me again" }, onReply("p1"));
  assert.equal(paged.last.type, "done", JSON.stringify(paged.last));
  assert.equal(questions.length, 2);
  await check("p1");
  await core.close();
});
