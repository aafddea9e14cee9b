// The browser's and the edge worker's JS tool runner: the Go host's
// host/jsrun in quickjs-emscripten (the quickjs-ng build, sync variant),
// with the same bridges (prelude.js), the same sandbox rules and the same
// results, checked by the conformance cases of testdata/js.
//
// # One fresh instance per call
//
// Every call gets a QuickJS module instance, runtime and context no other
// call has used, so no state leaks between calls, and one a call broke (a
// trap, an abort) is simply dropped. The wasm is compiled once; an instance
// takes about 25 ms in Node (instantiation, QuickJS's start, the prelude).
// Its limits:
//
//   - Memory: the instance's wasm memory gets a maximum, the call's limit
//     (64 MB by default), so an allocation past it fails and QuickJS throws
//     "out of memory". QuickJS's own limit (setMemoryLimit, set too) counts
//     allocations, not bytes, in this build: malloc_usable_size is missing,
//     and ArrayBuffers passed it unchecked.
//   - Stack: setMaxStackSize (DEFAULT_STACK_SIZE).
//   - Time: QuickJS's interrupt handler compares the clock with the call's
//     deadline and checks for a cancel, nothing else. The package's build
//     polls it every 10,000 operations (JS_INTERRUPT_COUNTER_INIT, compiled
//     in), so a loop of long native calls, such as `for (;;) n +=
//     JSON.stringify(big).length` with 200,000 objects, ran 26 minutes past
//     a 2 s timeout. patch.js rewrites that constant to 1, as the Go host's
//     patch.go does: QuickJS polls at every call and backward jump, and a
//     call stops at most one native call after its deadline (that loop,
//     within half a second). Node patches the package's wasm before
//     compiling it; the browser UI's and the worker's builds write the
//     patched quickjs.wasm. A module that does not poll at every operation
//     is refused (see pollsEveryOperation). The cost is about 3 times on a
//     loop of trivial operations, little on code doing real work per
//     operation (jsrun/bench.mjs, `make bench`).
//   - Time inside one built-in call: nothing polls there, and one call can
//     run for good (a naive indexOf of 10^10 steps ran past 60 s of a 1 s
//     timeout). The patched module also counts the turns of every loop of
//     its C code and traps once the clock is HARD_STOP_AFTER_MS past the
//     deadline (hardstop.js); the call then ends as timed out and its
//     instance is dropped. A module without it is refused.
//
// # Threads and cancel
//
// In Node each call runs in a worker thread (threads.js, kept for the next
// call) with its bridges on the caller's thread: the caller's timers and
// signal handlers run while the JS does, the call's signal (a canceled
// turn) reaches the interrupt handler at once through a shared flag, and a
// call that neither the interrupt nor the hard stop ended is ended with its
// thread. Elsewhere (a browser's worker, workerd) QuickJS runs on the
// caller's thread: the signal makes the handler stop the JS, aborts the
// bridges' requests and ends a wait for them at once, but while the JS runs
// without waiting no timer or message can abort the signal, so a loop that
// never waits ends at its deadline. The browser UI restarts its worker on
// Stop for that (ui/app.js).
//
// # Async
//
// fetch and the google bridge return promises settled by the host; the
// runner runs the pending jobs, waits for the host's answers and runs the
// jobs again, until the call's promise settles or its deadline passes. A
// promise pending with nothing left to wait for can never settle: the call
// ends at once with the timeout it would have met.
import { patchQuickJS, PATCHED_SHA256 } from "./patch.js";
import { Threads, loadEngine } from "#threads";
import { Sandbox } from "./sandbox.js";
import { hostFetch } from "./fetch.js";
import { download, upload } from "./transfer.js";
import { formatTime } from "./time.js";
import { passes, refusal, word } from "./words.js";

export { MemoryStore, Sandbox, AccessDenied, MAX_FILE_BYTES, MAX_TRANSFER_BYTES } from "./sandbox.js";
export { HARD_STOP_AFTER_MS } from "./hardstop.js";

// DEFAULT_MEMORY_LIMIT is a call's JS heap limit when the options set none.
export const DEFAULT_MEMORY_LIMIT = 64 << 20;
// DEFAULT_STACK_SIZE is a call's QuickJS stack limit when the options set
// none. QuickJS's wasm frames use V8's own stack too (about 1 MB in Node and
// Chrome), and the window is narrow: at 352 KB 2,000 levels of plain
// recursion fit, as on the Go host, and at 376 KB V8's stack runs out before
// QuickJS's check, which then cannot give the tool a RangeError it can catch
// (the call still ends in a stack overflow error, see Runner.call). Node's
// worker threads, where Node's calls run, have 4 MB: there QuickJS's check
// comes first, also for the C recursion it does not count (JSON.parse of
// 200,000 nested arrays is a RangeError the tool catches).
export const DEFAULT_STACK_SIZE = 360 << 10;
// DEFAULT_TIMEOUT_MS is a call's timeout when it sets none (registry's 30 s).
export const DEFAULT_TIMEOUT_MS = 30_000;
// MAX_LOG_BYTES bounds the console output kept from one call.
export const MAX_LOG_BYTES = 64 << 10;
// MAX_LIBRARY_BYTES bounds a library's source.
export const MAX_LIBRARY_BYTES = 1 << 20;

// NotConnected is what a credential provider throws when no Google account
// is connected; the tool's error then says how to connect one.
export class NotConnected extends Error {
  constructor() {
    super("no Google account is connected");
    this.name = "NotConnected";
  }
}

const FUNCTION_RE = /^[a-zA-Z_$][a-zA-Z0-9_$]*$/;
const encoder = new TextEncoder();

// Runner runs JS tools, each call in a fresh QuickJS runtime.
//
// options:
//   store: the fs bridge's store (MemoryStore, or DirStore in Node); none
//     means fs says no sandbox folder is configured;
//   libraries: the library folders, built-in first, each a Map or a plain
//     object from name to source, or a function(name) giving the source or
//     undefined;
//   fetch: {fetch (the host's fetch; globalThis.fetch by default),
//     allowPrivate, rewrites: [{from, to}], timeoutMs, maxBody, cors (the
//     fetch is a browser's, bound by CORS: see hostFetch)};
//   google: {accessToken({signal}), accountEmail({signal})}, async,
//     throwing NotConnected when no account is connected; none means none
//     is; signal aborts when the call is canceled or over;
//   memoryLimit, maxStackSize: bytes; now: the clock of _time;
//   variant: another quickjs-emscripten sync variant (a worker's, whose
//     wasm is a module import), run on the caller's thread;
//   thread: false runs the calls on the caller's thread in Node too;
//   check: the module's check, (op, args) -> answer at once (a Toolroute
//     instance's check), for the calls that give none: the bridges' rules
//     and refusals are the module's (words.js). Without one, a refusal
//     says none was given.
export class Runner {
  #wasm = null;
  #warming = null;

  constructor(options = {}) {
    this.options = options;
    this.sandbox = new Sandbox(options.store);
    this.memoryLimit = options.memoryLimit > 0 ? options.memoryLimit : DEFAULT_MEMORY_LIMIT;
    this.maxStackSize = options.maxStackSize > 0 ? options.maxStackSize : DEFAULT_STACK_SIZE;
    this.now = options.now ?? (() => new Date());
  }

  // #module gives the compiled QuickJS module, compiled on first use (an
  // edge worker refuses to compile at global scope): the options', or in
  // Node the package's, compiled once per process for every Runner
  // (defaultModule).
  async #module() {
    this.#wasm ??= (async () => {
      const m = this.options.wasmModule;
      if (m) return typeof m === "function" ? await m() : m;
      return defaultModule();
    })();
    try {
      return await this.#wasm;
    } catch (e) {
      this.#wasm = null;
      throw e;
    }
  }

  // warm gets the runner ready for its first call, which then costs what
  // a later one does: it runs a call of its own, which compiles QuickJS,
  // in Node starts the worker thread the next call takes, and runs the
  // code a call runs once. A call made meanwhile waits for it rather than
  // start another thread. A router calls it when its catalogue has JS
  // tools, and when a step offers one; a runner never warmed does it all
  // at its first call. It never throws: a failure is the first call's to
  // report.
  warm() {
    this.#warming ??= this.#call(WARM_CALL).then(() => {}, () => {});
    return this.#warming;
  }

  // #quickjs returns a new QuickJS module instance (engine.js's newInstance)
  // with a memory whose maximum is the call's limit.
  async #quickjs() {
    const { newInstance } = await loadEngine();
    return newInstance(await this.#module(), this.memoryLimit, this.options.variant);
  }

  // call runs one call: {tool, sourceRef, source, function, params (an
  // object or JSON), env, google, ops, check, timeoutMs, signal}; check is
  // the module's, as the Runner's option (a Host gives its own); ops(op, args,
  // {signal}) serves the toolroute bridge (the host's ops, which refuse what
  // the manifest does not grant); google (true when the
  // tool's manifest lists "google" in requiredPermissions) lets it use the
  // google bridge, which refuses every other call; signal, an AbortSignal,
  // cancels the call: its JS stops at the next interrupt poll and its bridge
  // calls are aborted. It gives {status: "success", output, logs} or
  // {status: "error", error_type, message, logs}, never throws.
  async call(c) {
    if (this.#warming) await this.#warming;
    return this.#call(c);
  }

  async #call(c) {
    const tool = c.tool ?? "tool";
    const timeoutMs = c.timeoutMs > 0 ? c.timeoutMs : DEFAULT_TIMEOUT_MS;
    const env = c.env ?? {};
    const fail = (type, message, logs = []) => ({ status: "error", error_type: type, message: scrub(message, env), logs });
    // check is the module's (words.js): the call's, given by its Host, or
    // the runner's.
    const check = c.check ?? this.options.check;
    // worded is a failure the module words: its type and sentence.
    const worded = (q, logs = []) => {
      try {
        const r = refusal(check, q);
        return fail(r.type, r.message, logs);
      } catch (e) {
        return fail("execution_error", e.message, logs);
      }
    };
    if (!FUNCTION_RE.test(c.function ?? "")) {
      return fail("execution_error", `Function name '${c.function}' is not a JS identifier`);
    }
    let params;
    try {
      params = withEnv(c.params, env);
    } catch (e) {
      if (e === NOT_OBJECT) return worded({ code: "params_not_object" });
      return fail("invalid_arguments", e.message);
    }
    const canceled = (logs) => fail("canceled", `JS tool '${tool}' was canceled`, logs);
    if (c.signal?.aborted) return canceled();
    const host = new CallHost(this, c, tool, check);
    const job = {
      source: String(c.source ?? ""),
      sourceRef: c.sourceRef ?? "tool.js",
      function: c.function,
      params,
      timeoutMs,
      memoryLimit: this.memoryLimit,
      maxStackSize: this.maxStackSize,
    };
    let res;
    try {
      res = this.#threads() ? await this.#inThread(job, host) : await this.#here(job, host);
    } catch (e) {
      return fail("execution_error", `jsrun: loading QuickJS: ${e.message}`);
    } finally {
      host.close();
    }
    const logs = host.logs.map((l) => ({ level: l.level, text: scrub(l.text, env) }));
    if (res.ok) return { status: "success", output: res.output, logs };
    const deadlinePassed = res.deadline !== undefined && Date.now() >= res.deadline;
    if (deadlinePassed || (res.pending && !host.canceled)) {
      return worded({ code: "timeout", tool, timeout_ms: timeoutMs, pending: Boolean(res.pending && !deadlinePassed) }, logs);
    }
    if (host.canceled) return canceled(logs);
    if (res.trap) {
      if (/out of memory|\bOOM\b|Cannot enlarge memory|memory access out of bounds/i.test(res.trap.message)) {
        return worded({ code: "out_of_memory", tool, limit_mb: this.memoryLimit >> 20 }, logs);
      }
      if (res.trap.name === "RangeError") {
        // V8's stack ran out before QuickJS's limit: the Go host's message
        // for a C stack overflow.
        return fail("execution_error", `JS tool '${tool}' crashed: stack overflow (recursion too deep?): the runtime was thrown away`, logs);
      }
      return fail("execution_error", `JS tool '${tool}' crashed: ${res.trap.message}: the runtime was thrown away`, logs);
    }
    if (res.error.includes("out of memory")) {
      return worded({ code: "out_of_memory", tool, limit_mb: this.memoryLimit >> 20 }, logs);
    }
    // A tool's error that says its type (error.type) keeps it.
    return fail(res.type ?? "execution_error", withoutGlue(res.error), logs);
  }

  // #threads tells whether calls run in worker threads: in Node unless the
  // options say otherwise (thread: false, or a variant of their own).
  #threads() {
    return Threads !== null && this.options.thread !== false && !this.options.variant;
  }

  // #here runs a call on the caller's thread: the engine's result, with its
  // deadline.
  async #here(job, host) {
    const instance = await this.#quickjs();
    if (host.canceled) return { error: "canceled" };
    const { Engine } = await loadEngine();
    const engine = new Engine(instance, job, host.bridges, () => host.canceled);
    host.onCancel = () => engine.cancel();
    const res = await engine.run();
    return { ...res, deadline: engine.deadline };
  }

  // #inThread runs a call in one of Node's worker threads (threads.js): the
  // caller's thread stays free for its timers and signals, a cancel reaches
  // the JS at once, and a call the hard stop did not end is ended with its
  // thread.
  async #inThread(job, host) {
    return Threads.run(await this.#module(), job, host);
  }

  // check compiles a tool's source without running it, as the Go host's
  // Runner.Check: "" when it compiles, else the error ("SyntaxError: ...").
  async check(file, source) {
    const { qjs: module } = await this.#quickjs();
    const rt = module.newRuntime();
    rt.setMemoryLimit(this.memoryLimit);
    rt.setMaxStackSize(this.maxStackSize);
    const deadline = Date.now() + DEFAULT_TIMEOUT_MS;
    rt.setInterruptHandler(() => Date.now() >= deadline);
    const vm = rt.newContext();
    const r = vm.evalCode(String(source), String(file), { type: "global", compileOnly: true });
    if (!r.error) {
      r.value.dispose();
      return "";
    }
    let d;
    try {
      d = vm.dump(r.error);
    } catch (e) {
      d = e;
    }
    r.error.dispose();
    // The module instance is dropped whole, as a call's is.
    if (d && typeof d === "object") return withoutGlue(`${d.name ?? "Error"}: ${d.message ?? ""}${d.stack ? "\n" + d.stack : ""}`);
    return String(d);
  }
}

// CallHost is one call's side on the host: the bridges the engine calls
// (engine.js), the console lines kept, the abort of the bridges' requests.
// It lives on the caller's thread wherever the engine runs.
class CallHost {
  logs = [];
  #logBytes = 0;
  #dropped = false;
  #abort = new AbortController(); // the bridges' calls
  #onAbort = null;
  canceled = false;
  // onCancel is told when the call's signal aborts (the engine's runner
  // sets it).
  onCancel = null;

  constructor(runner, c, tool, check) {
    this.runner = runner;
    this.c = c;
    this.tool = tool;
    this.check = check;
    const signal = c.signal;
    if (signal) {
      this.#onAbort = () => {
        this.canceled = true;
        this.#abort.abort(signal.reason);
        this.onCancel?.();
      };
      signal.addEventListener("abort", this.#onAbort, { once: true });
    }
    const sandbox = runner.sandbox;
    this.bridges = {
      console: (level, text) => this.#log(level, text),
      time: (zone, format) => formatTime(runner.now(), zone, format, check),
      fsRead: (p) => this.#worded(() => sandbox.read(p)),
      fsWrite: (p, content, append) => {
        this.#worded(() => sandbox.write(p, content, append));
      },
      fsExists: (p) => sandbox.exists(p),
      lib: (name) => this.#library(name),
      fetch: (url, options) => hostFetch(url, options, this.#fetchOptions()),
      host: (op, args) => this.#op(op, args),
    };
  }

  // #worded runs f, giving its refusals in the module's words.
  #worded(f) {
    try {
      return f();
    } catch (e) {
      throw word(this.check, e);
    }
  }

  // close stops the call's host work.
  close() {
    this.#abort.abort();
    if (this.#onAbort) this.c.signal.removeEventListener("abort", this.#onAbort);
  }

  #log(level, text) {
    const n = encoder.encode(text).length;
    if (this.#logBytes + n > MAX_LOG_BYTES) {
      if (!this.#dropped) {
        this.logs.push({ level: "warn", text: `[console output over ${MAX_LOG_BYTES >> 10} KB dropped]` });
        this.#dropped = true;
      }
      return;
    }
    if (!["log", "info", "debug", "warn", "error"].includes(level)) level = "log";
    this.#logBytes += n;
    this.logs.push({ level, text });
  }

  // #library gives lib(name)'s source: NAME.min, else NAME, from the first
  // folder that has either (a folder's keys are file names without ".js"),
  // as the Go host looks up NAME.min.js, then NAME.js.
  #library(name) {
    passes(this.check, { code: "library_name", name });
    for (const folder of this.runner.options.libraries ?? []) {
      for (const key of [name + ".min", name]) {
        let src;
        if (typeof folder === "function") src = folder(key);
        else if (folder instanceof Map) src = folder.get(key);
        else if (Object.hasOwn(folder, key)) src = folder[key];
        if (src === undefined || src === null) continue;
        if (encoder.encode(src).length > MAX_LIBRARY_BYTES) {
          throw new Error(`lib: library '${key}.js' is over ${MAX_LIBRARY_BYTES} bytes`);
        }
        return String(src);
      }
    }
    throw new Error(refusal(this.check, { code: "library_not_found", name }).message);
  }

  async #google(what) {
    if (this.c.google !== true) {
      throw new Error(refusal(this.check, { code: "google_not_granted", tool: this.tool }).message);
    }
    const g = this.runner.options.google;
    const signal = this.#abort.signal;
    try {
      if (!g) throw new NotConnected();
      if (what === "token") return String(await abortable(g.accessToken({ signal }), signal));
      if (what === "email") return String(await abortable(g.accountEmail({ signal }), signal));
    } catch (e) {
      if (e instanceof NotConnected) {
        throw new Error(refusal(this.check, { code: "google_not_connected" }).message);
      }
      throw new Error(`google: ${e?.message ?? e}`);
    }
    throw new Error(`google: unknown request ${JSON.stringify(what)}`);
  }

  // #op serves __tr_host: the google bridge (google.token, google.email)
  // and the toolroute bridge, the call's ops (the host's, which checks the
  // manifest's grant), JSON in and out.
  // The answer is {"ok": value} or {"error": {"type", "message"}}, as the
  // Go host's hostOp: the prelude throws the error with its type.
  async #op(op, args) {
    try {
      const v = await this.#answer(op, args);
      return JSON.stringify({ ok: v === undefined ? null : v });
    } catch (e) {
      const type = typeof e?.type === "string" ? e.type : typeof e?.error_type === "string" ? e.error_type : undefined;
      return JSON.stringify({ error: { ...(type ? { type } : {}), message: String(e?.message ?? e) } });
    }
  }

  async #answer(op, args) {
    if (op.startsWith("google.")) return this.#google(op.slice("google.".length));
    if (op.startsWith("net.")) return this.#net(op, args);
    const ops = this.c.ops;
    if (typeof ops !== "function") throw new Error(`toolroute.${op.split(".")[0]}: this host does not offer it`);
    let parsed;
    try {
      parsed = JSON.parse(args);
    } catch {
      throw new Error(`toolroute.${op}: the arguments are not JSON`);
    }
    return abortable(Promise.resolve(ops(op, parsed, { signal: this.#abort.signal })), this.#abort.signal);
  }

  // #fetchOptions are the options of the bridges' requests (fetch.js's
  // send), the call's signal among them.
  #fetchOptions() {
    const o = this.runner.options.fetch ?? {};
    return {
      fetch: o.fetch ?? globalThis.fetch,
      allowPrivate: o.allowPrivate,
      rewrites: o.rewrites,
      timeoutMs: o.timeoutMs,
      maxBody: o.maxBody,
      cors: o.cors,
      signal: this.#abort.signal,
      check: this.check,
    };
  }

  // #net serves downloadToFile (net.download) and uploadMultipart
  // (net.upload), as the Go host's netOp: failures are answers.
  async #net(op, args) {
    const bridge = op === "net.download" ? "downloadToFile" : "uploadMultipart";
    let req;
    try {
      req = JSON.parse(args);
    } catch {
      throw new Error(`${bridge}: bad arguments`);
    }
    if (op === "net.download") return download(req, this.#fetchOptions(), this.runner.sandbox);
    if (op === "net.upload") return upload(req, this.#fetchOptions(), this.runner.sandbox);
    throw new Error(`unknown request ${JSON.stringify(op)}`);
  }
}

// abortable settles as p does, or rejects with signal's reason when it
// aborts first: a bridge call of a canceled call ends at once, even when the
// host's provider does not heed the signal.
function abortable(p, signal) {
  if (signal.aborted) return Promise.reject(signal.reason);
  let onAbort;
  const aborted = new Promise((_, reject) => {
    onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
  });
  return Promise.race([p, aborted]).finally(() => signal.removeEventListener("abort", onAbort));
}

// WARM_CALL is the call Runner.warm runs; its timeout bounds how long a
// call can wait for it.
const WARM_CALL = { tool: "warm", source: "function warm(p) { return JSON.stringify(p); }", function: "warm", params: {}, timeoutMs: 5000 };

// NOT_OBJECT is withEnv's error for parameters that are not a JSON
// object, which the module words (js_bridge's params_not_object).
const NOT_OBJECT = Symbol("not an object");

// withEnv adds _env to the call's parameters, given as an object or JSON.
function withEnv(params, env) {
  let obj = params;
  if (params === undefined || params === null || (typeof params === "string" && params.trim() === "")) obj = {};
  else if (typeof params === "string") {
    try {
      obj = JSON.parse(params);
    } catch {
      obj = null;
    }
  }
  if (obj === null || typeof obj !== "object" || Array.isArray(obj)) throw NOT_OBJECT;
  return JSON.stringify({ ...obj, _env: env });
}

// scrub removes the values of the tool's environment variables from text
// leaving the model's sight: secrets never appear in errors or logs.
export function scrub(text, env) {
  for (const k of Object.keys(env).sort()) {
    const v = env[k];
    if (typeof v === "string" && v.length >= 4) text = text.split(v).join(`[redacted ${k}]`);
  }
  return text;
}

// withoutGlue drops the stack frames of the runner's own scripts.
function withoutGlue(msg) {
  return msg.split("\n").filter((l) => !l.includes("<toolroute ") && !l.includes("(native)")).join("\n").trimEnd();
}

// compiledDefault is the Node default QuickJS module's compile, shared
// by every Runner of the process (and the worker threads they run calls
// in); one that failed is dropped, for the next call to try again.
let compiledDefault = null;

// defaultModule compiles the default QuickJS module once (compiledDefault).
function defaultModule() {
  if (!compiledDefault) {
    const m = readDefaultWasm().then((bytes) => WebAssembly.compile(bytes));
    compiledDefault = m;
    m.catch(() => {
      if (compiledDefault === m) compiledDefault = null;
    });
  }
  return compiledDefault;
}

// readDefaultWasm reads the quickjs-ng module's .wasm in Node, patched to
// poll at every operation: the package's dist/quickjs.wasm when it is the
// current patch's output (PATCHED_SHA256; an installed package has it),
// else the dependency's, patched now. A browser or a worker passes
// options.wasmModule instead, compiled from the quickjs.wasm its build
// patched.
async function readDefaultWasm() {
  const { readFile } = await import("node:fs/promises");
  try {
    const packed = await readFile(new URL("../dist/quickjs.wasm", import.meta.url));
    const sum = new Uint8Array(await crypto.subtle.digest("SHA-256", packed));
    if (Array.from(sum, (x) => x.toString(16).padStart(2, "0")).join("") === PATCHED_SHA256) return packed;
  } catch {
    // No dist/ (the repository's package before npm pack): patch.
  }
  return patchQuickJS(await readFile(new URL(import.meta.resolve("@jitl/quickjs-ng-wasmfile-release-sync/wasm"))));
}
