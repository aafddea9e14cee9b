// Measures what the per-operation interrupt poll (patch.js) costs JS tools
// in the JS hosts' QuickJS, here in Node's V8: a loop of trivial operations,
// `for (let i = 0; i < 1e7; i++) n += i`, the worst case (one poll per turn
// and nothing else to do), run
//
//   - none: in the package's build with no interrupt handler;
//   - poll-every-10000-ops: in the package's build with the runner's handler,
//     polled every 10,000 operations (before the patch);
//   - interrupt-handler: in the patched build with the runner's handler,
//     polled at every operation (what Runner does).
//
// It prints Go benchmark lines, which `make bench` (internal/benchreport)
// reads: ns/op is one loop, ns/turn one turn of it.
//
//	node jsrun/bench.mjs [-count 5]      (from web/)
import { readFile } from "node:fs/promises";
import { newQuickJSWASMModuleFromVariant, newVariant } from "quickjs-emscripten-core";
import quickjsVariant from "@jitl/quickjs-ng-wasmfile-release-sync";
import { patchQuickJS } from "./patch.js";

const count = Number(process.argv[process.argv.indexOf("-count") + 1]) || 5;
const TURNS = 1e7;
const LOOP = `let n = 0; for (let i = 0; i < ${TURNS}; i++) n += i; n`;

const orig = await readFile(new URL(import.meta.resolve("@jitl/quickjs-ng-wasmfile-release-sync/wasm")));
const quickjs = async (wasm) => newQuickJSWASMModuleFromVariant(newVariant(quickjsVariant, { wasmModule: await WebAssembly.compile(wasm) }));
const variants = [
  { name: "none", qjs: await quickjs(orig), handler: false },
  { name: "poll-every-10000-ops", qjs: await quickjs(orig), handler: true },
  { name: "interrupt-handler", qjs: await quickjs(await patchQuickJS(orig)), handler: true },
];

// loop runs LOOP once in a fresh runtime: its time in ns.
function loop({ qjs, handler }) {
  const rt = qjs.newRuntime();
  const vm = rt.newContext();
  if (handler) {
    // Runner's handler (runner.js, Call), its deadline an hour ahead.
    const call = { canceled: false, deadline: Date.now() + 3600_000 };
    rt.setInterruptHandler(() => call.canceled || Date.now() >= call.deadline);
  }
  const start = process.hrtime.bigint();
  const r = vm.evalCode(LOOP);
  const ns = Number(process.hrtime.bigint() - start);
  if (r.error) throw new Error(JSON.stringify(vm.dump(r.error)));
  r.dispose();
  vm.dispose();
  rt.dispose();
  return ns;
}

// V8 compiles wasm fast first and optimises what runs long: the first loop
// in each module is the slower code's.
for (const v of variants) loop(v);
// Interleaved, so that a busy moment of the machine hits every variant.
for (let i = 0; i < count; i++) {
  for (const v of variants) {
    const ns = loop(v);
    console.log(`BenchmarkJSTrivialLoop/${v.name}\t1\t${ns} ns/op\t${(ns / TURNS).toFixed(1)} ns/turn`);
  }
}
