// The JS host's limits, the Go host's (host/tools.go, host/jsrun): at most
// maxParallelTools tool calls at once in all sessions, results cut at
// MAX_RESULT_CHARS with a note, a canceled turn stopping its JS tools, and
// QuickJS's interrupt polling, patched to stop a call within one operation of
// its deadline whatever the JS does.
import { test } from "node:test";
import assert from "node:assert/strict";
import http from "node:http";
import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import path from "node:path";
import { newQuickJSWASMModuleFromVariant, newVariant } from "quickjs-emscripten-core";
import quickjsVariant from "@jitl/quickjs-ng-wasmfile-release-sync";
import { Toolroute } from "../driver/toolroute.js";
import { createHost, MemoryStore, MAX_RESULT_CHARS } from "../host/host.js";
import { Runner, MemoryStore as FileStore } from "../jsrun/runner.js";
import { patchQuickJS, sleb128 } from "../jsrun/patch.js";
import { startFakeModel, text } from "./host-fakemodel.js";
import { inThread, THREAD_WAIT_MS } from "./in-thread.js";
import { cpuMs, cpuPast, PROMPT_MS } from "./busy.js";
import { FAILSAFE_MS } from "./conformance-case.js";
import { moduleCheck } from "./module-check.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../..");
const wasm = await WebAssembly.compile(await readFile(path.join(root, "wasm/toolroute.wasm")));
const factory = () => Toolroute.instantiate(wasm);
const clock = () => new Date("2026-03-01T09:00:00Z");
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const note = (n) => `\n\n[The result was cut at 30000 of its ${n} characters. Ask for less: a narrower query, a smaller range or one page.]`;

// calls is a model reply asking for n calls of tool at once.
const calls = (tool, n, args = () => "{}") => ({ calls: Array.from({ length: n }, (_, i) => ({ name: tool, args: args(i) })) });

async function collect(gen) {
  const events = [];
  for await (const ev of gen) events.push(ev);
  return events;
}

// counting is a host-native tool that records how many calls of it run at
// once, each taking ms.
function counting(ms) {
  const c = { active: 0, max: 0, runs: 0 };
  c.fn = async () => {
    c.runs++;
    c.active++;
    c.max = Math.max(c.max, c.active);
    await sleep(ms);
    c.active--;
    return "ok";
  };
  return c;
}

function newHost(model, { tools, native, ...extra }) {
  return createHost({
    module: factory, now: clock, store: new MemoryStore(),
    catalogue: { tools: tools.map((t) => ({ description: t.name, parameters: { properties: {} }, ...t })) },
    provider: { format: "openai", baseURL: model.baseURL, model: "m" },
    native,
    ...extra,
  });
}

test("12 calls in one response never run more than maxParallelTools (3) at once", async () => {
  const model = await startFakeModel("openai", calls("work", 12), text("All done."));
  try {
    const work = counting(40);
    const h = await newHost(model, { tools: [{ name: "work" }], native: { work: work.fn }, maxParallelTools: 3 });
    const events = await collect(h.send("s", "work"));
    assert.equal(events.at(-1).type, "done", JSON.stringify(events.at(-1)));
    assert.equal(work.runs, 12);
    assert.equal(work.max, 3);
    const results = (await h.messages("s")).filter((m) => m.type === "tool_result");
    assert.equal(results.length, 12);
  } finally {
    await model.close();
  }
});

test("the cap holds across sessions, and is 4 by default", async () => {
  const model = await startFakeModel("openai", calls("work", 6), calls("work", 6), text("a"), text("b"));
  try {
    const work = counting(60);
    const h = await newHost(model, { tools: [{ name: "work" }], native: { work: work.fn } });
    const [a, b] = await Promise.all([collect(h.send("a", "work")), collect(h.send("b", "work"))]);
    assert.equal(a.at(-1).type, "done");
    assert.equal(b.at(-1).type, "done");
    assert.equal(work.runs, 12);
    assert.equal(work.max, 4);
  } finally {
    await model.close();
  }
});

test("a waiting call's timeout starts when it runs", async () => {
  const model = await startFakeModel("openai", calls("slow", 2), text("Both ran."));
  try {
    const slow = counting(700); // two in a row: 1.4 s, each under its 1 s
    const h = await newHost(model, { tools: [{ name: "slow", timeout_seconds: 1 }], native: { slow: slow.fn }, maxParallelTools: 1 });
    const events = await collect(h.send("s", "slow"));
    assert.equal(events.at(-1).type, "done");
    const results = (await h.messages("s")).filter((m) => m.type === "tool_result");
    assert.deepEqual(results.map((m) => m.content), ["ok", "ok"]);
  } finally {
    await model.close();
  }
});

test("a call waiting for a slot never runs once its turn is canceled, and the slot is freed", async () => {
  const model = await startFakeModel("openai", { calls: [{ name: "block", args: "{}" }, { name: "later", args: "{}" }] });
  try {
    let later = 0;
    const h = await newHost(model, {
      tools: [{ name: "block" }, { name: "later" }],
      native: {
        block: (_input, { signal }) => new Promise((_, reject) => signal.addEventListener("abort", () => reject(signal.reason))),
        later: async () => (later++, "later ran"),
      },
      maxParallelTools: 1,
    });
    const ctl = new AbortController();
    await assert.rejects(async () => {
      for await (const ev of h.send("s", "go", { signal: ctl.signal })) {
        if (ev.type === "tool_calls") setTimeout(() => ctl.abort(), 20);
      }
    }, { name: "AbortError" });
    await sleep(20);
    assert.equal(later, 0, "the waiting call ran after the cancel");

    model.add(calls("later", 1), text("Fine."));
    const next = await collect(h.send("s", "again"));
    assert.equal(next.at(-1).type, "done");
    assert.equal(later, 1);
  } finally {
    await model.close();
  }
});

test("a 35,000-character result is cut with the note, and the model reads the note", async () => {
  const model = await startFakeModel("openai", calls("big", 1), calls("bad", 1), text("Cut."));
  try {
    const h = await newHost(model, {
      tools: [{ name: "big" }, { name: "bad" }],
      native: {
        big: async () => "é".repeat(35000),
        bad: async () => {
          throw new Error("x".repeat(40000));
        },
      },
    });
    const events = await collect(h.send("s", "big"));
    assert.equal(events.at(-1).type, "done");
    const results = (await h.messages("s")).filter((m) => m.type === "tool_result");
    assert.equal(results[0].content, "é".repeat(30000) + note(35000));
    assert.ok(results[1].content.includes("x".repeat(30000) + note(40000)), results[1].content.slice(-300));
    assert.ok(!results[1].content.includes("x".repeat(30001)));
    const wire = JSON.stringify(note(35000)).slice(1, -1);
    assert.ok(model.requests[1].body.includes(wire), "the next model request lacks the note");
    assert.ok(model.requests[2].body.includes(JSON.stringify(note(40000)).slice(1, -1)));
  } finally {
    await model.close();
  }
});

test("the cut counts code points and comes after the redaction", async () => {
  // The module cuts: in characters (code points), not UTF-16 units.
  const exact = "😀".repeat(MAX_RESULT_CHARS); // 60,000 UTF-16 units, 30,000 characters
  const counted = await startFakeModel("openai", calls("emoji", 2, (i) => JSON.stringify({ n: i })), text("Done."));
  try {
    const h = await newHost(counted, {
      tools: [{ name: "emoji" }],
      native: { emoji: async ({ n }) => (n === 0 ? "😀".repeat(30001) : exact) },
    });
    await collect(h.send("s", "emoji"));
    const results = (await h.messages("s")).filter((m) => m.type === "tool_result");
    assert.deepEqual(results.map((r) => r.content), ["😀".repeat(30000) + note(30001), exact]);
  } finally {
    await counted.close();
  }

  // A secret across the cut is redacted whole, not cut in half first.
  const secret = "sk-planted-secret-value-42";
  const model = await startFakeModel("openai", calls("leak", 1), text("Done."));
  try {
    const h = await newHost(model, {
      tools: [{ name: "leak" }],
      native: { leak: async () => "a".repeat(29990) + secret + "b".repeat(10000) },
      secrets: [{ name: "KEY", value: secret }],
    });
    await collect(h.send("s", "leak"));
    const result = (await h.messages("s")).find((m) => m.type === "tool_result");
    assert.equal(result.content, "a".repeat(29990) + "[redacted " + note(29990 + "[redacted KEY]".length + 10000));
    assert.ok(!model.requests[1].body.includes("sk-planted"));
  } finally {
    await model.close();
  }
});

// hangingServer accepts requests and never answers them; closed counts the
// requests whose connection the client closed; arrived settles at the first.
async function hangingServer() {
  let arrived;
  const s = { closed: 0, seen: 0, arrived: new Promise((r) => (arrived = r)) };
  const server = http.createServer((req) => {
    s.seen++;
    arrived();
    req.on("close", () => s.closed++);
  });
  await new Promise((r) => server.listen(0, "127.0.0.1", r));
  s.url = `http://127.0.0.1:${server.address().port}/`;
  // allClosed waits (up to PROMPT_MS) until every request's connection is
  // closed.
  s.allClosed = async () => {
    for (const end = Date.now() + PROMPT_MS; Date.now() < end && s.closed < s.seen;) await sleep(10);
    return s.closed === s.seen;
  };
  s.close = () => {
    server.closeAllConnections();
    return new Promise((r) => server.close(r));
  };
  return s;
}

const canceled = (tool) => ({ status: "error", error_type: "canceled", message: `JS tool '${tool}' was canceled`, logs: [] });

test("Runner.call: an aborted signal stops a fetch waiting forever, and the fetch itself", async () => {
  const srv = await hangingServer();
  try {
    const r = new Runner({ check: moduleCheck, fetch: { allowPrivate: true } });
    const ctl = new AbortController();
    const source = "async function execute(p) { for (;;) await fetch(p.url); }";
    let abortedAt;
    srv.arrived.then(() => {
      abortedAt = Date.now();
      ctl.abort();
    });
    const res = await r.call({ tool: "hang", source, function: "execute", params: { url: srv.url }, timeoutMs: FAILSAFE_MS, signal: ctl.signal });
    assert.deepEqual(res, canceled("hang"));
    assert.ok(Date.now() - abortedAt < PROMPT_MS, `ended ${Date.now() - abortedAt} ms after the abort`);
    assert.equal(srv.seen, 1);
    assert.ok(await srv.allClosed(), "the host's fetch was not aborted");
  } finally {
    await srv.close();
  }
});

test("Runner.call: an aborted signal stops a google call waiting forever and tells the provider", async () => {
  // The abort comes once the provider is waited on, however long the call
  // took to start (a loaded machine compiles QuickJS slowly).
  let got, t;
  const ctl = new AbortController();
  const r = new Runner({ check: moduleCheck, google: { accessToken: ({ signal }) => {
    got = signal;
    setTimeout(() => { t = Date.now(); ctl.abort(); }, 100);
    return new Promise(() => {});
  }, accountEmail: async () => "" } });
  const res = await r.call({ tool: "g", source: "async function execute() { return await google.getAccessToken(); }", function: "execute", google: true, timeoutMs: FAILSAFE_MS, signal: ctl.signal });
  assert.deepEqual(res, canceled("g"));
  assert.ok(Date.now() - t < PROMPT_MS, `ended ${Date.now() - t} ms after the abort`);
  assert.equal(got.aborted, true);
});

test("Runner.call: a signal aborted before the call runs nothing", async () => {
  const store = new FileStore();
  const r = new Runner({ check: moduleCheck, store });
  const res = await r.call({ tool: "w", source: "function execute() { fs.writeFile('x.txt', 'ran'); }", function: "execute", signal: AbortSignal.abort() });
  assert.deepEqual(res, canceled("w"));
  assert.equal(store.files.size, 0);
});

test("Runner.call: an abort seen by the interrupt handler stops an endless loop at once", async () => {
  // The abort comes from host code the tool calls (lib), so it is delivered
  // while QuickJS runs: the interrupt handler then stops the loop. The
  // whole call, QuickJS's start included (about 0.3 s), uses under a second
  // of CPU time.
  const ctl = new AbortController();
  const r = new Runner({ check: moduleCheck, libraries: [(name) => (ctl.abort(), `// ${name}`)] });
  const cpu = cpuMs();
  const res = await r.call({ tool: "spin", source: "function execute() { lib('x'); for (;;) {} }", function: "execute", timeoutMs: FAILSAFE_MS, signal: ctl.signal });
  assert.deepEqual(res, canceled("spin"));
  assert.ok(cpuMs() - cpu < 1000, `ended after ${cpuMs() - cpu} ms of CPU time`);
});

// In Node the call runs in a worker thread (threads.js): the caller's
// timers run while the loop does, and the cancel reaches it at once. (On a
// browser's worker thread QuickJS holds the thread: the UI restarts its
// worker for Stop.)
test("Runner.call: an abort from a timer stops a synchronous endless loop within 1 s of CPU time", async () => {
  const ctl = new AbortController();
  setTimeout(() => ctl.abort(), 100);
  const past = cpuPast(100);
  const res = await new Runner({ check: moduleCheck }).call({ tool: "spin", source: "function execute() { for (;;) {} }", function: "execute", timeoutMs: FAILSAFE_MS, signal: ctl.signal });
  const used = past();
  assert.ok(used < 1000, `ended after ${used} ms of CPU time past the abort: ${res.error_type}`);
  assert.deepEqual(res, canceled("spin"));
});

test("aborting send() stops its JS tool waiting forever, which reports canceled", async () => {
  const srv = await hangingServer();
  const model = await startFakeModel("openai", calls("hang", 1, () => JSON.stringify({ url: srv.url })));
  try {
    const runner = new Runner({ check: moduleCheck, fetch: { allowPrivate: true } });
    let ended;
    const h = await createHost({
      module: factory, now: clock,
      catalogue: { manifests: [{ file: "hang.json", source: "user/hang.js",
        text: JSON.stringify({ name: "hang", description: "Waits", parameters: { properties: { url: { type: "string" } } }, timeoutSeconds: FAILSAFE_MS / 1000 }) }] },
      sources: { "user/hang.js": "async function execute(p) { for (;;) await fetch(p.url); }" },
      provider: { format: "openai", baseURL: model.baseURL, model: "m" },
      runJS: (c) => (ended = runner.call(c).then((res) => ({ res, at: Date.now() }))),
    });
    const ctl = new AbortController();
    let abortedAt;
    await assert.rejects(async () => {
      for await (const ev of h.send("s", "hang", { signal: ctl.signal })) {
        if (ev.type === "tool_calls") {
          srv.arrived.then(() => {
            abortedAt = Date.now();
            ctl.abort();
          });
        }
      }
    }, { name: "AbortError" });
    const { res, at } = await ended;
    assert.deepEqual(res, canceled("hang"));
    assert.ok(at - abortedAt < PROMPT_MS, `the tool ended ${at - abortedAt} ms after the abort`);
    assert.ok(await srv.allClosed(), "the tool's fetch was not aborted");
  } finally {
    await model.close();
    await srv.close();
  }
});

// quickjs-emscripten's build polls the interrupt handler every 10,000
// operations (JS_INTERRUPT_COUNTER_INIT, compiled in: setInterruptHandler has
// no interval), about 5,000 turns of a loop, so `for (;;) n +=
// JSON.stringify(big).length` ran many minutes past its deadline. jsrun/patch.js
// makes it poll at every operation, as the Go host does.

// pollsPerTurn runs a JSON.stringify loop in QuickJS compiled from wasm
// (bytes) until the interrupt handler's stop-th poll: {turns, polls}.
async function pollsPerTurn(wasm, stop) {
  const wasmModule = await WebAssembly.compile(wasm);
  const qjs = await newQuickJSWASMModuleFromVariant(newVariant(quickjsVariant, { wasmModule }));
  const rt = qjs.newRuntime();
  const vm = rt.newContext();
  // A first loop stopped at its first poll leaves the counter full.
  rt.setInterruptHandler(() => true);
  vm.evalCode("for (;;) {}").error?.dispose();
  let polls = 0;
  rt.setInterruptHandler(() => ++polls >= stop);
  const r = vm.evalCode("var a = [{i: 1}], n = 0, k = 0; for (;;) { n += JSON.stringify(a).length; k++; }");
  r.error?.dispose();
  const turns = vm.getProp(vm.global, "k").consume((h) => vm.getNumber(h));
  vm.dispose();
  rt.dispose();
  return { turns, polls };
}

test("QuickJS polls the interrupt handler every ~5,000 turns of a JSON.stringify loop, patched at every turn", async (t) => {
  const orig = await readFile(new URL(import.meta.resolve("@jitl/quickjs-ng-wasmfile-release-sync/wasm")));
  const before = await pollsPerTurn(orig, 4);
  const after = await pollsPerTurn(await patchQuickJS(orig), 1000);
  t.diagnostic(`the package's build: ${before.turns} turns for ${before.polls} polls; patched: ${after.turns} turns for ${after.polls} polls`);
  const perPoll = before.turns / before.polls;
  assert.ok(perPoll > 4000 && perPoll < 6000, `${perPoll} turns a poll`);
  assert.ok(after.turns > 0 && after.turns <= after.polls, `patched: ${after.turns} turns for ${after.polls} polls`);
});

test("patchQuickJS changes the counters' operands and refuses any other module", async () => {
  const orig = await readFile(new URL(import.meta.resolve("@jitl/quickjs-ng-wasmfile-release-sync/wasm")));
  const patched = await patchQuickJS(orig, { hardStop: false });
  assert.equal(patched.length, orig.length);
  const changed = [];
  for (let i = 0; i < orig.length; i++) if (orig[i] !== patched[i]) changed.push(i);
  // 0x90 0xce 0x00 (10000) becomes 0x81 0x80 0x00 (1) for operations, and
  // 0xe8 0x87 0x00 (1000) for regex steps.
  assert.deepEqual(changed, [25810, 25811, 147292, 147293, 227991, 227992]);
  assert.deepEqual([...sleb128(1, 3)], [0x81, 0x80, 0x00]);
  assert.deepEqual([...sleb128(1000, 3)], [0xe8, 0x87, 0x00]);
  for (const at of [147292, 227991]) assert.deepEqual([...patched.subarray(at, at + 3)], [0xe8, 0x87, 0x00]);
  assert.deepEqual([...sleb128(10000, 3)], [...orig.subarray(25810, 25813)]);
  await assert.rejects(patchQuickJS(patched), { message: /not @jitl\/quickjs-ng-wasmfile-release-sync 0\.32\.0's/ });
  await assert.rejects(patchQuickJS(new Uint8Array(8)), { message: /not @jitl\/quickjs-ng-wasmfile-release-sync 0\.32\.0's/ });
});

test("Runner refuses a QuickJS module that polls every 10,000 operations", async () => {
  const orig = await readFile(new URL(import.meta.resolve("@jitl/quickjs-ng-wasmfile-release-sync/wasm")));
  const r = new Runner({ check: moduleCheck, wasmModule: await WebAssembly.compile(orig) });
  const res = await r.call({ tool: "t", source: "function execute() { return 1; }", function: "execute" });
  assert.equal(res.status, "error");
  assert.match(res.message, /^jsrun: loading QuickJS: the QuickJS module polls its interrupt handler only every 10,000 operations/);
  const ok = await new Runner({ check: moduleCheck, wasmModule: await WebAssembly.compile(await patchQuickJS(orig)) }).call({ tool: "t", source: "function execute() { return 1; }", function: "execute" });
  assert.equal(ok.status, "success");
});

const bigArray = "const a = []; for (let i = 0; i < 200000; i++) a.push({i});";

test("a JSON.stringify loop over 200,000 objects stops within 1 s of CPU time past its 2 s timeout", { timeout: 5 * THREAD_WAIT_MS + 60000 }, async (t) => {
  const [one, loop] = await inThread([
    { tool: "one", function: "execute", timeoutMs: FAILSAFE_MS,
      source: `function execute() { ${bigArray} const t = Date.now(); const n = JSON.stringify(a).length; return [Date.now() - t, n].join(' '); }` },
    { tool: "big", function: "execute", timeoutMs: 2000,
      source: `function execute() { ${bigArray} let n = 0; for (;;) n += JSON.stringify(a).length; }` },
  ]);
  const [oneMs, len] = String(one?.res.output).split(" ");
  t.diagnostic(`one JSON.stringify of 200,000 objects (${len} characters): ${oneMs} ms`);
  assert.ok(loop, `the loop was still running ${THREAD_WAIT_MS} ms after it started (timeout 2 s); stopped by terminating its thread`);
  t.diagnostic(`the loop ended after ${loop.ms} ms, ${loop.cpuPastMs} ms of CPU time past its timeout: ${loop.res.error_type}: ${loop.res.message}`);
  assert.deepEqual(loop.res, { status: "error", error_type: "timeout", message: "JS tool 'big' execution timed out after 2s", logs: [] });
  assert.ok(loop.cpuPastMs < 1000, `the loop used ${loop.cpuPastMs} ms of CPU time past its timeout`);
});

// Regular expressions poll every 1,000 steps of their own (patched from
// 10,000, see jsrun/patch.js): even steps comparing a back-reference of
// millions of characters then stop well within 1 s of the deadline.
test("a back-reference regex backtracking over 4,000,000 characters stops within 1 s of CPU time past its 1 s timeout", { timeout: 3 * THREAD_WAIT_MS + 60000 }, async (t) => {
  const [re] = await inThread([
    { tool: "re", function: "execute", timeoutMs: 1000, source: "function execute() { return /(a*)\\1c/.test('a'.repeat(4e6)); }" },
  ]);
  assert.ok(re, `the regex was still running ${THREAD_WAIT_MS} ms after it started (timeout 1 s); stopped by terminating its thread`);
  t.diagnostic(`the regex ended after ${re.ms} ms, ${re.cpuPastMs} ms of CPU time past its timeout: ${re.res.error_type}`);
  assert.equal(re.res.error_type, "timeout");
  assert.ok(re.cpuPastMs < 1000, `the regex used ${re.cpuPastMs} ms of CPU time past its timeout`);
});
