// toolroute, the npm package's main entry: the ABI driver of toolroute.wasm
// (driver/toolroute.js), typed tool definitions (tools.js) and the loading
// of the wasm files the package holds (dist/, written by
// scripts/pack-assets.mjs), in Node from the package's own files,
// elsewhere by URL. A worker bundler that imports .wasm files as
// modules (workerd, wrangler) imports "toolroute/toolroute.wasm" and
// "toolroute/quickjs.wasm" instead.
import { Toolroute } from "./driver/toolroute.js";

export { Toolroute, ToolrouteError, TrapError, ABI_VERSION, MAX_INPUT, RECYCLE_MEMORY } from "./driver/toolroute.js";
// tool and group define host tools as code, for createHost's and
// createRouter's tools option (tools.js).
export { tool, group } from "./tools.js";

// WASM_FILES are the wasm files the package holds, by name.
const WASM_FILES = { "toolroute.wasm": "./dist/toolroute.wasm", "quickjs.wasm": "./dist/quickjs.wasm" };

// wasmURL is the URL of one of the package's wasm files, "toolroute.wasm" or
// "quickjs.wasm", beside this module: a file: URL in Node, where a bundler
// put the package in a browser.
export function wasmURL(name) {
  const file = WASM_FILES[name];
  if (!file) throw new Error(`toolroute: no wasm file ${JSON.stringify(name)}: the package holds "toolroute.wasm" and "quickjs.wasm"`);
  return new URL(file, import.meta.url);
}

// compileWasm compiles source: a WebAssembly.Module (given back), bytes
// (an ArrayBuffer or a typed array), a Response, or a URL (a URL or a
// string) to fetch, a file: URL read from disk in Node.
export async function compileWasm(source) {
  if (source instanceof WebAssembly.Module) return source;
  if (source instanceof ArrayBuffer || ArrayBuffer.isView(source)) return WebAssembly.compile(source);
  // A URL before a Response: in Node, the first look at Response loads
  // its fetch (undici, which compiles a wasm of its own).
  if (!(source instanceof URL) && typeof source !== "string") {
    if (typeof Response !== "undefined" && source instanceof Response) return compileResponse(source, source.url);
    throw new Error("toolroute: compileWasm takes a WebAssembly.Module, bytes, a Response or a URL");
  }
  const url = new URL(String(source), globalThis.location?.href);
  if (url.protocol === "file:") {
    const { readFile } = await import("node:fs/promises");
    return WebAssembly.compile(await readFile(url));
  }
  return compileResponse(await fetch(url), url.href);
}

async function compileResponse(resp, where) {
  // compileStreaming needs the application/wasm type, which not every server gives.
  return WebAssembly.compile(await readBytes(resp, where || "the wasm"));
}

// compiled holds the package's own wasm files compiled, by name: each is
// compiled once per process (or page, or isolate), whatever the number of
// hosts, routers and instances made from it, which then share it. A
// compile that failed is dropped, for the next use to try again.
const compiled = new Map();

// packageModule compiles the package's wasm file name once (compiled).
function packageModule(name) {
  let m = compiled.get(name);
  if (!m) {
    m = compileWasm(wasmURL(name));
    compiled.set(name, m);
    m.catch(() => compiled.get(name) === m && compiled.delete(name));
  }
  return m;
}

// loadToolroute makes a module instance (Toolroute) from source, the
// package's toolroute.wasm when none is given (compiled once per process,
// shared by every instance made from it). options as
// Toolroute.instantiate takes them ({stderr, stdout, wordVectors}).
export async function loadToolroute(source, options = {}) {
  return Toolroute.instantiate(await (source === undefined || source === null ? packageModule("toolroute.wasm") : compileWasm(source)), options);
}

// WORD_VECTORS_FILE is the word vector table search_tools ranks with
// (wasm/ABI.md, toolroute_word_vectors), in the package.
const WORD_VECTORS_FILE = "./dist/wordvec.bin";

// loadWordVectors reads the word vector table: the package's wordvec.bin
// when no source is given, else bytes (given back), a Response, or a URL
// to fetch (a file: URL read from disk in Node). Hand it to Toolroute's
// wordVectors, or as the host's wordVectors option.
export async function loadWordVectors(source) {
  if (source instanceof ArrayBuffer || ArrayBuffer.isView(source)) return source;
  if (source !== undefined && source !== null && !(source instanceof URL) && typeof source !== "string" && typeof Response !== "undefined" && source instanceof Response) return readBytes(source, source.url);
  const url = new URL(String(source ?? new URL(WORD_VECTORS_FILE, import.meta.url)), globalThis.location?.href);
  if (url.protocol === "file:") {
    const { readFile } = await import("node:fs/promises");
    return readFile(url);
  }
  return readBytes(await fetch(url), url.href);
}

// readBytes reads a response whole; where names it in the error of a
// failed one.
async function readBytes(resp, where) {
  if (!resp.ok) throw new Error(`toolroute: fetching ${where || "the word vectors"} answered HTTP ${resp.status}`);
  return new Uint8Array(await resp.arrayBuffer());
}

// loadQuickJS compiles the QuickJS module the runner runs JS tools in
// (jsrun's Runner option wasmModule), the package's quickjs.wasm,
// patched to poll its interrupt handler at every operation, when no source
// is given. In Node the runner needs none: it patches its dependency's.
export async function loadQuickJS(source) {
  return source === undefined || source === null ? packageModule("quickjs.wasm") : compileWasm(source);
}
