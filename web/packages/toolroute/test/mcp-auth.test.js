// The JS hosts' MCP client (McpServers) with servers that are not simply up:
// one that refuses the host for want of authorization (HTTP 401 with the
// spec's WWW-Authenticate resource_metadata, or 403 insufficient_scope),
// one still starting, one down, and a call that outlives its timeout by
// reporting progress. The servers are server-everything (testdata/mcp)
// behind a small guard (mcp-servers.js) that asks for a bearer token; what the
// model and the user read is the real module's (mcp_catalogue, mcp_result).
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import net from "node:net";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Toolroute } from "../driver/toolroute.js";
import { createHost } from "../host/host.js";
import { McpServers, McpToolError, withMcp } from "../host/mcp.js";
import { startEverything, startGuard } from "./mcp-servers.js";
import { WAIT_MS } from "./busy.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../..");

const freePort = () =>
  new Promise((resolve) => {
    const s = net.createServer().listen(0, "127.0.0.1", () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });

let everything, everythingPort, guard, host, check;

before(async () => {
  everythingPort = await freePort();
  everything = await startEverything(everythingPort);
  guard = await startGuard(everythingPort);
  const wasm = await WebAssembly.compile(await readFile(path.join(root, "wasm/toolroute.wasm")));
  host = await createHost({ module: () => Toolroute.instantiate(wasm), provider: { format: "openai", demo: true } });
  check = (op, args) => host.check(op, args);
});

after(async () => {
  await guard?.close();
  await everything?.stop();
});

// servers makes an McpServers of config whose timers the test sees, with
// the module's check to read refusals.
function servers(config, extra = {}) {
  const timers = [];
  const mcp = new McpServers({
    config: JSON.stringify({ mcpServers: config }),
    check: (op, args) => check(op, args),
    setTimer: (fn, ms) => {
      timers.push(ms);
      const t = setTimeout(fn, ms);
      t.unref();
      return t;
    },
    ...extra,
  });
  return { mcp, timers };
}

const ADVICE = `MCP server 'notes' needs authorization: add "headers": {"Authorization": "Bearer TOKEN"} to its entry in the MCP config, with a token the server accepts`;

test("a server that answers 401 needs authorization: not retried on a timer, its group says what the user does, and a token in its headers makes it work", async () => {
  const { mcp, timers } = servers({ notes: { url: guard.url } });
  try {
    await mcp.start();
    const [st] = mcp.status();
    assert.equal(st.status, "needs_authorization", JSON.stringify(st));
    assert.equal(st.error, "it answered HTTP 401 and its entry gives no Authorization header; it offers OAuth sign-in, which only the toolroute command does");
    assert.deepEqual(timers, [], "a server that needs authorization is tried again on a timer");
    const native = {};
    const cat = await withMcp({}, mcp, native, {}, check);
    const g = cat.groups.find((x) => x.name === "notes");
    assert.equal(g.unavailable, `${ADVICE} (the user does this; its tools are offered once it is done). Do without this group meanwhile.`);
    assert.equal(mcp.status()[0].advice, ADVICE);
    assert.deepEqual(mcp.problems(), [`${ADVICE} (${st.error})`]);
    // A worker's request comes: nothing is due.
    const refused = guard.refused;
    mcp.retryDue();
    assert.equal(guard.refused, refused);
    // The user asks again: it is tried, and refused again.
    mcp.retry();
    for (const end = Date.now() + WAIT_MS; (mcp.status()[0].status !== "needs_authorization") && Date.now() < end;) await new Promise((r) => setTimeout(r, 25));
    assert.ok(guard.refused > refused);
    assert.equal(mcp.status()[0].status, "needs_authorization");
  } finally {
    await mcp.close();
  }

  // The config changes: the token is in its headers.
  const fixed = servers({ notes: { url: guard.url, headers: { Authorization: "Bearer good-token" } } }).mcp;
  try {
    await fixed.start();
    assert.equal(fixed.status()[0].status, "ready", JSON.stringify(fixed.status()));
    assert.deepEqual(fixed.problems(), []);
    const native = {};
    await withMcp({}, fixed, native, {}, check);
    assert.equal(await native.get_sum({ a: 2, b: 3 }, { check }), "The sum of 2 and 3 is 5.");
  } finally {
    await fixed.close();
  }
});

test("a server that answers 401 before the host has a module to ask is down until the first listing asks the module", async () => {
  const { mcp } = servers({ notes: { url: guard.url } }, { check: undefined });
  try {
    await mcp.start();
    assert.equal(mcp.status()[0].status, "down", JSON.stringify(mcp.status()));
    const cat = await withMcp({}, mcp, {}, {}, check);
    const [st] = mcp.status();
    assert.deepEqual([st.status, st.error], ["needs_authorization", "it answered HTTP 401 and its entry gives no Authorization header; it offers OAuth sign-in, which only the toolroute command does"]);
    assert.equal(cat.groups.find((x) => x.name === "notes").unavailable, `${ADVICE} (the user does this; its tools are offered once it is done). Do without this group meanwhile.`);
  } finally {
    await mcp.close();
  }
});

test("a server that refuses the token of a running connection (revoked, or 403 insufficient_scope): the call says what the user does, and the server waits for them", async () => {
  const { mcp, timers } = servers({ notes: { url: guard.url, headers: { Authorization: "Bearer good-token" } } }, { configName: "the TOOLROUTE_MCP variable" });
  const advice = ADVICE.replace("the MCP config", "the TOOLROUTE_MCP variable");
  try {
    await mcp.start();
    const native = {};
    await withMcp({}, mcp, native, {}, check);
    assert.equal(await native.get_sum({ a: 1, b: 1 }, { check }), "The sum of 1 and 1 is 2.");

    guard.token = "rotated";
    const err = await native.get_sum({ a: 1, b: 2 }, { check }).then(() => null, (e) => e);
    assert.ok(err instanceof McpToolError, String(err));
    assert.equal(err.type, "unavailable");
    assert.equal(err.message, `${advice} (the user does this), then the call can be tried again; do without this tool meanwhile.`);
    assert.deepEqual(mcp.status().map((s) => [s.status, s.error]), [["needs_authorization", "it refused the token in its Authorization header (HTTP 401)"]]);
    assert.deepEqual(timers, []);
    // Its next call does not reach it.
    const refused = guard.refused;
    const again = await native.get_sum({ a: 1, b: 2 }, { check }).then(() => null, (e) => e);
    assert.equal(again?.message, err.message);
    assert.equal(guard.refused, refused);

    guard.scope = "notes:write";
    mcp.retry();
    for (const end = Date.now() + WAIT_MS; (mcp.status()[0].error !== 'its token lacks a scope it needs (HTTP 403 insufficient_scope, scope "notes:write")') && Date.now() < end;) await new Promise((r) => setTimeout(r, 25));
    assert.deepEqual(mcp.status().map((s) => [s.status, s.error]), [["needs_authorization", 'its token lacks a scope it needs (HTTP 403 insufficient_scope, scope "notes:write")']]);

    // The token works again and the user asks: it is used again.
    guard.token = "good-token";
    guard.scope = "";
    mcp.retry();
    for (const end = Date.now() + WAIT_MS; (mcp.status()[0].status !== "ready") && Date.now() < end;) await new Promise((r) => setTimeout(r, 25));
    assert.equal(mcp.status()[0].status, "ready");
    assert.equal(await native.get_sum({ a: 2, b: 2 }, { check }), "The sum of 2 and 2 is 4.");
  } finally {
    guard.token = "good-token";
    guard.scope = "";
    await mcp.close();
  }
});

test("a server still connecting and one down are groups without tools whose load says so, and a server's going from one to the other loads the catalogue again", async () => {
  // A server that takes the connection and never answers.
  const held = [];
  const hang = net.createServer((c) => held.push(c));
  await new Promise((resolve) => hang.listen(0, "127.0.0.1", resolve));
  const gone = await freePort();
  let changes = 0;
  const { mcp } = servers({ slow: { url: `http://127.0.0.1:${hang.address().port}/mcp` }, gone: { url: `http://127.0.0.1:${gone}/mcp` } }, { onChange: () => changes++ });
  const groups = async () => Object.fromEntries((await withMcp({}, mcp, {}, {}, check)).groups.map((g) => [g.name, g.unavailable]));
  const starting = (key) => `MCP server '${key}' is starting: its tools are offered once it answers. Try again in a minute, or do without this group.`;
  try {
    mcp.start();
    assert.deepEqual(await groups(), { gone: starting("gone"), slow: starting("slow") });
    for (const end = Date.now() + WAIT_MS; (mcp.status().find((s) => s.key === "gone").status !== "down") && Date.now() < end;) await new Promise((r) => setTimeout(r, 25));
    assert.equal(changes, 1, "the group's text changed, and the catalogue was not loaded again");
    const why = mcp.status().find((s) => s.key === "gone").error;
    assert.match(why, /^could not connect: /);
    assert.deepEqual(await groups(), {
      gone: `MCP server 'gone' is down: ${why.replace(/\.$/, "")}. toolroute starts it again: try again in a minute, or do without this group.`,
      slow: starting("slow"),
    });
    // Tried again and down again, for the same reason: nothing to load.
    await mcp.retry();
    assert.equal(changes, 1);
  } finally {
    await mcp.close();
    for (const c of held) c.destroy();
    hang.close();
  }
});

test("a call whose server reports progress is not cut at its timeout, and the host hears the progress", async () => {
  const { mcp } = servers({ everything: { url: `http://127.0.0.1:${everythingPort}/mcp`, timeoutSeconds: 3 } });
  try {
    await mcp.start();
    const native = {};
    await withMcp({}, mcp, native, {}, check);
    const heard = [];
    // Twelve steps of 0.5 s: 6 s, past the 3 s timeout, with progress
    // each half second: a busy machine may hold a step back well past
    // that without reaching the timeout.
    const out = await native.trigger_long_running_operation({ duration: 6, steps: 12 }, { check, progress: (p) => heard.push(p) });
    assert.equal(out, "Long running operation completed. Duration: 6 seconds, Steps: 12.");
    assert.deepEqual(heard.map((p) => [p.progress, p.total]), Array.from({ length: 12 }, (_, i) => [i + 1, 12]));
    assert.equal(mcp.status()[0].status, "ready");
  } finally {
    await mcp.close();
  }
});
