// The hard stop of a QuickJS call in the JS hosts: a rewrite of the QuickJS
// wasm that makes every loop of its C code, not only the interpreter's
// operations, check the clock against a deadline the host sets, and trap
// past it. patch.js applies it with its other patches.
//
// # Why
//
// QuickJS polls its interrupt handler (the runner's deadline check) between
// operations and in regular expressions only. A single built-in call can run
// for good: String.prototype.indexOf compares naively, so
// `"a".repeat(2e5).indexOf("a".repeat(1e5) + "b")` is 10^10 steps in one
// call, which ran past 60 s of a 1 s timeout in Node; nothing in the wasm
// polls inside it, and QuickJS runs on the caller's thread, so no timer of
// the host can run either. In workerd and a browser's worker there is no
// other thread to stop it from; in Node a worker_thread could be ended, at
// a cost on every call and for every bridge.
//
// # What
//
// Two globals are added: a countdown (LOOP_POLL_EVERY) and the hard deadline,
// a Date.now() value (f64, +Infinity until the host sets it), exported as
// HARD_DEADLINE_EXPORT. At the head of every loop in the module, after its
// `loop` instruction, so at every turn of it:
//
//	global.get $count  i32.eqz  if  call $tick  end
//	global.get $count  i32.const 1  i32.sub  global.set $count
//
// $tick, a function added at the end (no index in the module moves), sets
// the countdown back to LOOP_POLL_EVERY, calls the module's own Date.now
// import and traps (`unreachable`) once it is past the hard deadline. The
// trap unwinds the wasm to the runner, which drops the instance as it drops
// any instance a call broke: nothing of it is used again. QuickJS's own
// interrupt comes first at the call's deadline; the hard deadline is
// HARD_STOP_AFTER_MS later, for what the interrupt cannot reach.
//
// The countdown costs a few instructions per loop turn; jsrun/bench.mjs
// (`make bench`) measures it.

// HARD_STOP_AFTER_MS is how long after its deadline a call that QuickJS's
// interrupt could not stop (one built-in call running on) is stopped hard:
// its wasm traps (see above) and its instance is dropped.
export const HARD_STOP_AFTER_MS = 500;

// HARD_DEADLINE_EXPORT is the name of the exported f64 global holding the
// hard deadline, in Date.now() milliseconds.
export const HARD_DEADLINE_EXPORT = "toolroute_hard_deadline";

// LOOP_POLL_EVERY is how many loop turns pass between two looks at the
// clock: a turn is nanoseconds, a look at the clock a call out of the wasm.
export const LOOP_POLL_EVERY = 10000;

// addHardStop returns a copy of wasm (bytes) with the hard stop. clock
// names the module's import that gives Date.now(), a function () -> f64:
// [module, name].
export function addHardStop(wasm, clock) {
  const m = parseModule(wasm);
  const imported = importedCounts(m, clock);
  if (imported.clock < 0) throw new Error(`jsrun: the QuickJS module has no clock import ${clock.join(".")} () -> f64`);
  const types = section(m, SEC_TYPE);
  const funcs = section(m, SEC_FUNCTION);
  const globals = section(m, SEC_GLOBAL);
  const exports = section(m, SEC_EXPORT);
  const code = section(m, SEC_CODE);
  if (!types || !funcs || !code || !exports) throw new Error("jsrun: the QuickJS module lacks a type, function, export or code section");

  // The type () -> (): found, or added at the end.
  const typeList = readTypes(types.body);
  let voidType = typeList.findIndex((t) => t.params.length === 0 && t.results.length === 0);
  if (voidType < 0) {
    voidType = typeList.length;
    types.body = appendToVec(types.body, Uint8Array.of(0x60, 0x00, 0x00));
  }
  if (typeList[imported.clockType]?.params.length !== 0 || typeList[imported.clockType]?.results.join() !== String(F64)) {
    throw new Error(`jsrun: the QuickJS module's ${clock.join(".")} is not a function () -> f64`);
  }

  const definedFuncs = new Reader(funcs.body).u32();
  const tick = imported.funcs + definedFuncs;
  funcs.body = appendToVec(funcs.body, uleb(voidType));

  // The globals: the countdown and the hard deadline.
  const definedGlobals = globals ? new Reader(globals.body).u32() : 0;
  const count = imported.globals + definedGlobals;
  const deadline = count + 1;
  const newGlobals = concat(
    Uint8Array.of(I32, 0x01, 0x41), sleb(LOOP_POLL_EVERY), Uint8Array.of(0x0b),
    Uint8Array.of(F64, 0x01, 0x44), f64Bytes(Infinity), Uint8Array.of(0x0b),
  );
  if (globals) {
    globals.body = appendToVec(globals.body, newGlobals, 2);
  } else {
    insertSection(m, { id: SEC_GLOBAL, body: concat(uleb(2), newGlobals) });
  }
  const name = new TextEncoder().encode(HARD_DEADLINE_EXPORT);
  exports.body = appendToVec(exports.body, concat(uleb(name.length), name, Uint8Array.of(0x03), uleb(deadline)));

  // Every function's loops, and $tick's body.
  const check = concat(
    Uint8Array.of(0x23), uleb(count), Uint8Array.of(0x45, 0x04, 0x40, 0x10), uleb(tick), Uint8Array.of(0x0b),
    Uint8Array.of(0x23), uleb(count), Uint8Array.of(0x41, 0x01, 0x6b, 0x24), uleb(count),
  );
  const r = new Reader(code.body);
  const n = r.u32();
  const bodies = [uleb(n + 1)];
  for (let i = 0; i < n; i++) {
    const size = r.u32();
    bodies.push(withLoopChecks(code.body.subarray(r.at, r.at + size), check));
    r.at += size;
  }
  const tickBody = concat(
    Uint8Array.of(0x00), // no locals
    Uint8Array.of(0x41), sleb(LOOP_POLL_EVERY), Uint8Array.of(0x24), uleb(count),
    Uint8Array.of(0x10), uleb(imported.clock), Uint8Array.of(0x23), uleb(deadline), Uint8Array.of(0x66), // f64.ge
    Uint8Array.of(0x04, 0x40, 0x00, 0x0b), // if unreachable end
    Uint8Array.of(0x0b),
  );
  bodies.push(uleb(tickBody.length), tickBody);
  code.body = concat(...bodies);
  return writeModule(m);
}

const SEC_TYPE = 1, SEC_IMPORT = 2, SEC_FUNCTION = 3, SEC_GLOBAL = 6, SEC_EXPORT = 7, SEC_CODE = 10;
const I32 = 0x7f, F64 = 0x7c;
// The order of the known sections in a module (the data count section, 12,
// comes before code).
const ORDER = [1, 2, 3, 4, 5, 13, 6, 7, 8, 9, 12, 10, 11];

// withLoopChecks gives a function body (its size not included) with check
// after each `loop` instruction, its size first.
function withLoopChecks(body, check) {
  const r = new Reader(body);
  for (let groups = r.u32(); groups > 0; groups--) {
    r.u32();
    r.at++; // a local's type
  }
  const parts = [];
  let from = 0;
  while (r.at < body.length) {
    const op = body[r.at];
    skipInstruction(r);
    if (op === 0x03) {
      parts.push(body.subarray(from, r.at), check);
      from = r.at;
    }
  }
  parts.push(body.subarray(from));
  const out = concat(...parts);
  return concat(uleb(out.length), out);
}

// skipInstruction moves r past one instruction and its immediates: the
// instructions of WebAssembly 2.0 without SIMD (the module has none: an
// unknown opcode is refused).
function skipInstruction(r) {
  const op = r.b[r.at++];
  switch (op) {
    case 0x02: case 0x03: case 0x04: // block loop if: a block type
      if (r.b[r.at] === 0x40 || (r.b[r.at] >= 0x6f && r.b[r.at] <= 0x7f)) r.at++;
      else r.s64();
      return;
    case 0x0c: case 0x0d: // br br_if
    case 0x10: // call
    case 0x20: case 0x21: case 0x22: case 0x23: case 0x24: // local.* global.*
    case 0x25: case 0x26: // table.get table.set
    case 0xd2: // ref.func
      r.u32();
      return;
    case 0x0e: // br_table
      for (let n = r.u32() + 1; n > 0; n--) r.u32();
      return;
    case 0x11: // call_indirect
      r.u32();
      r.u32();
      return;
    case 0x1c: // select with types
      for (let n = r.u32(); n > 0; n--) r.at++;
      return;
    case 0x3f: case 0x40: // memory.size memory.grow
      r.u32();
      return;
    case 0x41: r.s64(); return; // i32.const
    case 0x42: r.s64(); return; // i64.const
    case 0x43: r.at += 4; return; // f32.const
    case 0x44: r.at += 8; return; // f64.const
    case 0xd0: r.at++; return; // ref.null
    case 0xfc: {
      const sub = r.u32();
      if (sub <= 7) return; // trunc_sat
      if (sub === 8 || sub === 12 || sub === 14) { r.u32(); r.u32(); return; } // memory.init table.init table.copy
      if (sub === 10) { r.u32(); r.u32(); return; } // memory.copy
      if (sub === 9 || sub === 11 || sub === 13 || (sub >= 15 && sub <= 17)) { r.u32(); return; }
      throw new Error(`jsrun: unknown instruction 0xfc ${sub} in the QuickJS module`);
    }
  }
  if (op >= 0x28 && op <= 0x3e) { // loads and stores: a memarg
    r.u32();
    r.u32();
    return;
  }
  // Instructions without immediates: control, parametric, numeric.
  if (op <= 0x01 || op === 0x05 || op === 0x0b || op === 0x0f || op === 0x1a || op === 0x1b || (op >= 0x45 && op <= 0xc4) || op === 0xd1) return;
  throw new Error(`jsrun: unknown instruction 0x${op.toString(16)} in the QuickJS module`);
}

// importedCounts counts the imported functions and globals, and finds the
// clock import's function index and type.
function importedCounts(m, [mod, name]) {
  const out = { funcs: 0, globals: 0, clock: -1, clockType: -1 };
  const s = section(m, SEC_IMPORT);
  if (!s) return out;
  const r = new Reader(s.body);
  for (let n = r.u32(); n > 0; n--) {
    const im = r.name();
    const nm = r.name();
    const kind = r.b[r.at++];
    if (kind === 0x00) {
      const type = r.u32();
      if (im === mod && nm === name) {
        out.clock = out.funcs;
        out.clockType = type;
      }
      out.funcs++;
    } else if (kind === 0x01) { // table: reftype, limits
      r.at++;
      skipLimits(r);
    } else if (kind === 0x02) { // memory: limits
      skipLimits(r);
    } else if (kind === 0x03) { // global: valtype, mutability
      r.at += 2;
      out.globals++;
    } else {
      throw new Error(`jsrun: unknown import kind ${kind} in the QuickJS module`);
    }
  }
  return out;
}

function skipLimits(r) {
  const flags = r.b[r.at++];
  r.u32();
  if (flags & 1) r.u32();
}

function readTypes(body) {
  const r = new Reader(body);
  const out = [];
  for (let n = r.u32(); n > 0; n--) {
    if (r.b[r.at++] !== 0x60) throw new Error("jsrun: the QuickJS module has a type that is not a function type");
    const params = [];
    for (let k = r.u32(); k > 0; k--) params.push(r.b[r.at++]);
    const results = [];
    for (let k = r.u32(); k > 0; k--) results.push(r.b[r.at++]);
    out.push({ params, results });
  }
  return out;
}

function parseModule(wasm) {
  const b = new Uint8Array(wasm.buffer ?? wasm, wasm.byteOffset ?? 0, wasm.byteLength);
  if (b[0] !== 0x00 || b[1] !== 0x61 || b[2] !== 0x73 || b[3] !== 0x6d) throw new Error("jsrun: not a wasm module");
  const r = new Reader(b);
  r.at = 8;
  const sections = [];
  while (r.at < b.length) {
    const id = b[r.at++];
    const size = r.u32();
    sections.push({ id, body: b.subarray(r.at, r.at + size) });
    r.at += size;
  }
  return { header: b.subarray(0, 8), sections };
}

function section(m, id) {
  return m.sections.find((s) => s.id === id);
}

function insertSection(m, s) {
  const rank = (id) => ORDER.indexOf(id);
  const at = m.sections.findIndex((x) => x.id !== 0 && rank(x.id) > rank(s.id));
  m.sections.splice(at < 0 ? m.sections.length : at, 0, s);
}

function writeModule(m) {
  return concat(m.header, ...m.sections.flatMap((s) => [Uint8Array.of(s.id), uleb(s.body.length), s.body]));
}

// appendToVec adds items (encoded) to a vector (its count first), counted
// as n items.
function appendToVec(body, items, n = 1) {
  const r = new Reader(body);
  const count = r.u32();
  return concat(uleb(count + n), body.subarray(r.at), items);
}

class Reader {
  constructor(b) {
    this.b = b;
    this.at = 0;
  }

  u32() {
    let v = 0;
    let shift = 0;
    for (;;) {
      const x = this.b[this.at++];
      if (x === undefined) throw new Error("jsrun: the QuickJS module ends inside a number");
      v += (x & 0x7f) * 2 ** shift;
      shift += 7;
      if (!(x & 0x80)) return v;
    }
  }

  // s64 skips a signed LEB128 number.
  s64() {
    while (this.b[this.at++] & 0x80) {
      if (this.at > this.b.length) throw new Error("jsrun: the QuickJS module ends inside a number");
    }
  }

  name() {
    const n = this.u32();
    const s = new TextDecoder().decode(this.b.subarray(this.at, this.at + n));
    this.at += n;
    return s;
  }
}

function uleb(v) {
  const out = [];
  do {
    let x = v & 0x7f;
    v = Math.floor(v / 128);
    if (v !== 0) x |= 0x80;
    out.push(x);
  } while (v !== 0);
  return Uint8Array.from(out);
}

function sleb(v) {
  const out = [];
  for (;;) {
    const x = v & 0x7f;
    v >>= 7;
    if ((v === 0 && !(x & 0x40)) || (v === -1 && x & 0x40)) {
      out.push(x);
      return Uint8Array.from(out);
    }
    out.push(x | 0x80);
  }
}

function f64Bytes(v) {
  const out = new Uint8Array(8);
  new DataView(out.buffer).setFloat64(0, v, true);
  return out;
}

function concat(...parts) {
  let n = 0;
  for (const p of parts) n += p.length;
  const out = new Uint8Array(n);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}
