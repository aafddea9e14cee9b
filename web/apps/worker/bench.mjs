// Measures the edge worker in workerd on this machine: the first request of
// a new isolate (instantiating toolroute.wasm and loading the built-in
// catalogue), a warm describe, and whole turns against a scripted model on
// loopback (the model answers at once, so this is the worker's own cost:
// module, Durable Object reads and writes, streaming).
//
//	node apps/worker/bench.mjs [-n 30]      (from web/; `make bench-worker`)
//	node apps/worker/bench.mjs -count 5     Go benchmark lines, for `make bench`
//
// Times are wall-clock medians over n runs, workerd included, and the CPU
// time workerd's process spent (Linux, 10 ms ticks); the first request is
// measured once per new workerd process, up to 10 times. With -count, each
// of the count runs starts a new workerd and prints its CPU time up to
// listening (WorkerStartup: workerd's start and the worker's script
// evaluated), its first request (WorkerFirstRequest) and the means of 10 warm describes and 10 turns
// after it; make bench takes the medians.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { buildWorker, exportBuiltin, workerdConfig } from "./build.mjs";
import { freePort, startWorkerd } from "./workerd.js";
import { startFakeModel, text } from "../../packages/toolroute/test/host-fakemodel.js";

const n = Number(process.argv[process.argv.indexOf("-n") + 1]) || 30;
const count = process.argv.includes("-count") ? Number(process.argv[process.argv.indexOf("-count") + 1]) || 5 : 0;

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "toolroute-worker-bench-"));
const port = await freePort();
const base = `http://127.0.0.1:${port}`;
const model = await startFakeModel("openai");
await buildWorker({ out: path.join(tmp, "dist"), bundle: exportBuiltin() });
fs.mkdirSync(path.join(tmp, "storage"));
const config = path.join(tmp, "workerd.capnp");
// The token is checked on every request, as on a deployed worker.
const TOKEN = "bench-token";
fs.writeFileSync(config, workerdConfig({ dir: "dist", port, storage: path.join(tmp, "storage"), bindings: { OPENAI_BASE_URL: model.baseURL, TOOLROUTE_MODEL: "fake", TOOLROUTE_TOKEN: TOKEN } }));
const auth = { authorization: `Bearer ${TOKEN}` };
const get = async (p) => {
  const r = await fetch(base + p, { headers: auth });
  if (!r.ok) throw new Error(`GET ${p}: HTTP ${r.status} ${await r.text()}`);
  return r.text();
};
const post = (p, body) => fetch(base + p, { method: "POST", headers: { ...auth, "content-type": "application/json" }, body: JSON.stringify(body) });

const start = () => startWorkerd(config, { cwd: tmp, base });

// cpu is a process's CPU time in ms (user and system), from /proc: Linux
// only; NaN elsewhere.
function cpu(pid) {
  try {
    const f = fs.readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
    return ((Number(f[11]) + Number(f[12])) * 1000) / 100; // utime, stime in clock ticks (USER_HZ = 100)
  } catch {
    return NaN;
  }
}

const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
const time = async (f) => { const t = performance.now(); await f(); return performance.now() - t; };

// goBench prints count Go benchmark lines per figure: each run a new
// workerd, its first request, then warm describes and turns.
async function goBench() {
  const mean = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length;
  let turn = 0;
  // The Durable Objects' storage made once, as a deployed worker's is.
  const warm = await start();
  await get("/api/health");
  await warm.stop();
  for (let i = 0; i < count; i++) {
    let proc;
    const startWall = await time(async () => (proc = await start()));
    const startup = cpu(proc.pid);
    const before = cpu(proc.pid);
    const first = await time(() => get("/api/health"));
    const firstCPU = cpu(proc.pid) - before;
    const { id } = await (await post("/api/sessions", {})).json();
    const describes = [];
    for (let j = 0; j < 10; j++) describes.push(await time(() => get(`/api/catalogue?session=${id}`)));
    const turns = [];
    const turnsBefore = cpu(proc.pid);
    for (let j = 0; j < 10; j++) {
      model.add(text("ok"));
      turns.push(await time(async () => {
        const body = await (await post(`/api/sessions/${id}/messages`, { text: "hi " + turn++ })).text();
        if (!body.includes("event: done")) throw new Error("the turn did not finish: " + body.slice(-300));
      }));
    }
    const turnsCPU = (cpu(proc.pid) - turnsBefore) / 10;
    await proc.stop();
    const ns = (ms) => Math.round(ms * 1e6);
    console.log(`BenchmarkWorkerStartup\t1\t${ns(startWall)} ns/op\t${startup} cpu-ms`);
    console.log(`BenchmarkWorkerFirstRequest\t1\t${ns(first)} ns/op\t${firstCPU} cpu-ms`);
    console.log(`BenchmarkWorkerDescribeWarm\t10\t${ns(mean(describes))} ns/op`);
    console.log(`BenchmarkWorkerTurn\t10\t${ns(mean(turns))} ns/op\t${turnsCPU} cpu-ms`);
  }
}

try {
  if (count > 0) {
    await goBench();
  } else {
    await human();
  }
} finally {
  await model.close();
  fs.rmSync(tmp, { recursive: true, force: true });
}

async function human() {
  const cold = [];
  const coldCPU = [];
  for (let i = 0; i < Math.min(n, 10); i++) {
    const proc = await start();
    const before = cpu(proc.pid);
    cold.push(await time(() => get("/api/health")));
    coldCPU.push(cpu(proc.pid) - before);
    await proc.stop();
  }
  const proc = await start();
  await get("/api/health");
  const { id } = await (await post("/api/sessions", {})).json();
  const warm = [];
  for (let i = 0; i < n; i++) warm.push(await time(() => get(`/api/catalogue?session=${id}`)));
  const turns = [];
  const turnCPU = [];
  for (let i = 0; i < n; i++) {
    const before = cpu(proc.pid);
    model.add(text("ok"));
    turns.push(await time(async () => {
      const r = await post(`/api/sessions/${id}/messages`, { text: "hi " + i });
      const body = await r.text();
      if (!body.includes("event: done")) throw new Error("the turn did not finish: " + body.slice(-300));
    }));
    turnCPU.push(cpu(proc.pid) - before);
  }
  await proc.stop();
  const ms = (x) => `${x.toFixed(1)} ms`;
  console.log(`first request of a new isolate (instantiate, load ${exportBuiltin().catalogue.manifests.length} manifests): ${ms(median(cold))}, workerd CPU ${ms(median(coldCPU))} (medians of ${cold.length})`);
  console.log(`describe, warm: ${ms(median(warm))} (median of ${n})`);
  console.log(`a turn (one model call, 2 messages stored; the log grows to ${2 * n}): ${ms(median(turns))}, workerd CPU ${ms(median(turnCPU))} (medians of ${n})`);
}
