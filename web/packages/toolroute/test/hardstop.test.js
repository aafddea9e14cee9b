// Issue 33's item 5 in the JS hosts' runner, in Node: whatever a JS call
// runs, it ends at its timeout, using at most a second of CPU time past it,
// with an error the model can read, and the runner's next call runs. Each
// attack runs in a thread of its own (in-thread.js), so that one that
// escapes fails its test rather than hanging the run.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { inThread, THREAD_WAIT_MS } from "./in-thread.js";
import { patchQuickJS } from "../jsrun/patch.js";
import { addHardStop, HARD_DEADLINE_EXPORT, LOOP_POLL_EVERY } from "../jsrun/hardstop.js";
import { Runner } from "../jsrun/runner.js";
import { ATTACKS } from "./attacks.js";
import { cpuMs } from "./busy.js";
import { FAILSAFE_MS } from "./conformance-case.js";
import { moduleCheck } from "./module-check.js";

const TIMEOUT_MS = 1000;

for (const a of ATTACKS) {
  test(`${a.name}: ends within 1 s of CPU time past its timeout with a clear result, and the next call runs`, { timeout: 4 * THREAD_WAIT_MS + 60000 }, async (t) => {
    const [warm, res, next] = await inThread([
      // The first call compiles QuickJS, which the attack's time leaves out.
      { tool: "warm", function: "execute", source: "function execute() { return 'warm'; }" },
      { tool: "attack", function: "execute", timeoutMs: TIMEOUT_MS, source: `function execute() { ${a.body} }` },
      { tool: "next", function: "execute", timeoutMs: FAILSAFE_MS, source: "function execute() { return 'next'; }" },
    ]);
    assert.equal(warm?.res.output, "warm");
    assert.ok(res, `still running ${THREAD_WAIT_MS} ms after it started (timeout ${TIMEOUT_MS} ms); stopped by terminating its thread`);
    t.diagnostic(`ended after ${res.ms} ms, ${res.cpuPastMs} ms of CPU time past its timeout: ${JSON.stringify(res.res).slice(0, 200)}`);
    assert.ok(res.cpuPastMs < 1000, `used ${res.cpuPastMs} ms of CPU time past its timeout`);
    assert.ok(a.ok(res.res), `unclear result: ${JSON.stringify(res.res)}`);
    assert.deepEqual(next?.res, { status: "success", output: "next", logs: [] });
  });
}

const orig = await readFile(new URL(import.meta.resolve("@jitl/quickjs-ng-wasmfile-release-sync/wasm")));

test("the hard stop adds a check at every loop, exports its deadline and moves no index", async () => {
  const plain = await patchQuickJS(orig, { hardStop: false });
  const hard = await patchQuickJS(orig);
  const m = await WebAssembly.compile(hard);
  const before = WebAssembly.Module.exports(await WebAssembly.compile(plain));
  const after = WebAssembly.Module.exports(m);
  // Every export of the module is where it was, and the deadline is added.
  assert.deepEqual(after.slice(0, before.length), before);
  assert.deepEqual(after.slice(before.length), [{ name: HARD_DEADLINE_EXPORT, kind: "global" }]);
  assert.deepEqual(WebAssembly.Module.imports(m), WebAssembly.Module.imports(await WebAssembly.compile(plain)));
  assert.throws(() => addHardStop(plain, ["a", "nothing"]), { message: /no clock import a\.nothing/ });
  assert.throws(() => addHardStop(plain, ["a", "q"]), { message: /a\.q is not a function \(\) -> f64/ });
  assert.ok(LOOP_POLL_EVERY >= 1000);
});

test("a call past its hard deadline traps; with none set nothing does", async () => {
  // Straight on the module, so that the runner's own interrupt plays no part.
  const { newQuickJSWASMModuleFromVariant, newVariant } = await import("quickjs-emscripten-core");
  const variant = (await import("@jitl/quickjs-ng-wasmfile-release-sync")).default;
  const wasm = await WebAssembly.compile(await patchQuickJS(orig));
  let exports;
  const qjs = await newQuickJSWASMModuleFromVariant(newVariant(variant, {
    emscriptenModule: {
      printErr: () => {},
      instantiateWasm(imports, onSuccess) {
        WebAssembly.instantiate(wasm, imports).then((i) => {
          exports = i.exports;
          onSuccess(i);
        });
        return {};
      },
    },
  }));
  const vm = qjs.newContext();
  const r = vm.evalCode(`"a".repeat(2e4).indexOf("a".repeat(1e4) + "b")`);
  assert.equal(vm.dump(r.value ?? r.error), -1); // 10^8 steps, no deadline
  r.dispose();
  // The call runs on this thread: at most 200 ms of its CPU time come
  // before the deadline, and at most a second after it.
  exports[HARD_DEADLINE_EXPORT].value = Date.now() + 200;
  const cpu = cpuMs();
  assert.throws(() => vm.evalCode(`"a".repeat(2e5).indexOf("a".repeat(1e5) + "b")`), { name: "RuntimeError", message: /unreachable/ });
  assert.ok(cpuMs() - cpu < 1200, `trapped after ${cpuMs() - cpu} ms of CPU time`);
});

test("Runner refuses a QuickJS module without the hard stop", async () => {
  const r = new Runner({ check: moduleCheck, wasmModule: await WebAssembly.compile(await patchQuickJS(orig, { hardStop: false })) });
  const res = await r.call({ tool: "t", source: "function execute() { return 1; }", function: "execute" });
  assert.equal(res.status, "error");
  assert.match(res.message, /^jsrun: loading QuickJS: the QuickJS module has no hard stop \(its toolroute_hard_deadline export\)/);
});
