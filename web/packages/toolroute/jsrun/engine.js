// The QuickJS side of a JS tool call: a module instance, its runtime and
// context, the prelude, the tool's source and the job loop, with the host
// functions the prelude captures handed to a bridges object. Runner
// (runner.js) runs it on the caller's thread, or in Node in a worker thread
// (threads.js) whose bridges are the caller's, reached by messages; nothing
// here does I/O of its own.
//
// bridges (each is the host's: see runner.js's CallHost):
//   console(level, text), time(zone, format) -> string, fsRead(path) ->
//   string, fsWrite(path, content, append), fsExists(path) -> boolean,
//   lib(name) -> string: synchronous, throwing an Error the tool catches;
//   fetch(url, options) and host(op, args): promises of a string.
import { newQuickJSWASMModuleFromVariant, newVariant } from "quickjs-emscripten-core";
import defaultVariant from "@jitl/quickjs-ng-wasmfile-release-sync";
import { PRELUDE } from "#prelude";
import { POLL_EVERY } from "./patch.js";
import { HARD_DEADLINE_EXPORT, HARD_STOP_AFTER_MS } from "./hardstop.js";

export { HARD_STOP_AFTER_MS };
// INITIAL_MEMORY is the module's memory at start, Emscripten's default.
const INITIAL_MEMORY = 16 << 20;

// newInstance returns a new QuickJS module instance over wasmModule (a
// compiled, patched quickjs.wasm), with a memory whose maximum is
// memoryLimit: {qjs, hardDeadline}, hardDeadline the hard stop's global.
export async function newInstance(wasmModule, memoryLimit, variant = defaultVariant) {
  const pages = (n) => Math.ceil(n / 65536);
  const wasmMemory = new WebAssembly.Memory({
    initial: pages(INITIAL_MEMORY),
    maximum: pages(Math.max(memoryLimit, 2 * INITIAL_MEMORY)),
  });
  let exports = null;
  let failed;
  const instantiated = new Promise((_, reject) => (failed = reject));
  const v = newVariant(variant, {
    wasmMemory,
    emscriptenModule: {
      printErr: () => {}, // an abort's message: the call says what broke
      // Instantiated here rather than by newVariant's wasmModule, for the
      // hard stop's global among the exports.
      instantiateWasm(imports, onSuccess) {
        WebAssembly.instantiate(wasmModule, imports).then((instance) => {
          exports = instance.exports;
          onSuccess(instance);
        }, failed);
        return {};
      },
    },
  });
  // An instantiation that fails (a memory too small for the module) ends
  // the wait, which emscripten's loader would not.
  const qjs = await Promise.race([newQuickJSWASMModuleFromVariant(v), instantiated]);
  if (!pollChecked.has(wasmModule)) {
    if (!pollsEveryOperation(qjs)) throw new Error(NOT_PATCHED);
    pollChecked.add(wasmModule);
  }
  const hardDeadline = exports?.[HARD_DEADLINE_EXPORT];
  if (!(hardDeadline instanceof WebAssembly.Global)) throw new Error(NO_HARD_STOP);
  return { qjs, hardDeadline };
}

// Engine is one call's runtime and context: c is {source, sourceRef,
// function, params (JSON), timeoutMs, memoryLimit, maxStackSize}.
// canceled() tells whether the call was canceled; cancel() wakes a wait.
export class Engine {
  #pending = new Set(); // host promises not yet settled
  #wake = null;
  #closed = false;

  constructor({ qjs, hardDeadline }, c, bridges, canceled) {
    this.c = c;
    this.bridges = bridges;
    this.canceled = canceled;
    this.deadline = Date.now() + c.timeoutMs;
    // What the interrupt handler cannot stop, a built-in call running for
    // good, traps here (hardstop.js).
    hardDeadline.value = this.deadline + HARD_STOP_AFTER_MS;
    this.rt = qjs.newRuntime();
    this.rt.setMemoryLimit(c.memoryLimit);
    this.rt.setMaxStackSize(c.maxStackSize);
    // QuickJS calls it at every operation (patch.js): a flag and the clock,
    // nothing else. Date.now() costs less than performance.now() in Node.
    this.rt.setInterruptHandler(() => canceled() || Date.now() >= this.deadline);
    this.vm = this.rt.newContext();
  }

  // cancel ends a wait for the host's answers: canceled() now says so.
  cancel() {
    this.#wake?.();
  }

  // run gives {ok, output}, {error, type?}, {pending}: the promise cannot
  // settle, or {trap: {name, message}}: the wasm broke (and the instance
  // with it). It never throws.
  async run() {
    try {
      return await this.#run();
    } catch (e) {
      return { trap: { name: String(e?.name ?? "Error"), message: String(e?.message ?? e) } };
    } finally {
      // The instance, runtime and context are not disposed but dropped
      // whole, wasm memory and all: no handle leak or broken runtime can
      // outlive the call.
      this.#closed = true;
    }
  }

  async #run() {
    this.#install();
    let err = this.#eval(PRELUDE, "<toolroute prelude>");
    if (err) return { error: err };
    err = this.#eval(String(this.c.source ?? ""), this.c.sourceRef ?? "tool.js");
    if (err) return { error: err };
    err = this.#eval(`__tr_start(${JSON.stringify(this.c.function)}, ${JSON.stringify(this.c.params)})`, "<toolroute call>");
    if (err) return { error: err };
    for (;;) {
      const jobs = this.rt.executePendingJobs(-1);
      if (jobs.error) {
        const e = this.#show(jobs.error);
        jobs.error.dispose();
        return { error: e };
      }
      const outcome = this.vm.getProp(this.vm.global, "__tr_outcome").consume((h) => this.vm.getString(h));
      if (outcome !== "") {
        const o = JSON.parse(outcome);
        return o.ok ? { ok: true, output: o.value } : { error: o.error, type: o.type };
      }
      if (this.#pending.size === 0) return { pending: true };
      const left = this.deadline - Date.now();
      if (left <= 0) return { error: "timed out" };
      let timer;
      if (this.canceled()) return { error: "canceled" };
      await new Promise((resolve) => {
        this.#wake = resolve;
        timer = setTimeout(resolve, left);
      });
      clearTimeout(timer);
      this.#wake = null;
      if (Date.now() >= this.deadline) return { error: "timed out" };
      if (this.canceled()) return { error: "canceled" };
    }
  }

  // #eval runs a script; it gives its error, shown, or "".
  #eval(code, filename) {
    const r = this.vm.evalCode(code, filename, { type: "global" });
    if (r.error) {
      const e = this.#show(r.error);
      r.error.dispose();
      return e || "error";
    }
    r.value.dispose();
    return "";
  }

  // #show is an error as the Go host shows it: "Name: message" and the stack.
  #show(h) {
    let d;
    try {
      d = this.vm.dump(h);
    } catch (e) {
      return String(e?.message ?? e);
    }
    if (d && typeof d === "object") {
      let s = d.name || d.message ? `${d.name ?? "Error"}: ${d.message ?? ""}` : JSON.stringify(d);
      if (d.stack) s += "\n" + d.stack;
      return s;
    }
    return String(d);
  }

  // #install defines the host functions the prelude captures.
  #install() {
    const vm = this.vm;
    const b = this.bridges;
    const str = (h) => (h === undefined ? "" : vm.getString(h));
    const sync = (name, fn) => {
      vm.newFunction(name, (...args) => {
        let v;
        try {
          v = fn(...args);
        } catch (e) {
          throw new Error(e?.message ?? String(e)); // a plain Error in the VM, as on the Go host
        }
        if (typeof v === "string") return vm.newString(v);
        if (typeof v === "boolean") return v ? vm.true : vm.false;
        return vm.undefined;
      }).consume((h) => vm.setProp(vm.global, name, h));
    };
    const async = (name, fn) => {
      vm.newFunction(name, (...args) => {
        const d = vm.newPromise();
        const p = fn(...args.map(str)).then(
          (v) => {
            if (this.#closed) return;
            vm.newString(v).consume((h) => d.resolve(h));
          },
          (e) => {
            if (this.#closed) return;
            vm.newError({ name: "Error", message: String(e?.message ?? e) }).consume((h) => d.reject(h));
          },
        ).finally(() => {
          this.#pending.delete(p);
          this.#wake?.();
        });
        this.#pending.add(p);
        return d.handle;
      }).consume((h) => vm.setProp(vm.global, name, h));
    };
    sync("__tr_console", (level, text) => b.console(str(level), str(text)));
    sync("__tr_time", (zone, format) => b.time(str(zone), str(format)));
    sync("__tr_fs_read", (p) => b.fsRead(str(p)));
    sync("__tr_fs_write", (p, content, append) => b.fsWrite(str(p), str(content), vm.dump(append) === true));
    sync("__tr_fs_exists", (p) => b.fsExists(str(p)));
    sync("__tr_lib", (name) => b.lib(str(name)));
    async("__tr_fetch", (url, options) => b.fetch(url, options));
    async("__tr_host", (op, args) => b.host(op, args));
  }
}

const NOT_PATCHED = "the QuickJS module polls its interrupt handler only every 10,000 operations, so a tool could run long past its timeout: use the quickjs.wasm patchQuickJS (web/packages/toolroute/jsrun/patch.js) makes";
const NO_HARD_STOP = `the QuickJS module has no hard stop (its ${HARD_DEADLINE_EXPORT} export), so one built-in call could run long past its timeout: use the quickjs.wasm patchQuickJS (web/packages/toolroute/jsrun/patch.js) makes`;

// pollChecked holds the compiled modules pollsEveryOperation passed, so that
// each is checked once, not at every call (a worker makes a runner a call).
const pollChecked = new WeakSet();

// pollsEveryOperation tells whether a QuickJS module instance polls its
// interrupt handler every POLL_EVERY operations: a loop of 100 turns must
// poll at least 100 / POLL_EVERY times (the package's build polls once).
function pollsEveryOperation(qjs) {
  const rt = qjs.newRuntime();
  try {
    let polls = 0;
    rt.setInterruptHandler(() => {
      polls++;
      return false;
    });
    const vm = rt.newContext();
    try {
      vm.evalCode("for (let i = 0; i < 100; i++);").dispose();
    } finally {
      vm.dispose();
    }
    return polls >= 100 / POLL_EVERY;
  } finally {
    rt.dispose();
  }
}
