// inThread runs web/packages/toolroute/jsrun's Runner in a thread of its own, so that a test
// of a call that might never end can end: the thread is terminated.
import { Worker } from "node:worker_threads";
import { cpuPast } from "./busy.js";

// THREAD_WAIT_MS is how long inThread lets a call run before it gives up on
// it (terminating its thread): a failsafe, far past what a call that stops
// at its timeout takes on a busy machine.
export const THREAD_WAIT_MS = Number(process.env.TOOLROUTE_MEASURE_MS) || 60000;

// inThread runs Runner calls one after another in a thread of its own, so
// that a call that does not end can be stopped: it gives each call's {ms,
// res, cpuPastMs}, and null for the first one still running THREAD_WAIT_MS
// after it started and those after it. cpuPastMs is the CPU time the
// process used from the call's timeoutMs after its start to its end (0 if
// it ended before): what a call that runs past its deadline burns.
export async function inThread(calls) {
  const worker = new Worker(`
    const { parentPort, workerData } = require("node:worker_threads");
    Promise.all([import(workerData.runner), import(workerData.check)]).then(async ([{ Runner }, { moduleCheck }]) => {
      const r = new Runner({ check: moduleCheck });
      for (const c of workerData.calls) {
        parentPort.postMessage({ started: true });
        const start = Date.now();
        const res = await r.call(c);
        parentPort.postMessage({ ms: Date.now() - start, res });
      }
    });
  `, { eval: true, workerData: { runner: new URL("../jsrun/runner.js", import.meta.url).href, check: new URL("./module-check.js", import.meta.url).href, calls } });
  const messages = [];
  let error = null;
  let wake = null;
  worker.on("message", (m) => {
    messages.push(m);
    wake?.();
  });
  worker.on("error", (e) => {
    error = e;
    wake?.();
  });
  // next is the thread's next message, or null after ms.
  const next = (ms) => new Promise((resolve, reject) => {
    const take = () => {
      wake = null;
      clearTimeout(timer);
      if (error) reject(error);
      else resolve(messages.shift());
    };
    const timer = setTimeout(() => {
      wake = null;
      resolve(null);
    }, ms);
    if (messages.length || error) take();
    else wake = take;
  });
  const out = calls.map(() => null);
  try {
    for (let i = 0; i < calls.length; i++) {
      await next(2 * THREAD_WAIT_MS); // started: the thread's QuickJS compiles first
      const past = cpuPast(calls[i].timeoutMs ?? THREAD_WAIT_MS);
      const m = await next(THREAD_WAIT_MS);
      const cpuPastMs = past();
      if (!m) break;
      out[i] = { ...m, cpuPastMs };
    }
  } finally {
    await worker.terminate();
  }
  return out;
}
