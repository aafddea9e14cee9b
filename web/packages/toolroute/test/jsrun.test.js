// web/packages/toolroute/jsrun, the browser's and worker's JS tool runner, replays the
// conformance cases of testdata/js the Go host replays (host/jsrun
// TestConformance), then a few tests of its own.
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Runner, MemoryStore, NotConnected } from "../jsrun/runner.js";
import { PRELUDE } from "../jsrun/prelude.js";
import { DirStore } from "../jsrun/dirstore.js";
import { loadCase, runnerOptions, calls, filesOf, skipFor, FAILSAFE_MS } from "./conformance-case.js";
import { cpuPast } from "./busy.js";
import { fakeServer, check, checkFiles, checkRequests } from "./conformance.js";
import { preludeLines } from "./prelude-lines.js";
import { moduleCheck } from "./module-check.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../..");
const casesDir = path.join(root, "testdata/js");

// KNOWN_DIFFERENCES are the cases this host cannot pass, with the reason;
// they run as todo tests, so a fix shows as a passing todo.
const KNOWN_DIFFERENCES = {};

// replay runs a case against a store: "memory" (the browser's and worker's)
// or "dir" (Node's).
async function replay(c, source, storeKind) {
  const srv = await fakeServer(c.server);
  let dir = null;
  let store;
  if (storeKind === "dir") {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "jsrun-"));
    for (const [name, content] of Object.entries(filesOf(c))) {
      fs.mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
      fs.writeFileSync(path.join(dir, name), content);
    }
    for (const [name, target] of Object.entries(c.symlinks ?? {})) fs.symlinkSync(target, path.join(dir, name));
    store = new DirStore(dir);
  } else {
    store = new MemoryStore(filesOf(c));
  }
  try {
    const o = runnerOptions(c, srv.url);
    const runner = new Runner({ check: moduleCheck, ...o, store, fetch: { ...o.fetch, fetch: globalThis.fetch } });
    for (const call of calls(c, source, srv.url)) check(c.expect, await runner.call(call));
    const bytes = (name) => storeKind === "dir"
      ? (fs.existsSync(path.join(dir, name)) ? new Uint8Array(fs.readFileSync(path.join(dir, name))) : null)
      : (store.files.has(name) ? store.readBytes(name) : null);
    checkFiles(c, (name) => (bytes(name) === null ? null : new TextDecoder().decode(bytes(name))), bytes);
    checkRequests(c, srv.seen);
  } finally {
    await srv.close();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  }
}

const files = fs.readdirSync(casesDir).filter((f) => f.endsWith(".txtar")).sort();

test("there are conformance cases", () => assert.ok(files.length > 40));

for (const file of files) {
  const name = file.replace(/\.txtar$/, "");
  const { c, source } = loadCase(fs.readFileSync(path.join(casesDir, file), "utf8"));
  // The memory store is the one Chromium's and workerd's runners use: a
  // case not for them (a symbolic link, which that store cannot have) runs
  // here on Node's folder store alone.
  const memory = !skipFor(c, "chromium") || !skipFor(c, "workerd");
  const stores = !memory ? ["dir"] : /\bfs\.|downloadToFile|uploadMultipart/.test(source) ? ["memory", "dir"] : ["memory"];
  for (const store of stores) {
    const todo = KNOWN_DIFFERENCES[name];
    test(`conformance ${name} (${store} store)`, { todo, concurrency: true, skip: skipFor(c, "node") }, () => replay(c, source, store));
  }
}

// The runner's own tests.

const runner = new Runner({ check: moduleCheck, store: new MemoryStore() });
const run = (source, extra = {}) => runner.call({ tool: "t", sourceRef: "tool.js", source, function: "execute", timeoutMs: FAILSAFE_MS, ...extra });

test("an endless loop is interrupted at the deadline", async () => {
  await run("function execute() {}"); // QuickJS's start, which the deadline leaves out
  const past = cpuPast(300);
  const res = await run("function execute() { for (;;) { try { for (;;) {} } catch (e) {} } }", { timeoutMs: 300 });
  assert.equal(res.error_type, "timeout", res.message);
  assert.match(res.message, /JS tool 't' execution timed out after 300ms/);
  assert.ok(past() < 1000, "the interrupt came late: the loop used a second of CPU time past its deadline");
});

test("a call over its memory limit runs out of memory, and the next call runs", async () => {
  const small = new Runner({ check: moduleCheck, memoryLimit: 40 << 20 });
  const res = await small.call({ tool: "t", source: "function execute() { const a = []; for (;;) a.push(new Uint8Array(1 << 20)); }", function: "execute", timeoutMs: FAILSAFE_MS });
  assert.equal(res.error_type, "out_of_memory", res.message);
  assert.equal(res.message, "JS tool 't' ran out of memory (the limit is 40 MB)");
  const next = await small.call({ tool: "t", source: "function execute() { return new Uint8Array(8 << 20).length; }", function: "execute" });
  assert.deepEqual(next, { status: "success", output: "8388608", logs: [] });
});

test("a stack overflow is a RangeError the tool can catch", async () => {
  const res = await run("function f(n) { return f(n + 1) + 1; }\nfunction execute() { try { f(0); } catch (e) { return e.name + ': ' + e.message; } }");
  assert.deepEqual(res, { status: "success", output: "RangeError: Maximum call stack size exceeded", logs: [] });
});

// One prelude for every host: the Go host embeds assets/prelude.js and
// this runner runs the same file, so there is no copy to drift (two did).

test("the runner runs assets/prelude.js, the Go host's prelude, as it is", async () => {
  const file = fs.readFileSync(path.join(root, "assets/prelude.js"), "utf8");
  assert.equal(PRELUDE, file);
  // QuickJS keeps a function's source: what the call ran came from the file.
  const res = await run("function execute() { return String(__tr_start); }");
  assert.equal(res.status, "success", res.message);
  assert.match(res.output, /^function \(fname, params\) \{/);
  assert.ok(file.includes(res.output), res.output);
});

test("no file but assets/prelude.js holds a copy of the prelude", () => {
  const lines = preludeLines();
  assert.ok(lines.length > 50, "too few lines to tell a copy by");
  const copies = [];
  // The bundles in dist/ folders are build products, checked by the build
  // tests (ui.test.js, worker.test.js).
  const skip = new Set([".git", "node_modules", "dist", "output"]);
  const walk = (dir) => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) {
        if (!skip.has(e.name)) walk(p);
      } else if (e.isFile() && /\.(c?js|mjs|ts|go|html|json|md|txt|txtar)$/.test(e.name) && p !== path.join(root, "assets/prelude.js")) {
        const text = fs.readFileSync(p, "utf8");
        if (lines.filter((l) => text.includes(l)).length > lines.length / 2) copies.push(path.relative(root, p));
      }
    }
  };
  walk(root);
  assert.deepEqual(copies, []);
});

test("a bridge error is a JS error the tool can catch", async () => {
  const res = await run(`async function execute() {
    const out = [];
    for (const f of [() => fs.readFile("../x"), () => lib("no/such"), () => _time("Nowhere/Else"), () => fetch("http://10.0.0.1/"), () => google.getAccessToken()]) {
      try { await f(); out.push("no error"); } catch (e) { out.push(e.name + ": " + e.message.split(":")[0]); }
    }
    return out.join("\\n");
  }`);
  assert.equal(res.output, ["Error: Access denied", "Error: lib", "Error: _time", "Error: fetch", "Error: google"].join("\n"), res.message);
});

test("a credential provider's error is passed on, NotConnected says how to connect", async () => {
  const src = "async function execute() { return await google.getAccountEmail(); }";
  const failing = new Runner({ check: moduleCheck, google: { accessToken: async () => "", accountEmail: async () => { throw new Error("refresh refused"); } } });
  assert.equal((await failing.call({ tool: "t", source: src, function: "execute", google: true })).message.split("\n")[0], "Error: google: refresh refused");
  const none = new Runner({ check: moduleCheck, google: { accessToken: async () => "", accountEmail: async () => { throw new NotConnected(); } } });
  assert.match((await none.call({ tool: "t", source: src, function: "execute", google: true })).message, /Google account not connected/);
});

test("calls at the same time do not share state", async () => {
  const src = "async function execute(p) { globalThis.v = p.v; await google.getAccessToken(); return globalThis.v; }";
  let release;
  const gate = new Promise((resolve) => { release = resolve; });
  const r = new Runner({ check: moduleCheck, google: { accessToken: () => gate, accountEmail: async () => "" } });
  const calls = [1, 2, 3].map((v) => r.call({ tool: "t", source: src, function: "execute", params: { v }, google: true }));
  release("tok");
  assert.deepEqual((await Promise.all(calls)).map((res) => res.output), ["1", "2", "3"]);
});

test("the memory store keeps its files inside", () => {
  const store = new MemoryStore({ "a/b.txt": "x" });
  const r = new Runner({ check: moduleCheck, store });
  return r.call({
    tool: "t", function: "execute",
    source: "function execute() { fs.writeFile('/abs.txt', 'no'); }",
  }).then((res) => {
    assert.match(res.message, /Access denied: '\/abs.txt' is outside the sandbox folder/);
    assert.deepEqual([...store.files.keys()], ["a/b.txt"]);
  });
});

test("bad parameters and function names are refused before running", async () => {
  assert.equal((await run("", { params: "[1]" })).error_type, "invalid_arguments");
  assert.match((await run("", { function: "a.b" })).message, /Function name 'a.b' is not a JS identifier/);
});

test("the module writes a timeout's duration as Go writes it", () => {
  const said = (ms) => moduleCheck("js_bridge", { code: "timeout", tool: "t", timeout_ms: ms }).error.message.replace("JS tool 't' execution timed out after ", "");
  assert.deepEqual([500, 1000, 1500, 30000, 90000, 3600000].map(said), ["500ms", "1s", "1.5s", "30s", "1m30s", "1h0m0s"]);
});

// The runner's rules and refusals are the module's: given a module that
// refuses DELETE and words every other refusal its own way, it follows
// that one (a host that kept a rule or a sentence of its own would not).
test("the runner follows the module it is given", async () => {
  const other = (op, args) => {
    if (op !== "js_bridge" || args.code === "body_cut" || args.code === "multipart") return moduleCheck(op, args);
    if ((args.code === "fetch_method" && args.method !== "DELETE") || args.code === "library_name" || args.code === "time_format") return {};
    return { error: { type: "other_type", message: `this module says no: ${args.code}` } };
  };
  const r = new Runner({ check: other, store: new MemoryStore() });
  const cases = [
    [`async function execute() { try { await fetch("http://127.0.0.1:1/", {method: "DELETE"}); } catch (e) { return e.message; } }`, "this module says no: fetch_method"],
    [`async function execute() { try { await fetch("http://127.0.0.1:1/"); } catch (e) { return e.message; } }`, "this module says no: private_address"],
    [`function execute() { try { fs.readFile("../x"); } catch (e) { return e.message; } }`, "this module says no: sandbox_outside"],
    [`function execute() { try { lib("nope"); } catch (e) { return e.message; } }`, "this module says no: library_not_found"],
  ];
  for (const [source, want] of cases) {
    const res = await r.call({ tool: "t", source, function: "execute", timeoutMs: FAILSAFE_MS });
    assert.equal(res.output, want, JSON.stringify(res));
  }
  const res = await r.call({ tool: "t", source: "function execute() { for (;;) {} }", function: "execute", timeoutMs: 200 });
  assert.deepEqual([res.error_type, res.message], ["other_type", "this module says no: timeout"]);
});
