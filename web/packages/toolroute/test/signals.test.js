// Issue 33's item 5 for a Node program that uses the package: SIGTERM and
// Ctrl-C (SIGINT) end it within 2 s of its CPU time while a JS tool call
// runs (busy.js: by the clock, a busy machine takes longer). A program
// that handles neither dies at once, whatever runs; one that handles them
// (to stop its turn, to save its state) runs its handler only when its
// thread is free, which QuickJS on that thread kept it from until the call's
// timeout. The runner runs each call in a worker thread in Node
// (jsrun/threads.js): the handler runs at once, and the cancel it makes
// stops the call.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { cpuMs } from "./busy.js";

const web = path.dirname(path.dirname(fileURLToPath(import.meta.url)));

// PROGRAM is a program using the package: on SIGTERM or SIGINT it aborts
// its call ("abort", then it ends when the call does) or exits ("exit").
// Its call's timeout is never reached: the test gives up long before. As it
// ends it prints the CPU time it used.
const PROGRAM = `
import { Runner } from "toolroute/jsrun";
import { moduleCheck } from "${new URL("./module-check.js", import.meta.url).href}";
const [mode, source] = process.argv.slice(1); // -e: no script name
process.on("exit", () => {
  const { user, system } = process.cpuUsage();
  process.stderr.write("cpu-ms " + (user + system) / 1000 + "\\n");
});
const ctl = new AbortController();
for (const sig of ["SIGTERM", "SIGINT"]) {
  process.on(sig, () => {
    if (mode === "exit") process.exit(130);
    ctl.abort();
  });
}
const r = new Runner({ check: moduleCheck });
await r.call({ tool: "warm", function: "execute", source: "function execute() { return 1; }" });
console.log("running");
const res = await r.call({ tool: "spin", function: "execute", source, timeoutMs: 600000, signal: ctl.signal });
console.log(JSON.stringify(res));
`;

const LOOP = "function execute() { for (;;) {} }";

// STOP_FAILSAFE_MS is how long by the clock a signalled program may take:
// far past what a busy machine needs, far short of its call's timeout.
const STOP_FAILSAFE_MS = 60000;
const SEARCH = 'function execute() { return "a".repeat(2e5).indexOf("a".repeat(1e5) + "b"); }';

// stopped starts the program, sends sig once its call runs and gives how
// long it took to end after it, the CPU time it used after it (null where
// that is not measured) and what it printed; a program still running a
// minute after the signal is killed, and the test fails.
async function stopped(mode, source, sig) {
  const child = spawn(process.execPath, ["--input-type=module", "-e", PROGRAM, mode, source], { cwd: web, stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  let err = "";
  child.stderr.on("data", (d) => (err += d));
  const exited = new Promise((resolve) => child.on("exit", (code, signal) => resolve({ code, signal })));
  await new Promise((resolve, reject) => {
    child.stdout.on("data", (d) => {
      out += d;
      if (out.includes("running\n")) resolve();
    });
    exited.then(() => reject(new Error(`the program ended before its call: ${err}`)));
  });
  await new Promise((r) => setTimeout(r, 500)); // the call is in its loop
  const before = cpuMs(child.pid);
  const start = Date.now();
  child.kill(sig);
  const kill = setTimeout(() => child.kill("SIGKILL"), STOP_FAILSAFE_MS);
  const how = await exited;
  clearTimeout(kill);
  const ms = Date.now() - start;
  const total = err.match(/^cpu-ms ([\d.]+)$/m);
  return { ms, cpuMs: before === null || !total ? null : Number(total[1]) - before, out, err, ...how };
}

for (const [mode, source, sig, what] of [
  ["abort", LOOP, "SIGTERM", "an endless loop"],
  ["abort", SEARCH, "SIGINT", "one built-in call that runs for good"],
  ["exit", SEARCH, "SIGTERM", "one built-in call that runs for good"],
]) {
  test(`a program that ${mode === "abort" ? "aborts its call" : "exits"} on ${sig} ends within 2 s of CPU time while its JS tool runs ${what}`, { timeout: STOP_FAILSAFE_MS + 120000 }, async (t) => {
    const r = await stopped(mode, source, sig);
    t.diagnostic(`ended ${r.ms} ms after ${sig}, using ${r.cpuMs} ms of CPU time (code ${r.code}, signal ${r.signal}): ${r.out.trim().split("\n").at(-1)}`);
    assert.notEqual(r.signal, "SIGKILL", `still running ${STOP_FAILSAFE_MS} ms after ${sig}: ${r.err}`);
    if (r.cpuMs !== null) assert.ok(r.cpuMs < 2000, `used ${r.cpuMs} ms of CPU time after ${sig}`);
    if (mode === "abort") {
      assert.equal(r.code, 0, r.err);
      assert.deepEqual(JSON.parse(r.out.trim().split("\n").at(-1)), { status: "error", error_type: "canceled", message: "JS tool 'spin' was canceled", logs: [] });
    } else {
      assert.equal(r.code, 130, r.err);
    }
  });
}
