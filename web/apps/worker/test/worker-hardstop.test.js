// Issue 33's item 5 in the edge worker, in workerd: a JS call ends at its
// timeout whatever it runs, workerd using at most a second of CPU time past
// it (busy.js), and the isolate goes on answering. workerd has no thread to stop QuickJS from and enforces no CPU
// limit of its own (Cloudflare's runtime does, per request: limits.cpu_ms),
// so a call nothing stopped held the isolate, and every request after it,
// for good; the hard stop (jsrun/hardstop.js) is what ends it.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { startTestWorker } from "./worker-harness.js";
import { text, toolCall } from "../../../packages/toolroute/test/host-fakemodel.js";
import { ATTACKS } from "../../../packages/toolroute/test/attacks.js";
import { cpuMs, cpuPast } from "../../../packages/toolroute/test/busy.js";
import { FAILSAFE_MS } from "../../../packages/toolroute/test/conformance-case.js";

const SEARCH = ATTACKS.find((a) => a.name.startsWith("String.indexOf"));
let w;

before(async () => {
  w = await startTestWorker({
    name: "worker-hardstop",
    token: "tok-hardstop",
    tools: {
      "search.json": JSON.stringify({ name: "search", description: "Searches", parameters: { type: "object", properties: {} }, timeoutSeconds: 1 }),
      "search.js": `function execute() { ${SEARCH.body} }\n`,
    },
  });
});

after(async () => {
  await w?.stop();
});

// run makes one call in the worker's runner (the tests' /test/jsrun), given
// up on after FAILSAFE_MS: the call ran on.
async function run(source, c = {}) {
  const r = await w.json("POST", "/test/jsrun", { c: { function: "execute", ...c }, source, server: "" }, AbortSignal.timeout(FAILSAFE_MS));
  return (await r.json()).results[0];
}

test("the worker answers a call first", async () => {
  // QuickJS's first instance in the isolate, which the attacks' times leave out.
  assert.deepEqual(await run("function execute() { return 'ok'; }"), { status: "success", output: "ok", logs: [] });
});

for (const a of ATTACKS) {
  test(`${a.name} in workerd: ends within 1 s of CPU time past its 1 s timeout with a clear result, and the worker still answers`, async (t) => {
    const start = Date.now();
    const past = cpuPast(1000, w.pid);
    const res = await run(`function execute() { ${a.body} }`, { timeout_seconds: 1 });
    const used = past();
    const ms = Date.now() - start;
    t.diagnostic(`ended after ${ms} ms, ${used} ms of workerd's CPU time past its timeout: ${JSON.stringify(res).slice(0, 200)}`);
    assert.ok(a.ok(res), `unclear result: ${JSON.stringify(res)}`);
    assert.ok(used < 1000, `workerd used ${used} ms of CPU time past the call's timeout`);
    assert.deepEqual(await run("function execute() { return 'ok'; }"), { status: "success", output: "ok", logs: [] });
  });
}

test("in a turn the model reads the stopped call's timeout and answers; the session's next turn runs", async () => {
  const id = (await (await w.json("POST", "/api/sessions", {})).json()).id;
  w.model.add(toolCall("search", "{}"), text("It took too long."), text("Still here."));
  const from = w.model.requests.length;
  const turn = async (body) => {
    const r = await w.json("POST", `/api/sessions/${id}/messages`, body, AbortSignal.timeout(FAILSAFE_MS));
    assert.equal(r.status, 200);
    const events = (await r.text()).split("\n\n").filter((b) => b.includes("data: ")).map((b) => JSON.parse(b.slice(b.indexOf("data: ") + 6)));
    return events.at(-1);
  };
  const done = await turn({ text: "Search." });
  assert.equal(done.type, "done", JSON.stringify(done));
  assert.equal(done.text, "It took too long.");
  const sent = JSON.stringify(w.model.requests[from + 1].json.messages.at(-1));
  assert.match(sent, /JS tool 'search' execution timed out after 1s/);
  assert.equal((await turn({ text: "Still there?" })).text, "Still here.");
});

// Last: it stops the worker. workerd handles SIGTERM on the thread its
// isolate runs on, so it ends only once the running JS returns: a call that
// ran for good held it for good (it never ended); now the call ends at its
// timeout, and workerd with it, having used at most a second of CPU time
// past it. (An endless loop with a 30 s timeout held it 29 s after
// SIGTERM.) Its CPU time is read until it ends, every 10 ms.
test("workerd ends on SIGTERM within a second of CPU time past the running JS call's timeout, whatever the call runs", async (t) => {
  const call = run(`function execute() { ${SEARCH.body} }`, { timeout_seconds: 1 }).catch((e) => e);
  const deadline = Date.now() + 1000; // about: the call starts now
  let atDeadline = null;
  let last = null;
  const read = setInterval(() => {
    const cpu = cpuMs(w.pid);
    if (cpu === null) return;
    last = cpu;
    if (atDeadline === null && Date.now() >= deadline) atDeadline = cpu;
  }, 10);
  await new Promise((r) => setTimeout(r, 300)); // the search runs
  const start = Date.now();
  const code = await w.stopWorkerd(FAILSAFE_MS); // then SIGKILL
  clearInterval(read);
  const ms = Date.now() - start;
  const used = atDeadline === null || last === null ? 0 : last - atDeadline;
  t.diagnostic(`workerd ended ${ms} ms after SIGTERM (${code}), using ${used} ms of CPU time past the call's timeout`);
  assert.equal(code, 0, `workerd was killed ${FAILSAFE_MS} ms after SIGTERM: the call ran on`);
  assert.ok(used < 1000, `workerd used ${used} ms of CPU time past the call's timeout`);
  await call;
});
