// A worker thread that runs JS tool calls for threads.js, one at a time:
// QuickJS (engine.js) here, its bridges on the caller's thread. A
// synchronous bridge call posts its request, then waits on the shared flag
// for the answer, which it takes from its own port (receiveMessageOnPort):
// the thread's event loop does not run while QuickJS does.
import { parentPort, workerData, receiveMessageOnPort } from "node:worker_threads";
import { Engine, newInstance } from "./engine.js";
import { FLAG_ANSWER, FLAG_CANCEL, SYNC } from "./threads.js";

const { module, flags, answers } = workerData;
let engine = null;
const waiting = new Map(); // an asynchronous bridge call's id -> {resolve, reject}
let nextID = 1;

const sync = (name) => (...args) => {
  Atomics.store(flags, FLAG_ANSWER, 0);
  parentPort.postMessage({ type: "sync", name, args });
  Atomics.wait(flags, FLAG_ANSWER, 0);
  const { message } = receiveMessageOnPort(answers);
  if (message.error !== undefined) throw new Error(message.error);
  return message.value;
};
const async = (name) => (...args) => new Promise((resolve, reject) => {
  const id = nextID++;
  waiting.set(id, { resolve, reject });
  parentPort.postMessage({ type: "async", id, name, args });
});
const bridges = {
  console: (level, text) => parentPort.postMessage({ type: "console", level, text }),
  fetch: async("fetch"),
  host: async("host"),
  ...Object.fromEntries(SYNC.map((name) => [name, sync(name)])),
};

parentPort.on("message", async (m) => {
  if (m.type === "call") {
    waiting.clear();
    let instance;
    try {
      instance = await newInstance(module, m.job.memoryLimit);
    } catch (e) {
      parentPort.postMessage({ type: "done", res: { loadError: String(e?.message ?? e) } });
      return;
    }
    engine = new Engine(instance, m.job, bridges, () => Atomics.load(flags, FLAG_CANCEL) === 1);
    parentPort.postMessage({ type: "started", deadline: engine.deadline });
    const res = await engine.run();
    engine = null;
    parentPort.postMessage({ type: "done", res });
  } else if (m.type === "answer") {
    const w = waiting.get(m.id);
    waiting.delete(m.id);
    if (m.error !== undefined) w?.reject(new Error(m.error));
    else w?.resolve(m.value);
  } else if (m.type === "cancel") {
    engine?.cancel();
  }
});
