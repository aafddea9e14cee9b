// The JS driver of toolroute.wasm's ABI (wasm/ABI.md), shared by the Node
// tests, the browser chat UI and the edge worker. It moves JSON and bytes in
// and out of the module's memory and turns error envelopes into exceptions.

import { WASI, ProcExit } from "./wasi.js";

export const ABI_VERSION = 2;

// MAX_INPUT is the largest input the module takes in one call (256 MiB,
// wasm/ABI.md): toolroute_alloc answers 0 for more.
export const MAX_INPUT = 256 << 20;

// RECYCLE_MEMORY is the memory past which a host replaces an instance with a
// new one (256 MiB, wasm/ABI.md's Lifecycle): its memory never shrinks, and
// what it keeps is a cache the log rebuilds.
export const RECYCLE_MEMORY = 256 << 20;

// ToolrouteError is a refusal from the module: the request was bad, the
// instance is still usable. code is one of the ABI's error codes.
export class ToolrouteError extends Error {
  constructor(code, message) {
    super(message);
    this.name = "ToolrouteError";
    this.code = code;
  }
}

// TrapError: the instance trapped or exited and must be thrown away.
export class TrapError extends Error {
  constructor(cause) {
    super(`toolroute module trapped: ${cause?.message ?? cause}`, { cause });
    this.name = "TrapError";
  }
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

export class Toolroute {
  // instantiate makes an instance from a WebAssembly.Module or the module's
  // bytes. options.stderr receives the module's standard error, line by line;
  // options.wordVectors, the word vector table (bytes), is handed to the
  // instance (wordVectors).
  static async instantiate(source, options = {}) {
    const module = source instanceof WebAssembly.Module ? source : await WebAssembly.compile(source);
    const wasi = new WASI({ stderr: options.stderr, stdout: options.stdout });
    const instance = await WebAssembly.instantiate(module, { wasi_snapshot_preview1: wasi.imports });
    const t = new Toolroute(instance, wasi);
    const version = t.#call("toolroute_abi_version");
    if (version !== ABI_VERSION) {
      throw new Error(`this module speaks ABI version ${version}; this driver speaks version ${ABI_VERSION}`);
    }
    if (options.wordVectors) t.wordVectors(options.wordVectors);
    return t;
  }

  #exports;
  #broken = null;

  constructor(instance, wasi) {
    this.#exports = instance.exports;
    wasi.initialize(instance);
  }

  // broken is the trap that killed the instance, or null.
  get broken() {
    return this.#broken;
  }

  // memorySize is the instance's linear memory in bytes.
  get memorySize() {
    return this.#exports.memory.buffer.byteLength;
  }

  #call(name, ...args) {
    if (this.#broken) throw this.#broken;
    try {
      return this.#exports[name](...args);
    } catch (err) {
      if (err instanceof WebAssembly.RuntimeError || err instanceof ProcExit || err instanceof RangeError) {
        this.#broken = new TrapError(err);
        throw this.#broken;
      }
      throw err;
    }
  }

  // #request writes bytes into the module, calls an export taking (lead...,
  // ptr, len), frees the input and returns the envelope's ok value.
  #request(name, lead, data) {
    let ptr = 0;
    if (data.length > MAX_INPUT) {
      throw new Error(`toolroute module: an input of ${data.length} bytes is over the ${MAX_INPUT}-byte limit`);
    }
    if (data.length > 0) {
      ptr = this.#call("toolroute_alloc", data.length) >>> 0; // i32 arrives signed
      // 0 is the module's refusal; writing there would overwrite its memory.
      if (ptr === 0) throw new Error(`toolroute module: toolroute_alloc refused ${data.length} bytes, an input too large`);
      new Uint8Array(this.#exports.memory.buffer, ptr, data.length).set(data);
    }
    let packed;
    try {
      packed = this.#call(name, ...lead, ptr, data.length);
    } finally {
      if (ptr !== 0 && !this.#broken) this.#call("toolroute_free", ptr);
    }
    return this.#envelope(packed);
  }

  #envelope(packed) {
    const ptr = Number(BigInt.asUintN(64, packed) >> 32n);
    const len = Number(BigInt.asUintN(64, packed) & 0xffffffffn);
    const text = decoder.decode(new Uint8Array(this.#exports.memory.buffer, ptr, len));
    this.#call("toolroute_free", ptr);
    const env = JSON.parse(text);
    if (env.error) throw new ToolrouteError(env.error.code, env.error.message);
    return env.ok;
  }

  #json(name, lead, value) {
    const text = typeof value === "string" ? value : JSON.stringify(value);
    return this.#request(name, lead, encoder.encode(text));
  }

  // load builds the registry from a catalogue and returns the build report.
  load(catalogue) {
    return this.#json("toolroute_load", [], catalogue);
  }

  // wordVectors gives the instance a word vector table (bytes: the package's
  // wordvec.bin, assets/wordvec/vectors.bin) for search_tools to
  // rank with beside shared words; empty bytes take it away. It returns
  // {words, dimensions}; a table that does not read throws a ToolrouteError
  // "bad_vectors" and the instance keeps the table it had.
  wordVectors(table) {
    if (typeof this.#exports.toolroute_word_vectors !== "function") {
      throw new Error("toolroute module: this module has no toolroute_word_vectors export: use a module of this release");
    }
    const bytes = table instanceof ArrayBuffer ? new Uint8Array(table) : new Uint8Array(table.buffer, table.byteOffset, table.byteLength);
    return this.#request("toolroute_word_vectors", [], bytes);
  }

  // describe returns the catalogue for display, and a session's active tools
  // when request.history is given.
  describe(request = {}) {
    return this.#json("toolroute_describe", [], request);
  }

  // demo answers a model request's body (OpenAI Chat Completions) as the
  // demo model does (registry/demo): the response body, as an object.
  demo(body) {
    return this.#json("toolroute_demo", [], body);
  }

  // retry decides whether a model call made outside a turn (a model
  // proxy's) is tried again: request is {status, retry_after, body,
  // attempt, now, retries: {count, backoff_ms, max_backoff_ms}}; it
  // returns {retry: {status, attempt, wait_ms, message}}, or {} to give up.
  retry(request) {
    return this.#json("toolroute_retry", [], request);
  }

  // check asks whether a host operation's arguments pass the module's
  // rules before the host does its I/O: request is {op, args}; it returns
  // {} (they pass), {args} (use these) or {error: {type, message}} (the
  // refusal the tool's code reads). It needs no catalogue.
  check(request) {
    return this.#json("toolroute_check", [], request);
  }

  // turnNew opens a turn and returns its handle.
  turnNew() {
    return this.#envelope(this.#call("toolroute_turn_new")).turn;
  }

  // turnEvent feeds a turn one event and returns its actions.
  turnEvent(turn, event) {
    return this.#json("toolroute_turn_event", [turn], event);
  }

  // turnChunk feeds a turn raw bytes (a Uint8Array or a string) of a streamed
  // response and returns its actions.
  turnChunk(turn, chunk) {
    const data = typeof chunk === "string" ? encoder.encode(chunk) : chunk;
    return this.#request("toolroute_turn_chunk", [turn], data);
  }

  // turnBody takes the request body of the turn's last call_model action
  // (the action leaves it out): its bytes, to post as they are, or null
  // when there is none to take (the module hands each body out once).
  turnBody(turn) {
    const packed = BigInt.asUintN(64, this.#call("toolroute_turn_body", turn));
    if (packed === 0n) return null;
    const ptr = Number(packed >> 32n);
    const len = Number(packed & 0xffffffffn);
    const body = new Uint8Array(this.#exports.memory.buffer, ptr, len).slice();
    this.#call("toolroute_free", ptr);
    return body;
  }

  // turnFree closes a turn.
  turnFree(turn) {
    this.#call("toolroute_turn_free", turn);
  }
}
