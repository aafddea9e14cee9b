// Node's side of running JS tool calls in worker threads (package.json's
// #threads in Node; elsewhere threads-none.js). QuickJS runs in the thread
// (thread-worker.js, over engine.js); the call's bridges stay here, on the
// caller's thread, reached by messages: the asynchronous ones (fetch, the
// host's ops) as a request and an answer, the synchronous ones (fs, lib,
// _time) with the thread waiting on a shared flag (Atomics.wait) for the
// answer, which it takes with receiveMessageOnPort.
//
// # Why
//
// QuickJS on the caller's thread holds it for the whole call: no timer, no
// message and no signal handler runs until the call ends. A Node program
// that stops on SIGTERM or Ctrl-C (process.on("SIGINT", ...)) waited for
// the tool's timeout, 30 s by default, and a cancel (a turn's signal
// aborted by a timer or a client leaving) reached a loop that never waits
// only at its deadline. Here the caller's thread is free: a cancel sets the
// shared flag the interrupt handler reads, and stops the JS at once.
//
// # Stops
//
// A call the hard stop (hardstop.js) did not end THREAD_STOP_AFTER_MS after
// it, and a canceled call still running CANCEL_GRACE_MS after the cancel,
// are ended with their thread (Worker.terminate), which V8 does even inside
// wasm; the next call gets another thread.
//
// # Cost
//
// A thread is kept for the next call (MAX_IDLE per compiled module, not
// keeping the program alive while idle): a call costs two messages more
// than on the caller's thread, and a synchronous bridge call a round trip;
// a new thread costs about 40 ms (jsrun/bench.mjs, `make bench`).
import { Worker, MessageChannel } from "node:worker_threads";
import { HARD_STOP_AFTER_MS } from "./hardstop.js";

// loadEngine gives engine.js (QuickJS's glue and the bridges' prelude) for
// a call run on the caller's thread (the Runner's thread: false), imported
// then: the threads import it themselves, and the caller's thread of a
// program whose calls run there never needs it.
let engine = null;
export const loadEngine = () => (engine ??= import("./engine.js"));

// The cells of the flags a thread shares with this side.
export const FLAG_ANSWER = 0; // 1 once a synchronous bridge call's answer is posted
export const FLAG_CANCEL = 1; // 1 once the call is canceled

// THREAD_STOP_AFTER_MS is how long after the hard stop a call still running
// is ended with its thread: the call ends within a second of its deadline.
const THREAD_STOP_AFTER_MS = 400;
// CANCEL_GRACE_MS is how long a canceled call has to end by itself (at the
// next interrupt poll) before its thread is ended.
const CANCEL_GRACE_MS = 500;
// MAX_IDLE is how many threads are kept for the next calls, per module.
const MAX_IDLE = 4;

const idle = new WeakMap(); // WebAssembly.Module -> [Thread]

export const Threads = {
  // run runs job (engine.js's Engine's c) in a thread compiled module runs
  // in, with host's bridges (runner.js's CallHost): the engine's result,
  // with the call's deadline. It throws when QuickJS could not be loaded.
  async run(module, job, host) {
    const t = idle.get(module)?.pop() ?? new Thread(module);
    const res = await t.run(job, host);
    if (res.loadError !== undefined) throw new Error(res.loadError);
    return res;
  },
};

// Thread is one worker thread and what it shares.
class Thread {
  constructor(module) {
    this.module = module;
    this.flags = new Int32Array(new SharedArrayBuffer(8));
    const { port1, port2 } = new MessageChannel();
    this.answers = port1;
    this.worker = new Worker(new URL("./thread-worker.js", import.meta.url), {
      workerData: { module, flags: this.flags, answers: port2 },
      transferList: [port2],
      // Not the program's: `node --input-type=module -e ...` would not
      // start the thread, and the thread needs no flag.
      execArgv: [],
    });
    this.worker.unref();
  }

  // keep puts the thread back among the idle ones, or ends it.
  keep() {
    const list = idle.get(this.module) ?? [];
    idle.set(this.module, list);
    if (list.length < MAX_IDLE) {
      this.worker.unref();
      list.push(this);
    } else {
      this.end();
    }
  }

  end() {
    this.worker.terminate().catch(() => {});
    this.answers.close();
  }

  run(job, host) {
    const w = this.worker;
    w.ref(); // a call running keeps the program alive, as on its own thread
    Atomics.store(this.flags, FLAG_CANCEL, 0);
    return new Promise((resolve) => {
      let deadline;
      let watchdog = null;
      let grace = null;
      let finished = false;
      const finish = (res, keep) => {
        if (finished) return;
        finished = true;
        clearTimeout(watchdog);
        clearTimeout(grace);
        w.off("message", onMessage);
        w.off("error", onError);
        w.off("exit", onExit);
        host.onCancel = null;
        if (keep) this.keep();
        else this.end();
        resolve({ ...res, deadline });
      };
      const onMessage = (m) => {
        switch (m.type) {
          case "sync":
            this.#answer(host.bridges, m);
            return;
          case "console":
            host.bridges.console(m.level, m.text);
            return;
          case "async": {
            const reply = (a) => {
              if (!finished) w.postMessage({ type: "answer", id: m.id, ...a });
            };
            const fn = ASYNC.includes(m.name) ? host.bridges[m.name] : () => Promise.reject(new Error(`no bridge ${m.name}`));
            fn(...m.args).then((value) => reply({ value }), (e) => reply({ error: String(e?.message ?? e) }));
            return;
          }
          case "started":
            deadline = m.deadline;
            watchdog = setTimeout(() => finish({ error: "timed out" }, false), Math.max(0, deadline + HARD_STOP_AFTER_MS + THREAD_STOP_AFTER_MS - Date.now()));
            return;
          case "done":
            finish(m.res, m.res.loadError === undefined);
            return;
        }
      };
      // Before the call started, the thread could not load QuickJS.
      const broke = (name, message) => finish(deadline === undefined ? { loadError: `its worker thread: ${message}` } : { trap: { name, message } }, false);
      const onError = (e) => broke(String(e?.name ?? "Error"), String(e?.message ?? e));
      const onExit = (code) => broke("Error", `its thread exited (${code})`);
      host.onCancel = () => {
        Atomics.store(this.flags, FLAG_CANCEL, 1);
        w.postMessage({ type: "cancel" });
        grace ??= setTimeout(() => finish({ error: "canceled" }, false), CANCEL_GRACE_MS);
      };
      w.on("message", onMessage);
      w.on("error", onError);
      w.on("exit", onExit);
      w.postMessage({ type: "call", job });
      if (host.canceled) host.onCancel();
    });
  }

  // #answer serves a synchronous bridge call: the answer is posted first,
  // then the flag the thread waits on is raised.
  #answer(bridges, m) {
    let reply;
    try {
      if (!SYNC.includes(m.name)) throw new Error(`no bridge ${m.name}`);
      reply = { value: bridges[m.name](...m.args) };
    } catch (e) {
      reply = { error: String(e?.message ?? e) };
    }
    this.answers.postMessage(reply);
    Atomics.store(this.flags, FLAG_ANSWER, 1);
    Atomics.notify(this.flags, FLAG_ANSWER);
  }
}

// The bridges a thread may call (engine.js), by how they answer.
export const SYNC = ["time", "fsRead", "fsWrite", "fsExists", "lib"];
const ASYNC = ["fetch", "host"];
