// Measures what the per-operation interrupt poll (patch.js) and the hard
// stop (hardstop.js) cost JS tools in the JS hosts' QuickJS, here in Node's
// V8. Two loops, each run in a fresh runtime:
//
//   - JSTrivialLoop: `for (let i = 0; i < 1e7; i++) n += i`, the worst case
//     for the poll (one poll per turn and nothing else to do);
//   - JSNativeLoop: 3 rounds of built-in calls that loop in QuickJS's C
//     code, the worst case for the hard stop (its countdown at every turn of a C loop,
//     where the poll is not): indexOf over 8 MB, JSON.stringify of 50,000
//     objects, a sort of 100,000 numbers;
//
// each in
//
//   - none: the package's build with no interrupt handler;
//   - poll-every-10000-ops: the package's build with the runner's handler,
//     polled every 10,000 operations (before the patch);
//   - interrupt-handler: patched to poll the runner's handler at every
//     operation, without the hard stop;
//   - hard-stop: that and the hard stop (what Runner does).
//
// Then whole Runner calls (QuickJS's instance, the prelude, the call), on
// the caller's thread (here, thread: false) and in a kept worker thread
// (thread, what Runner does in Node; jsrun/threads.js):
//
//   - JSCall: a call returning 1;
//   - JSBridgeCalls: a call making 1,000 synchronous bridge calls
//     (fs.exists), each a round trip to the caller's thread from a thread.
//
// It prints Go benchmark lines, which `make bench` (internal/benchreport)
// reads: ns/op is one loop or one call, ns/turn one turn of the trivial
// loop.
//
//	node packages/toolroute/jsrun/bench.mjs [-count 5]      (from web/)
import { readFile } from "node:fs/promises";
import { newQuickJSWASMModuleFromVariant, newVariant } from "quickjs-emscripten-core";
import quickjsVariant from "@jitl/quickjs-ng-wasmfile-release-sync";
import { patchQuickJS } from "./patch.js";
import { Runner, MemoryStore } from "./runner.js";

const count = Number(process.argv[process.argv.indexOf("-count") + 1]) || 5;
const TURNS = 1e7;
const LOOPS = {
  JSTrivialLoop: `let n = 0; for (let i = 0; i < ${TURNS}; i++) n += i; n`,
  JSNativeLoop: `let s = "a".repeat(8 << 20), objs = [], nums = [], n = 0;
    for (let i = 0; i < 50000; i++) objs.push({ i, name: "item " + i });
    for (let i = 0; i < 100000; i++) nums.push((i * 7919) % 100003);
    for (let k = 0; k < 3; k++) n += s.indexOf("b") + JSON.stringify(objs).length + nums.slice().sort().length;
    n`,
};

const orig = await readFile(new URL(import.meta.resolve("@jitl/quickjs-ng-wasmfile-release-sync/wasm")));
const quickjs = async (wasm) => newQuickJSWASMModuleFromVariant(newVariant(quickjsVariant, { wasmModule: await WebAssembly.compile(wasm) }));
const variants = [
  { name: "none", qjs: await quickjs(orig), handler: false },
  { name: "poll-every-10000-ops", qjs: await quickjs(orig), handler: true },
  { name: "interrupt-handler", qjs: await quickjs(await patchQuickJS(orig, { hardStop: false })), handler: true },
  { name: "hard-stop", qjs: await quickjs(await patchQuickJS(orig)), handler: true },
];

// loop runs code once in a fresh runtime: its time in ns.
function loop({ qjs, handler }, code) {
  const rt = qjs.newRuntime();
  rt.setMemoryLimit(256 << 20);
  const vm = rt.newContext();
  if (handler) {
    // Runner's handler (runner.js, Call), its deadline an hour ahead.
    const call = { canceled: false, deadline: Date.now() + 3600_000 };
    rt.setInterruptHandler(() => call.canceled || Date.now() >= call.deadline);
  }
  const start = process.hrtime.bigint();
  const r = vm.evalCode(code);
  const ns = Number(process.hrtime.bigint() - start);
  if (r.error) throw new Error(JSON.stringify(vm.dump(r.error)));
  r.dispose();
  vm.dispose();
  rt.dispose();
  return ns;
}

// V8 compiles wasm fast first and optimises what runs long: the first loop
// in each module is the slower code's.
for (const v of variants) for (const code of Object.values(LOOPS)) loop(v, code);
// Interleaved, so that a busy moment of the machine hits every variant.
for (let i = 0; i < count; i++) {
  for (const [bench, code] of Object.entries(LOOPS)) {
    for (const v of variants) {
      const ns = loop(v, code);
      const perTurn = bench === "JSTrivialLoop" ? `\t${(ns / TURNS).toFixed(1)} ns/turn` : "";
      console.log(`Benchmark${bench}/${v.name}\t1\t${ns} ns/op${perTurn}`);
    }
  }
}

// Whole calls: CALLS of each kind per line, after one to warm up.
const CALLS = 20;
const runners = [
  { name: "here", runner: new Runner({ thread: false, store: new MemoryStore() }) },
  { name: "thread", runner: new Runner({ store: new MemoryStore() }) },
];
const CALL_KINDS = {
  JSCall: "function execute() { return 1; }",
  JSBridgeCalls: "function execute() { let n = 0; for (let i = 0; i < 1000; i++) if (fs.exists('f' + i)) n++; return n; }",
};
for (const { runner } of runners) for (const source of Object.values(CALL_KINDS)) await runner.call({ tool: "b", function: "execute", source });
for (let i = 0; i < count; i++) {
  for (const [bench, source] of Object.entries(CALL_KINDS)) {
    for (const { name, runner } of runners) {
      const start = process.hrtime.bigint();
      for (let k = 0; k < CALLS; k++) {
        const res = await runner.call({ tool: "b", function: "execute", source });
        if (res.status !== "success") throw new Error(JSON.stringify(res));
      }
      const ns = Number(process.hrtime.bigint() - start) / CALLS;
      console.log(`Benchmark${bench}/${name}\t${CALLS}\t${Math.round(ns)} ns/op`);
    }
  }
}
