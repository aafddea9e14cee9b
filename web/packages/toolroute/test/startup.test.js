// What an app's start pays for (issue 38): each case runs as a new Node
// process (startup-case.js), which counts the wasm modules it compiles.
// A router or host whose tools are all host tools never compiles QuickJS,
// though the app gives it a Runner; a JS tool answers on its first call, the
// Runner warmed or not; two routers, two Runners and loadToolroute share
// one compile of each module; the word vectors are read only by a router
// that offers search_tools, which then finds by meaning. The Node runner
// takes the package's patched quickjs.wasm as it is only when it is what
// the patch makes today.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { readFile } from "node:fs/promises";
import { createHash } from "node:crypto";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { patchQuickJS, PATCHED_SHA256 } from "../jsrun/patch.js";
import { Runner, MemoryStore } from "../jsrun/runner.js";

const pkg = fileURLToPath(new URL("..", import.meta.url));

async function run(name) {
  const { stdout } = await promisify(execFile)(process.execPath, ["test/startup-case.js", name], { cwd: pkg });
  return JSON.parse(stdout.trim().split("\n").pop());
}

test("a router with host tools only never compiles QuickJS", async () => {
  const r = await run("no-js");
  assert.deepEqual(r.results, ["get_time: 12:00"]);
  assert.equal(r.compiled.quickjs, 0);
  assert.equal(r.compiled.toolroute, 1);
});

test("a JS tool answers on its first call, with a Runner as runJS (warmed)", async () => {
  const r = await run("js-first-call");
  assert.deepEqual(r.results, ["word_count: 3"]);
  assert.equal(r.compiled.quickjs, 1);
});

test("a JS tool answers on its first call, with a function as runJS", async () => {
  const r = await run("js-first-call-function");
  assert.deepEqual(r.results, ["word_count: 4"]);
  assert.equal(r.compiled.quickjs, 1);
});

test("two routers, two Runners and loadToolroute share one compile of each module", async () => {
  const r = await run("two-routers");
  assert.deepEqual(r.results, ["word_count: 2", "word_count: 5"]);
  assert.equal(r.compiled.toolroute, 1);
  assert.equal(r.compiled.quickjs, 1);
});

test("a host with host tools only never compiles QuickJS; hosts and a router share each module's compile", async () => {
  const r = await run("hosts");
  assert.ok(r.answered);
  assert.equal(r.quickjsWithout, 0);
  assert.deepEqual(r.results, ["word_count: 3"]);
  assert.equal(r.compiled.toolroute, 1);
  assert.equal(r.compiled.quickjs, 1);
});

test("the word vectors are read by a router offering search_tools only, which finds by them", async () => {
  const r = await run("search");
  assert.equal(r.vectorsReadWithoutSearch, 0);
  assert.equal(r.vectorsRead, 1);
  assert.match(r.results[0], /^search_tools: Found 1 tool for 'what meetings do I have on a day'[\s\S]*list_events/);
  assert.equal(r.results[1], "list_events: A meeting at 10");
  assert.equal(r.compiled.quickjs, 0);
});

test("PATCHED_SHA256 is what patchQuickJS makes of the dependency's QuickJS", async () => {
  const dep = await readFile(new URL(import.meta.resolve("@jitl/quickjs-ng-wasmfile-release-sync/wasm")));
  const sum = createHash("sha256").update(await patchQuickJS(dep)).digest("hex");
  assert.equal(sum, PATCHED_SHA256, `the patch changed: set PATCHED_SHA256 in jsrun/patch.js to ${sum}`);
});

test("Runner.warm never throws: a module that cannot load is the call's to report", async () => {
  const runner = new Runner({ store: new MemoryStore(), wasmModule: async () => { throw new Error("no QuickJS here"); } });
  await runner.warm();
  const r = await runner.call({ tool: "t", source: "function f() { return 1; }", function: "f", params: {} });
  assert.equal(r.status, "error");
  assert.match(r.message, /no QuickJS here/);
});

test("runJS that is neither a Runner nor a function is refused with what to give", async () => {
  const { createRouter } = await import("../ai-sdk/ai-sdk.js");
  await assert.rejects(createRouter({ runJS: { run() {} } }), /ai-sdk: options\.runJS must be a Runner \(toolroute\/jsrun\) or a function/);
});
